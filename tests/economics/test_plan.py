"""The fleet MIP on hand-solvable fleets (economics.plan): optimum derived in each test's comment.

The problems are built by hand (capacities given, not computed), so each optimum can be checked with pencil
and paper. A month is 730 h, so one request per second for a month is 2,628,000 requests.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given

from economics.plan import PlanProblem, PlanSolution, counts, money_usd_per_month, solve_plan
from tests.strategies import PROPERTIES, plan_problems

MONTH_S = 730 * 3600  # 2,628,000 s
NODE = 10_000.0  # one owned node, capital recovery + fixed costs [USD/month]


def problem(**kw: Any) -> PlanProblem:
    """Two workloads; options: 0 = owned 8-GPU replica (10 req/s SLO capacity), 1 = an API at $0.001/request.
    Workload 0 is sovereign (the API not allowed). One owned node offer of 8 GPUs, one node bought."""
    base: dict[str, Any] = dict(
        allowed=np.array([[True, False], [True, True]]),
        is_api=np.array([False, True]),
        api_cost_usd=np.array([[0.0, 0.001], [0.0, 0.001]]),
        attempts=np.ones((2, 2)),
        failure_usd=np.zeros((2, 2)),
        capacity_requests_per_s=np.array([[10.0, np.inf], [10.0, np.inf]]),
        option_node=np.array([0, -1]),
        gpus_per_replica=np.array([8.0, 0.0]),
        replica_variable_usd_per_hour=np.zeros(2),
        unit_gpus=np.array([8.0]),
        unit_usd_per_month=np.array([NODE]),
        min_units=np.array([1.0]),
        capacity_rate=np.array([[1.0], [2.0]]),
        bill_rate=np.array([[1.0], [2.0]]),
        deferrable=np.array([False, False]),
        window=np.ones((2, 1), dtype=bool),
        split=np.array([False, False]),
        target_utilization=0.8,
        time_limit_s=10.0,
    )
    base.update(kw)
    return PlanProblem(**base)


def money(p: PlanProblem, sol: PlanSolution) -> float:
    return money_usd_per_month(p, sol.share, sol.units)


def test_idle_sunk_node_carries_the_non_sovereign_chat_in_the_cash_lens() -> None:
    # Cash lens: the bought node (min 1) is sunk. Load on one replica: (1 + 2)/(0.8·10) = 0.375 ≤ 1, so the chat
    # rides free on the node: money = 1 node × $10,000 (the constant the cash lens then removes) and no API
    # bill. On the API it would add 2·2,628,000·$0.001 = $5,256.
    p = problem()
    sol = solve_plan(p)
    assert sol.status == "optimal"
    assert sol.share[1, 0, 0] == 1.0
    assert sol.replicas[0] == 1
    assert sol.units[0] == 1
    assert money(p, sol) == pytest.approx(NODE)


def test_full_lens_without_a_bound_still_uses_the_node_the_sovereign_work_needs() -> None:
    # Full lens (no lower bound): the sovereign workload needs one node ($10,000) whatever; the chat then fits
    # in its spare capacity for free, so the optimum is the same routes at $10,000.
    p = problem(min_units=np.array([0.0]))
    sol = solve_plan(p)
    assert sol.share[:, 0, 0].tolist() == [1.0, 1.0]
    assert money(p, sol) == pytest.approx(NODE)


def test_full_lens_leaves_an_unneeded_bought_node_and_sends_the_chat_to_the_api() -> None:
    # Only the chat (workload 0 made API-allowed and tiny is removed): owned costs a node, $10,000, the API
    # $5,256. Full lens: the API. Cash lens with the node bought: the node (sunk, $0 more).
    allowed = np.array([[False, False], [True, True]])
    full = problem(allowed=allowed, min_units=np.array([0.0]))
    sol = solve_plan(full)
    assert sol.share[1, 1, 0] == 1.0
    assert sol.units[0] == 0
    assert money(full, sol) == pytest.approx(2 * MONTH_S * 0.001)
    cash = solve_plan(problem(allowed=allowed))
    assert cash.share[1, 0, 0] == 1.0


@pytest.mark.parametrize(("price", "buys"), [(0.001, True), (0.0003, False)])
def test_a_second_node_is_bought_only_when_the_total_says_it_pays(price: float, buys: bool) -> None:
    # Chat at 10 req/s: (1 + 10)/8 = 1.375 replicas → 2 replicas → 2 nodes (+$10,000) if it goes owned.
    # On the API: 10·2,628,000·price = $26,280 at $0.001 (buy the node) or $7,884 at $0.0003 (stay on the API).
    p = problem(
        capacity_rate=np.array([[1.0], [10.0]]),
        bill_rate=np.array([[1.0], [10.0]]),
        api_cost_usd=np.array([[0.0, price], [0.0, price]]),
    )
    sol = solve_plan(p)
    assert bool(sol.units[0] == 2) is buys
    expected = 2 * NODE if buys else NODE + 10 * MONTH_S * price
    assert money(p, sol) == pytest.approx(expected)


def test_retries_are_in_the_bill_and_in_the_capacity() -> None:
    # The chat on the API only (owned not allowed) with q = 0.5, m = 2: g = 1 + 0.5 = 1.5 attempts per task, so
    # the API bill is 1.5 × 2 × 2,628,000 × $0.001 = $7,884. Owned with g = 3 for workload 0: its load is
    # 3·1/(0.8·10) = 0.375 replicas — still one.
    p = problem(
        allowed=np.array([[True, False], [False, True]]),
        attempts=np.array([[3.0, 1.0], [1.0, 1.5]]),
    )
    sol = solve_plan(p)
    assert money(p, sol) - NODE == pytest.approx(1.5 * 2 * MONTH_S * 0.001)
    # at g = 9 workload 0 needs 9/8 = 1.125 → 2 replicas → 2 nodes
    p9 = problem(allowed=np.array([[True, False], [False, True]]), attempts=np.array([[9.0, 1.0], [1.0, 1.5]]))
    assert solve_plan(p9).units[0] == 2


def _day(first: float, second: float) -> np.ndarray:
    return np.array([first] * 12 + [second] * 12)


def test_split_base_load_on_owned_peak_hours_on_the_api() -> None:
    # Chat: 2 req/s for 12 hours, 8 req/s for 12 hours; sovereign workload: 1 req/s all day. One replica holds
    # 0.8·10 = 8 req/s: spare 7 after the sovereign work. Split hour by hour: 7 on owned and 1 on the API in
    # the busy hours, all owned in the quiet ones. API: 1 req/s for half the month = 1,314,000 × $0.001 = $1,314.
    # (Without the split: all owned needs (1 + 8)/8 → 2 nodes (+$10,000), all on the API 5 req/s on average
    # = $13,140; both dearer.)
    rate = np.stack([np.ones(24), _day(8.0, 2.0)])
    p = problem(capacity_rate=rate, bill_rate=rate, window=np.ones((2, 24), dtype=bool), split=np.array([False, True]))
    sol = solve_plan(p)
    assert sol.units[0] == 1
    assert money(p, sol) - NODE == pytest.approx(MONTH_S / 2 * 0.001, rel=1e-6)
    assert sol.share[1, 1, :12] == pytest.approx(np.full(12, 1 / 8), rel=1e-6)
    assert sol.share[1, 1, 12:] == pytest.approx(np.zeros(12), abs=1e-9)
    binary = solve_plan(problem(capacity_rate=rate, bill_rate=rate, window=np.ones((2, 24), dtype=bool)))
    assert money(p, sol) < money(p, binary)


def test_a_deadline_batch_sits_in_the_trough() -> None:
    # Workload 0: 6 req/s in hours 0–11, nothing in 12–23 (interactive). Workload 1: a deferrable batch of
    # 3 req/s on average (72 req/s·h a day), window all day. Following its demand, hours 0–11 would carry
    # 6 + 3 = 9 > 8 → 2 replicas (2 nodes). In the trough: 12 quiet hours × 8 = 96 ≥ 72 (and 2 req/s spare in
    # the busy hours), so one replica (one node) clears it.
    cap = np.stack([_day(6.0, 0.0), np.full(24, 3.0)])
    p = problem(
        allowed=np.array([[True, False], [True, False]]),
        capacity_rate=cap,
        bill_rate=cap,
        deferrable=np.array([False, True]),
        window=np.ones((2, 24), dtype=bool),
    )
    sol = solve_plan(p)
    assert sol.units[0] == 1
    assert sol.replicas[0] == 1
    done = sol.processed_rate[1, 0]
    assert done.sum() == pytest.approx(72.0)
    assert (6.0 + done[:12]).max() <= 8.0 + 1e-6
    # without the deadline (same rates, not deferrable) it needs two
    assert solve_plan(problem(
        allowed=np.array([[True, False], [True, False]]), capacity_rate=cap, bill_rate=cap,
        window=np.ones((2, 24), dtype=bool),
    )).units[0] == 2  # fmt: skip


def test_replicas_of_different_options_share_a_node() -> None:
    # Options: 0 = 8-GPU replica (10 req/s), 1 = 1-GPU replica (1 req/s), 2 = API at $1/request (never worth it).
    # Workload 0 needs the 8-GPU option (0.5 req/s → 1 replica, 8 GPUs); workload 1 only the 1-GPU option,
    # 2 req/s → 2/(0.8·1) = 2.5 → 3 replicas, 3 GPUs. 8 + 3 = 11 GPUs → 2 nodes of 8.
    p = problem(
        allowed=np.array([[True, False, False], [False, True, True]]),
        is_api=np.array([False, False, True]),
        api_cost_usd=np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]),
        attempts=np.ones((2, 3)),
        failure_usd=np.zeros((2, 3)),
        capacity_requests_per_s=np.array([[10.0, 1.0, np.inf], [10.0, 1.0, np.inf]]),
        option_node=np.array([0, 0, -1]),
        gpus_per_replica=np.array([8.0, 1.0, 0.0]),
        replica_variable_usd_per_hour=np.zeros(3),
        capacity_rate=np.array([[0.5], [2.0]]),
        bill_rate=np.array([[0.5], [2.0]]),
    )
    sol = solve_plan(p)
    assert sol.replicas.tolist() == [1.0, 3.0, 0.0]
    assert sol.units[0] == 2


def test_gpu_rentals_are_billed_per_gpu_instances_per_instance() -> None:
    # A rented offer of single GPUs at $1,000/GPU-month: 3 one-GPU replicas cost $3,000; rented as 8-GPU
    # instances ($8,000 each) the same replicas cost one instance, $8,000.
    common: dict[str, Any] = dict(
        allowed=np.array([[False, False], [True, True]]),
        gpus_per_replica=np.array([1.0, 0.0]),
        capacity_requests_per_s=np.array([[1.0, np.inf], [1.0, np.inf]]),
        api_cost_usd=np.array([[0.0, 1.0], [0.0, 1.0]]),
        min_units=np.array([0.0]),
    )
    per_gpu = solve_plan(problem(unit_gpus=np.array([1.0]), unit_usd_per_month=np.array([1000.0]), **common))
    assert per_gpu.units[0] == 3
    per_instance = solve_plan(problem(unit_gpus=np.array([8.0]), unit_usd_per_month=np.array([8000.0]), **common))
    assert per_instance.units[0] == 1


def test_a_workload_nothing_may_serve_is_left_out_and_the_rest_is_planned() -> None:
    p = problem(allowed=np.array([[False, False], [True, True]]))
    sol = solve_plan(p)
    assert sol.served.tolist() == [False, True]
    assert sol.share[0].sum() == 0.0
    assert sol.share[1].sum() == 1.0


def test_the_time_limit_returns_a_plan_and_says_so() -> None:
    # A limit far below what a 200-workload problem needs: a plan comes back (best found or the stand-alone
    # fallback), its status is not "optimal", and every workload is assigned.
    rng = np.random.default_rng(7)
    w = 200
    p = problem(
        allowed=np.ones((w, 2), dtype=bool),
        api_cost_usd=np.tile([0.0, 0.001], (w, 1)),
        attempts=np.ones((w, 2)),
        failure_usd=np.zeros((w, 2)),
        capacity_requests_per_s=np.column_stack([rng.uniform(1, 20, w), np.full(w, np.inf)]),
        capacity_rate=rng.uniform(0.1, 3, (w, 1)),
        bill_rate=rng.uniform(0.1, 1, (w, 1)),
        deferrable=np.zeros(w, dtype=bool),
        window=np.ones((w, 1), dtype=bool),
        split=np.zeros(w, dtype=bool),
        time_limit_s=1e-4,
    )
    sol = solve_plan(p)
    assert sol.status != "optimal"
    assert np.allclose(sol.share.sum(axis=1), 1.0)


# ---- property: the returned plan is a local optimum for single moves and ±1 counts ------------------------------


def _objective(p: PlanProblem, share: np.ndarray) -> float:
    processed = share * p.capacity_rate[:, None, :]
    _, units = counts(p, share, processed)
    return money_usd_per_month(p, share, units)


@PROPERTIES
@given(plan_problems())
def test_no_single_move_or_count_change_lowers_the_objective(p: PlanProblem) -> None:
    sol = solve_plan(p)
    assert sol.status == "optimal"
    best = money_usd_per_month(p, sol.share, sol.units)
    tol = 1e-4 * max(1.0, abs(best))  # the solver's relative gap (MIP_REL_GAP), with room
    w_count, _o_count, k_count, _ = p.shape
    for w in range(w_count):
        for o in np.flatnonzero(p.allowed[w]):
            moved = sol.share.copy()
            moved[w] = 0.0
            moved[w, o] = 1.0
            assert _objective(p, moved) >= best - tol, (w, o)
    # one more unit costs more (≥ 0); one fewer either breaks the GPU rows or the lower bound
    for k in range(k_count):
        up = sol.units.copy()
        up[k] += 1
        assert money_usd_per_month(p, sol.share, up) >= best - tol
        gpus = sum(sol.replicas[o] * p.gpus_per_replica[o] for o in np.flatnonzero(p.option_node == k))
        assert sol.units[k] - 1 < max(p.min_units[k], gpus / p.unit_gpus[k] - 1e-9)
    # one replica fewer leaves some hour over capacity
    load = np.einsum("wo,woh->oh", p.load_per_request(), sol.processed_rate)
    for o in np.flatnonzero(sol.replicas > 0):
        assert load[o].max() > sol.replicas[o] - 1 + 1e-9


def test_a_large_fleet_is_stopped_at_the_hard_limit_and_still_planned() -> None:
    # 3,000 binaries (above the guard) with a 0.05 s limit: the forked solve is stopped at 1.5 × 0.05 + 1 s at
    # the latest; the plan comes back with every workload assigned and a status that is not "optimal".
    import time

    rng = np.random.default_rng(11)
    w = 1500
    p = problem(
        allowed=np.ones((w, 2), dtype=bool),
        api_cost_usd=np.tile([0.0, 0.001], (w, 1)),
        attempts=np.ones((w, 2)),
        failure_usd=np.zeros((w, 2)),
        capacity_requests_per_s=np.column_stack([rng.uniform(1, 20, w), np.full(w, np.inf)]),
        capacity_rate=rng.uniform(0.1, 3, (w, 1)),
        bill_rate=rng.uniform(0.1, 1, (w, 1)),
        deferrable=np.zeros(w, dtype=bool),
        window=np.ones((w, 1), dtype=bool),
        split=np.zeros(w, dtype=bool),
        time_limit_s=0.05,
    )
    start = time.perf_counter()
    sol = solve_plan(p)
    assert time.perf_counter() - start < 10.0  # generous: the machine is shared; the guard stops at ~1.1 s
    assert sol.status != "optimal"
    assert np.allclose(sol.share.sum(axis=1), 1.0)
