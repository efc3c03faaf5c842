"""Where owned beats an API: break-even curves and a two-axis map for one workload, option and API.

Pure: the owned cost per request is :func:`economics.costs.owned_cost_per_request` (the stand-alone
comparison's path in :mod:`economics.option_costs`) with replicas sized by
:func:`economics.serving.replicas_for_peak`, or :func:`economics.costs.owned_cost_per_request_at_utilization`
for one replica at a given utilization; the API's is
:func:`economics.option_costs.api_option_arrays`, and the break-evens are
:func:`economics.costs.break_even_utilization` and :func:`economics.costs.break_even_demand`. The axes scale
one input at a time around the scenario's current value, so the map is centred on "today".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from economics.costs import (
    break_even_demand,
    break_even_utilization,
    cost_per_mtok,
    hourly_cost_usd,
    max_utilization,
    node_cost_fixed_and_variable,
    owned_cost_per_request,
    owned_cost_per_request_at_utilization,
)
from economics.finance.rental import billed_per_hour_used
from economics.lookup import by_id
from economics.model import FloatArray
from economics.offers import OwnedNode
from economics.option_costs import WorkloadArrays, api_option_arrays, paid_replicas_per_hour, replica_cost_split
from economics.scenario import Scenario
from economics.serving import replicas_for_peak
from economics.views.cost import VariantCapacity

Axis = Literal["utilization", "api_price", "node_price", "demand"]
AXIS_LABEL: dict[Axis, str] = {
    "utilization": "utilization of the replica [%]",
    "api_price": "API price [USD per Mtok output, input included] (log)",
    "node_price": "node cost [USD per node-hour] (log)",
    "demand": "average demand [requests/s] (log)",
}
AXIS_NAME: dict[Axis, str] = {
    "utilization": "Utilization",
    "api_price": "API price",
    "node_price": "Node cost per hour",
    "demand": "Demand",
}
GRID = 61


class BreakEvenInputs(BaseModel):
    """What the Break-even page compares, and over which two axes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    workload_id: str = Field(description="workload [-]")
    option_id: str = Field(description="owned option [-]")
    api_id: str = Field(description="API [-]")
    x: Axis = Field(description="heat-map x axis [-]")
    y: Axis = Field(description="heat-map y axis [-]")

    @model_validator(mode="after")
    def _check(self) -> BreakEvenInputs:
        if self.x == self.y:
            raise ValueError("x and y must be different axes")
        if {self.x, self.y} == {"utilization", "demand"}:
            raise ValueError("utilization and demand cannot both be axes: demand sets the utilization")
        return self


@dataclass(frozen=True)
class BreakEvenAnalysis:
    """Everything the Break-even page draws."""

    workload_name: str
    option_name: str
    api_name: str
    feasible: bool
    reason: str
    api_allowed: bool
    # current operating point
    utilization: float  # [1]
    max_utilization: float  # u_target/p2a, the highest average utilization peak sizing allows [1]
    api_usd_per_mtok: float  # [USD/Mtok output]
    owned_usd_per_mtok: float  # [USD/Mtok output] at the current demand
    node_usd_per_hour: float  # full load [USD/h]
    demand_requests_per_s: float  # [req/s]
    break_even_utilization: float  # [1]; inf = never
    owned_capacity_requests_per_s: float  # average demand the owned nodes carry with headroom; inf if rented
    # curve 1: U* against API price
    curve_api_usd_per_mtok: FloatArray
    curve_break_even_utilization: FloatArray  # [1]
    # curve 2: λ* of one replica against node cost
    curve_node_usd_per_hour: FloatArray
    curve_break_even_demand: FloatArray  # [req/s]; inf = never within one replica
    replica_demand_limit: float  # average demand one replica carries with headroom [req/s]
    # heat map
    x: Axis
    y: Axis
    x_values: FloatArray  # display units: % , USD/Mtok, USD/h, req/s
    y_values: FloatArray
    owned_over_api: FloatArray  # (ny, nx) owned cost / API cost [1]
    owned_usd_per_mtok_grid: FloatArray  # (ny, nx)
    api_usd_per_mtok_grid: FloatArray  # (ny, nx)
    x_now: float
    y_now: float
    # the option's nodes are already bought and the cash lens books them at $0 (sunk): the plan may keep work on
    # them that loses at full cost here
    sunk_in_plan: bool = False
    # the option runs on rented nodes: the verdict says "renting", not "owning"
    rented: bool = False

    @property
    def side(self) -> str:
        """ "Rented" or "Owned": the option's side of the comparison, as the page and its charts name it."""
        return "Rented" if self.rented else "Owned"


def best_variant(capacities: tuple[VariantCapacity, ...], option_id: str) -> VariantCapacity | None:
    """The option's variant with the highest SLO capacity (speculation where it helps)."""
    own = [c for c in capacities if c.option_id == option_id and c.feasible]
    return max(own, key=lambda c: c.output_tokens_per_s) if own else None


def break_even_analysis(
    scenario: Scenario, inputs: BreakEvenInputs, capacities: tuple[VariantCapacity, ...]
) -> BreakEvenAnalysis:
    """Curves and the map for one workload, owned option and API (capacities from
    :func:`economics.views.cost.variant_capacities` for the same workload)."""
    wl = by_id(scenario.workloads, inputs.workload_id, "workload")
    option = by_id(scenario.owned_options, inputs.option_id, "owned option")
    api = by_id(scenario.apis, inputs.api_id, "API")
    node = scenario.node(option.node_id)
    index = [w.id for w in scenario.workloads].index(wl.id)
    arrays = WorkloadArrays.of(scenario)
    api_row = api_option_arrays(api, arrays)
    c_api = float(api_row.cost[index])
    api_feasible = bool(api_row.feasible[index])
    variant = best_variant(capacities, option.id)
    fixed_node, var_node = node_cost_fixed_and_variable(node)
    fixed, var = replica_cost_split(scenario, option)
    policy = scenario.policy
    # the rate evaluate sizes for: λ_peak, the busiest hour of a day profile, or a deferrable volume's rate
    sizing_peak = float(arrays.peak[index])
    p2a = sizing_peak / wl.avg_requests_per_s
    feasible = variant is not None and api_feasible
    reason = ""
    if variant is None:
        reason = f"{option.name} cannot serve this workload within its SLOs"
    elif not api_feasible:
        reason = f"{api.name} cannot serve this workload ({api_row.reason[index]})"
    lam_cap = variant.output_tokens_per_s / wl.decoded_output_tokens if variant is not None else 0.0
    lam_cap = lam_cap if lam_cap > 0 else float("nan")

    def node_cost_at_scale(scale: FloatArray | float) -> FloatArray:
        # the node-cost axis scales the node's fixed cost; its load-dependent power is read at full load
        return np.asarray(hourly_cost_usd(fixed_node * np.asarray(scale), var_node, 1.0), dtype=np.float64)

    hourly = billed_per_hour_used(node)
    day_rates = arrays.sizing_rates[index] / wl.avg_requests_per_s  # (H,) per req/s of mean demand

    def paid_and_utilization(demand: FloatArray | float, replicas: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Replicas paid per hour on average and the utilization over them: the busiest hour's all day, or on an
        offer billed per hour used each hour's replicas for that hour (as evaluate prices it)."""
        d = np.asarray(demand, dtype=np.float64)
        if not hourly or not np.isfinite(lam_cap):
            paid = np.asarray(replicas, dtype=np.float64)
        else:
            flat = d.reshape(-1)
            paid = paid_replicas_per_hour(
                flat[:, None] * day_rates[None, :],
                np.full(flat.shape, lam_cap),
                policy.target_utilization,
                np.broadcast_to(replicas, d.shape).reshape(-1),
            ).reshape(d.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            return paid, np.asarray(np.where(paid > 0, d / (paid * lam_cap), 0.0), dtype=np.float64)

    def owned_cost(demand: FloatArray | float, node_scale: FloatArray | float = 1.0) -> FloatArray:
        plan = replicas_for_peak(
            np.asarray(demand) * p2a,
            lam_cap,
            option.gpus_per_replica,
            average_arrival_rate_per_s=demand,
            target_utilization=policy.target_utilization,
        )
        paid, util = paid_and_utilization(demand, plan.replicas)
        return owned_cost_per_request(fixed, var, paid, util, demand, node_scale)

    def owned_cost_at_u(u: FloatArray | float, node_scale: FloatArray | float = 1.0) -> FloatArray:
        return owned_cost_per_request_at_utilization(fixed, var, lam_cap, u, node_scale)

    k = np.geomspace(0.05, 5.0, GRID)  # API price scale
    m = np.geomspace(0.2, 5.0, GRID)  # node cost scale
    u = np.linspace(0.01, 1.0, GRID)
    lam = wl.avg_requests_per_s * np.geomspace(0.01, 100.0, GRID)
    now_plan = replicas_for_peak(
        sizing_peak,
        lam_cap if np.isfinite(lam_cap) else 0.0,
        option.gpus_per_replica,
        average_arrival_rate_per_s=wl.avg_requests_per_s,
        target_utilization=policy.target_utilization,
    )
    u_now = float(paid_and_utilization(wl.avg_requests_per_s, now_plan.replicas)[1])
    max_u = float(max_utilization(p2a, policy.target_utilization))

    axes: dict[Axis, tuple[FloatArray, FloatArray, float]] = {
        # axis: (scale or value grid, display values, display value now)
        "utilization": (u, 100 * u, 100 * u_now),
        "api_price": (
            k,
            cost_per_mtok(c_api * k, wl.decoded_output_tokens),
            float(cost_per_mtok(c_api, wl.decoded_output_tokens)),
        ),
        "node_price": (m, node_cost_at_scale(m), float(node_cost_at_scale(1.0))),
        "demand": (lam, lam, wl.avg_requests_per_s),
    }
    gx, gy = np.meshgrid(axes[inputs.x][0], axes[inputs.y][0])
    grid = {inputs.x: gx, inputs.y: gy}
    k_g = grid.get("api_price", 1.0)
    m_g = grid.get("node_price", 1.0)
    if "demand" in grid:
        owned = owned_cost(grid["demand"], m_g)
    else:
        owned = owned_cost_at_u(grid.get("utilization", u_now), m_g)
    api_cost = c_api * np.asarray(k_g) * np.ones_like(gx)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(api_cost > 0, owned / api_cost, np.inf)

    # owned nodes' capacity as average demand (rented nodes scale without limit)
    if isinstance(node, OwnedNode) and node.nodes_owned > 0 and np.isfinite(lam_cap):
        replicas_owned = node.nodes_owned * node.gpus_per_node // option.gpus_per_replica
        owned_capacity = replicas_owned * lam_cap * policy.target_utilization / p2a
    else:
        owned_capacity = float("inf")

    return BreakEvenAnalysis(
        workload_name=wl.name,
        option_name=option.name,
        api_name=api.name,
        feasible=feasible,
        reason=reason,
        api_allowed=not wl.sovereign,
        utilization=u_now,
        max_utilization=max_u,
        api_usd_per_mtok=float(cost_per_mtok(c_api, wl.decoded_output_tokens)),
        owned_usd_per_mtok=float(cost_per_mtok(owned_cost(wl.avg_requests_per_s), wl.decoded_output_tokens)),
        node_usd_per_hour=float(node_cost_at_scale(1.0)),
        demand_requests_per_s=wl.avg_requests_per_s,
        break_even_utilization=float(break_even_utilization(fixed, lam_cap, c_api, var)),
        owned_capacity_requests_per_s=float(owned_capacity),
        curve_api_usd_per_mtok=cost_per_mtok(c_api * k, wl.decoded_output_tokens),
        curve_break_even_utilization=break_even_utilization(fixed, lam_cap, c_api * k, var),
        curve_node_usd_per_hour=node_cost_at_scale(m),
        curve_break_even_demand=break_even_demand(1.0, fixed * m, c_api, lam_cap, var),
        replica_demand_limit=lam_cap * policy.target_utilization / p2a,
        sunk_in_plan=isinstance(node, OwnedNode) and node.nodes_owned > 0 and policy.lens == "cash",
        rented=not isinstance(node, OwnedNode),
        x=inputs.x,
        y=inputs.y,
        x_values=axes[inputs.x][1],
        y_values=axes[inputs.y][1],
        owned_over_api=ratio,
        owned_usd_per_mtok_grid=cost_per_mtok(owned, wl.decoded_output_tokens),
        api_usd_per_mtok_grid=cost_per_mtok(api_cost, wl.decoded_output_tokens),
        x_now=axes[inputs.x][2],
        y_now=axes[inputs.y][2],
    )
