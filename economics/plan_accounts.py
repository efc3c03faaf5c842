"""From a scenario to the fleet MIP, and from its solution to the plan's accounts (issue 10).

:func:`plan_problem` turns the option table (every workload on every option, from the serving and cost
layers) into a :class:`~economics.plan.PlanProblem` in a lens; :func:`plan_accounts` allocates the solved
plan's money to workloads so that the shares add up to the headline (the rule is on
:class:`~economics.result.PlanWorkload`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from economics.costs import node_cost_fixed_and_variable
from economics.demand import DayDemand
from economics.finance.rental import billed_per_hour_used
from economics.finance.serverless import serverless_extra_usd_per_request
from economics.finance.terms import RentalTerms
from economics.offers import OwnedNode, RentedNode
from economics.plan import (
    MIP_REL_GAP,
    NO_PLAN,
    ROUNDED,
    SECONDS_PER_MONTH,
    PlanProblem,
    PlanSolution,
    counts,
    hourly_counts,
    large,
    money_usd_per_month,
    solve_plan,
    solve_relaxation,
)
from economics.quality import expected_attempts, failure_probability
from economics.result import Lens, PlanNode, PlanReplicas
from economics.routing import OptionTable
from economics.scenario import Scenario
from economics.units import HOURS_PER_MONTH

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]


def unit_of(node: OwnedNode | RentedNode) -> tuple[Literal["node", "instance", "gpu"], int]:
    """What one unit of a node offer is and how many GPUs it holds: an owned node, a rented instance, or a
    single rented GPU."""
    if isinstance(node, OwnedNode):
        return "node", node.gpus_per_node
    if node.rental_unit == "gpu":
        return "gpu", 1
    return "instance", node.gpus_per_node


def committed_units(node: OwnedNode | RentedNode) -> int:
    """Units a rented offer's commitment pays for whether the plan uses them or not, in the plan's own units
    (``billing.committed_nodes`` nodes, times the GPUs per node where single GPUs are rented) [count]."""
    if not isinstance(node, RentedNode) or node.billing is None:
        return 0
    return node.billing.committed_nodes * (node.gpus_per_node if unit_of(node)[0] == "gpu" else 1)


def unit_usd_per_month(node: OwnedNode | RentedNode) -> float:
    """Cost of one unit per month: an owned node's capital recovery and fixed costs (power at idle
    included, ``C_h(0)·730``), or the rent of an instance or a GPU [USD/month]."""
    fixed, _ = node_cost_fixed_and_variable(node)
    _, gpus = unit_of(node)
    return fixed * HOURS_PER_MONTH * gpus / node.gpus_per_node


def plan_problem(
    s: Scenario,
    t: OptionTable,
    demand: DayDemand,
    lens: Lens,
    *,
    api_only: NDArray[np.bool_] | None = None,
) -> PlanProblem:
    """The fleet MIP of a scenario in a lens. ``api_only`` (W,) restricts those workloads to APIs (the
    all-API baseline)."""
    n_owned = len(s.owned_options)
    allowed = t.feasible.copy()
    if api_only is not None:
        allowed[:, :n_owned] &= ~api_only[:, None]
    m = t.max_attempts[:, None]
    attempts = expected_attempts(t.quality, m)
    failure = failure_probability(t.quality, m) * t.failure_cost_usd[:, None]
    node_ids = [n.id for n in s.nodes]
    option_node = np.array([node_ids.index(o.node_id) for o in s.owned_options] + [-1] * len(s.apis), dtype=np.intp)
    owned_count = np.array([n.nodes_owned if isinstance(n, OwnedNode) else 0 for n in s.nodes], dtype=np.float64)
    committed = np.array([committed_units(n) for n in s.nodes], dtype=np.float64)
    return PlanProblem(
        allowed=allowed,
        is_api=t.is_api,
        api_cost_usd=np.where(t.is_api[None, :] & allowed, t.cost_usd, 0.0),
        attempts=np.asarray(attempts, dtype=np.float64),
        failure_usd=np.asarray(failure, dtype=np.float64),
        capacity_requests_per_s=np.where(t.is_api[None, :], np.inf, t.capacity_requests_per_s),
        option_node=option_node,
        gpus_per_replica=np.array([o.gpus_per_replica for o in s.owned_options] + [0] * len(s.apis), dtype=float),
        replica_variable_usd_per_hour=np.asarray(t.replica_variable_usd_per_hour, dtype=np.float64),
        unit_gpus=np.array([unit_of(n)[1] for n in s.nodes], dtype=np.float64),
        unit_usd_per_month=np.array([unit_usd_per_month(n) for n in s.nodes], dtype=np.float64),
        min_units=np.maximum(owned_count if lens == "cash" else 0.0, committed),
        capacity_rate=demand.capacity_rate,
        bill_rate=demand.bill_rate,
        deferrable=demand.deferrable,
        window=demand.window,
        split=np.asarray(s.policy.allow_split & ~t.sovereign, dtype=bool),
        target_utilization=s.policy.target_utilization,
        time_limit_s=s.policy.solver_time_limit_s,
        serverless_usd=_serverless_usd(s, t, demand, np.asarray(attempts, dtype=np.float64)),
        hourly_units=np.array([billed_per_hour_used(n) for n in s.nodes], dtype=bool),
    )


def _serverless_usd(s: Scenario, t: OptionTable, demand: DayDemand, attempts: FloatArray) -> FloatArray | None:
    """(W, O) what each serverless option bills per request beyond its busy time, over the workload's day
    profile (:func:`economics.finance.serverless.serverless_extra_usd_per_request`); None without one [USD]."""
    nodes = {n.id: n for n in s.nodes}
    out = np.zeros(t.feasible.shape)
    found = False
    for o, opt in enumerate(s.owned_options):
        node = nodes[opt.node_id]
        if not (isinstance(node, RentedNode) and node.pricing_type == "serverless"):
            continue
        found = True
        terms = node.billing or RentalTerms()
        for w in np.flatnonzero(t.feasible[:, o] & (t.capacity_requests_per_s[:, o] > 0)):
            busy_s = float(attempts[w, o] / t.capacity_requests_per_s[w, o])
            out[w, o] = serverless_extra_usd_per_request(
                demand.bill_rate[w], busy_s, terms, float(t.replica_variable_usd_per_hour[o])
            )
    return out if found else None


@dataclass(frozen=True)
class Accounts:
    """The plan's money by workload and by node offer, in the lens and in both lenses' totals."""

    volume: FloatArray  # (W, O) requests per month on each option
    api_usd: FloatArray  # (W,) [USD/month]
    owned_usd: FloatArray  # (W,) node share and power [USD/month]
    failure_usd: FloatArray  # (W,) [USD/month]
    node_lens_usd: FloatArray  # (K,) units' cost in the lens [USD/month]
    node_full_usd: FloatArray  # (K,) every paid unit at full cost [USD/month]
    node_cash_usd: FloatArray  # (K,) new or rented units [USD/month]
    power_usd: FloatArray  # (K,) power above idle on the offer [USD/month]
    unallocated_usd: float  # idle bought nodes in the full lens [USD/month]
    busy_gpus: FloatArray  # (K,) mean busy GPUs over the day [count]
    peak_load: FloatArray  # (O,) busiest period's load / replicas [1]

    @property
    def workload_usd(self) -> FloatArray:
        return np.asarray(self.api_usd + self.owned_usd, dtype=np.float64)

    @property
    def total_usd(self) -> float:
        return float(self.workload_usd.sum() + self.unallocated_usd)


def plan_accounts(s: Scenario, p: PlanProblem, sol: PlanSolution, lens: Lens) -> Accounts:
    """Allocate the solved plan's money to workloads (rule: :class:`~economics.result.PlanWorkload`)."""
    _w_count, o_count, k_count, h_count = p.shape
    vol_h = p.bill_rate * SECONDS_PER_MONTH / h_count  # (W, H)
    volume = np.einsum("woh,wh->wo", sol.share, vol_h)
    api = np.where(p.is_api[None, :], p.api_cost_usd * p.attempts, 0.0)
    busy_per_req = p.busy_seconds_per_request()  # replica-seconds per request
    power_wo = busy_per_req * p.replica_variable_usd_per_hour[None, :] / 3600.0 * volume
    if p.serverless_usd is not None:  # a serverless replica's warm idle and cold starts, per request
        power_wo = power_wo + p.serverless_usd * volume
    api_usd = (api * volume).sum(axis=1)
    failure_usd = (p.failure_usd * volume).sum(axis=1)
    owned_count = np.array([n.nodes_owned if isinstance(n, OwnedNode) else 0 for n in s.nodes], dtype=np.float64)
    unit = p.unit_usd_per_month
    paid = np.maximum(sol.units, owned_count)
    node_full = paid * unit
    node_cash = np.maximum(sol.units - owned_count, 0.0) * unit
    node_lens = node_cash if lens == "cash" else sol.units * unit
    unallocated = 0.0 if lens == "cash" else float(((paid - sol.units) * unit).sum())
    # node cost → options by GPUs of their replicas (mean over the day on an hourly-billed offer) → workloads
    # by replica-hours
    owned = np.flatnonzero(~p.is_api)
    replicas = sol.replicas
    if p.hourly.any():
        replicas = np.where(p.option_hourly(), hourly_counts(p, sol.processed_rate)[0].mean(axis=1), replicas)
    gpus_o = np.zeros(o_count)
    gpus_o[owned] = replicas[owned] * p.gpus_per_replica[owned]
    node_gpus = np.zeros(k_count)
    np.add.at(node_gpus, p.option_node[owned], gpus_o[owned])
    option_usd = np.zeros(o_count)
    with np.errstate(divide="ignore", invalid="ignore"):
        option_usd[owned] = np.where(
            node_gpus[p.option_node[owned]] > 0,
            node_lens[p.option_node[owned]] * gpus_o[owned] / node_gpus[p.option_node[owned]],
            0.0,
        )
    unallocated += float(node_lens[node_gpus <= 0].sum())
    hours = np.einsum("wo,woh->wo", p.load_per_request(), sol.processed_rate)  # replica-periods per workload
    per_option = hours.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        weight = np.where(per_option[None, :] > 0, hours / per_option[None, :], 0.0)
    orphan = (per_option <= 0) & (option_usd > 0)
    unallocated += float(option_usd[orphan].sum())
    owned_usd = (weight * option_usd[None, :]).sum(axis=1) + power_wo.sum(axis=1)
    power_k = np.zeros(k_count)
    np.add.at(power_k, p.option_node[owned], power_wo[:, owned].sum(axis=0))
    busy = np.einsum("wo,woh->o", busy_per_req, sol.processed_rate) / h_count * p.gpus_per_replica
    busy_k = np.zeros(k_count)
    np.add.at(busy_k, p.option_node[owned], busy[owned])
    per_hour = np.einsum("wo,woh->oh", p.load_per_request(), sol.processed_rate)
    with np.errstate(divide="ignore", invalid="ignore"):
        peak = np.where(sol.replicas > 0, per_hour.max(axis=1, initial=0.0) / sol.replicas, 0.0)
    return Accounts(
        volume, api_usd, owned_usd, failure_usd, node_lens, node_full, node_cash, power_k, unallocated, busy_k, peak
    )


def nodes_needed_by(p: PlanProblem, sol: PlanSolution) -> FloatArray:
    """(W, K) units of each offer the plan would not run without the workload (its own purchase) [count]."""
    load = p.load_per_request()
    contrib = load[:, :, None] * sol.processed_rate  # (W, O, H)
    per_hour = contrib.sum(axis=0)  # (O, H)
    without = np.ceil(np.max(per_hour[None] - contrib, axis=2, initial=0.0) - 1e-7)  # (W, O)
    without = np.where(p.is_api[None, :], 0.0, np.maximum(without, 0.0))
    owned = np.flatnonzero(~p.is_api)
    k_count = len(p.unit_gpus)
    inc = np.zeros((len(p.is_api), k_count))
    inc[owned, p.option_node[owned]] = p.gpus_per_replica[owned]
    gpus_without = without @ inc  # (W, K)
    units_without = np.maximum(p.min_units[None, :], np.ceil(gpus_without / p.unit_gpus[None, :] - 1e-9))
    # an hourly-billed offer is rented hour by hour, never bought: no workload needs a unit of it to be bought
    needed = np.where(p.hourly[None, :], 0.0, sol.units[None, :] - units_without)
    return np.asarray(np.maximum(needed, 0.0), dtype=np.float64)


def plan_nodes(s: Scenario, p: PlanProblem, sol: PlanSolution, acc: Accounts, lens: Lens) -> tuple[PlanNode, ...]:
    """One line per node offer. On an offer billed per hour used, the units and GPUs are those of the busiest
    hour, and its utilization is over the GPU-hours it pays for."""
    out = []
    peak_units = hourly_counts(p, sol.processed_rate)[1].max(axis=1, initial=0.0) if p.hourly.any() else sol.units
    for k, node in enumerate(s.nodes):
        unit_name, unit_gpus = unit_of(node)
        owned = node.nodes_owned if isinstance(node, OwnedNode) else 0
        used = round(peak_units[k]) if p.hourly[k] else round(sol.units[k])
        paid_units = max(used, owned)
        gpus_paid = paid_units * unit_gpus
        gpus_billed = float(sol.units[k]) * unit_gpus if p.hourly[k] else gpus_paid  # mean GPUs paid per hour
        fixed_month = float(p.unit_usd_per_month[k])
        gpus_used = round(sum(sol.replicas[o] * p.gpus_per_replica[o] for o in np.flatnonzero(p.option_node == k)))
        to_buy = max(0, used - owned) if isinstance(node, OwnedNode) else 0
        out.append(
            PlanNode(
                node_id=node.id,
                node_name=node.name,
                kind=node.kind,
                data_location=node.data_location,
                rental_unit=unit_name,
                nodes_used=used,
                nodes_owned=owned,
                nodes_to_buy=to_buy,
                gpus_used=gpus_used,
                gpus_paid=gpus_paid,
                utilization=float(acc.busy_gpus[k] / gpus_billed) if gpus_billed else 0.0,
                capital_to_buy_usd=to_buy * node.capex_usd if isinstance(node, OwnedNode) else 0.0,
                cost_usd_per_month=float(acc.node_lens_usd[k] + acc.power_usd[k])
                + (float((paid_units - used) * fixed_month) if lens == "full" else 0.0),
                full_cost_usd_per_month=float(acc.node_full_usd[k] + acc.power_usd[k]),
                sunk_usd_per_month=owned * fixed_month,
                new_nodes_usd_per_month=to_buy * fixed_month,
            )
        )
    return tuple(out)


def plan_replicas(s: Scenario, sol: PlanSolution, acc: Accounts) -> tuple[PlanReplicas, ...]:
    return tuple(
        PlanReplicas(
            option_id=o.id,
            node_id=o.node_id,
            replicas=round(sol.replicas[i]),
            gpus=round(sol.replicas[i]) * o.gpus_per_replica,
            peak_load=float(acc.peak_load[i]),
        )
        for i, o in enumerate(s.owned_options)
        if sol.replicas[i] > 0
    )


def baseline_accounts(s: Scenario, p: PlanProblem, sol: PlanSolution, t: OptionTable, lens: Lens) -> Accounts | None:
    """The all-API baseline in the lens, by workload: every workload that may use an API on its best API
    (lowest expected cost per task), the others on their routes in the plan, with the fewest replicas and
    nodes that carry them (bought nodes as in the plan); None when no workload may use an API.

    ``total_usd`` is the baseline; ``workload_usd`` with ``unallocated_usd`` sums to it. A workload no API may
    serve stays on its route, and its share of the nodes that then carry it can differ from its share in the
    plan."""
    movable = np.asarray((t.is_api[None, :] & p.allowed).any(axis=1), dtype=bool)
    if not movable.any():
        return None
    share = sol.share.copy()
    processed = sol.processed_rate.copy()
    share[movable] = 0.0
    processed[movable] = 0.0
    cost = np.where(p.allowed & p.is_api[None, :], p.per_request_usd(), np.inf)
    best = np.argmin(cost, axis=1)
    rows = np.flatnonzero(movable)
    share[rows, best[rows], :] = 1.0
    processed[rows, best[rows], :] = p.bill_rate[rows]
    replicas, units = counts(p, share, processed)
    moved = PlanSolution(share, processed, replicas, units, sol.served, sol.status, sol.mip_gap, 0.0, 0.0)
    return plan_accounts(s, p, moved, lens)


def _fill_replicas(base: FloatArray, window: NDArray[np.bool_], volume: FloatArray, floor: FloatArray) -> FloatArray:
    """Fewest whole replicas ``r ≥ floor`` whose spare room inside the window holds ``volume`` replica-periods:
    ``Σ_{h∈window} max(0, r − base_h) ≥ volume`` (a deferrable workload filling the troughs). ``base`` (N, H),
    ``window`` (N, H), ``volume`` and ``floor`` (N,).

    Water-filling in closed form: with the window's loads sorted ``b_1 ≤ … ≤ b_n`` and ``S_k = Σ_{i≤k} b_i``,
    the room is ``k·r − S_k`` for ``r ∈ [b_k, b_{k+1}]``, so the level is ``r* = (volume + S_k)/k`` for the
    ``k`` whose interval holds it; the answer is ``max(floor, ceil(r*))``.

    >>> _fill_replicas(np.array([[0.5, 0.0, 2.0]]), np.ones((1, 3), bool), np.array([1.5]), np.array([0.0])).tolist()
    [1.0]
    """
    r_star = fill_level(base, window, volume)
    need = np.ceil(np.maximum(r_star, 0.0) - 1e-7)
    return np.asarray(np.maximum(floor, np.where(volume > 0, need, floor)), dtype=np.float64)


def fill_level(base: FloatArray, window: NDArray[np.bool_], volume: FloatArray) -> FloatArray:
    """(N,) the water level ``r*`` of :func:`_fill_replicas` before rounding up; ``inf`` when the window
    cannot hold the volume at any level. Homogeneous: scaling ``base`` and ``volume`` scales ``r*``."""
    b = np.sort(np.where(window, base, np.inf), axis=1)  # (N, H), outside the window last
    n = window.sum(axis=1)
    k = np.arange(1, b.shape[1] + 1)[None, :]
    prefix = np.cumsum(np.where(np.isfinite(b), b, 0.0), axis=1)
    level = (volume[:, None] + prefix) / k
    upper = np.concatenate([b[:, 1:], np.full((b.shape[0], 1), np.inf)], axis=1)
    fits = (level >= b - 1e-12) & (level <= upper + 1e-12) & (k <= n[:, None])
    first = np.argmax(fits, axis=1)
    return np.asarray(np.where(fits.any(axis=1), level[np.arange(len(first)), first], np.inf), dtype=np.float64)


def marginal_usd_per_month(
    p: PlanProblem,
    sol: PlanSolution,
    rows: IntArray | None = None,
    demand_scale: FloatArray | None = None,
    capacity_scale: FloatArray | None = None,
    options: IntArray | None = None,
) -> FloatArray:
    """(N, O) what the plan's money plus failure cost rises by when a workload, taken out of the plan, is put
    back whole on each option with everything else held fixed: replicas and units grow only as needed, the
    plan's spare capacity first (a deferrable workload fills the troughs of its window) [USD/month]; ``inf``
    where the option may not serve it.

    ``rows`` (N,) are workload indices (all workloads by default; repeats allowed) and ``demand_scale`` (N,)
    multiplies each row's own demand (the quadrant's demand axis), all at once without re-solving.
    ``capacity_scale`` (N, O) multiplies the row's SLO capacity per replica on each option when it is put
    back (the throughput flip). ``options`` limits the owned options computed (the others' columns are
    then meaningless)."""
    w_count, o_count, k_count, h_count = p.shape
    rows = np.arange(w_count) if rows is None else np.asarray(rows, dtype=np.intp)
    scale = np.ones(len(rows)) if demand_scale is None else np.asarray(demand_scale, dtype=np.float64)
    vol = p.bill_rate[rows].sum(axis=1) * SECONDS_PER_MONTH / h_count * scale  # (N,) requests per month
    allowed = p.allowed[rows]
    cap_scale = np.ones((len(rows), o_count)) if capacity_scale is None else np.asarray(capacity_scale, np.float64)
    busy = p.busy_seconds_per_request()[rows] / cap_scale
    money = p.per_request_usd()[rows] - p.busy_seconds_per_request()[rows] * p.replica_variable_usd_per_hour / 3600.0
    own = (money + busy * p.replica_variable_usd_per_hour / 3600.0) * vol[:, None]
    load = p.load_per_request()
    own_load = load[rows] / cap_scale  # (N, O) the row's load per request when put back
    per_hour = np.einsum("wo,woh->oh", load, sol.processed_rate)  # (O, H)
    # what does not depend on the scales is computed once per distinct workload (rows repeat in the Monte Carlo)
    uniq, inv = np.unique(rows, return_inverse=True)
    contrib = load[uniq][:, :, None] * sol.processed_rate[uniq]  # (U, O, H)
    owned = np.flatnonzero(~p.is_api)
    inc = np.zeros((o_count, k_count))
    inc[owned, p.option_node[owned]] = p.gpus_per_replica[owned]
    r_without = np.where(
        p.is_api[None, :], 0.0, np.maximum(np.ceil(np.max(per_hour[None] - contrib, axis=2, initial=0.0) - 1e-7), 0.0)
    )[inv]  # (N, O)
    gpus_without = r_without @ inc  # (N, K)
    units_without = np.maximum(p.min_units[None, :], np.ceil(gpus_without / p.unit_gpus[None, :] - 1e-9))
    out = np.where(allowed, own, np.inf)
    deferrable, window = p.deferrable[rows], p.window[rows]
    hourly_o = p.option_hourly()
    for o in owned if options is None else np.intersect1d(owned, options):
        k = int(p.option_node[o])
        if hourly_o[o]:
            extra_h = hourly_offer_extra_usd(p, o, per_hour, contrib, inv, own_load[:, o], rows, scale, allowed[:, o])
            out[:, o] = np.where(allowed[:, o], own[:, o] + extra_h, np.inf)
            continue
        base = (per_hour[o][None, :] - contrib[:, o, :])[inv]  # (N, H)
        add = own_load[:, o][:, None] * p.capacity_rate[rows] * scale[:, None]  # (N, H) following its demand
        r_follow = np.ceil(np.max(base + add, axis=1, initial=0.0) - 1e-7)
        d = np.flatnonzero(deferrable & allowed[:, o])
        if d.size:  # deferrable work fills the troughs of its window
            volume = own_load[d, o] * p.bill_rate[rows[d]].sum(axis=1) * scale[d]
            r_follow[d] = _fill_replicas(base[d], window[d], volume, np.maximum(r_without[d, o], 0.0))
        r_new = np.maximum(r_follow, r_without[:, o])
        gpus_new = gpus_without[:, k] + (r_new - r_without[:, o]) * p.gpus_per_replica[o]
        units_new = np.maximum(p.min_units[k], np.ceil(gpus_new / p.unit_gpus[k] - 1e-9))
        extra = (units_new - units_without[:, k]) * p.unit_usd_per_month[k]
        out[:, o] = np.where(allowed[:, o], own[:, o] + extra, np.inf)
    return np.asarray(out, dtype=np.float64)


def hourly_offer_extra_usd(
    p: PlanProblem,
    o: int,
    per_hour: FloatArray,
    contrib: FloatArray,
    inv: IntArray,
    own_load: FloatArray,
    rows: IntArray,
    scale: FloatArray,
    allowed: NDArray[np.bool_],
    divisor: FloatArray | None = None,
) -> FloatArray:
    """(N,) what the units of option ``o``'s offer, billed per hour used, rise by when each row is put back on
    ``o``: each hour's replicas ``ceil(load_h)`` and units, the day's mean times ``C_k`` [USD/month].
    ``divisor`` (N,) divides every load of the row's plan (a target utilization: loads given at ``u = 1``).

    A deferrable row first fills the spare room of the replicas each hour already runs inside its window;
    the replica-hours still missing are added one per window hour in turn (a feasible placement, so the
    figure is an upper bound on the cheapest one)."""
    k = int(p.option_node[o])
    on_k = np.flatnonzero((p.option_node == k) & ~p.is_api)
    # replicas each option on the offer runs each hour without the row (U, O_k, H), and their GPUs (N, H)
    without = per_hour[on_k][None, :, :] - contrib[:, on_k, :]
    if divisor is not None:
        without = without[inv] / divisor[:, None, None]
        own_load = own_load / divisor
        inv = np.arange(len(inv))
    r_wo = np.maximum(np.ceil(without - 1e-7), 0.0)
    gpus_wo = np.einsum("uoh,o->uh", r_wo, p.gpus_per_replica[on_k])[inv]
    at_o = int(np.flatnonzero(on_k == o)[0])
    r_wo_o = r_wo[:, at_o, :][inv]  # (N, H)
    base = without[:, at_o, :][inv]
    r_new = np.maximum(np.ceil(base + own_load[:, None] * p.capacity_rate[rows] * scale[:, None] - 1e-7), r_wo_o)
    d = np.flatnonzero(p.deferrable[rows] & allowed)
    if d.size:
        window = p.window[rows[d]]
        spare = np.where(window, r_wo_o[d] - np.maximum(base[d], 0.0), 0.0).sum(axis=1)
        volume = own_load[d] * p.bill_rate[rows[d]].sum(axis=1) * scale[d]
        missing = np.maximum(np.ceil(volume - spare - 1e-7), 0.0)
        n_win = np.maximum(window.sum(axis=1), 1)
        each, rest = missing // n_win, missing % n_win
        rank = np.cumsum(window, axis=1)
        add = np.where(window, each[:, None] + (rank <= rest[:, None]), 0.0)
        r_new[d] = r_wo_o[d] + add
    gpus_new = gpus_wo + (r_new - r_wo_o) * p.gpus_per_replica[o]
    u_wo = np.maximum(p.min_units[k], np.ceil(gpus_wo / p.unit_gpus[k] - 1e-9))
    u_new = np.maximum(p.min_units[k], np.ceil(gpus_new / p.unit_gpus[k] - 1e-9))
    return np.asarray((u_new - u_wo).mean(axis=1) * p.unit_usd_per_month[k], dtype=np.float64)


def improve_by_moves(p: PlanProblem, sol: PlanSolution, rounds: int = 8) -> PlanSolution:
    """A fallback when the solver returned no plan: single moves from the stand-alone start (or from the
    rounded LP relaxation), each workload to its cheapest option at its marginal cost in the current plan,
    kept only while the objective falls.

    A local search, never called optimal: the status keeps the solver's words; the gap is unknown (``inf``)
    from the stand-alone start, and measured against the relaxation's proven bound from the rounded one."""
    head = sol.status.split("):")[0] + ")" if "):" in sol.status else sol.status
    start = "the rounded relaxation" if head.startswith(ROUNDED) else "the stand-alone routes"
    best = replace(sol, status=f"{head}: single moves from {start}, not proven optimal")
    best_obj = money_usd_per_month(p, sol.share, sol.units)
    rows = np.arange(p.shape[0])
    for _ in range(rounds):
        m = marginal_usd_per_month(p, best)
        current = np.argmax(best.share.sum(axis=2), axis=1)
        target = np.argmin(m, axis=1)
        gain = m[rows, current] - m[rows, target]
        movers = np.flatnonzero(best.served & (gain > 1e-9 * np.maximum(1.0, np.abs(m[rows, current]))))
        if movers.size == 0:
            break
        improved = False
        for group in (movers, movers[np.argsort(-gain[movers])][:1]):  # all at once, else the best one
            share = best.share.copy()
            share[group] = 0.0
            share[group, target[group], :] = 1.0
            processed = share * p.capacity_rate[:, None, :]
            d = p.deferrable
            processed[d] = share[d] * p.bill_rate[d][:, None, :]
            replicas, units = counts(p, share, processed)
            obj = money_usd_per_month(p, share, units)
            if obj < best_obj - 1e-9 * max(1.0, abs(best_obj)):
                best = replace(best, share=share, processed_rate=processed, replicas=replicas, units=units,
                               objective_usd_per_month=obj)  # fmt: skip
                best_obj, improved = obj, True
                break
        if not improved:
            break
    return replace(best, mip_gap=best.gap_of(best_obj))


def solve_fleet(p: PlanProblem) -> PlanSolution:
    """The plan: HiGHS's MIP (:func:`economics.plan.solve_plan`), with two aids for large portfolios.

    A large MIP (:func:`economics.plan.large`) is first solved as its LP relaxation, rounded and improved
    by single moves; the relaxation's objective is a lower bound on the MIP's, so when the plan is within
    :data:`~economics.plan.MIP_REL_GAP` of it, it is optimal by the same standard as HiGHS's "optimal"
    (status "optimal", the proven gap reported). Otherwise, and for every small MIP, HiGHS solves the MIP;
    a plan it did not finish is improved by single moves (never called optimal) and the better of the two
    plans is kept."""
    first: PlanSolution | None = None
    if large(p):
        first = improve_by_moves(p, solve_relaxation(p))
        if first.mip_gap <= MIP_REL_GAP:
            return replace(first, status="optimal")
    sol = solve_plan(p)
    if sol.status.startswith((NO_PLAN, ROUNDED)):
        sol = improve_by_moves(p, sol)
    if first is not None and first.objective_usd_per_month < sol.objective_usd_per_month:
        return first
    return sol
