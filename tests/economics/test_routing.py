"""The router and the decision-flip thresholds (docs/routing.md#routing-rule) on given per-option costs.

Tables are built here with plain arithmetic (R, U and c written out), and every expectation comes from a
brute-force argmin over the option list, never from the router under test.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from economics.flips import (
    api_output_price_flip,
    flip_records,
    node_price_flip,
    quality_gap_flip,
    throughput_flip,
    utilization_flip,
)
from economics.routing import (
    API,
    OWNED_AR,
    OWNED_DIFFUSION,
    ROUTE_LABELS,
    OptionTable,
    allowed_options,
    batchability,
    best_of,
    route,
    route_labels,
)
from tests.strategies import PROPERTIES

PROPS = settings(PROPERTIES, max_examples=60)

# Options: 0 owned AR on node 0, 1 owned diffusion on node 0, 2 owned AR on node 1, 3 frontier API, 4 open API.
KIND = np.array([OWNED_AR, OWNED_DIFFUSION, OWNED_AR, API, API], dtype=np.int8)
NODE = np.array([0, 0, 1, -1, -1], dtype=np.intp)
IS_API = KIND == API


def brute_force(cost, quality, feasible, fail, attempts, tpot) -> list[int]:  # type: ignore[no-untyped-def]
    """Reference router: a Python loop over the options with the docs/quality.md#expected-cost formula written out."""
    chosen = []
    for w in range(len(fail)):
        best: tuple[float, float, bool, int] | None = None
        for o in range(len(KIND)):
            if not feasible[w][o] or not math.isfinite(cost[w][o]):
                continue
            q, m, c = quality[w][o], attempts[w], cost[w][o]
            g = sum((1 - q) ** k for k in range(m))
            j = c * g + (1 - q) ** m * fail[w]
            key = (j, tpot[w][o], bool(IS_API[o]), o)
            if best is None or key < best:
                best = key
        chosen.append(-1 if best is None else best[3])
    return chosen


def owned_cost(fixed: float, variable: float, lam_max: float, lam_avg: float, lam_peak: float, u_t: float) -> tuple:  # type: ignore[type-arg]
    """Dedicated sizing and cost written out: R = ceil(λ_peak/(u·λ_max)), U = λ_avg/(R·λ_max)."""
    r = max(1, math.ceil(lam_peak / (u_t * lam_max) - 1e-9))
    u = lam_avg / (r * lam_max)
    return r * (fixed + variable * u) / (3600 * lam_avg), r, u


@st.composite
def tables(draw: st.DrawFn) -> OptionTable:
    w = draw(st.integers(1, 4))
    pos = st.floats(min_value=0.05, max_value=50)
    fixed = np.array([draw(st.floats(1, 40)) for _ in range(3)] + [0.0, 0.0])
    variable = np.array([draw(st.floats(0, 3)) for _ in range(3)] + [0.0, 0.0])
    out_price = np.array([0.0, 0.0, 0.0, draw(st.floats(1, 75)), draw(st.floats(0.05, 2))])
    in_price = np.array([0.0, 0.0, 0.0, draw(st.floats(0.1, 15)), draw(st.floats(0.05, 1))])
    quality = np.array([draw(st.floats(0.6, 1.0)) for _ in range(5)])
    u_t = 0.8
    cost = np.zeros((w, 5))
    lam_max = np.full((w, 5), np.inf)
    reps = np.zeros((w, 5))
    util = np.zeros((w, 5))
    feasible = np.ones((w, 5), dtype=bool)
    avg, peak, t_out, fail, attempts, sov = [], [], [], [], [], []
    mult = np.ones((w, 5))
    for i in range(w):
        lam_avg = draw(pos)
        lam_peak = lam_avg * draw(st.floats(1, 5))
        tin, tout = draw(st.integers(10, 8000)), draw(st.integers(5, 2000))
        avg.append(lam_avg)
        peak.append(lam_peak)
        t_out.append(float(tout))
        fail.append(draw(st.floats(0, 20)))
        attempts.append(draw(st.integers(1, 3)))
        sov.append(draw(st.booleans()))
        for o in range(3):
            lm = draw(st.floats(0.01, 100))
            c, r, u = owned_cost(fixed[o], variable[o], lm, lam_avg, lam_peak, u_t)
            cost[i, o], lam_max[i, o], reps[i, o], util[i, o] = c, lm, r, u
        for o in (3, 4):
            cost[i, o] = (tin * in_price[o] + tout * out_price[o]) / 1e6
        feasible[i] = [draw(st.booleans()) or o == 0 for o in range(5)]
    allowed = allowed_options(sov, IS_API)
    tpot = np.tile(np.array([0.02, 0.01, 0.03, 0.015, 0.012]), (w, 1))
    return OptionTable(
        option_ids=("ar", "diff", "ar2", "frontier", "open"),
        kind=KIND,
        frontier=np.array([False, False, False, True, False]),
        node_index=NODE,
        node_ids=("n0", "n1"),
        cost_usd=cost,
        quality=np.tile(quality, (w, 1)),
        allowed=allowed,
        feasible=feasible & allowed,
        tpot_s=tpot,
        capacity_requests_per_s=lam_max,
        replicas=reps,
        utilization=util,
        achieved_batch=np.ones((w, 5)),
        replica_fixed_usd_per_hour=fixed,
        replica_variable_usd_per_hour=variable,
        replica_share_of_node=np.array([1.0, 1.0, 0.5, 0.0, 0.0]),
        api_output_usd_per_mtok=out_price,
        api_price_multiplier=mult,
        failure_cost_usd=np.array(fail),
        max_attempts=np.array(attempts, dtype=np.float64),
        avg_requests_per_s=np.array(avg),
        peak_requests_per_s=np.array(peak),
        output_tokens=np.array(t_out),
        sovereign=np.array(sov),
        target_utilization=u_t,
        pooled=False,
        pool_utilization=0.7,
    )


def reference(t: OptionTable) -> list[int]:
    return brute_force(
        t.cost_usd.tolist(),
        t.quality.tolist(),
        t.feasible.tolist(),
        t.failure_cost_usd.tolist(),
        [int(m) for m in t.max_attempts],
        t.tpot_s.tolist(),
    )


# ---- the router ------------------------------------------------------------------------------------------------


@PROPS
@given(t=tables())
def test_router_equals_brute_force_argmin(t: OptionTable) -> None:
    assert t.route().chosen.tolist() == reference(t)


@PROPS
@given(t=tables(), k=st.floats(0.0, 100.0))
def test_sovereign_workloads_go_to_an_owned_option_whatever_the_api_prices(t: OptionTable, k: float) -> None:
    cheap = replace(t, cost_usd=np.where(IS_API, t.cost_usd * k, t.cost_usd), quality=np.where(IS_API, 1.0, t.quality))
    chosen = cheap.route().chosen
    for w in np.nonzero(t.sovereign)[0]:
        assert chosen[w] == -1 or not IS_API[chosen[w]]


@PROPS
@given(t=tables(), extra=st.floats(0.01, 1000.0))
def test_raising_failure_cost_never_moves_to_lower_quality(t: OptionTable, extra: float) -> None:
    before = t.route().chosen
    after = replace(t, failure_cost_usd=t.failure_cost_usd + extra).route().chosen
    for w in range(len(before)):
        if before[w] >= 0 and after[w] >= 0:
            assert t.quality[w, after[w]] >= t.quality[w, before[w]] - 1e-12


@PROPS
@given(t=tables(), k=st.floats(1.0, 50.0))
def test_scaling_owned_cost_up_never_moves_from_api_to_owned(t: OptionTable, k: float) -> None:
    before = t.route().chosen
    after = replace(t, cost_usd=np.where(IS_API, t.cost_usd, t.cost_usd * k)).route().chosen
    for w in range(len(before)):
        if before[w] >= 0 and IS_API[before[w]]:
            assert IS_API[after[w]]


def test_equal_quality_and_dearer_api_means_owned() -> None:
    r = route([[0.004, 0.01]], [0.9, 0.9], [[True, True]], [3.0], [1], [[0.02, 0.01]], [False, True])
    assert r.chosen.tolist() == [0]


def test_ties_go_to_lower_tpot_then_owned() -> None:
    # Same J: lower TPOT wins; with TPOT equal too, the owned option wins.
    r = route(
        [[0.01, 0.01, 0.01]], [0.9, 0.9, 0.9], [[True] * 3], [0.0], [1], [[0.02, 0.01, 0.01]], [False, True, False]
    )
    assert r.chosen.tolist() == [2]
    assert r.runner_up.tolist() == [1]
    assert r.margin_usd.tolist() == [0.0]


def test_nothing_feasible() -> None:
    r = route([[np.inf, 0.01]], [0.9, 0.9], [[False, False]], [1.0], [1], 0.01, [False, True])
    assert r.chosen.tolist() == [-1]
    assert r.runner_up.tolist() == [-1]
    assert not np.isnan(r.margin_usd).any()


@PROPS
@given(
    st.integers(1, 6).flatmap(
        lambda o: st.tuples(
            st.lists(
                st.lists(st.sampled_from([0.01, 0.02, 0.05, np.inf]), min_size=o, max_size=o), min_size=1, max_size=8
            ),
            st.lists(
                st.lists(st.sampled_from([0.01, 0.02, np.inf, np.nan]), min_size=o, max_size=o), min_size=8, max_size=8
            ),
            st.lists(st.booleans(), min_size=o, max_size=o),
            st.lists(st.lists(st.booleans(), min_size=o, max_size=o), min_size=8, max_size=8),
        )
    )
)
def test_route_and_best_of_follow_the_full_order(
    case: tuple[list[list[float]], list[list[float]], list[bool], list[list[bool]]],
) -> None:
    # route() and best_of() pick the first (and second) option without sorting; with ties in J and in TPOT
    # (NaN counts as inf), infinite costs and an owned/API mix, they must agree with the lexsort order of
    # Route.order: chosen = first entry with a finite J, runner-up = the next one, best_of = the first
    # finite entry inside the mask.
    cost, tpot_rows, api, mask_rows = case
    w, o = len(cost), len(cost[0])
    tpot, mask = np.array(tpot_rows[:w]), np.array(mask_rows[:w])
    r = route(cost, np.ones(o), np.ones((w, o), dtype=bool), np.zeros(w), np.ones(w), tpot, api)
    order = r.order(tpot, api)
    for i in range(w):
        finite = [int(k) for k in order[i] if np.isfinite(r.expected_cost_usd[i, k])]
        assert r.chosen[i] == (finite[0] if finite else -1)
        assert r.runner_up[i] == (finite[1] if len(finite) > 1 else -1)
        masked = [k for k in finite if mask[i, k]]
        assert best_of(r.expected_cost_usd, mask, tpot, api)[i] == (masked[0] if masked else -1)


def test_batchability_by_hand() -> None:
    # docs/serving.md#continuous-batching: λ = 0.1 req/s, T_out = 500, 9.65 ms per token → 0.48 sequences in flight.
    assert float(batchability(0.1, 500, 0.00965)) == pytest.approx(0.4825)


def test_labels_follow_the_winner_and_batchability() -> None:
    labels = route_labels([0, 0, 1, 3, 4, -1], KIND, [False, False, False, True, False], [5.0, 0.3, 0.3, 0, 0, 0])
    assert [ROUTE_LABELS[i] for i in labels] == [
        "owned AR (batch)",
        "owned AR",
        "owned diffusion",
        "frontier API",
        "API",
        "none feasible",
    ]


def test_a_winner_on_a_rented_node_is_labelled_rented_not_owned() -> None:
    rented = [True, True, False, False, False]  # options 0 (AR) and 1 (diffusion) run on rented nodes
    frontier = [False, False, False, True, False]
    labels = route_labels([0, 0, 1, 2, 3, -1], KIND, frontier, [5.0, 0.3, 0.3, 0.3, 0, 0], rented)
    assert [ROUTE_LABELS[i] for i in labels] == [
        "rented AR (batch)",
        "rented AR",
        "rented diffusion",
        "owned AR",
        "frontier API",
        "none feasible",
    ]


# ---- flip thresholds: re-route just before and just past each threshold ---------------------------------------


def _reroute_after(t: OptionTable, driver: str, w: int, pivot: int, value: float) -> int:
    """Route workload w with the driver set to ``value``, the costs rewritten by hand."""
    cost, quality = t.cost_usd.copy(), t.quality.copy()
    if driver == "api_output_price":
        cost[w, pivot] += (value - t.api_output_usd_per_mtok[pivot]) * t.output_tokens[w] / 1e6
    elif driver == "node_price":
        fixed, var, share = (
            t.replica_fixed_usd_per_hour[pivot],
            t.replica_variable_usd_per_hour[pivot],
            t.replica_share_of_node[pivot],
        )
        k = value / ((fixed + var * t.utilization[w, pivot]) / share)
        on = NODE[pivot] == NODE
        cost[w, on] *= k
    elif driver == "utilization":
        lam = t.capacity_requests_per_s[w, pivot]
        cost[w, pivot] = (t.replica_fixed_usd_per_hour[pivot] / value + t.replica_variable_usd_per_hour[pivot]) / (
            3600 * lam
        )
    elif driver == "quality_gap":
        api = [o for o in np.argsort(np.arange(5)) if IS_API[o]]
        js = []
        for o in api:  # the reference API is the best feasible API by J
            if t.feasible[w, o]:
                q, m = t.quality[w, o], int(t.max_attempts[w])
                g = sum((1 - q) ** k for k in range(m))
                js.append((cost[w, o] * g + (1 - q) ** m * t.failure_cost_usd[w], t.tpot_s[w, o], o))
        q_ref = t.quality[w, min(js)[2]]
        quality[w, pivot] = q_ref - value
    elif driver == "throughput":
        c, _, _ = owned_cost(
            t.replica_fixed_usd_per_hour[pivot],
            t.replica_variable_usd_per_hour[pivot],
            value,
            t.avg_requests_per_s[w],
            t.peak_requests_per_s[w],
            t.target_utilization,
        )
        cost[w, pivot] = c
    return brute_force(
        cost.tolist(),
        quality.tolist(),
        t.feasible.tolist(),
        t.failure_cost_usd.tolist(),
        [int(m) for m in t.max_attempts],
        t.tpot_s.tolist(),
    )[w]


FLIPS = {
    "api_output_price": api_output_price_flip,
    "node_price": node_price_flip,
    "utilization": utilization_flip,
    "quality_gap": quality_gap_flip,
    "throughput": throughput_flip,
}


@pytest.mark.parametrize("driver", sorted(FLIPS))
@settings(PROPERTIES, max_examples=50)
@given(t=tables())
def test_route_changes_exactly_at_the_flip_threshold(driver: str, t: OptionTable) -> None:
    r = t.route()
    f = FLIPS[driver](t, r)
    for w in range(len(r.chosen)):
        th = float(f.threshold[w])
        if np.isnan(th) or r.chosen[w] < 0:
            continue
        pivot = int(f.pivot[w])
        step = 1e-6 * max(abs(th), 1e-3) + (2e-9 if driver == "quality_gap" else 0.0)
        past = th + step if f.above[w] else th - step
        before = th - step if f.above[w] else th + step
        if driver == "utilization" and (past <= 0 or past > 1 or before <= 0 or before > 1):
            continue
        assert _reroute_after(t, driver, w, pivot, past) == f.new_option[w], (driver, w)
        current = float(f.current[w])
        between_ok = (before - current) * (th - current) >= 0  # `before` lies between now and the threshold
        if between_ok:
            assert _reroute_after(t, driver, w, pivot, before) == r.chosen[w], (driver, w)


def test_flip_records_read_like_sentences() -> None:
    # One workload: owned AR c = $0.004 (q 0.9), frontier API c = $0.0105 (q 0.97), C_fail = $0.05.
    t = OptionTable(
        option_ids=("ar", "api"),
        kind=np.array([OWNED_AR, API], dtype=np.int8),
        frontier=np.array([False, True]),
        node_index=np.array([0, -1], dtype=np.intp),
        node_ids=("n",),
        cost_usd=np.array([[0.004, 0.0105]]),
        quality=np.array([[0.9, 0.97]]),
        allowed=np.ones((1, 2), dtype=bool),
        feasible=np.ones((1, 2), dtype=bool),
        tpot_s=np.array([[0.01, 0.02]]),
        capacity_requests_per_s=np.array([[12.0, np.inf]]),
        replicas=np.array([[1.0, 0.0]]),
        utilization=np.array([[15.23 / (3600 * 12.0 * 0.004)]]).repeat(2, axis=1),
        achieved_batch=np.ones((1, 2)),
        replica_fixed_usd_per_hour=np.array([15.23, 0.0]),
        replica_variable_usd_per_hour=np.zeros(2),
        replica_share_of_node=np.array([1.0, 0.0]),
        api_output_usd_per_mtok=np.array([0.0, 15.0]),
        api_price_multiplier=np.ones((1, 2)),
        failure_cost_usd=np.array([0.05]),
        max_attempts=np.array([1.0]),
        avg_requests_per_s=np.array([12.0 * 15.23 / (3600 * 12.0 * 0.004)]),
        peak_requests_per_s=np.array([1.0]),
        output_tokens=np.array([500.0]),
        sovereign=np.array([False]),
        target_utilization=0.8,
        pooled=False,
        pool_utilization=0.7,
    )
    r = t.route()
    # J_ar = 0.004 + 0.1·0.05 = 0.009 < J_api = 0.0105 + 0.03·0.05 = 0.012: owned AR.
    assert r.chosen.tolist() == [0]
    f = api_output_price_flip(t, r)
    # The API takes over when its J drops by 0.003: 0.003·1e6/500 = $6/Mtok lower, i.e. below $9/Mtok.
    assert float(f.threshold[0]) == pytest.approx(9.0, rel=1e-9)
    recs = flip_records((f,), t.option_ids, ("owned AR", "frontier API"))[0]
    assert recs[0].new_option_id == "api"
    assert recs[0].direction == "below"
    assert "falls below $9/Mtok" in recs[0].text
