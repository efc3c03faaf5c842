"""Serverless GPUs in the fleet plan: billed seconds follow the busy hours, cold starts and increments count.

Expected values are derived by hand in the comments (e^(−0.6) = 0.5488116 from a table), never with the code
under test. A month is 730 h; a day of 24 periods gives each hour 730/24 = 30.4167 h a month.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from economics.evaluate import evaluate
from economics.finance.serverless import serverless_billed_s_per_s, serverless_extra_usd_per_request
from economics.finance.terms import RentalTerms
from economics.io.scenarios import load_preset
from economics.plan import PlanProblem, money_usd_per_month, solve_plan
from economics.scenario import Scenario

TERMS = RentalTerms(cold_start_s=30.0, min_billing_increment_s=1.0, idle_timeout_s=60.0)
GPU_USD_PER_MONTH = 2.0 * 730  # a rented GPU at $2/h, paid every hour: $1,460/month
SERVERLESS_USD_PER_HOUR = 3.6


def test_billed_seconds_per_second_by_hand() -> None:
    # λ = 0.01/s, s = 1 s: ρ = 0.01; warm idle 0.99·(1 − 0.5488116) = 0.4466765;
    # starts 0.01·0.99·0.5488116·(30 + 1) = 0.1684303; B = 0.01 + 0.4466765 + 0.1684303 = 0.6251068
    b = serverless_billed_s_per_s(np.array([0.01, 0.0]), 1.0, TERMS)
    assert b[0] == pytest.approx(0.6251068, rel=1e-6)
    assert b[1] == 0.0  # an hour without demand bills nothing
    # busy beyond one container (λ·s = 3): ρ = 1, no idle and no cold start, B = 3
    assert serverless_billed_s_per_s(np.array([3.0]), 1.0, TERMS)[0] == pytest.approx(3.0)
    # kept warm: one container through every hour with demand, B = max(1, λ·s)
    warm = TERMS.model_copy(update={"keep_warm": True})
    assert serverless_billed_s_per_s(np.array([0.01, 0.0, 3.0]), 1.0, warm).tolist() == [1.0, 0.0, 3.0]


def test_a_coarser_increment_and_a_longer_cold_start_never_bill_less() -> None:
    lam = np.array([0.001, 0.01, 0.1, 1.0])
    base = serverless_billed_s_per_s(lam, 0.5, TERMS)
    for update in ({"min_billing_increment_s": 60.0}, {"cold_start_s": 120.0}):
        assert np.all(serverless_billed_s_per_s(lam, 0.5, TERMS.model_copy(update=update)) >= base)


def _problem(bill_rate: np.ndarray, extra: np.ndarray) -> PlanProblem:
    """One workload, 24 hours. Option 0: a serverless GPU ($3.60 per billed hour, no unit cost); option 1: a
    rented GPU at $1,460/month. Both carry 1 req/s per replica (s = 1 s per request)."""
    base: dict[str, Any] = dict(
        allowed=np.array([[True, True]]),
        is_api=np.array([False, False]),
        api_cost_usd=np.zeros((1, 2)),
        attempts=np.ones((1, 2)),
        failure_usd=np.zeros((1, 2)),
        capacity_requests_per_s=np.array([[1.0, 1.0]]),
        option_node=np.array([0, 1]),
        gpus_per_replica=np.array([1.0, 1.0]),
        replica_variable_usd_per_hour=np.array([SERVERLESS_USD_PER_HOUR, 0.0]),
        unit_gpus=np.array([1.0, 1.0]),
        unit_usd_per_month=np.array([0.0, GPU_USD_PER_MONTH]),
        min_units=np.zeros(2),
        capacity_rate=bill_rate[None, :],
        bill_rate=bill_rate[None, :],
        deferrable=np.array([False]),
        window=np.ones((1, 24), dtype=bool),
        split=np.array([False]),
        target_utilization=1.0,
        time_limit_s=10.0,
        serverless_usd=extra,
    )
    return PlanProblem(**base)


def test_the_plan_picks_serverless_for_a_workload_busy_eight_hours_a_day() -> None:
    # 0.01 req/s in hours 0–7, nothing otherwise. Busy periods a month: 8 · 30.4167 h = 243.333 h = 876,000 s.
    # Billed: 0.6251068 (above) · 876,000 s = 547,594 s = 152.109 h · $3.60 = $547.59/month < $1,460 for the GPU.
    rate = np.where(np.arange(24) < 8, 0.01, 0.0)
    extra = np.array([[serverless_extra_usd_per_request(rate, 1.0, TERMS, SERVERLESS_USD_PER_HOUR), 0.0]])
    p = _problem(rate, extra)
    sol = solve_plan(p)
    assert sol.status == "optimal"
    assert sol.share[0, 0, 0] == 1.0
    assert money_usd_per_month(p, sol.share, sol.units) == pytest.approx(547.59, abs=0.01)


def test_the_same_rate_all_day_goes_to_the_fixed_gpu() -> None:
    # 0.01 req/s all 24 hours: 3 × $547.59 = $1,642.78 on serverless > $1,460 for the GPU paid every hour.
    rate = np.full(24, 0.01)
    extra = np.array([[serverless_extra_usd_per_request(rate, 1.0, TERMS, SERVERLESS_USD_PER_HOUR), 0.0]])
    p = _problem(rate, extra)
    sol = solve_plan(p)
    assert sol.share[0, 1, 0] == 1.0
    assert money_usd_per_month(p, sol.share, sol.units) == pytest.approx(GPU_USD_PER_MONTH)
    only_serverless = money_usd_per_month(p, np.array([[[1.0] * 24, [0.0] * 24]]), np.zeros(2))
    assert only_serverless == pytest.approx(1642.78, abs=0.02)


def _startup_with_modal(keep_warm: bool) -> Scenario:
    """The startup preset's workloads (no failure cost, so only money decides) with one serverless H100 at
    $3.9492/h for the 8B model, and the APIs."""
    data = load_preset("startup-rented").model_dump()
    template = next(o for o in data["owned_options"] if o["id"] == "aws-spot-8b-ar")
    data["nodes"] = [
        dict(kind="rented", id="modal", name="Modal H100 serverless", gpu_id="h100-sxm", gpus_per_node=1,
             rental_unit="gpu", price_usd_per_gpu_hour=3.9492, pricing_type="serverless",
             billing=dict(cold_start_s=30.0, idle_timeout_s=60.0, keep_warm=keep_warm)),
    ]  # fmt: skip
    data["owned_options"] = [{**template, "id": "modal-8b-ar", "node_id": "modal"}]
    for w in data["workloads"]:
        w["failure_cost_usd"] = 0.0
        w["quality_overrides"] = {}
    return Scenario.model_validate(data)


def test_a_cold_start_that_breaks_the_ttft_slo_needs_the_offer_kept_warm() -> None:
    cold = evaluate(_startup_with_modal(keep_warm=False))
    by_workload = {o.workload_id: o for o in cold.options if o.option_id == "modal-8b-ar"}
    # TTFT SLOs of 1.5 s and 2 s cannot absorb a 30 s cold start; the nightly batch has no TTFT SLO
    assert not by_workload["assistant-chat"].feasible
    assert "cold start" in by_workload["assistant-chat"].reason
    assert not by_workload["agent-steps"].feasible
    assert by_workload["ticket-summaries"].feasible
    warm = evaluate(_startup_with_modal(keep_warm=True))
    assert {d.chosen_option_id for d in warm.decisions} == {"modal-8b-ar"}
    # Kept warm, each workload keeps one container up all day: none is busy a whole second per second on it
    # (3, 1 and 2 req/s against 7.66, 2.71 and 6.85 req/s of capacity per replica, a few retries included), so
    # each bills 730 h · $3.9492 = $2,882.916 a month and the three $8,648.748: the serverless node's rent.
    modal = next(n for n in warm.plan.nodes if n.node_id == "modal")
    assert modal.cost_usd_per_month == pytest.approx(8648.748, rel=1e-9)
    assert warm.fleet.rented_cost_usd_per_month == pytest.approx(8648.748, rel=1e-9)
    assert warm.fleet.total_cost_usd_per_month == pytest.approx(8648.748, rel=1e-9)


def test_the_stand_alone_cost_of_serverless_is_priced_over_the_day_not_busy_time_only() -> None:
    # Kept warm, one container is up all day for each workload (B = max(1, λ·s) = 1 s billed per second, the
    # workloads being far below one container's capacity): a month bills 730 h · $3.9492 = $2,882.916 whatever
    # the load, so one request of a workload at λ_avg req/s costs 3.9492 / (3600·λ_avg):
    # assistant-chat at 3 req/s: $0.000365667; agent-steps at 1 req/s: $0.001097. Priced at busy time only it
    # would be 3.9492/(3600·λmax) per request, $0.000143 at assistant-chat's 7.66 req/s per replica.
    warm = _startup_with_modal(keep_warm=True)
    avg = {w.id: w.avg_requests_per_s for w in warm.workloads}
    assert avg["assistant-chat"] == 3.0
    assert avg["agent-steps"] == 1.0
    options = {o.workload_id: o for o in evaluate(warm).options if o.option_id == "modal-8b-ar"}
    assert options["assistant-chat"].cost_usd_per_request == pytest.approx(0.000365667, rel=1e-6)
    assert options["agent-steps"].cost_usd_per_request == pytest.approx(0.001097, rel=1e-6)


def test_the_stand_alone_serverless_cost_follows_the_day_profile() -> None:
    # The nightly batch (no TTFT SLO, so cold starts are allowed), its volume in the 8 hours 22–06 only. Scaled
    # to zero the other 16 hours, it bills nothing then. The stand-alone cost per request is the busy time plus
    # what B(λ) adds over those 8 hours: for the same day volume spread over 24 hours (3× fewer requests per
    # second), warm idle and cold starts are paid in every hour, so the concentrated profile is no dearer.
    base = _startup_with_modal(keep_warm=False)

    def cost(profile: dict[str, object] | None) -> float:
        data = base.model_dump()
        for w in data["workloads"]:
            w["demand_profile"] = profile
        result = evaluate(Scenario.model_validate(data))
        return next(
            o.cost_usd_per_request
            for o in result.options
            if o.option_id == "modal-8b-ar" and o.workload_id == "ticket-summaries"
        )

    night, flat = cost({"shape": "night_window"}), cost({"shape": "flat"})
    assert night <= flat
    # and either costs more than its busy time alone: a request is never billed less than 1/λmax seconds
    busy_only = (
        3.9492
        / 3600
        / next(
            o.capacity_requests_per_s
            for o in evaluate(base).options
            if o.option_id == "modal-8b-ar" and o.workload_id == "ticket-summaries"
        )
    )
    assert night > busy_only
