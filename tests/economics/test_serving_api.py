"""The public serving API stays honest: exported names exist, are documented, and every result field has a unit."""

from __future__ import annotations

import dataclasses
import inspect
import re

import pytest

import economics.serving as serving

RESULTS = [
    serving.ContinuousBatching,
    serving.SloCapacity,
    serving.ReplicaPlan,
    serving.ErlangC,
    serving.StaticBatching,
    serving.ServingShape,
]


def test_all_names_exist() -> None:
    assert len(set(serving.__all__)) == len(serving.__all__)
    for name in serving.__all__:
        assert hasattr(serving, name), name


@pytest.mark.parametrize("name", [n for n in serving.__all__ if inspect.isfunction(getattr(serving, n))])
def test_public_functions_cite_the_spec_and_give_units(name: str) -> None:
    doc = inspect.getdoc(getattr(serving, name)) or ""
    assert "docs/serving.md#" in doc, name
    assert re.search(r"\[[^\]]+\]", doc), f"{name}: no unit in brackets"


@pytest.mark.parametrize("cls", RESULTS, ids=lambda c: c.__name__)
def test_every_result_field_states_its_unit(cls: type) -> None:
    source = inspect.getsource(cls)
    for field in dataclasses.fields(cls):
        line = next(x for x in source.splitlines() if x.strip().startswith(f"{field.name}:"))
        assert re.search(r"#.*\[[^\]]*\]\s*$", line), f"{cls.__name__}.{field.name} has no [unit] comment"
