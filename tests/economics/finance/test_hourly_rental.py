"""On-demand capacity follows the day profile hour by hour; a reservation is paid every hour (issue 14, gap 1).

Every expected figure is derived by hand in the comments: p = $1/GPU-h on demand, a reservation at 0.6p, one
GPU per replica, a replica carries 1 req/s at the target utilization of 1, and a month is 730 h = 30.4167 days.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from economics.evaluate import evaluate
from economics.finance.rental import billed_per_hour_used
from economics.offers import RentedNode
from economics.plan import PlanProblem, solve_plan
from economics.plan_accounts import marginal_usd_per_month
from economics.plan_utilization import marginal_by_utilization
from economics.scenario import Scenario
from tests.economics.finance.test_rental import _reserved_beside_on_demand

ON_DEMAND_USD_PER_MONTH = 1.0 * 730  # one GPU all month at $1/h
RESERVED_USD_PER_MONTH = 0.6 * 730  # $438
PEAK = np.arange(24) < 8  # hours 0–7


def _problem(capacity_rate: np.ndarray, split: bool) -> PlanProblem:
    """Workloads (rows of ``capacity_rate``, 24 hours) on option 0, a reserved GPU (paid all day), or option 1, an
    on-demand GPU (paid per hour used). Money is only the units'."""
    w = capacity_rate.shape[0]
    base: dict[str, Any] = dict(
        allowed=np.ones((w, 2), dtype=bool),
        is_api=np.array([False, False]),
        api_cost_usd=np.zeros((w, 2)),
        attempts=np.ones((w, 2)),
        failure_usd=np.zeros((w, 2)),
        capacity_requests_per_s=np.ones((w, 2)),
        option_node=np.array([0, 1]),
        gpus_per_replica=np.array([1.0, 1.0]),
        replica_variable_usd_per_hour=np.zeros(2),
        unit_gpus=np.array([1.0, 1.0]),
        unit_usd_per_month=np.array([RESERVED_USD_PER_MONTH, ON_DEMAND_USD_PER_MONTH]),
        min_units=np.zeros(2),
        capacity_rate=capacity_rate,
        bill_rate=capacity_rate,
        deferrable=np.zeros(w, dtype=bool),
        window=np.ones((w, 24), dtype=bool),
        split=np.full(w, split),
        target_utilization=1.0,
        time_limit_s=10.0,
        hourly_units=np.array([False, True]),
    )
    return PlanProblem(**base)


def test_one_split_workload_reserves_the_base_and_rents_the_peak_on_demand() -> None:
    # 2 req/s in the 8 peak hours (2 replicas), 1 req/s in the other 16 (1 replica). Per day:
    #   reserve 1 + on-demand 1 for the 8 peak hours: 24·0.6 + 8·1 = 14.4 + 8 = $22.4
    #   reserve 2:                                     48·0.6            = $28.8
    #   on-demand only:                                8·2 + 16·1        = $32.0
    # The mix wins: $22.4/day × 30.4167 days = $681.33/month (438 + 8/24·730 = 438 + 243.33).
    rate = np.where(PEAK, 2.0, 1.0)[None, :]
    sol = solve_plan(_problem(rate, split=True))
    assert sol.status == "optimal"
    assert sol.objective_usd_per_month == pytest.approx(681.33, abs=0.01)
    assert sol.units.tolist() == pytest.approx([1.0, 8 / 24])  # the on-demand GPU is paid a third of the day
    assert sol.replicas.tolist() == [1.0, 1.0]
    # the on-demand replica serves the peak hours only: half of the 2 req/s, nothing off-peak
    assert sol.processed_rate[0, 1, :8].tolist() == pytest.approx([1.0] * 8)
    assert sol.processed_rate[0, 1, 8:].tolist() == pytest.approx([0.0] * 16)


def test_a_workload_that_may_not_split_takes_the_cheaper_whole_option() -> None:
    # The same profile, one option only: reserve 2 ($28.8/day = $876/month) beats on-demand ($32/day = $973.33).
    rate = np.where(PEAK, 2.0, 1.0)[None, :]
    sol = solve_plan(_problem(rate, split=False))
    assert sol.objective_usd_per_month == pytest.approx(876.0)
    assert sol.share[0, 0, 0] == 1.0
    # A peak of 3 replicas for 2 hours (1 replica otherwise): on-demand 2·3 + 22·1 = $28/day beats reserving 3,
    # 72·0.6 = $43.2/day: $28 × 30.4167 = $851.67/month.
    spiky = np.where(np.arange(24) < 2, 3.0, 1.0)[None, :]
    sol = solve_plan(_problem(spiky, split=False))
    assert sol.objective_usd_per_month == pytest.approx(28 * 730 / 24)
    assert sol.share[0, 1, 0] == 1.0


def test_two_workloads_the_flat_one_reserved_the_peaky_one_on_demand() -> None:
    # Workload 0: 1 req/s all day; workload 1: 1 req/s in the 8 peak hours only. Both whole (no split).
    # Flat on the reservation ($14.4/day) and the peak on demand ($8/day): $22.4/day = $681.33/month, against
    # both reserved (2 GPUs all day, $28.8) or both on demand (24 + 8 = $32).
    rate = np.stack([np.ones(24), np.where(PEAK, 1.0, 0.0)])
    p = _problem(rate, split=False)
    sol = solve_plan(p)
    assert sol.objective_usd_per_month == pytest.approx(681.33, abs=0.01)
    assert sol.share[0, 0, 0] == 1.0
    assert sol.share[1, 1, 0] == 1.0
    # Putting workload 1 back on the on-demand GPU costs its 8 hours, 8/24·730 = $243.33/month; on the
    # reservation it would need a second reserved GPU all day, $438.
    m = marginal_usd_per_month(p, sol)
    assert m[1].tolist() == pytest.approx([438.0, 243.33], abs=0.01)


def test_on_demand_negotiated_and_spot_are_billed_per_hour_used_commitments_are_not() -> None:
    def node(kind: str) -> RentedNode:
        return RentedNode(id="n", name="n", gpu_id="g", price_usd_per_gpu_hour=1.0, pricing_type=kind)  # type: ignore[arg-type]

    assert [billed_per_hour_used(node(k)) for k in ("on-demand", "negotiated", "spot")] == [True] * 3
    assert [billed_per_hour_used(node(k)) for k in ("reserved-1y", "reserved-3y", "capacity-block")] == [False] * 3
    assert not billed_per_hour_used(node("serverless"))  # billed per second (economics.finance.serverless)


def _peaky_reserved_beside_on_demand() -> Scenario:
    """The RunPod node on demand ($3.49/GPU-h) beside the same node reserved ($2.50/GPU-h effective), every
    workload busy 09–18 with 10% of its volume spread over the other hours."""
    data = _reserved_beside_on_demand().model_dump()
    for w in data["workloads"]:
        w["demand_profile"] = {"shape": "business_hours", "off_hours_share": 0.1}
    return Scenario.model_validate(data)


def test_with_a_day_profile_every_figure_still_adds_up_in_both_lenses() -> None:
    s = _peaky_reserved_beside_on_demand()
    for lens in ("cash", "full"):
        s_lens = s.model_copy(update={"policy": s.policy.model_copy(update={"lens": lens})})
        result = evaluate(s_lens)
        plan = result.plan
        assert plan.solver_status == "optimal"
        shares = sum(w.cost_usd_per_month for w in plan.workloads)
        assert shares + plan.unallocated_usd_per_month == pytest.approx(plan.total_cost_usd_per_month, rel=1e-9)
        nodes = sum(n.cost_usd_per_month for n in plan.nodes)
        assert nodes + plan.api_cost_usd_per_month == pytest.approx(plan.total_cost_usd_per_month, rel=1e-9)
        # an on-demand node's bill is never more than its busiest hour's nodes paid all month
        od = next(n for n in plan.nodes if n.node_id == "runpod")
        assert od.cost_usd_per_month <= od.nodes_used * 8 * 3.49 * 730 + 1e-6


def test_the_utilization_flip_prices_on_demand_hour_by_hour() -> None:
    # The two-workload plan above at u = 1. Put back on the on-demand GPU, workload 1 (1 req/s in 8 hours) costs
    # 8/24·730 = $243.33; at u = 0.5 it needs 2 replicas in those hours: $486.67. On the reservation it needs a
    # second GPU all day at u = 1 ($438), and at u = 0.5 the flat workload alone fills 2 reserved GPUs, so
    # it needs 2 more: $876.
    rate = np.stack([np.ones(24), np.where(PEAK, 1.0, 0.0)])
    p = _problem(rate, split=False)
    sol = solve_plan(p)
    m = marginal_by_utilization(p, sol, np.array([[1.0], [0.5]]))
    assert m[0, 1].tolist() == pytest.approx([438.0, 243.33], abs=0.01)
    assert m[1, 1].tolist() == pytest.approx([876.0, 486.67], abs=0.01)


def test_the_plan_reserves_a_node_for_the_flat_work_and_rents_one_on_demand_for_business_hours() -> None:
    # RunPod's 8-GPU node on demand: 8 · $3.49 · 730 = $20,381.60 a month if run all day; reserved: $14,600
    # (test_rental). Chat runs flat all day, the agent steps only 09–18 (9 of 24 hours), the ticket summaries
    # (deferrable) fill the troughs. The plan reserves one node for the flat work and rents one on demand for
    # the agent steps' 9 hours: 20,381.60 · 9/24 = $7,643.10; total 14,600 + 7,643.10 = $22,243.10 a month
    # (two reserved nodes would be $29,200; the agent steps on demand all day $20,381.60).
    data = _reserved_beside_on_demand().model_dump()
    for w in data["workloads"]:
        flat = w["id"] == "assistant-chat"
        w["demand_profile"] = {"shape": "flat"} if flat else {"shape": "business_hours", "off_hours_share": 0.0}
    result = evaluate(Scenario.model_validate(data))
    plan = result.plan
    assert plan.solver_status == "optimal"
    nodes = {n.node_id: n for n in plan.nodes}
    assert (nodes["rp-res"].nodes_used, nodes["runpod"].nodes_used) == (1, 1)
    assert nodes["rp-res"].cost_usd_per_month == pytest.approx(14_600.0)
    assert nodes["runpod"].cost_usd_per_month == pytest.approx(7_643.10)
    assert plan.total_cost_usd_per_month == pytest.approx(22_243.10)
    routes = {w.workload_id: w.option_id for w in plan.workloads}
    assert routes["agent-steps"] == "runpod-8b-ar"
    assert routes["assistant-chat"] == "res-runpod-8b-ar"
    # the on-demand node's whole bill is the agent steps' share; the shares add up to the total
    by_id = {w.workload_id: w.cost_usd_per_month for w in plan.workloads}
    assert by_id["agent-steps"] == pytest.approx(7_643.10)
    assert sum(by_id.values()) + plan.unallocated_usd_per_month == pytest.approx(22_243.10)
