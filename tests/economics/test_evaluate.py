"""evaluate() and evaluate_grid() on the presets: consistency with hand arithmetic and the router's properties.

Expected values are derived here from the scenario's inputs (node $/h written out, API prices × tokens)
or by a brute-force argmin, never taken from the code under test.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from economics.demand import is_deferrable
from economics.evaluate import evaluate, evaluate_arrays, evaluate_grid
from economics.io.scenarios import PRESET_DIR, default_scenario, load_scenario
from economics.result import Result
from economics.routing import ROUTE_LABELS
from economics.scenario import Scenario
from tests.strategies import FEW

PRESETS = sorted(PRESET_DIR.glob("*.json"))
SLOW = FEW


@pytest.fixture(scope="module")
def bank() -> Scenario:
    return default_scenario()


@pytest.fixture(scope="module")
def bank_result(bank: Scenario) -> Result:
    return evaluate(bank)


def floats(obj: Any) -> list[float]:
    """Every float inside a result (recursively)."""
    if isinstance(obj, float):
        return [obj]
    if isinstance(obj, dict):
        return [x for v in obj.values() for x in floats(v)]
    if isinstance(obj, (list, tuple)):
        return [x for v in obj for x in floats(v)]
    return []


def brute_force_route(result: Result, scenario: Scenario) -> dict[str, str | None]:
    """argmin J over the option list with J = c·g(q, m) + (1 − q)^m·C_fail written out, tie-breaks of
    docs/routing.md#routing-rule."""
    chosen: dict[str, str | None] = {}
    order = [o.id for o in scenario.owned_options] + [a.id for a in scenario.apis]
    for wl in scenario.workloads:
        best: tuple[float, float, bool, int] | None = None
        best_id = None
        for o in result.options:
            if o.workload_id != wl.id or not o.feasible:
                continue
            q, m = o.quality, wl.max_attempts
            j = o.cost_usd_per_request * sum((1 - q) ** k for k in range(m)) + (1 - q) ** m * wl.failure_cost_usd
            key = (j, o.tpot_s, o.kind == "api", order.index(o.option_id))
            if best is None or key < best:
                best, best_id = key, o.option_id
        chosen[wl.id] = best_id
    return chosen


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.stem)
def test_every_preset_evaluates_without_nan_and_explains_infeasibility(path: Any) -> None:
    s = load_scenario(path)
    r = evaluate(s)
    assert not any(math.isnan(x) for x in floats(r.model_dump()))
    assert len(r.options) == len(s.workloads) * (len(s.owned_options) + len(s.apis))
    for o in r.options:
        if o.feasible:
            assert o.reason == ""
            assert math.isfinite(o.cost_usd_per_request)
            assert o.cost_usd_per_request >= 0
        else:
            assert o.reason, (o.workload_id, o.option_id)
            assert o.cost_usd_per_request == math.inf
    assert [d.workload_id for d in r.decisions] == [w.id for w in s.workloads]
    assert r.fleet.total_cost_usd_per_month >= r.fleet.idle_cost_usd_per_month >= 0
    # the stand-alone router (kept as the labelled comparison) is the brute-force argmin over each workload's
    # options priced on their own replicas; the plan's routes are tested in tests/economics/test_plan.py
    ev = evaluate_arrays(s)
    ids = [ev.table.option_ids[i] if i >= 0 else None for i in ev.route.chosen]
    standalone = {w.id: oid for w, oid in zip(s.workloads, ids, strict=True)}
    assert standalone == brute_force_route(r, s)
    # sovereign data never goes to an API
    sovereign = {w.id for w in s.workloads if w.sovereign}
    assert all(d.chosen_kind != "api" for d in r.decisions if d.workload_id in sovereign)


def test_bank_node_cost_and_owned_cost_per_request_by_hand(bank: Scenario, bank_result: Result) -> None:
    # The bank's node: docs/costs.md#node-cost defaults except $0.20/kWh and $250/kW-month (scenario description):
    # capex 280000·CRF(8%, 4 y)/8760 = 9.6502; power 10.2·0.7·1.3·0.20 = 1.8564;
    # facility 250·10.2/730 = 3.4932; ops 0.08·280000/8760 = 2.5571 → $17.557 per node-hour.
    g = 1.08**4
    node_h = 280_000 * 0.08 * g / (g - 1) / 8760 + 10.2 * 0.7 * 1.3 * 0.20 + 250 * 10.2 / 730 + 0.08 * 280_000 / 8760
    assert node_h == pytest.approx(17.557, abs=0.001)
    wl = {w.id: w for w in bank.workloads}
    gpus = {o.id: o.gpus_per_replica for o in bank.owned_options}
    for o in bank_result.options:
        if o.kind == "api" or not o.feasible:
            continue
        # dedicated: R replicas of N/8 of a node, all hours, over λ_avg requests per second
        expected = o.replicas * node_h * gpus[o.option_id] / 8 / (3600 * wl[o.workload_id].avg_requests_per_s)
        assert o.cost_usd_per_request == pytest.approx(expected, rel=1e-9)
        # capacity form (docs/costs.md#cost-per-token (a)) gives the same $/Mtok: C_h/(3600·λ_max·T_out·U)
        per_mtok = (
            1e6
            * node_h
            * gpus[o.option_id]
            / 8
            / (3600 * o.capacity_requests_per_s * wl[o.workload_id].output_tokens * o.utilization)
        )
        assert o.cost_usd_per_mtok_output == pytest.approx(per_mtok, rel=1e-9)


def test_bank_api_costs_by_hand(bank_result: Result) -> None:
    by = {(o.workload_id, o.option_id): o for o in bank_result.options}
    # Mercury 2 at $0.25/$0.75 per Mtok, 1500 in / 40 out: 375 + 30 µ$.
    assert by["code-completion", "mercury-api"].cost_usd_per_request == pytest.approx(405e-6, rel=1e-12)
    # Claude Sonnet 4.5 at $3/$15, 8000 in / 1000 out: 0.024 + 0.015 (docs/quality.md#expected-cost $0.0390).
    assert by["analyst-research", "frontier-api"].cost_usd_per_request == pytest.approx(0.039, rel=1e-12)
    # its expected cost with q = 0.95 and C_fail = $20: 0.039 + 0.05·20.
    assert by["analyst-research", "frontier-api"].expected_cost_usd_per_request == pytest.approx(1.039, rel=1e-12)


def test_bank_routes_tell_the_essays_story(bank_result: Result) -> None:
    d = {x.workload_id: x for x in bank_result.decisions}
    assert d["analyst-research"].route_label == "frontier API"
    assert d["kyc-overnight"].route_label == "owned AR (batch)"
    for w in ("onboarding-checks", "lc-clearing"):
        assert d[w].chosen_kind in ("owned-ar", "owned-diffusion")
        assert d[w].batchability < 1  # latency-bound: no batch forms
    f = bank_result.fleet
    assert f.owned_nodes == 1
    assert f.owned_gpus == 8
    assert f.owned_utilization < 0.5
    # idle cost = the owned bill × (1 − utilization)
    assert f.idle_cost_usd_per_month == pytest.approx(f.owned_cost_usd_per_month * (1 - f.owned_utilization), rel=1e-9)


def test_monthly_costs_add_up(bank_result: Result) -> None:
    f = bank_result.fleet
    assert f.total_cost_usd_per_month == pytest.approx(
        f.owned_cost_usd_per_month + f.rented_cost_usd_per_month + f.api_cost_usd_per_month
    )
    api_routes = sum(d.monthly_cost_usd for d in bank_result.decisions if d.chosen_kind == "api")
    assert f.api_cost_usd_per_month == pytest.approx(api_routes)


# ---- the all-API baseline -------------------------------------------------------------------------------------
# Hand arithmetic for the bank's two non-sovereign workloads on the API the router would pick among APIs
# (lowest expected cost per task J = c + (1 − q)·C_fail, so quality counts; a month is 730 h):
#   code completion, 1500 in / 40 out at 0.5 req/s: only Mercury meets TTFT ≤ 0.3 s (frontier 0.8 s, hosted
#     0.5 s): (1500·0.25 + 40·0.75)/1e6 = $405e-6 per request × 0.5 × 3600 × 730 = $532.17 per month;
#   analyst research, 8000 in / 1000 out at 0.02 req/s, C_fail = $20: all three meet TTFT ≤ 10 s;
#     frontier c = (8000·3 + 1000·15)/1e6 = $0.039, q = 0.95 → J = 0.039 + 0.05·20 = $1.039;
#     hosted c = $0.00792, q = 0.75 → J = $5.008; Mercury c = $0.00275, q = 0.60 → J = $8.003.
#     Frontier wins: $0.039 × 0.02 × 3600 × 730 = $2,049.84 per month (the cheapest-by-price API would be
#     Mercury at $144.54, which would make a quality-driven route look like a loss).
MOVABLE_TO_API = 405e-6 * 0.5 * 3600 * 730 + 0.039 * 0.02 * 3600 * 730  # $2,582.01 per month


def _without_sovereignty(s: Scenario, *, nodes_owned: int) -> Scenario:
    """The bank's two non-sovereign workloads alone, with ``nodes_owned`` nodes bought."""
    workloads = tuple(w for w in s.workloads if not w.sovereign)
    nodes = tuple(n.model_copy(update={"nodes_owned": nodes_owned}) for n in s.nodes)
    return s.model_copy(update={"workloads": workloads, "nodes": nodes})


def test_all_api_baseline_saves_nothing_when_every_workload_is_sovereign(bank: Scenario) -> None:
    # Nothing may move to an API, so the baseline is the plan itself: same routes, same shared replicas, same
    # owned fleet. Savings are exactly 0 (the old baseline charged each workload its stand-alone owned cost).
    s = bank.model_copy(update={"workloads": tuple(w.model_copy(update={"sovereign": True}) for w in bank.workloads)})
    f = evaluate(s).fleet
    assert f.all_api_cost_usd_per_month is not None
    assert f.all_api_cost_usd_per_month - f.total_cost_usd_per_month == 0.0


def test_all_api_baseline_without_sovereign_work_is_the_best_apis_by_hand(bank: Scenario) -> None:
    assert round(MOVABLE_TO_API, 2) == 2582.01
    f = evaluate(_without_sovereignty(bank, nodes_owned=0)).fleet
    assert f.all_api_cost_usd_per_month == pytest.approx(MOVABLE_TO_API, rel=1e-12)
    # A bought node is sunk in the cash lens: the baseline pays only the APIs, and the plan puts code completion
    # on the idle node (free but for power above idle, 0 here), so it saves Mercury's bill for it.
    bought = evaluate(_without_sovereignty(bank, nodes_owned=1))
    assert bought.fleet.all_api_cost_usd_per_month == pytest.approx(MOVABLE_TO_API, rel=1e-12)
    assert bought.fleet.owned_cost_usd_per_month == 0.0
    assert bought.plan is not None
    assert bought.plan.sunk_usd_per_month > 0
    # In the full-cost lens the bought node is paid in the plan and in the baseline alike.
    full = _without_sovereignty(bank, nodes_owned=1)
    full = full.model_copy(update={"policy": full.policy.model_copy(update={"lens": "full"})})
    ff = evaluate(full)
    assert ff.plan is not None
    assert ff.fleet.all_api_cost_usd_per_month == pytest.approx(MOVABLE_TO_API + ff.plan.sunk_usd_per_month, rel=1e-9)


def test_all_api_baseline_of_the_bank_keeps_the_sovereign_fleet(bank_result: Result) -> None:
    # The three sovereign workloads stay on the owned node (sunk: $0 in the cash lens); in the baseline the two
    # others go to the API the router picks among APIs: Mercury for code completion, the frontier API for
    # research. The plan puts code completion on the idle node instead, so it saves exactly Mercury's bill.
    f = bank_result.fleet
    assert f.all_api_cost_usd_per_month == pytest.approx(MOVABLE_TO_API, rel=1e-12)
    d = {x.workload_id: x for x in bank_result.decisions}
    assert d["kyc-overnight"].all_api_monthly_cost_usd is None
    assert d["kyc-overnight"].savings_vs_api_usd_per_month is None
    assert d["analyst-research"].all_api_monthly_cost_usd == pytest.approx(0.039 * 0.02 * 3600 * 730, rel=1e-12)
    assert d["code-completion"].chosen_option_id == "owned-70b-ar"
    moved = sum(x.savings_vs_api_usd_per_month or 0.0 for x in bank_result.decisions)
    assert f.all_api_cost_usd_per_month - f.total_cost_usd_per_month == pytest.approx(moved, rel=1e-9)


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.stem)
@pytest.mark.parametrize("lens", ["cash", "full"])
def test_baseline_shares_add_up_to_the_all_api_baseline(path: Any, lens: str) -> None:
    # Each card and the monthly chart show a workload's share of the baseline; the shares and the bought nodes
    # the baseline leaves idle make its headline, so the cards' differences add up to the savings card.
    s = load_scenario(path)
    s = s.model_copy(update={"policy": s.policy.model_copy(update={"lens": lens})})
    r = evaluate(s)
    if r.fleet.all_api_cost_usd_per_month is None:
        assert all(d.baseline_share_usd_per_month is None for d in r.decisions)
        return
    assert r.plan is not None
    shares = [d.baseline_share_usd_per_month for d in r.decisions if d.chosen_option_id is not None]
    assert None not in shares
    total = math.fsum(x for x in shares if x is not None) + r.plan.baseline_unallocated_usd_per_month
    assert total == pytest.approx(r.fleet.all_api_cost_usd_per_month, rel=1e-9, abs=1e-6)
    for d in r.decisions:
        if d.all_api_monthly_cost_usd is not None:  # an API may serve it: its share is that API's bill
            assert d.baseline_share_usd_per_month == d.all_api_monthly_cost_usd


# ---- properties at scenario level ----------------------------------------------------------------------------


def with_api_prices(s: Scenario, k: float) -> Scenario:
    apis = [
        a.model_copy(
            update={
                "input_usd_per_mtok": a.input_usd_per_mtok * k,
                "output_usd_per_mtok": a.output_usd_per_mtok * k,
                "cached_input_usd_per_mtok": None,
            }
        )
        for a in s.apis
    ]
    return s.model_copy(update={"apis": tuple(apis)})


def test_a_route_on_rented_gpus_says_rented_in_the_decisions_and_the_quadrant() -> None:
    # the startup rents all its GPUs; with APIs at 100× list, every workload moves to a rented option
    s = with_api_prices(load_scenario(PRESET_DIR / "startup-rented.json"), 100.0)
    r = evaluate(s)
    rented_nodes = {n.id for n in s.nodes if n.kind == "rented"}
    assert rented_nodes == {n.id for n in s.nodes}
    assert all(d.chosen_kind in ("owned-ar", "owned-diffusion") for d in r.decisions)
    assert {d.route_label for d in r.decisions} <= {"rented AR (batch)", "rented AR", "rented diffusion"}
    w = s.workloads[0]
    scale = (0.1, 1.0, 10.0)
    g = evaluate_grid(s, w.id, [w.avg_requests_per_s * k for k in scale], [w.failure_cost_usd * k for k in scale])
    names = {ROUTE_LABELS[int(v)] for v in np.unique(g.label)}
    assert not any(n.startswith("owned") for n in names)


@SLOW
@given(k=st.floats(min_value=1e-4, max_value=0.1))
def test_sovereign_workloads_stay_owned_however_cheap_the_apis(bank: Scenario, k: float) -> None:
    r = evaluate(with_api_prices(bank, k))
    sovereign = {w.id for w in bank.workloads if w.sovereign}
    assert all(d.chosen_kind != "api" for d in r.decisions if d.workload_id in sovereign)


@SLOW
@given(k=st.floats(min_value=1.0, max_value=20.0))
def test_dearer_owned_nodes_never_move_a_workload_from_api_to_owned(bank: Scenario, k: float) -> None:
    before = {d.workload_id: d.chosen_kind for d in evaluate(bank).decisions}
    nodes = tuple(
        n.model_copy(update={"capex_usd": n.capex_usd * k, "ops_fixed_usd_per_hour": 5.0 * (k - 1)}) for n in bank.nodes
    )  # type: ignore[union-attr]
    after = {d.workload_id: d.chosen_kind for d in evaluate(bank.model_copy(update={"nodes": nodes})).decisions}
    for w, kind in before.items():
        if kind == "api":
            assert after[w] == "api"


@SLOW
@given(extra=st.floats(min_value=0.01, max_value=1000.0))
def test_higher_failure_cost_never_picks_a_lower_quality_option(bank: Scenario, extra: float) -> None:
    r0 = evaluate(bank)
    wls = tuple(w.model_copy(update={"failure_cost_usd": w.failure_cost_usd + extra}) for w in bank.workloads)
    r1 = evaluate(bank.model_copy(update={"workloads": wls}))
    q0 = {(o.workload_id, o.option_id): o.quality for o in r0.options}
    for d0, d1 in zip(r0.decisions, r1.decisions, strict=True):
        assert d0.chosen_option_id is not None
        assert d1.chosen_option_id is not None
        assert q0[d1.workload_id, d1.chosen_option_id] >= q0[d0.workload_id, d0.chosen_option_id]


def test_a_trickle_of_demand_goes_to_the_api_when_owned_capacity_must_be_bought(bank: Scenario) -> None:
    # No node bought and no sovereign work: owned capacity would cost a whole node for a trickle, so the API wins.
    s = _without_sovereignty(bank, nodes_owned=0)
    wls = tuple(
        w.model_copy(update={"avg_requests_per_s": 1e-6, "peak_requests_per_s": 1e-6})
        if w.id == "code-completion"
        else w
        for w in s.workloads
    )
    r = evaluate(s.model_copy(update={"workloads": wls}))
    d = next(x for x in r.decisions if x.workload_id == "code-completion")
    assert d.chosen_kind == "api"


def test_pooled_mode_evaluates(bank: Scenario) -> None:
    pooled = bank.model_copy(update={"policy": bank.policy.model_copy(update={"cost_mode": "pooled"})})
    r = evaluate(pooled)
    assert not any(math.isnan(x) for x in floats(r.model_dump()))


# ---- the grid ---------------------------------------------------------------------------------------------------


def test_grid_agrees_with_evaluate_at_the_workloads_own_point(bank: Scenario, bank_result: Result) -> None:
    standalone = evaluate_arrays(bank)
    for i, wl in enumerate(bank.workloads):
        # on the plan's marginal costs (default) the grid's cell at the workload's own point is the plan's route
        g = evaluate_grid(bank, wl.id, [wl.avg_requests_per_s], [wl.failure_cost_usd])
        d = next(x for x in bank_result.decisions if x.workload_id == wl.id)
        chosen = int(g.chosen[0, 0])
        assert (g.option_ids[chosen] if chosen >= 0 else None) == d.chosen_option_id
        assert ROUTE_LABELS[int(g.label[0, 0])] == d.route_label
        # stand-alone, it is the stand-alone router's
        g = evaluate_grid(bank, wl.id, [wl.avg_requests_per_s], [wl.failure_cost_usd], basis="standalone")
        assert int(g.chosen[0, 0]) == int(standalone.route.chosen[i])


def test_grid_regions_move_the_way_the_quadrant_says(bank: Scenario) -> None:
    x = np.geomspace(1e-3, 50, 40)
    y = np.geomspace(1e-3, 1e3, 30)
    g = evaluate_grid(bank, "analyst-research", x, y)
    assert g.chosen.shape == (30, 40)
    assert not np.isnan(g.expected_cost_usd).any()
    frontier = g.option_ids.index("frontier-api")
    # at the highest value per token the frontier API wins at every demand
    assert (g.chosen[-1] == frontier).all()
    # raising the failure cost never moves a point to a lower-quality option
    q = np.array([0.75, 0.55, 0.45, 0.95, 0.75, 0.6])  # the workload's quality overrides, in option order
    assert (np.diff(q[g.chosen], axis=0) >= -1e-12).all()


def test_grid_rejects_bad_axes(bank: Scenario) -> None:
    with pytest.raises(ValueError, match="unknown workload"):
        evaluate_grid(bank, "nope", [1.0], [1.0])
    with pytest.raises(ValueError, match="avg_requests_per_s"):
        evaluate_grid(bank, "kyc-overnight", [0.0], [1.0])


def test_batchability_is_peak_times_output_times_batch1_tpot(bank: Scenario, bank_result: Result) -> None:
    # β = λ_peak·T_out·TPOT_AR(1) (docs/routing.md#routing-rule) with TPOT(1) one plain-AR pass of the 70B at batch 1
    # and the mean context T_in + T_out/2, from the roofline directly. The first spec's extra "/e" is not applied (spec
    # error).
    from economics.hardware import Deployment
    from economics.roofline import forward_time

    model = bank.model("llama-3.1-70b")
    dep = Deployment(gpu=bank.gpu("h100-sxm"), n_gpus=8)
    decisions = {d.workload_id: d for d in bank_result.decisions}
    for wl in bank.workloads:
        if wl.id == "code-completion":  # its best owned AR option is the 8B
            continue
        t1 = float(forward_time(model, dep, bank.efficiency, 1, 1, wl.input_tokens + wl.output_tokens / 2).time_s)
        # with a day profile the rate is the busiest hour's (issue 10): the KYC batch's day volume λ_avg·24 h
        # spread over its 8-hour night window; onboarding and LC clearing have 90% of it in 9 business hours
        prof = wl.demand_profile
        if prof is None:
            rate = wl.avg_requests_per_s if is_deferrable(wl) else wl.peak_requests_per_s
        elif prof.shape == "night_window":
            rate = wl.avg_requests_per_s * 24 / 8
        else:
            rate = wl.avg_requests_per_s * 24 * 0.9 / 9
        assert decisions[wl.id].batchability == pytest.approx(rate * wl.output_tokens * t1, rel=1e-9)


def test_break_even_demand_by_hand(bank_result: Result) -> None:
    # λ* = R·C_replica/(3600·c_api) (docs/costs.md#break-even, flat power). Code completion: best owned is the 8B on one
    # GPU (R = 1, $17.557/8 per hour) against Mercury at $0.000405 per request → 1.505 req/s.
    node_h = 17.557
    d = {x.workload_id: x for x in bank_result.decisions}
    assert d["code-completion"].break_even_demand_requests_per_s == pytest.approx(
        node_h / 8 / (3600 * 405e-6), rel=1e-4
    )
    # Analyst: the 70B on the whole node against the frontier API at $0.039 → 0.125 req/s.
    assert d["analyst-research"].break_even_demand_requests_per_s == pytest.approx(node_h / (3600 * 0.039), rel=1e-4)
    # Sovereign workloads have no API to break even against.
    assert d["kyc-overnight"].break_even_demand_requests_per_s is None


def test_reasons_name_rented_capacity_and_an_api_only_scenario_in_its_own_words() -> None:
    rented = load_scenario(PRESET_DIR / "startup-rented.json")
    reasons = [d.reason for d in evaluate(rented).decisions]
    assert not any("owned capacity" in t for t in reasons), reasons
    assert any("rented capacity" in t for t in reasons), reasons
    api_only = load_scenario(PRESET_DIR / "api-only.json")
    assert all(d.reason.startswith("The scenario has no GPUs") for d in evaluate(api_only).decisions)


def test_a_reason_splits_the_expected_cost_into_paid_and_failed_tasks(bank: Scenario, bank_result: Result) -> None:
    # J of $0.20 a task beside a $0 monthly bill read as a contradiction: the reason says what of it is the
    # expected cost of failed tasks, (1 − q)·C_fail with one attempt, and what that is a month (730 h).
    split = re.compile(
        r"J = \$([\d.,]+)/task on .*? \(\$([\d.,]+) paid to run it, \$([\d.,]+) expected cost of its failed "
        r"tasks: \$([\d,]+) a month, not in the bill\)"
    )
    quality = {(o.workload_id, o.option_id): o.quality for o in bank_result.options}
    checked = 0
    for w, d in zip(bank.workloads, bank_result.decisions, strict=True):
        assert w.max_attempts == 1
        m = split.search(d.reason)
        assert m is not None, d.reason
        j, paid, err, month = (float(g.replace(",", "")) for g in m.groups())
        q = quality[(w.id, d.chosen_option_id)]
        assert err == pytest.approx((1 - q) * w.failure_cost_usd, rel=1e-3)
        assert month == pytest.approx((1 - q) * w.failure_cost_usd * w.avg_requests_per_s * 730 * 3600, abs=1)
        assert paid + err == pytest.approx(j, rel=1e-3, abs=1e-6)
        # they line up; nothing paid is "$0" (it read "$0.0000" in dollars and "S$0" in Singapore dollars)
        assert m.group(2) == "0" or len(m.group(2).partition(".")[2]) == len(m.group(3).partition(".")[2]), d.reason
        assert (m.group(2) == "0") == (paid == 0), d.reason
        checked += 1
    assert checked == len(bank.workloads)
    # the bought node is sunk in the cash lens: its routes pay nothing more to run
    assert any("($0 paid to run it" in d.reason for d in bank_result.decisions)


def test_the_paid_and_failed_parts_of_a_task_are_written_alike() -> None:
    # the rented preset's chat read "$0.005375 paid to run it, $0.004 expected cost of its failed tasks", and a
    # batch-shop card "$0.003385 paid …, $0.1 expected …": two amounts that add up, in two precisions
    rented = load_scenario(PRESET_DIR / "startup-rented.json")
    reasons = " ".join(d.reason for d in evaluate(rented).decisions)
    parts = re.findall(r"\(\$(0\.\d+) paid to run it, \$(0\.\d+) expected cost", reasons)
    assert parts, reasons
    assert ("0.005375", "0.004000") in parts  # 0.009375 a task on GPT-5: (1 − 0.96) × $0.10 failure cost
    assert all(len(a) == len(b) for a, b in parts), parts
    # the batch shop's $0.000423 a task beside $0.005: alike, and no more than six decimals (not "$0.0004230")
    shop = " ".join(d.reason for d in evaluate(load_scenario(PRESET_DIR / "batch-shop.json")).decisions)
    small = re.findall(r"\(\$(0\.\d+) paid to run it, \$(0\.\d+) expected cost", shop)
    assert ("0.000423", "0.005000") in small
    assert all(len(a) == len(b) <= len("0.") + 6 for a, b in small), small
    # as precise as the cost they add up to: $0.1034 a task is $0.0034 paid and $0.1000 of failed tasks (0.1 × $1
    # failure cost), not "$0.003385 …, $0.100000"
    assert ("0.0034", "0.1000") in small


def test_a_route_left_for_an_api_says_which_part_of_the_owned_cost_outweighs_it(bank_result: Result) -> None:
    # "(replicas or nodes it would need, or failures)" left a reader with an idle fleet guessing. The bank's analyst
    # research costs $20 a failed task and fails more often on the owned 70B model than on the frontier API (its
    # quality is lower): the failures dominate. The startup's agent steps cost $1 a failed task, cents a task run
    # on the frontier API, against the rented GPUs' hours: the capacity dominates.
    research = next(d for d in bank_result.decisions if d.workload_name.startswith("Analyst research"))
    assert "would cost the plan more than the API's bill: mostly the expected cost of its failed tasks there (" in (
        research.reason
    )
    startup = evaluate(load_scenario(PRESET_DIR / "startup-rented.json"))
    agent = next(d for d in startup.decisions if d.workload_name.startswith("Agent tool-calling"))
    assert "would cost the plan more than the API's bill: mostly the replicas or nodes it would need there" in (
        agent.reason
    )
