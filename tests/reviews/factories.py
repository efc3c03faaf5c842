"""Small hand-made scenarios and results for the review tests (no catalog, no evaluate needed)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from economics.offers import ApiOffer, OwnedNode, RentedNode
from economics.result import FleetSummary, OptionResult, Result, WorkloadDecision
from economics.scenario import OwnedOption, Scenario
from economics.workload import Workload
from tests.economics.configs import H100_SXM, LLAMA_31_8B

H100 = H100_SXM
LLAMA_8B = LLAMA_31_8B


def small_scenario(**overrides: Any) -> Scenario:
    """Two nodes (rented, owned), one owned option on each, two APIs, two workloads; review date 2025-09-30."""
    data: dict[str, Any] = {
        "name": "test bank",
        "review_date": dt.date(2025, 9, 30),
        "gpus": (H100,),
        "models": (LLAMA_8B,),
        "nodes": (
            RentedNode(
                id="h100-rented",
                name="H100 rented",
                gpu_id="h100-sxm",
                price_usd_per_gpu_hour=2.5,
                source="neocloud list price",
                as_of="2025-08-01",
            ),
            OwnedNode(
                id="h100-owned", name="H100 owned", gpu_id="h100-sxm", source="docs/costs.md#node-cost", as_of="2025-01"
            ),
        ),
        "owned_options": (
            OwnedOption(id="ar-rented", name="8B AR rented", node_id="h100-rented", model_id="llama-3.1-8b"),
            OwnedOption(id="ar-owned", name="8B AR owned", node_id="h100-owned", model_id="llama-3.1-8b"),
        ),
        "apis": (
            ApiOffer(
                id="frontier",
                name="Frontier API",
                input_usd_per_mtok=3.0,
                output_usd_per_mtok=15.0,
                cached_input_usd_per_mtok=0.3,
                source="vendor price page",
                as_of="2025-09-01",
            ),
            ApiOffer(
                id="hosted-70b", name="Hosted 70B", tier="hosted-open", input_usd_per_mtok=0.6, output_usd_per_mtok=0.8
            ),
        ),
        "workloads": (
            Workload(
                id="chat",
                name="Chat",
                avg_requests_per_s=1,
                peak_requests_per_s=3,
                input_tokens=1000,
                output_tokens=500,
            ),
            Workload(
                id="kyc",
                name="KYC check",
                avg_requests_per_s=0.1,
                peak_requests_per_s=0.5,
                input_tokens=2000,
                output_tokens=300,
                sovereign=True,
            ),
        ),
    }
    data.update(overrides)
    return Scenario(**data)


def option(workload_id: str, option_id: str, cost: float, *, kind: str = "api", feasible: bool = True) -> OptionResult:
    return OptionResult(
        workload_id=workload_id,
        option_id=option_id,
        option_name=option_id,
        kind=kind,  # type: ignore[arg-type]
        allowed=True,
        feasible=feasible,
        reason="" if feasible else "does not fit",
        cost_usd_per_request=cost if feasible else float("inf"),
        cost_usd_per_mtok_output=cost / 500 * 1e6 if feasible else float("inf"),
        cost_usd_per_mtok_total=cost / 1500 * 1e6 if feasible else float("inf"),
        expected_cost_usd_per_request=cost if feasible else float("inf"),
        quality=0.9,
        tpot_s=0.02,
        ttft_s=0.3,
        replicas=0 if kind == "api" else 1,
        gpus=0 if kind == "api" else 8,
        utilization=0.5,
        capacity_requests_per_s=float("inf") if kind == "api" else 10.0,
        achieved_batch=4.0,
    )


def small_result(scenario: Scenario, chat_route: str = "frontier") -> Result:
    """A hand-made result: chat on ``chat_route``, kyc on the owned node; one infeasible option (inf costs)."""
    options = (
        option("chat", "frontier", 0.0105),
        option("chat", "ar-owned", 0.002, kind="owned-ar"),
        option("kyc", "ar-owned", 0.004, kind="owned-ar"),
        option("kyc", "ar-rented", 0.0, kind="owned-ar", feasible=False),
    )
    decisions = (
        WorkloadDecision(
            workload_id="chat",
            workload_name="Chat",
            chosen_option_id=chat_route,
            chosen_kind="api" if chat_route == "frontier" else "owned-ar",
            route_label="frontier API" if chat_route == "frontier" else "owned AR",
            reason="cheapest J",
            margin_usd_per_request=0.001,
            batchability=0.5,
            value_usd_per_output_token=0.0,
            break_even_value_usd_per_output_token=None,
            break_even_utilization=0.3,
            monthly_cost_usd=27_594.0,
            all_api_monthly_cost_usd=27_594.0,
            savings_vs_api_usd_per_month=0.0,
        ),
        WorkloadDecision(
            workload_id="kyc",
            workload_name="KYC check",
            chosen_option_id="ar-owned",
            chosen_kind="owned-ar",
            route_label="owned AR",
            reason="sovereign",
            margin_usd_per_request=float("inf"),
            batchability=0.1,
            value_usd_per_output_token=0.0,
            break_even_value_usd_per_output_token=None,
            break_even_utilization=None,
            monthly_cost_usd=11_117.9,
            all_api_monthly_cost_usd=None,
            savings_vs_api_usd_per_month=None,
        ),
    )
    fleet = FleetSummary(
        owned_nodes=1,
        owned_gpus=8,
        owned_cost_usd_per_month=11_117.9,
        owned_utilization=0.1,
        idle_cost_usd_per_month=10_006.1,
        rented_cost_usd_per_month=0.0,
        api_cost_usd_per_month=27_594.0,
        total_cost_usd_per_month=38_711.9,
        all_api_cost_usd_per_month=None,
    )
    return Result(
        scenario_name=scenario.name, review_date=scenario.review_date, options=options, decisions=decisions, fleet=fleet
    )
