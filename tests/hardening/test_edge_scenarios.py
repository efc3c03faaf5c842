"""Regression (issue 15): an API-only scenario, a single-workload scenario and a link whose nodes are damaged
open every page without an exception (the Cost per token page's zip() error, the quadrant's log10(0))."""

from __future__ import annotations

import base64
import json
import zlib

import pytest

from economics.io import scenarios
from economics.io.scenarios import PRESET_DIR, default_scenario, load_preset
from tests.ui.helpers import run_page

PAGES = ("1_overview", "2_cost_per_token", "3_break_even", "4_batching", "5_workloads", "6_price_book", "7_reviews")


def _damaged_nodes_token() -> str:
    """The bank with its only node replaced by garbage: salvage drops the node and every option on it."""
    data = json.loads((PRESET_DIR / "singapore-bank.json").read_text(encoding="utf-8"))
    data["nodes"] = [{"id": 7, "kind": "owned", "capex_usd": "lots"}]
    raw = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    return "v1." + base64.urlsafe_b64encode(zlib.compress(raw)).decode().rstrip("=")


def test_the_edge_presets_are_what_they_claim() -> None:
    api_only, single = load_preset("api-only"), load_preset("single-workload")
    assert not api_only.nodes
    assert not api_only.owned_options
    assert len(api_only.workloads) == 5
    assert len(single.workloads) == 1
    assert single.nodes


def test_a_link_with_damaged_nodes_is_salvaged_to_api_only() -> None:
    decoded = scenarios.decode(_damaged_nodes_token(), default_scenario())
    assert decoded.status == "repaired", decoded.messages
    assert not decoded.scenario.nodes
    assert any(m.startswith("nodes.0") for m in decoded.messages), decoded.messages


@pytest.mark.parametrize("case", ["api-only", "single-workload", "damaged-nodes"])
@pytest.mark.parametrize("page", PAGES)
def test_every_page_opens_an_edge_scenario_without_exception(case: str, page: str) -> None:
    token = _damaged_nodes_token() if case == "damaged-nodes" else scenarios.encode(load_preset(case))
    at = run_page(page, query={"s": token})  # run_page asserts no exception after each run
    assert at.title
    if case == "api-only" and page in ("2_cost_per_token", "5_workloads"):
        assert any("no owned or rented" in str(i.value) for i in at.info), [i.value for i in at.info]


@pytest.mark.parametrize("field", ["name", "review_date"])
def test_a_link_missing_a_required_field_says_so(field: str) -> None:
    # Found by the fuzz suite: the fallback's value was used with status "repaired" and no message at all.
    data = json.loads((PRESET_DIR / "batch-shop.json").read_text(encoding="utf-8"))
    del data[field]
    raw = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    decoded = scenarios.decode(
        "v1." + base64.urlsafe_b64encode(zlib.compress(raw)).decode().rstrip("="), default_scenario()
    )
    assert decoded.status == "repaired"
    assert f"{field}: missing; the default scenario's value used" in decoded.messages


@pytest.mark.parametrize("version", [True])  # 1.0 reads as 1, "ok": pydantic takes a whole float for an int
def test_a_link_whose_version_only_equals_1_says_so(version: object) -> None:
    # Found by the long fuzz run (session 39): schema_version `true` failed the whole scenario's validation,
    # every part then validated, and since True == 1 in Python no message named the version: status "repaired"
    # and nothing said what was repaired.
    data = json.loads((PRESET_DIR / "batch-shop.json").read_text(encoding="utf-8"))
    data["schema_version"] = version
    raw = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    decoded = scenarios.decode(
        "v1." + base64.urlsafe_b64encode(zlib.compress(raw)).decode().rstrip("="), default_scenario()
    )
    assert decoded.status == "repaired"
    assert [m for m in decoded.messages if m.startswith(f"schema_version: the scenario has version {version!r}")]
    assert decoded.scenario.name == data["name"]  # the rest of the link is kept
