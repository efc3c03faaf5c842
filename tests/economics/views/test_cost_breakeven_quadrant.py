"""Cost, break-even and quadrant views on the default scenario: shapes and invariants."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from economics.evaluate import evaluate, evaluate_with_plan
from economics.io.scenarios import PRESET_DIR, default_scenario, load_scenario
from economics.views.breakeven import BreakEvenInputs, break_even_analysis
from economics.views.cost import CostInputs, cost_analysis, cost_at, node_costs, variant_capacities
from economics.views.quadrant import GRID, quadrant


def test_cost_at_is_sorted_and_matches_the_curve_at_full_load() -> None:
    s = default_scenario()
    a = cost_analysis(s, CostInputs(workload_id="onboarding-checks"), variant_capacities(s, "onboarding-checks"))
    rows = cost_at(a, 1.0).rows
    assert [r[2] for r in rows] == sorted(r[2] for r in rows)
    for cv in a.curves:
        if cv.feasible:
            assert (cv.label, cv.kind, float(cv.cost_usd_per_mtok[-1]), "owned") in rows
    assert [n.total_usd_per_hour for n in node_costs(s)] == pytest.approx(
        [sum(v for _, v in n.components_usd_per_hour) for n in node_costs(s)]
    )


def test_break_even_inputs_reject_bad_axes() -> None:
    common = {"workload_id": "w", "option_id": "o", "api_id": "a"}
    with pytest.raises(ValidationError, match="different axes"):
        BreakEvenInputs(**common, x="demand", y="demand")
    with pytest.raises(ValidationError, match="demand sets the utilization"):
        BreakEvenInputs(**common, x="utilization", y="demand")


def test_break_even_map_shape() -> None:
    s = default_scenario()
    inputs = BreakEvenInputs(
        workload_id="onboarding-checks", option_id="owned-70b-ar", api_id="frontier-api", x="api_price", y="demand"
    )
    a = break_even_analysis(s, inputs, variant_capacities(s, inputs.workload_id))
    assert a.owned_over_api.shape == (a.y_values.size, a.x_values.size)
    assert np.all(np.diff(a.curve_api_usd_per_mtok) > 0)


def test_quadrant_places_every_workload() -> None:
    s = default_scenario()
    q = quadrant(s, evaluate(s), "onboarding-checks")
    assert q.labels.shape == (GRID, GRID)
    assert {p.workload_id for p in q.points} == {w.id for w in s.workloads}


def test_break_even_capacity_limit_is_target_over_peak_to_average() -> None:
    # Replicas are sized for the peak with 80% headroom, so the average utilization can reach at most
    # u_target · λ_avg/λ_peak. Onboarding checks: 0.8 · 0.05/0.3 = 0.1333 (the first spec's 1/(p2a·u_target)
    # would say 0.3/(0.05·0.8) → capped at 1.0, i.e. no limit at all).
    s = default_scenario()
    wl = next(w for w in s.workloads if w.id == "onboarding-checks")
    assert (wl.avg_requests_per_s, wl.peak_requests_per_s, s.policy.target_utilization) == (0.05, 0.3, 0.8)
    inputs = BreakEvenInputs(
        workload_id="onboarding-checks", option_id="owned-70b-ar", api_id="frontier-api", x="api_price", y="demand"
    )
    a = break_even_analysis(s, inputs, variant_capacities(s, inputs.workload_id))
    # issue 10: the preset's onboarding follows Singapore business hours (90% of the day's volume in 9 hours),
    # so replicas are sized for the busiest hour, 0.05·24·0.9/9 = 0.12 req/s, not the 0.3 burst
    assert a.max_utilization == pytest.approx(0.8 * 0.05 / (0.05 * 24 * 0.9 / 9), rel=1e-12)


def test_quadrant_on_the_evaluated_plan_equals_one_that_solves_it_again() -> None:
    # the app passes the plan evaluate() solved (one solve per edit); the regions must be the very same
    s = default_scenario()
    result, fleet = evaluate_with_plan(s)
    for w in s.workloads:
        again = quadrant(s, result, w.id)
        reused = quadrant(s, result, w.id, fleet=fleet)
        np.testing.assert_array_equal(reused.labels, again.labels)
        assert reused.label_names == again.label_names
    alone = evaluate(s)
    assert (alone.decisions, alone.options, alone.fleet) == (result.decisions, result.options, result.fleet)


def test_spot_without_a_fallback_is_not_a_cost_curve_for_a_latency_bound_workload() -> None:
    # the rented startup's chat has a latency SLO; AWS spot has no on-demand fallback, so the plan may not use it
    # for the chat (evaluate says why), yet the Cost per token page drew it as the chat's cheapest option
    s = load_scenario(PRESET_DIR / "startup-rented.json")
    r = evaluate(s)
    for w in s.workloads:
        a = cost_analysis(s, CostInputs(workload_id=w.id), variant_capacities(s, w.id))
        plan = {o.option_id: o for o in r.options if o.workload_id == w.id}
        for c in a.curves:
            if "spot" in c.option_id:
                assert c.feasible == plan[c.option_id].feasible, (w.id, c.option_id, c.reason)
                if not c.feasible:
                    assert "on-demand fallback" in c.reason
    chat = cost_analysis(s, CostInputs(workload_id="assistant-chat"), variant_capacities(s, "assistant-chat"))
    assert not any(c.feasible for c in chat.curves if "spot" in c.option_id)
