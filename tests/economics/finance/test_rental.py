"""Rental billing modes: effective rates derived by hand, what each mode cannot carry, and the plan choosing.

Every expected value is written out from the inputs in a comment, never computed with the code under test.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from economics.costs import node_cost_fixed_and_variable, node_cost_usd_per_hour
from economics.evaluate import evaluate
from economics.finance.data import billing_terms
from economics.finance.rental import (
    billing_reasons,
    commitment_usd,
    effective_usd_per_gpu_hour,
    serverless_billed_seconds,
    unused_commitment_usd_per_month,
)
from economics.finance.terms import RentalTerms
from economics.io.scenarios import load_preset
from economics.offers import RentedNode
from economics.scenario import Scenario
from tests.strategies import PROPERTIES

SLOW = settings(PROPERTIES, max_examples=6)


def node(pricing_type: str = "on-demand", price: float = 2.0, **terms: float | int | None) -> RentedNode:
    return RentedNode(
        id="n",
        name="n",
        gpu_id="h100-sxm",
        gpus_per_node=8,
        price_usd_per_gpu_hour=price,
        pricing_type=pricing_type,
        billing=RentalTerms(**terms) if terms else None,
    )


def test_reserved_with_upfront_effective_rate() -> None:
    # $1.50/GPU-h recurring + $13,140 upfront per GPU over a 3-year term (1095 days = 26,280 h):
    # 13,140 / 26,280 = $0.50/h, so the effective rate is 1.50 + 0.50 = $2.00/GPU-h and the node $16/h.
    n = node("reserved-3y", 1.5, upfront_usd_per_gpu=13_140.0)
    assert effective_usd_per_gpu_hour(n) == pytest.approx(2.0, rel=1e-12)
    assert float(node_cost_usd_per_hour(n, 0.3)) == pytest.approx(16.0, rel=1e-12)


def test_reserved_commitment_paid_whether_used_or_not() -> None:
    # 2 committed 8-GPU nodes at $2/GPU-h for 365 days: 2 · 8 · 2 · 8760 = $280,320 for the term.
    n = node("reserved-1y", 2.0, committed_nodes=2)
    assert commitment_usd(n) == pytest.approx(280_320.0)
    # the plan uses 0.5 node: 1.5 idle committed nodes · 8 GPUs · $2 · 730 h = $17,520/month
    assert unused_commitment_usd_per_month(n, 0.5) == pytest.approx(17_520.0)
    assert unused_commitment_usd_per_month(n, 3.0) == 0.0


def test_spot_without_fallback_pays_restarted_work() -> None:
    # ι = 0.5 reclaims/h, L = 720 s lost each: 0.5 · 720/3600 = 0.1 of the hours are lost,
    # so a useful GPU-hour costs 1.00 / 0.9 = $1.1111.
    n = node("spot", 1.0, interruptions_per_hour=0.5, interruption_loss_s=720.0)
    assert effective_usd_per_gpu_hour(n) == pytest.approx(1.0 / 0.9)


def test_spot_with_fallback_pays_on_demand_while_replaced() -> None:
    # same reclaims, fallback $4/GPU-h during the lost 0.1 of the hours: 1.00 + 0.1 · 4 = $1.40/GPU-h
    n = node("spot", 1.0, interruptions_per_hour=0.5, interruption_loss_s=720.0, fallback_usd_per_gpu_hour=4.0)
    assert effective_usd_per_gpu_hour(n) == pytest.approx(1.4)


def test_spot_catalog_terms_match_the_advisor_band() -> None:
    # >20% of instances reclaimed per month: 0.2 / 730 h = 0.000274 per hour; 600 s lost each
    row = billing_terms()["aws-p5.4xlarge-spot"]
    assert row.interruptions_per_hour == pytest.approx(0.2 / 730, rel=2e-3)
    # p5.4xlarge spot $2.623: lost share 0.000274 · 600/3600 = 4.567e-5 → 2.623/(1 − 4.567e-5) = 2.62312
    n = node("spot", 2.623, **row.terms().model_dump())
    assert effective_usd_per_gpu_hour(n) == pytest.approx(2.62312, abs=1e-5)


def test_serverless_costs_nothing_idle() -> None:
    n = node("serverless", 3.9492, cold_start_s=30.0)
    # C_h(U) = 0 + 8 · 3.9492 · U: $0 idle, $15.7968 at U = 0.5
    fixed, variable = node_cost_fixed_and_variable(n)
    assert fixed == 0.0
    assert variable == pytest.approx(8 * 3.9492)
    assert float(node_cost_usd_per_hour(n, 0.0)) == 0.0
    assert float(node_cost_usd_per_hour(n, 0.5)) == pytest.approx(15.7968)


def test_serverless_billing_increment() -> None:
    # 2.1 s busy at 1 s increments bills 3 s; at 10 s increments 10 s
    assert serverless_billed_seconds(2.1, 1.0) == 3.0
    assert serverless_billed_seconds(2.1, 10.0) == 10.0


def test_billing_reasons() -> None:
    latency = np.array([True, False, True])
    ttft_slo = np.array([1.0, np.inf, 60.0])
    ttft = np.array([0.2, 0.2, 0.2])
    spot = billing_reasons(node("spot", 1.0), latency, ttft_slo, ttft)
    assert [bool(r) for r in spot] == [True, False, True]
    fallback = billing_reasons(node("spot", 1.0, fallback_usd_per_gpu_hour=4.0), latency, ttft_slo, ttft)
    assert not any(fallback)
    # cold start 30 s: 0.2 + 30 > 1.0 (fails), inf (no SLO), 0.2 + 30 < 60 (meets)
    cold = billing_reasons(node("serverless", 3.9, cold_start_s=30.0), latency, ttft_slo, ttft)
    assert [bool(r) for r in cold] == [True, False, False]
    assert not any(billing_reasons(node(), latency, ttft_slo, ttft))


def test_terms_reject_a_node_that_never_works() -> None:
    with pytest.raises(ValueError, match="interruptions_per_hour"):
        RentalTerms(interruptions_per_hour=2.0, interruption_loss_s=1800.0)


def _cost_only_startup(scale: float = 5.0) -> Scenario:
    """The startup preset's RunPod and AWS on-demand nodes with 5× the demand and no failure cost, so that rented
    GPUs carry some workloads."""
    data = load_preset("startup-rented").model_dump()
    data["nodes"] = [n for n in data["nodes"] if n["id"] in ("runpod", "aws-p5")]
    data["owned_options"] = [o for o in data["owned_options"] if o["node_id"] in ("runpod", "aws-p5")]
    for w in data["workloads"]:
        w.update(avg_requests_per_s=w["avg_requests_per_s"] * scale, failure_cost_usd=0.0)
        w["peak_requests_per_s"] *= scale
    return Scenario.model_validate(data)


def _with_mode(scenario: Scenario, node_id: str, **update: object) -> Scenario:
    data = scenario.model_dump()
    for n in data["nodes"]:
        if n["id"] == node_id:
            n.update(update)
    return Scenario.model_validate(data)


def test_spot_without_fallback_is_not_offered_to_latency_bound_workloads() -> None:
    startup = load_preset("startup-rented")
    spot = _with_mode(startup, "runpod", pricing_type="spot", billing=RentalTerms().model_dump())
    result = evaluate(spot)
    for opt in result.options:
        if opt.option_id.startswith("runpod") and opt.workload_id in ("assistant-chat", "agent-steps"):
            assert not opt.feasible
            assert "fallback" in opt.reason
    # the nightly batch has no latency SLO: spot may carry it
    batch = [o for o in result.options if o.workload_id == "ticket-summaries" and o.option_id == "runpod-8b-ar"]
    assert batch[0].feasible


def test_rented_fleet_bill_uses_the_effective_rate() -> None:
    # RunPod at $3.49 + $87.60 upfront per GPU over 365 days (8,760 h) → 3.49 + 0.01 = $3.50/GPU-h. The small
    # upfront leaves every route unchanged, so the rented bill scales by exactly 3.50/3.49.
    startup = _cost_only_startup()
    plain = evaluate(startup)
    upfront = _with_mode(
        startup, "runpod", pricing_type="reserved-1y", billing=RentalTerms(upfront_usd_per_gpu=87.6).model_dump()
    )
    result = evaluate(upfront)
    assert [d.chosen_option_id for d in result.decisions] == [d.chosen_option_id for d in plain.decisions]
    assert plain.fleet.rented_cost_usd_per_month > 0
    assert result.fleet.rented_cost_usd_per_month == pytest.approx(
        plain.fleet.rented_cost_usd_per_month * 3.50 / 3.49, rel=1e-9
    )


@SLOW
@given(st.floats(0.0, 0.6), st.floats(0.0, 0.3))
def test_a_larger_discount_never_raises_a_reserved_options_cost(d1: float, extra: float) -> None:
    startup = _cost_only_startup()
    od = 3.49

    def total(discount: float) -> float:
        s = _with_mode(startup, "runpod", pricing_type="reserved-1y", price_usd_per_gpu_hour=od * (1 - discount))
        return evaluate(s).fleet.total_cost_usd_per_month

    assert total(d1 + extra) <= total(d1) + 1e-6
