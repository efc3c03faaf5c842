"""Typed results of :func:`economics.evaluate` (docs/serving.md#serving-and-queues to docs/routing.md#routing-rule)."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from economics._base import Frozen

OptionKind = Literal["owned-ar", "owned-diffusion", "api"]
RouteLabel = Literal["owned diffusion", "owned AR (batch)", "owned AR", "frontier API", "API", "none feasible"]


class OptionResult(Frozen):
    """One workload on one option. Money per request is all-in: prefill, idle time and retries included."""

    workload_id: str
    option_id: str
    option_name: str
    kind: OptionKind
    allowed: bool = Field(description="False when sovereignty forbids the option [-]")
    feasible: bool = Field(description="allowed, fits in memory, meets the SLO, stable at peak [-]")
    reason: str = Field(description="why not feasible, or '' [-]")
    cost_usd_per_request: float = Field(description="inference cost per request c_o; inf if infeasible [USD]")
    cost_usd_per_mtok_output: float = Field(description="all-in cost per million output tokens [USD/Mtok]")
    cost_usd_per_mtok_total: float = Field(description="cost per million input+output tokens [USD/Mtok]")
    expected_cost_usd_per_request: float = Field(description="J = c + expected failure cost [USD]")
    quality: float = Field(description="probability an output is acceptable q [1]")
    tpot_s: float = Field(description="time per output token at the average load [s]")
    ttft_s: float = Field(description="time to first token at the average load [s]")
    replicas: int = Field(description="replicas sized for the peak (0 for an API) [count]")
    gpus: int = Field(description="GPUs sized for the peak (0 for an API) [count]")
    utilization: float = Field(description="average load / capacity of the paid replicas [1]")
    capacity_requests_per_s: float = Field(description="SLO capacity of one replica λ_max (inf for an API) [req/s]")
    achieved_batch: float = Field(description="mean sequences in flight per replica at the average load [count]")
    speculation_on: bool = Field(default=False, description="the AR option runs with speculation here [-]")
    batch_tier: bool = Field(default=False, description="the API is used at its batch tier [-]")


class FlipThreshold(Frozen):
    """How far one driver can move before the workload's route changes."""

    driver: str = Field(description="which input moves, e.g. 'api_output_price' [-]")
    unit: str = Field(description="unit of current and threshold [-]")
    current: float = Field(description="the driver's value now [the unit in `unit`]")
    threshold: float | None = Field(
        description="value at which the route changes; None if never in range [the unit in `unit`]"
    )
    direction: Literal["above", "below"] = Field(description="route flips when the driver goes this way")
    new_option_id: str | None = Field(description="the option that takes over at the threshold")
    text: str = Field(description="one sentence for a reviewer")


class WorkloadDecision(Frozen):
    """The route chosen for one workload, why, and the quadrant coordinates."""

    workload_id: str
    workload_name: str
    chosen_option_id: str | None
    chosen_kind: OptionKind | None
    route_label: RouteLabel
    reason: str
    margin_usd_per_request: float = Field(description="J of the runner-up minus J of the choice [USD]")
    batchability: float = Field(description="β = λ_peak·T_out·TPOT_AR(1): concurrency at batch-1 speed [1]")
    value_usd_per_output_token: float = Field(description="v = C_fail/T_out [USD/token]")
    break_even_value_usd_per_output_token: float | None = Field(
        description="v* where the best API and the best owned option cost the same [USD/token]"
    )
    break_even_utilization: float | None = Field(description="U* of the best owned option vs the best API [1]")
    break_even_demand_requests_per_s: float | None = Field(
        default=None,
        description="λ* above which the best owned option's replicas beat the best API; None when they never "
        "do (the replicas cannot carry the break-even volume) or either is missing [req/s]",
    )
    monthly_cost_usd: float = Field(
        description="cost of the chosen route per month, stand-alone (in dedicated mode the workload pays for its "
        "own replicas; the fleet summary consolidates them) [USD/month]"
    )
    all_api_monthly_cost_usd: float | None = Field(
        description="cost if sent to the best feasible API for it (lowest expected cost per task); None when it "
        "has none (sovereign, or no API meets its SLOs): the all-API baseline then keeps it on its chosen "
        "route [USD/month]"
    )
    savings_vs_api_usd_per_month: float | None = Field(
        description="all_api_monthly_cost_usd minus monthly_cost_usd, both stand-alone; negative when the route "
        "costs more than that API; None without a feasible API [USD/month]"
    )
    flips: tuple[FlipThreshold, ...] = ()


class FleetSummary(Frozen):
    """The owned fleet: what it costs, how busy it is, and what idle capacity costs (the "GPU hangover")."""

    owned_nodes: int = Field(description="owned nodes, bought plus needed by the chosen routes [count]")
    owned_gpus: int = Field(description="GPUs in those nodes [count]")
    owned_cost_usd_per_month: float = Field(description="cost of the owned fleet [USD/month]")
    owned_utilization: float = Field(description="busy GPU-hours / paid GPU-hours of the owned fleet [1]")
    idle_cost_usd_per_month: float = Field(description="owned fleet cost paid for idle GPUs [USD/month]")
    rented_cost_usd_per_month: float = Field(description="rented nodes for the chosen routes [USD/month]")
    api_cost_usd_per_month: float = Field(description="API spend of the chosen routes [USD/month]")
    total_cost_usd_per_month: float = Field(description="owned + rented + API spend of the chosen routes [USD/month]")
    all_api_cost_usd_per_month: float | None = Field(
        description="the all-API baseline, comparable with total_cost_usd_per_month: every workload with a feasible "
        "API (never a sovereign one) on the best feasible API for it (lowest expected cost per task), every "
        "other workload on its chosen route with "
        "the fleet consolidated as in the plan (shared replicas, max(bought, needed) owned nodes, bought nodes paid "
        "in full, rented GPUs). Savings vs all-API = this minus total_cost_usd_per_month: exactly 0 when no "
        "workload can move [USD/month]"
    )


class Result(Frozen):
    """Everything :func:`economics.evaluate` returns."""

    scenario_name: str
    review_date: dt.date
    options: tuple[OptionResult, ...]
    decisions: tuple[WorkloadDecision, ...]
    fleet: FleetSummary
    warnings: tuple[str, ...] = ()
