"""The fleet behind the chosen routes: owned nodes, their utilisation and idle cost, rented GPUs and API spend.

The essay's "GPU hangover" is the owned fleet's bill for capacity nobody uses; :func:`fleet_summary` reports
it as a first-class output of :func:`economics.evaluate.evaluate`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from economics.costs import idle_cost_usd_per_month, node_cost_usd_per_hour
from economics.offers import OwnedNode, RentedNode
from economics.result import FleetSummary
from economics.routing import OptionTable, Route, best_api
from economics.scenario import Scenario
from economics.units import HOURS_PER_MONTH, SECONDS_PER_HOUR

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]

SECONDS_PER_MONTH = HOURS_PER_MONTH * SECONDS_PER_HOUR


def _take(a: FloatArray, idx: IntArray) -> FloatArray:
    rows = np.arange(a.shape[0])
    return np.asarray(np.where(idx >= 0, a[rows, np.maximum(idx, 0)], np.nan), dtype=np.float64)


def monthly_cost(cost_usd_per_request: FloatArray, avg_requests_per_s: FloatArray) -> FloatArray:
    """``c · λ_avg · 3600 · 730`` [USD/month]; 0 where the cost is not finite (no route)."""
    return np.where(
        np.isfinite(cost_usd_per_request), cost_usd_per_request * avg_requests_per_s * SECONDS_PER_MONTH, 0.0
    )


def _money(x: float) -> str:
    return f"${x:,.2f}"


@dataclass(frozen=True)
class _Bill:
    """What one set of routes costs per month, consolidated as :func:`fleet_summary` describes."""

    owned_nodes: int
    owned_gpus: int
    owned_usd: float  # owned nodes, busy or idle [USD/month]
    idle_usd: float  # the owned bill's idle share [USD/month]
    busy_gpus: float  # busy GPU-equivalents on owned nodes [count]
    rented_usd: float  # rented GPUs [USD/month]
    api_usd: float  # API spend [USD/month]
    warnings: tuple[str, ...]

    @property
    def total_usd(self) -> float:
        return self.owned_usd + self.rented_usd + self.api_usd


def _bill(s: Scenario, t: OptionTable, chosen: IntArray, monthly: FloatArray) -> _Bill:
    """The fleet the routes ``chosen`` need (−1: not served) and its monthly bill; ``monthly`` per workload."""
    u_t = s.policy.target_utilization
    n_owned = len(s.owned_options)
    gpus_needed = np.zeros(len(s.nodes))
    busy = np.zeros(len(s.nodes))
    for o, option in enumerate(s.owned_options):
        routed = chosen == o
        if not routed.any():
            continue
        lam_max = t.capacity_requests_per_s[routed, o]
        share = float(np.sum(t.peak_requests_per_s[routed] / (u_t * lam_max)))
        replicas = max(1, math.ceil(share * (1.0 - 1e-12)))
        i = int(t.node_index[o])
        gpus_needed[i] += replicas * option.gpus_per_replica
        busy[i] += float(np.sum(t.avg_requests_per_s[routed] / lam_max)) * option.gpus_per_replica
    warnings: list[str] = []
    owned_nodes = owned_gpus = 0
    owned_cost = idle = busy_owned = rented = 0.0
    for i, node in enumerate(s.nodes):
        if isinstance(node, OwnedNode):
            needed = math.ceil(gpus_needed[i] / node.gpus_per_node - 1e-9)
            nodes = max(node.nodes_owned, needed)
            if nodes == 0:
                continue
            total_gpus = nodes * node.gpus_per_node
            u = float(busy[i]) / total_gpus
            c_h = float(node_cost_usd_per_hour(node, u))
            owned_nodes += nodes
            owned_gpus += total_gpus
            busy_owned += float(busy[i])
            owned_cost += nodes * c_h * HOURS_PER_MONTH
            idle += float(idle_cost_usd_per_month(nodes * c_h, u))
            if needed > node.nodes_owned > 0:
                warnings.append(
                    f"nodes.{i} ({node.name}): the chosen routes need {needed} node(s), "
                    f"{node.nodes_owned} are owned; {needed - node.nodes_owned} more must be bought"
                )
            elif needed == 0:
                warnings.append(
                    f"nodes.{i} ({node.name}): {nodes} owned node(s) carry no chosen route; "
                    f"{_money(nodes * c_h * HOURS_PER_MONTH)}/month is paid for idle GPUs"
                )
        elif isinstance(node, RentedNode):
            u_rented = float(busy[i]) / float(gpus_needed[i]) if gpus_needed[i] else 0.0
            rented += (
                float(gpus_needed[i] / node.gpus_per_node * node_cost_usd_per_hour(node, u_rented)) * HOURS_PER_MONTH
            )
    on_api = (chosen >= n_owned) & (chosen >= 0)
    api = float(monthly[on_api].sum())
    return _Bill(owned_nodes, owned_gpus, owned_cost, idle, busy_owned, rented, api, tuple(warnings))


def fleet_summary(s: Scenario, t: OptionTable, r: Route) -> tuple[FleetSummary, list[str]]:
    """The fleet the chosen routes need, with workloads on the same owned option sharing its replicas.

    Per owned option: ``replicas = ceil(Σ λ_peak/(u_target·λ_max))`` over the workloads routed to it (each
    takes its share of a replica's SLO capacity) and busy GPU-equivalents ``Σ λ_avg/λ_max · N``. An owned
    node offer runs ``max(nodes bought, nodes needed)`` nodes, paid in full, busy or idle; rented GPUs are
    paid per GPU-hour. Per-workload costs in dedicated mode are stand-alone (own replicas), so they can add
    up to more than the consolidated fleet.

    The all-API baseline is comparable with this total: every workload that has a feasible API (never a
    sovereign one) moves to the API the router would pick among APIs (lowest expected cost per task, so
    quality counts), and the others (sovereign, or no API meets their
    SLOs) keep their chosen routes, consolidated the same way: shared replicas, ``max(bought, needed)``
    owned nodes (bought nodes are paid in both), rented GPUs. Savings = baseline − total, so a scenario in
    which nothing can move saves exactly 0.
    """
    chosen = r.chosen
    monthly = monthly_cost(_take(t.cost_usd, chosen), t.avg_requests_per_s)
    plan = _bill(s, t, chosen, monthly)
    movable = np.asarray((t.is_api[None, :] & t.feasible).any(axis=1), dtype=bool)
    stay = _bill(s, t, np.where(movable, -1, chosen).astype(np.intp), monthly)
    moved = float(monthly_cost(_take(t.cost_usd, best_api(t, r)), t.avg_requests_per_s)[movable].sum())
    fleet = FleetSummary(
        owned_nodes=plan.owned_nodes,
        owned_gpus=plan.owned_gpus,
        owned_cost_usd_per_month=plan.owned_usd,
        owned_utilization=plan.busy_gpus / plan.owned_gpus if plan.owned_gpus else 0.0,
        idle_cost_usd_per_month=plan.idle_usd,
        rented_cost_usd_per_month=plan.rented_usd,
        api_cost_usd_per_month=plan.api_usd,
        total_cost_usd_per_month=plan.total_usd,
        all_api_cost_usd_per_month=stay.total_usd + moved,
    )
    return fleet, list(plan.warnings)
