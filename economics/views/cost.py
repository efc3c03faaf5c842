"""Cost per token against utilization, for one workload's request shape and SLOs (the Cost-per-token page).

Pure: calls the serving and cost functions of ``economics`` (SLO capacity, node cost, capacity-form $/Mtok,
break-even utilization) and packs the curves for :mod:`ui.charts.cost`. The essay's formula, effective
$/Mtok = node $/h ÷ (throughput × utilization), is :func:`economics.costs.owned_cost_per_mtok_at_utilization`
with the SLO-constrained throughput of one replica; this module writes no cost formula of its own
(``tests/test_architecture.py`` checks it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from economics.costs import (
    break_even_utilization,
    cost_per_mtok,
    hourly_cost_usd,
    owned_cost_per_mtok_at_utilization,
    owned_node_cost_breakdown,
    rented_node_list_usd_per_hour,
)
from economics.finance.rental import billing_reasons
from economics.hardware import Deployment
from economics.lookup import by_id
from economics.model import FloatArray
from economics.offers import OwnedNode, RentedNode
from economics.option_costs import WorkloadArrays, api_option_arrays, replica_cost_split
from economics.scenario import OwnedOption, Scenario
from economics.schemes import ARScheme, DiffusionScheme, SpeculativeScheme
from economics.serving import slo_capacity
from economics.views.kinds import DisplayKind, api_kind

#: Utilizations drawn [1]; the curve starts at 2% because cost per token is unbounded at zero load.
UTILIZATION_GRID: FloatArray = np.linspace(0.02, 1.0, 99)


class CostInputs(BaseModel):
    """What the Cost-per-token page prices: one workload and an optional measured throughput for one owned
    option (the utilization marked is applied afterwards by :func:`cost_at`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    workload_id: str = Field(description="workload giving T_in, T_out and the SLOs [-]")
    measured_option_id: str | None = Field(default=None, description="owned option with a measured throughput [-]")
    measured_tokens_per_s: float | None = Field(
        default=None, gt=0, le=1e7, description="measured SLO throughput of one replica [tok/s]"
    )


@dataclass(frozen=True)
class CostCurve:
    """One owned option (one decoding variant) priced against utilization."""

    option_id: str
    label: str
    kind: DisplayKind
    feasible: bool
    reason: str
    source: Literal["model", "measured"]
    capacity_tokens_per_s: float  # SLO throughput of one replica, output tokens [tok/s]
    replica_cost_usd_per_hour: float  # at full load [USD/h]
    utilization: FloatArray  # [1]
    cost_usd_per_mtok: FloatArray  # [USD/Mtok output]
    replica_fixed_usd_per_hour: float  # C_fixed of one replica [USD/h]
    replica_variable_usd_per_hour: float  # load-dependent power of one replica at full load [USD/h]
    break_even_utilization: float  # vs the cheapest allowed API; inf = never; nan = no API [1]


@dataclass(frozen=True)
class ApiLine:
    """An API's all-in price for the workload, flat in utilization."""

    option_id: str
    label: str
    kind: DisplayKind
    feasible: bool
    allowed: bool
    cost_usd_per_request: float  # [USD]
    cost_usd_per_mtok: float  # [USD/Mtok output], input tokens included


@dataclass(frozen=True)
class NodeCost:
    """A node's cost per hour, by component for an owned node."""

    node_id: str
    name: str
    kind: Literal["owned", "rented"]
    gpus_per_node: int
    components_usd_per_hour: tuple[tuple[str, float], ...]  # (component, USD/h) at full load
    total_usd_per_hour: float
    usd_per_gpu_hour: float


@dataclass(frozen=True)
class CostAnalysis:
    """Everything the Cost-per-token page draws."""

    workload_name: str
    input_tokens: int
    output_tokens: int
    sovereign: bool
    curves: tuple[CostCurve, ...]
    apis: tuple[ApiLine, ...]
    cheapest_api: ApiLine | None


def node_costs(scenario: Scenario) -> tuple[NodeCost, ...]:
    """Every node's $/h at full load, with the owned-node breakdown (capital, power, facility, operations)."""
    out: list[NodeCost] = []
    for node in scenario.nodes:
        if isinstance(node, OwnedNode):
            b = owned_node_cost_breakdown(node, 1.0)
            parts: tuple[tuple[str, float], ...] = (
                ("capital recovery", float(b.capex_usd_per_hour)),  # purchase price spread over its life
                ("power, cooling included", float(b.power_usd_per_hour)),
                ("colocation", float(b.facility_usd_per_hour)),
                ("operations", float(b.ops_usd_per_hour)),
            )
            total = float(b.total_usd_per_hour)
            kind: Literal["owned", "rented"] = "owned"
        else:
            assert isinstance(node, RentedNode)
            total = rented_node_list_usd_per_hour(node)
            parts = (("rental", total),)
            kind = "rented"
        out.append(NodeCost(node.id, node.name, kind, node.gpus_per_node, parts, total, total / node.gpus_per_node))
    return tuple(out)


def _variants(option: OwnedOption) -> list[tuple[str, DisplayKind, ARScheme | SpeculativeScheme | DiffusionScheme]]:
    if isinstance(option.scheme, DiffusionScheme):
        return [(option.name, "owned-diffusion", option.scheme)]
    plain: list[tuple[str, DisplayKind, ARScheme | SpeculativeScheme | DiffusionScheme]] = [
        (f"{option.name} · plain AR" if option.speculation else option.name, "owned-ar", option.scheme)
    ]
    if option.speculation is not None:
        plain.append((f"{option.name} · with speculation", "owned-ar-spec", option.speculation))
    return plain


@dataclass(frozen=True)
class VariantCapacity:
    """SLO capacity of one replica of one owned option's decoding variant, for one workload."""

    option_id: str
    label: str
    kind: DisplayKind
    feasible: bool
    reason: str
    output_tokens_per_s: float  # λ_max·T_out [tok/s]
    source: Literal["model", "measured"] = "model"  # the option's attached benchmark replaced the model's figure
    #: the offer's billing mode can carry the workload (spot with no fallback carries no latency SLO) [-]
    billable: bool = True


def capacity_key(scenario: Scenario, workload_id: str) -> str:
    """Everything the capacities depend on, and nothing else (prices excluded): a cache key."""
    wl = by_id(scenario.workloads, workload_id, "workload")
    parts = [scenario.efficiency.model_dump_json(), wl.model_dump_json()]
    for option in scenario.owned_options:
        node = scenario.node(option.node_id)
        parts += [option.model_dump_json(), scenario.model(option.model_id).model_dump_json()]
        parts += [scenario.gpu(node.gpu_id).model_dump_json(), str(node.gpus_per_node)]
        if isinstance(node, RentedNode):  # the billing mode decides which workloads the offer may carry
            parts += [node.pricing_type, node.billing.model_dump_json() if node.billing is not None else ""]
    return "\n".join(parts)


def variant_capacities(scenario: Scenario, workload_id: str) -> tuple[VariantCapacity, ...]:
    """SLO capacity (docs/serving.md#slo-capacity) of every owned option's variants (plain AR, with speculation,
    diffusion) for the workload's request shape and SLOs."""
    wl = by_id(scenario.workloads, workload_id, "workload")
    w = [i for i, x in enumerate(scenario.workloads) if x.id == workload_id][:1]  # (1,) index: arrays, not scalars
    slo = WorkloadArrays.of(scenario)  # the latency-SLO rule of evaluate(), not a copy of it
    out: list[VariantCapacity] = []
    for option in scenario.owned_options:
        node = scenario.node(option.node_id)
        model = scenario.model(option.model_id).at_precision(option.precision)
        dep = Deployment(gpu=scenario.gpu(node.gpu_id), n_gpus=option.gpus_per_replica, precision=option.precision)
        for label, kind, scheme in _variants(option):
            cap = slo_capacity(
                model,
                dep,
                option.effective_efficiency(scenario.efficiency),
                scheme,
                wl.input_tokens,
                wl.decoded_output_tokens,
                tpot_max_s=wl.tpot_slo_s,
                ttft_max_s=wl.ttft_slo_s,
                deadline_s=wl.deadline_s,
            )
            # the option's benchmark (OwnedOption.measured) replaces every variant's capacity, as in evaluate()
            # (economics.measured.measured_capacity); feasibility stays the model's, as there
            measured = option.measured.output_tokens_per_s if option.measured is not None else None
            # the offer's billing rule, as in evaluate(): spot with no fallback carries no latency SLO, and a
            # serverless cold start may miss the TTFT SLO (the page drew spot as the chat's cheapest option)
            ttft = np.atleast_1d(np.asarray(cap.ttft_s, dtype=np.float64))[:1]
            mode = str(billing_reasons(node, slo.latency_slo[w], slo.ttft_slo[w], ttft)[0])
            out.append(
                VariantCapacity(
                    option.id,
                    label,
                    kind,
                    bool(cap.feasible) and not mode,
                    mode or str(cap.reason),
                    float(cap.output_tokens_per_s) if measured is None else measured,
                    "model" if measured is None else "measured",
                    billable=not mode,
                )
            )
    return tuple(out)


def cost_analysis(scenario: Scenario, inputs: CostInputs, capacities: tuple[VariantCapacity, ...]) -> CostAnalysis:
    """Curves of $/Mtok against utilization for every owned variant, and the API prices, for one workload.

    The cheapest feasible API sets the break-even utilization even for sovereign workloads (where the API
    is not allowed), so a reviewer sees what sovereignty costs.
    """
    wl = by_id(scenario.workloads, inputs.workload_id, "workload")
    index = [w.id for w in scenario.workloads].index(wl.id)
    arrays = WorkloadArrays.of(scenario)
    apis: list[ApiLine] = []
    for a in scenario.apis:
        row = api_option_arrays(a, arrays)
        apis.append(
            ApiLine(
                option_id=a.id,
                label=a.name,
                kind=api_kind(a),
                feasible=bool(row.feasible[index]),
                allowed=not wl.sovereign,
                cost_usd_per_request=float(row.cost[index]),
                cost_usd_per_mtok=float(cost_per_mtok(row.cost[index], wl.decoded_output_tokens)),
            )
        )
    usable = [a for a in apis if a.feasible and np.isfinite(a.cost_usd_per_mtok)]
    cheapest = min(usable, key=lambda a: a.cost_usd_per_mtok) if usable else None

    curves: list[CostCurve] = []
    u = UTILIZATION_GRID
    for cap in capacities:
        option = by_id(scenario.owned_options, cap.option_id, "owned option")
        fixed, var = replica_cost_split(scenario, option)
        # the scenario's benchmark (OwnedOption.measured) replaces every variant, as in evaluate(); the page's
        # one-off measured input (older links) replaces plain decoding only
        typed = inputs.measured_tokens_per_s if inputs.measured_option_id == option.id else None
        tok_s = (
            option.measured.output_tokens_per_s
            if option.measured is not None
            else (typed if cap.kind != "owned-ar-spec" else None)
        )
        measured = tok_s is not None
        feasible = (measured or cap.feasible) and cap.billable
        x_cap = (tok_s or 0.0) if measured else (cap.output_tokens_per_s if feasible else 0.0)
        if cheapest is None:
            u_star = float("nan")
        elif not feasible:
            u_star = float("inf")
        else:
            u_star = float(
                break_even_utilization(fixed, x_cap / wl.decoded_output_tokens, cheapest.cost_usd_per_request, var)
            )
        curves.append(
            CostCurve(
                option_id=option.id,
                label=cap.label,
                kind=cap.kind,
                feasible=feasible,
                reason="" if feasible else cap.reason,
                source="measured" if measured else "model",
                capacity_tokens_per_s=x_cap,
                replica_cost_usd_per_hour=hourly_cost_usd(fixed, var, 1.0),
                utilization=u,
                cost_usd_per_mtok=owned_cost_per_mtok_at_utilization(fixed, var, x_cap, u),
                replica_fixed_usd_per_hour=fixed,
                replica_variable_usd_per_hour=var,
                break_even_utilization=u_star,
            )
        )
    return CostAnalysis(
        workload_name=wl.name,
        input_tokens=wl.input_tokens,
        output_tokens=wl.decoded_output_tokens,
        sovereign=wl.sovereign,
        curves=tuple(curves),
        apis=tuple(apis),
        cheapest_api=cheapest,
    )


@dataclass(frozen=True)
class CostAtUtilization:
    """Every option's $/Mtok output at one utilization: owned variants on their curve, APIs at their price."""

    utilization: float  # [1]
    rows: tuple[tuple[str, DisplayKind, float, str], ...]  # (label, kind, USD/Mtok output, "owned"/"API"/…)


def cost_at(analysis: CostAnalysis, utilization: float) -> CostAtUtilization:
    """Read every curve at ``utilization`` (the capacity form of docs/costs.md#cost-per-token), cheapest first."""
    rows: list[tuple[str, DisplayKind, float, str]] = []
    for cv in analysis.curves:
        if not cv.feasible:
            continue
        usd_per_mtok = owned_cost_per_mtok_at_utilization(
            cv.replica_fixed_usd_per_hour, cv.replica_variable_usd_per_hour, cv.capacity_tokens_per_s, utilization
        )
        rows.append((cv.label, cv.kind, float(usd_per_mtok), "owned"))
    for api in analysis.apis:
        if api.feasible and np.isfinite(api.cost_usd_per_mtok):
            rows.append((api.label, api.kind, api.cost_usd_per_mtok, "API" if api.allowed else "API, not allowed"))
    rows.sort(key=lambda r: r[2])
    return CostAtUtilization(utilization, tuple(rows))
