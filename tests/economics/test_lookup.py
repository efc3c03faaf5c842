"""Scenario lookups by id raise :class:`UnknownOptionError` (a KeyError naming the kind and the id), never a bare
StopIteration: one test per kind of item, through the path that looks it up."""

from __future__ import annotations

import pytest

from economics import UnknownOptionError, by_id
from economics.evaluate import evaluate
from economics.io.scenarios import default_scenario
from economics.views.breakeven import BreakEvenInputs, break_even_analysis
from economics.views.quadrant import quadrant

S = default_scenario()


def _raises(kind: str, item_id: str) -> pytest.ExceptionInfo[UnknownOptionError]:
    return pytest.raises(UnknownOptionError, match=rf"unknown {kind} id '{item_id}'")


def test_gpu() -> None:
    with _raises("GPU", "no-such-gpu") as info:
        S.gpu("no-such-gpu")
    assert (info.value.kind, info.value.item_id) == ("GPU", "no-such-gpu")
    assert S.gpus[0].id in info.value.known  # the ids that do exist are named


def test_model() -> None:
    with _raises("model", "no-such-model"):
        S.model("no-such-model")


def test_node() -> None:
    with _raises("node", "no-such-node"):
        S.node("no-such-node")


def test_workload_through_a_page_view() -> None:
    with _raises("workload", "gone"):
        quadrant(S, evaluate(S), "gone")


def test_owned_option_and_api_through_the_break_even_view() -> None:
    ids = {"workload_id": S.workloads[0].id, "option_id": S.owned_options[0].id, "api_id": S.apis[0].id}
    axes = {"x": "utilization", "y": "api_price"}
    with _raises("owned option", "gone"):
        break_even_analysis(S, BreakEvenInputs.model_validate({**ids, **axes, "option_id": "gone"}), ())
    with _raises("API", "gone"):
        break_even_analysis(S, BreakEvenInputs.model_validate({**ids, **axes, "api_id": "gone"}), ())


def test_it_is_a_key_error_and_finds_what_exists() -> None:
    assert issubclass(UnknownOptionError, KeyError)
    assert by_id(S.apis, S.apis[-1].id, "API") is S.apis[-1]
    with pytest.raises(KeyError):
        by_id((), "x", "workload")
