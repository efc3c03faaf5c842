"""The pages' cached entry points (:mod:`ui.compute`): what is computed, and what is reused."""

from __future__ import annotations

from economics.evaluate import evaluate as evaluate_scenario
from economics.io.scenarios import canonical_json, default_scenario
from ui import compute


def test_pages_get_results_without_flips_and_the_reviews_page_with_them() -> None:
    s = default_scenario()
    lazy, full = compute.evaluate(s), compute.evaluate(s, flips=True)
    assert all(d.flips == () for d in lazy.decisions)
    assert [d.flips for d in full.decisions] == [d.flips for d in evaluate_scenario(s).decisions]
    assert lazy.plan.total_cost_usd_per_month == full.plan.total_cost_usd_per_month
    assert compute.evaluate(s) is lazy  # cached, one result per kind
    assert compute.evaluate(s, flips=True) is full


def test_the_scenario_key_is_its_canonical_json_and_follows_an_equal_copy() -> None:
    s = default_scenario()
    copy = s.model_copy(update={"name": s.name})  # equal content, another object
    assert compute.scenario_key(s) == canonical_json(s)
    assert compute.scenario_key(s) is compute.scenario_key(s)  # written once per object
    assert compute.scenario_key(copy) == compute.scenario_key(s)
    edited = s.model_copy(update={"name": "Edited"})
    assert compute.scenario_key(edited) == canonical_json(edited) != compute.scenario_key(s)
