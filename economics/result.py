"""Typed results of :func:`economics.evaluate` (docs/serving.md#serving-and-queues to docs/routing.md#routing-rule)."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field, model_validator

from economics._base import Frozen

OptionKind = Literal["owned-ar", "owned-diffusion", "api"]
#: Quadrant route labels; their order is the integer code in grids (:data:`economics.routing.ROUTE_LABELS`).
RouteLabel = Literal[
    "owned diffusion",
    "owned AR (batch)",
    "owned AR",
    "frontier API",
    "API",
    "none feasible",
    "rented diffusion",
    "rented AR (batch)",
    "rented AR",
]


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
    band_basis: str = Field(
        default="",
        description="where the band of the model's throughput comes from, in words; 'measured' for a benchmarked "
        "option (no model band), '' for an API or an infeasible option [-]",
    )
    throughput_low_ratio: float | None = Field(
        default=None, description="10th-percentile plausible throughput / the model's (band low); None: no band [1]"
    )
    throughput_high_ratio: float | None = Field(
        default=None, description="90th-percentile plausible throughput / the model's (band high); None: no band [1]"
    )
    capacity_low_requests_per_s: float | None = Field(
        default=None, description="low end of the band of capacity_requests_per_s; None: no band [req/s]"
    )
    capacity_high_requests_per_s: float | None = Field(
        default=None, description="high end of the band of capacity_requests_per_s; None: no band [req/s]"
    )
    cost_low_usd_per_mtok_output: float | None = Field(
        default=None, description="low end of the band of cost_usd_per_mtok_output (∝ 1/throughput) [USD/Mtok]"
    )
    cost_high_usd_per_mtok_output: float | None = Field(
        default=None, description="high end of the band of cost_usd_per_mtok_output (∝ 1/throughput) [USD/Mtok]"
    )


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
    to_option_id: str | None = Field(
        default=None, description="the option the plan moves the workload to; None when none takes over [-]"
    )

    @model_validator(mode="after")
    def _same_target(self) -> FlipThreshold:
        if self.to_option_id != self.new_option_id:
            object.__setattr__(self, "to_option_id", self.new_option_id)
        return self


class CloseCall(Frozen):
    """The plan's route against its runner-up, each with the band of the model's accuracy (issue 13).

    Costs are the workload's marginal expected cost per task in the plan (the figure the route is decided on,
    see :attr:`WorkloadDecision.margin_usd_per_request`). An owned option's band scales its inference cost by the
    inverse of its throughput band; an API's or a measured option's band is its cost itself.
    """

    runner_up_option_id: str = Field(description="the next best option for the workload [-]")
    chosen_usd_per_task: float = Field(description="the chosen route's expected cost per task J [USD]")
    chosen_low_usd_per_task: float = Field(description="low end of its band [USD]")
    chosen_high_usd_per_task: float = Field(description="high end of its band [USD]")
    runner_up_usd_per_task: float = Field(description="the runner-up's expected cost per task J [USD]")
    runner_up_low_usd_per_task: float = Field(description="low end of its band [USD]")
    runner_up_high_usd_per_task: float = Field(description="high end of its band [USD]")
    basis: str = Field(description="where the owned option's band comes from, in words [-]")


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
        description="the workload's share of the plan's money in its lens (see PlanWorkload for the allocation); "
        "the shares and Plan.unallocated_usd_per_month sum to the headline [USD/month]"
    )
    standalone_monthly_cost_usd: float | None = Field(
        default=None,
        description="comparison only: the route priced stand-alone on its own dedicated replicas at full cost "
        "[USD/month]",
    )
    share_by_option: dict[str, float] = Field(
        default_factory=dict, description="share of the day's volume per option in the plan [1]"
    )
    all_api_monthly_cost_usd: float | None = Field(
        description="cost if sent to the best feasible API for it (lowest expected cost per task); None when it "
        "has none (sovereign, or no API meets its SLOs): the all-API baseline then keeps it on its chosen "
        "route [USD/month]"
    )
    baseline_monthly_cost_usd: float | None = Field(
        default=None,
        description="its share of the all-API baseline (= all_api_monthly_cost_usd when an API may serve it; "
        "else its share of the owned nodes that carry it there); the shares and the baseline's idle bought "
        "nodes sum to FleetSummary.all_api_cost_usd_per_month; its share here when no workload may use an API "
        "(the baseline is then the plan) [USD/month]",
    )
    savings_vs_api_usd_per_month: float | None = Field(
        description="all_api_monthly_cost_usd minus monthly_cost_usd (its plan share); negative when its share "
        "costs more than that API; None without a feasible API [USD/month]"
    )
    flips: tuple[FlipThreshold, ...] = ()
    too_close_to_call: bool = Field(
        default=False,
        description="the runner-up's cost lies inside the band of the chosen route's cost, or the chosen route's "
        "inside the runner-up's: at the model's accuracy the two cannot be told apart [-]",
    )
    close_call: CloseCall | None = Field(
        default=None, description="the two costs and their bands; None without a runner-up [-]"
    )

    @property
    def baseline_share_usd_per_month(self) -> float | None:
        """What this workload costs in the all-API baseline, as a reader compares it with its share here: its best
        API's bill where an API may serve it, else its share of the owned nodes that keep it there; None when it
        has no feasible route (served nowhere) [USD/month]."""
        if self.all_api_monthly_cost_usd is not None:
            return self.all_api_monthly_cost_usd
        if self.chosen_option_id is None:
            return None
        return self.baseline_monthly_cost_usd


class FleetSummary(Frozen):
    """The owned fleet: what it costs, how busy it is, and what idle capacity costs (the "GPU hangover")."""

    owned_nodes: int = Field(description="owned nodes paid: max(bought, used by the plan) [count]")
    owned_gpus: int = Field(description="GPUs in those nodes [count]")
    owned_cost_usd_per_month: float = Field(
        description="owned nodes and power in the plan's lens (cash: bought nodes are sunk, 0) [USD/month]"
    )
    owned_utilization: float = Field(description="busy GPU-hours / paid GPU-hours of the owned fleet [1]")
    idle_cost_usd_per_month: float = Field(
        description="the lens's owned cost times the idle share; the full cost of idle bought GPUs is on the "
        "Overview from Plan.nodes [USD/month]"
    )
    rented_cost_usd_per_month: float = Field(description="rented nodes for the chosen routes [USD/month]")
    api_cost_usd_per_month: float = Field(description="API spend of the chosen routes [USD/month]")
    total_cost_usd_per_month: float = Field(description="the plan's total in its lens (= Plan.total) [USD/month]")
    all_api_cost_usd_per_month: float | None = Field(
        description="the all-API baseline, comparable with total_cost_usd_per_month: every workload with a feasible "
        "API (never a sovereign one) on the best feasible API for it (lowest expected cost per task), every "
        "other workload on its chosen route with "
        "the fleet consolidated as in the plan (shared replicas, max(bought, needed) owned nodes, bought nodes paid "
        "in full, rented GPUs). Savings vs all-API = this minus total_cost_usd_per_month: exactly 0 when no "
        "workload can move [USD/month]"
    )


Lens = Literal["cash", "full"]


class PlanNode(Frozen):
    """One node offer in the plan: how many units it runs, owns and must buy, and what it costs."""

    node_id: str
    node_name: str
    kind: Literal["owned", "rented"]
    data_location: str = Field(description="on_premises, sovereign_cloud or third_party [-]")
    rental_unit: Literal["node", "instance", "gpu"] = Field(description="what one unit is [-]")
    nodes_used: int = Field(description="units the plan runs (nodes, instances or GPUs) [count]")
    nodes_owned: int = Field(description="nodes already bought (0 for rented offers) [count]")
    nodes_to_buy: int = Field(description="nodes the plan must buy beyond those owned [count]")
    gpus_used: int = Field(description="GPUs that carry replicas [count]")
    gpus_paid: int = Field(description="GPUs paid for: units run plus idle bought nodes [count]")
    utilization: float = Field(description="busy GPU-hours / paid GPU-hours, averaged over the day [1]")
    capital_to_buy_usd: float = Field(description="purchase price of the nodes to buy [USD]")
    cost_usd_per_month: float = Field(description="what the offer costs in the plan's lens [USD/month]")
    full_cost_usd_per_month: float = Field(description="every paid unit at full cost, power included [USD/month]")
    sunk_usd_per_month: float = Field(description="capital recovery and fixed costs of bought nodes [USD/month]")
    new_nodes_usd_per_month: float = Field(description="capital recovery and fixed costs of nodes to buy [USD/month]")


class PlanReplicas(Frozen):
    """Replicas of one owned option in the plan."""

    option_id: str
    node_id: str
    replicas: int = Field(description="replicas run all day [count]")
    gpus: int = Field(description="GPUs they take [count]")
    peak_load: float = Field(description="busiest hour's load / replica capacity at the target utilization [1]")


class PlanWorkload(Frozen):
    """One workload's place in the plan and its share of the bill.

    Allocation: a workload pays its own API bill (retries included), its own power above idle and its
    expected failure cost. A node offer's cost in the lens (new nodes in the cash lens; every unit used in
    the full lens; rented units in both) is split over the owned options on it by the GPUs their replicas
    take, idle GPUs of the offer included, and an option's share over its workloads by the replica-hours
    they take (load × hours). Bought nodes no option uses are not a workload's cost: the plan reports them
    as ``unallocated_usd_per_month``. So Σ workloads + unallocated = the plan's total.
    """

    workload_id: str
    workload_name: str
    option_id: str | None = Field(description="main route: the option with the largest share of the volume [-]")
    share_by_option: dict[str, float] = Field(description="share of the day's volume per option (sums to 1) [1]")
    cost_usd_per_month: float = Field(description="its share of the plan's money in the lens [USD/month]")
    api_cost_usd_per_month: float = Field(description="its API bill, retries included [USD/month]")
    owned_cost_usd_per_month: float = Field(description="its share of node costs and power [USD/month]")
    failure_cost_usd_per_month: float = Field(description="expected failure cost [USD/month]")
    standalone_cost_usd_per_month: float | None = Field(
        description="comparison only: the main route priced stand-alone on dedicated replicas at full cost [USD/month]"
    )
    best_api_id: str | None = Field(description="the API with the lowest expected cost per task for it [-]")
    best_api_cost_usd_per_month: float | None = Field(
        description="its bill on that API, retries included; None without an allowed API [USD/month]"
    )
    baseline_cost_usd_per_month: float | None = Field(
        default=None,
        description="its share of the all-API baseline (Plan.all_api_cost_usd_per_month): its best API's bill, "
        "or, when no API may serve it, its share of the nodes that carry it there (its share here when no "
        "workload may use an API: the baseline is then the plan) [USD/month]",
    )
    nodes_to_buy: int = Field(default=0, description="nodes the plan buys only because of this workload [count]")
    node_capital_usd: float = Field(default=0.0, description="purchase price of those nodes [USD]")
    node_usd_per_month: float = Field(default=0.0, description="their capital recovery and fixed costs [USD/month]")
    unserved_reason: str = Field(default="", description="why no allowed option can serve it, or '' [-]")


class Plan(Frozen):
    """The fleet plan: routes, replicas and nodes decided together (see :mod:`economics.plan`)."""

    lens: Lens = Field(description="cash: bought nodes are sunk; full: every node used carries its cost [-]")
    solver_status: str = Field(description="optimal, or why the solver stopped [-]")
    mip_gap: float = Field(description="relative optimality gap of the plan (0 = proven optimal) [1]")
    solve_time_s: float = Field(description="time to build and solve the program [s]")
    total_cost_usd_per_month: float = Field(description="money the plan spends per month in its lens [USD/month]")
    objective_usd_per_month: float = Field(description="money plus expected failure cost [USD/month]")
    failure_cost_usd_per_month: float = Field(description="expected failure cost of all workloads [USD/month]")
    cash_cost_usd_per_month: float = Field(description="the same plan in the cash lens [USD/month]")
    full_cost_usd_per_month: float = Field(description="the same plan in the full-cost lens [USD/month]")
    api_cost_usd_per_month: float = Field(description="API bills, retries included [USD/month]")
    rented_cost_usd_per_month: float = Field(description="rented units [USD/month]")
    owned_cost_usd_per_month: float = Field(description="owned nodes and power in the lens [USD/month]")
    sunk_usd_per_month: float = Field(
        description="capital recovery and fixed costs of nodes already bought [USD/month]"
    )
    sunk_capital_usd: float = Field(description="purchase price of nodes already bought [USD]")
    nodes_to_buy: int = Field(description="owned nodes to buy, all offers [count]")
    capital_to_buy_usd: float = Field(description="purchase price of the nodes to buy [USD]")
    new_nodes_usd_per_month: float = Field(description="capital recovery and fixed costs of those nodes [USD/month]")
    unallocated_usd_per_month: float = Field(
        description="bought nodes the plan leaves idle, full lens only (sunk and 0 in the cash lens) [USD/month]"
    )
    all_api_cost_usd_per_month: float | None = Field(
        description="the same lens with every workload that may use an API on its best API and the rest planned "
        "again; the plan itself when no workload may use an API [USD/month]"
    )
    baseline_unallocated_usd_per_month: float = Field(
        default=0.0,
        description="bought nodes the all-API baseline leaves idle (full lens only): with the workloads' "
        "baseline_cost_usd_per_month it sums to all_api_cost_usd_per_month [USD/month]",
    )
    nodes: tuple[PlanNode, ...] = ()
    replicas: tuple[PlanReplicas, ...] = ()
    workloads: tuple[PlanWorkload, ...] = ()

    @property
    def marginal_nodes_add_up(self) -> bool:
        """Whether the workloads' own node counts (each the nodes the plan buys only because of it) sum to the
        nodes the plan buys. They need not: two workloads can need the same new nodes, or a node serves many."""
        return sum(w.nodes_to_buy for w in self.workloads) == self.nodes_to_buy

    def _full_cost(self, kind: str) -> float:
        """Full cost of the plan's nodes of ``kind`` ("owned" or "rented") [USD/month]."""
        return float(sum(n.full_cost_usd_per_month for n in self.nodes if n.kind == kind))

    def _idle_cost(self, kind: str) -> float:
        """Full cost of the idle hours of the plan's nodes of ``kind``: ``Σ full cost × (1 − utilization)``."""
        return float(
            sum(
                n.full_cost_usd_per_month * (1.0 - min(max(n.utilization, 0.0), 1.0))
                for n in self.nodes
                if n.kind == kind
            )
        )

    @property
    def owned_full_cost_usd_per_month(self) -> float:
        """Every owned node paid (bought or to buy) at full cost, power included, whatever the lens: in the cash
        lens ``sunk_usd_per_month`` of it is sunk and the rest is the plan's owned cost [USD/month]."""
        return self._full_cost("owned")

    @property
    def idle_owned_full_cost_usd_per_month(self) -> float:
        """Full cost of the owned GPUs' idle hours, whatever the lens (sunk, not spent, in the cash lens): the
        essay's "GPU hangover", ``Σ_owned full cost × (1 − utilization)`` [USD/month]."""
        return self._idle_cost("owned")

    @property
    def rented_full_cost_usd_per_month(self) -> float:
        """Every rented unit the plan pays for, power included in the rent [USD/month]."""
        return self._full_cost("rented")

    @property
    def rented_gpus_paid(self) -> int:
        """GPUs the plan rents, at its busiest hour [count]."""
        return sum(n.gpus_paid for n in self.nodes if n.kind == "rented")

    @property
    def idle_rented_cost_usd_per_month(self) -> float:
        """What the rented GPUs' idle hours cost: ``Σ_rented cost × (1 − utilization)``. A rented unit is paid for
        the hours it is held (every hour when reserved or committed; on demand, the hours the day's profile needs
        it, sized for the peak with headroom), busy or not [USD/month]."""
        return self._idle_cost("rented")

    @property
    def idle_full_cost_usd_per_month(self) -> float:
        """The idle hours of every GPU the plan pays for, owned and rented, at full cost whatever the lens: the
        Overview's "Idle GPUs at full cost" [USD/month]."""
        return self.idle_owned_full_cost_usd_per_month + self.idle_rented_cost_usd_per_month


class Result(Frozen):
    """Everything :func:`economics.evaluate` returns."""

    scenario_name: str
    review_date: dt.date
    options: tuple[OptionResult, ...]
    decisions: tuple[WorkloadDecision, ...]
    fleet: FleetSummary
    warnings: tuple[str, ...] = ()
    plan: Plan | None = Field(default=None, description="the fleet plan; None only in results stored before it")
