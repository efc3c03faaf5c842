"""The one orchestrator: ``evaluate(scenario) -> Result`` (docs/serving.md#serving-and-queues to
docs/routing.md#routing-rule), like pvlib's ``ModelChain``.

Pages, the CLI and stored reviews all call :func:`evaluate`. It evaluates every option for all workloads at
once (one serving call per owned option, arrays over workloads), then decides the whole portfolio as one
fleet plan (:mod:`economics.plan`, an exact MIP): routes, replicas and nodes together, in the cash or the
full-cost lens, and reads the cards, the fleet summary, the quadrant coordinates and the flip thresholds
off the plan, including what the owned nodes cost while idle (the essay's "GPU hangover").

:func:`evaluate_grid` sweeps one workload over two axes (demand × failure cost) for the quadrant's decision
regions and break-even maps.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pydantic import TypeAdapter

from economics.costs import (
    cost_per_mtok,
)
from economics.demand import day_demand
from economics.energy import with_carbon_price
from economics.finance.rental import billed_per_hour_used
from economics.fleet import monthly_cost
from economics.flips import flip_rows, plan_flips
from economics.offers import OwnedNode, RentedNode
from economics.option_costs import (
    REASON_SOVEREIGN,
    OptionArrays,
    WorkloadArrays,
    api_option_arrays,
    owned_option_arrays,
)
from economics.plan import SECONDS_PER_MONTH, PlanProblem, PlanSolution
from economics.plan_accounts import (
    Accounts,
    baseline_accounts,
    marginal_usd_per_month,
    nodes_needed_by,
    plan_accounts,
    plan_nodes,
    plan_problem,
    plan_replicas,
    solve_fleet,
)
from economics.plan_utilization import U_MIN, utilization_flips
from economics.result import (
    FleetSummary,
    Lens,
    OptionKind,
    OptionResult,
    Plan,
    PlanWorkload,
    Result,
    WorkloadDecision,
)
from economics.routing import (
    API,
    FRONTIER_TIERS,
    OPTION_KINDS,
    ROUTE_LABELS,
    Coordinates,
    OptionTable,
    Route,
    best_api,
    best_of,
    quadrant_coordinates,
    route_labels,
)
from economics.scenario import Scenario
from economics.words import dollars_alike, plural, sentence
from economics.workload import Workload

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]


@dataclass(frozen=True)
class Evaluation:
    """Everything :func:`evaluate` computed, as arrays; :func:`evaluate` turns it into a typed Result."""

    scenario: Scenario
    workloads: WorkloadArrays
    options: tuple[OptionArrays, ...]
    option_names: tuple[str, ...]
    table: OptionTable
    route: Route
    reasons: NDArray[np.object_]  # (W, O) why not feasible, '' if feasible


def _quality_matrix(scenario: Scenario, option_ids: tuple[str, ...], base: FloatArray) -> FloatArray:
    q = np.tile(base, (len(scenario.workloads), 1))
    column = {oid: i for i, oid in enumerate(option_ids)}
    for w, wl in enumerate(scenario.workloads):
        for oid, value in wl.quality_overrides.items():
            q[w, column[oid]] = value
    return q


def evaluate_arrays(scenario: Scenario) -> Evaluation:
    """The array stage of :func:`evaluate`: every option for every workload, the table and the route.

    A carbon price in the scenario's finance settings is added to owned electricity first
    (:func:`economics.energy.with_carbon_price`), so that the plan's objective and bill include it."""
    scenario = with_carbon_price(scenario)
    w = WorkloadArrays.of(scenario)
    arrays = [owned_option_arrays(scenario, o, w) for o in scenario.owned_options]
    arrays += [api_option_arrays(a, w) for a in scenario.apis]
    option_ids = tuple(o.id for o in scenario.owned_options) + tuple(a.id for a in scenario.apis)
    base = np.array([o.quality for o in scenario.owned_options] + [a.quality for a in scenario.apis])
    return _assemble(scenario, w, arrays, _quality_matrix(scenario, option_ids, base))


def _assemble(scenario: Scenario, w: WorkloadArrays, arrays: list[OptionArrays], quality: FloatArray) -> Evaluation:
    table, reasons = _option_table(scenario, w, arrays, quality)
    names = tuple(o.name for o in scenario.owned_options) + tuple(a.name for a in scenario.apis)
    return Evaluation(scenario, w, tuple(arrays), names, table, table.route(), reasons)


_LOCATION_WORDS = {
    "on_premises": "on-premises nodes",
    "sovereign_cloud": "a sovereign cloud",
    "third_party": "a third-party provider",
}


def data_rule_mask(
    scenario: Scenario, is_api: NDArray[np.bool_], workloads: tuple[Workload, ...] | None = None
) -> tuple[NDArray[np.bool_], NDArray[np.object_]]:
    """(W, O) the workload's data may go where the option runs, and why not (issue 10, item 4).

    An owned option runs where its node offer's ``data_location`` says; an API is a third party. A
    sovereign workload may go on premises or to a sovereign cloud unless its ``data_locations`` say otherwise.
    """
    node_location = {n.id: n.data_location for n in scenario.nodes}
    locations = [node_location[o.node_id] for o in scenario.owned_options] + ["third_party"] * len(scenario.apis)
    wls = scenario.workloads if workloads is None else workloads
    rules = [set(wl.allowed_data_locations) for wl in wls]
    distinct = sorted(set(locations))
    ok_by_loc = {loc: np.array([loc in r for r in rules], dtype=bool) for loc in distinct}
    allowed = np.stack([ok_by_loc[loc] for loc in locations], axis=1) if locations else np.zeros((len(rules), 0), bool)
    sovereign = np.array([wl.sovereign for wl in wls], dtype=bool)
    reason = np.empty(allowed.shape, dtype=object)
    for o, loc in enumerate(locations):
        text = f"the data rule does not allow {_LOCATION_WORDS[loc]}"
        reason[:, o] = np.where(sovereign & is_api[o], REASON_SOVEREIGN, text)
    return allowed, reason


def _option_table(
    scenario: Scenario,
    w: WorkloadArrays,
    arrays: list[OptionArrays],
    quality: FloatArray,
    with_reasons: bool = True,
    workloads: tuple[Workload, ...] | None = None,
) -> tuple[OptionTable, NDArray[np.object_]]:
    """The (workload × option) table the router reads, and why each infeasible option is (``with_reasons``)."""
    owned = scenario.owned_options
    option_ids = tuple(o.id for o in owned) + tuple(a.id for a in scenario.apis)
    kind = np.array([a.kind for a in arrays], dtype=np.int8)
    node_ids = tuple(n.id for n in scenario.nodes)
    node_index = np.array([node_ids.index(o.node_id) for o in owned] + [-1] * len(scenario.apis), dtype=np.intp)
    frontier = np.array([False] * len(owned) + [a.tier in FRONTIER_TIERS for a in scenario.apis], dtype=bool)

    def stack(name: str) -> FloatArray:
        return np.stack([getattr(a, name) for a in arrays], axis=1).astype(np.float64, copy=False)

    allowed, location_reason = data_rule_mask(scenario, kind == API, workloads)
    able = np.stack([a.feasible for a in arrays], axis=1)
    below_floor = quality < w.min_quality[:, None]
    if with_reasons:
        reasons = np.stack([a.reason for a in arrays], axis=1).astype(object)
        for wi, oi in zip(*np.nonzero(able & below_floor), strict=True):
            reasons[wi, oi] = f"quality {quality[wi, oi]:.3g} is below the workload's floor {w.min_quality[wi]:.3g}"
        reasons = np.where(~allowed, location_reason, reasons)
    else:
        reasons = np.empty((0, 0), dtype=object)
    feasible = allowed & able & ~below_floor
    cost = np.where(feasible, stack("cost"), np.inf)
    # the throughput flip pays these offers hour by hour, as their cost here does (option_costs._owned_variant)
    hourly = np.array([billed_per_hour_used(scenario.node(o.node_id)) for o in owned] + [False] * len(scenario.apis))
    rented_node = [isinstance(scenario.node(o.node_id), RentedNode) for o in owned]
    on_rented = np.array(rented_node + [False] * len(scenario.apis))
    table = OptionTable(
        option_ids=option_ids,
        kind=kind,
        frontier=frontier,
        node_index=node_index,
        node_ids=node_ids,
        cost_usd=cost,
        quality=quality,
        allowed=allowed,
        feasible=feasible,
        tpot_s=stack("tpot"),
        capacity_requests_per_s=stack("capacity"),
        replicas=stack("replicas"),
        utilization=stack("utilization"),
        achieved_batch=stack("batch"),
        replica_fixed_usd_per_hour=np.array([a.replica_fixed_usd_per_hour for a in arrays]),
        replica_variable_usd_per_hour=np.array([a.replica_variable_usd_per_hour for a in arrays]),
        replica_share_of_node=np.array([a.replica_share_of_node for a in arrays]),
        api_output_usd_per_mtok=np.array([0.0] * len(owned) + [a.output_usd_per_mtok for a in scenario.apis]),
        api_price_multiplier=stack("price_multiplier"),
        failure_cost_usd=w.failure_cost,
        max_attempts=w.max_attempts,
        avg_requests_per_s=w.avg,
        peak_requests_per_s=w.peak,
        output_tokens=w.output_tokens,
        sovereign=w.sovereign,
        target_utilization=scenario.policy.target_utilization,
        pooled=False,  # the old pooled cost mode no longer changes any cost (one owned-cost path)
        pool_utilization=scenario.policy.pool_utilization,
        api_negotiated_keep=np.array([1.0] * len(owned) + [1 - a.negotiated_discount_fraction for a in scenario.apis]),
        sizing_rates=w.sizing_rates if hourly.any() else None,
        billed_per_hour_used=hourly if hourly.any() else None,
        rented=on_rented if on_rented.any() else None,
    )
    return table, reasons


def coordinates(ev: Evaluation, main: IntArray | None = None) -> Coordinates:
    """β, best owned and best API, v*, U* and the quadrant label of every workload (docs/routing.md#routing-rule step
    5); the label follows ``main`` (the plan's main routes) when given, else the stand-alone router."""
    beta = np.stack([a.batchability for a in ev.options], axis=1) if ev.options else np.zeros((len(ev.table.kind), 0))
    co = quadrant_coordinates(ev.table, ev.route, beta)
    if main is None:
        return co
    return replace(co, labels=route_labels(main, ev.table.kind, ev.table.frontier, co.batchability, ev.table.rented))


def _take(a: FloatArray, idx: IntArray) -> FloatArray:
    rows = np.arange(a.shape[0])
    return np.where(idx >= 0, a[rows, np.maximum(idx, 0)], np.nan)


# ---- assembly --------------------------------------------------------------------------------------------------


def _none_if_nan(x: float) -> float | None:
    return None if math.isnan(x) else x


def _money(x: float) -> str:
    """Four significant figures under a dollar (six decimals at most), with cents at least; cents under a thousand
    dollars; whole dollars above.

    >>> _money(0.002345), _money(0.0000123), _money(0.0), _money(1e-17), _money(12.5), _money(1_120_000.0)
    ('$0.002345', '$0.000012', '$0', '$0', '$12.50', '$1,120,000')
    >>> _money(0.1), _money(0.005)
    ('$0.10', '$0.005')
    """
    if x == 0:
        return "$0"
    if abs(x) < 1:
        text = dollars_alike(x)[0]  # "$0" for an amount under 5e-7
        text = text.rstrip("0").rstrip(".") if "." in text else text
        cents = len(text.partition(".")[2])
        return text + "0" * (2 - cents) if 0 < cents < 2 else text  # "$0.10" a task, not "$0.1"
    return f"${x:,.2f}" if abs(x) < 1000 else f"${x:,.0f}"


def _reason(ev: Evaluation, co: Coordinates, w: int, pw: PlanWorkload, failure_usd: FloatArray) -> str:
    """One paragraph a reviewer can read: where the plan puts the workload, why, and by how much.

    ``ev`` carries the plan's marginal table and route (:func:`plan_route`): J is the workload's marginal
    expected cost per task in the plan, everything else held fixed. ``failure_usd`` (O,) is the expected cost
    of its failed tasks on each option [USD/task]: J is split into what is paid to run a task and that, with
    the errors' cost a month, since a J of $0.20 a task beside a $0 monthly bill read as a contradiction."""
    t, r = ev.table, ev.route
    names = ev.option_names
    chosen, runner = int(r.chosen[w]), int(r.runner_up[w])
    if chosen < 0:
        return f"No allowed option can serve it: {pw.unserved_reason}."
    j = r.expected_cost_usd
    beta = float(co.batchability[w])
    parts: list[str] = []
    if len(pw.share_by_option) > 1:
        split = ", ".join(f"{100 * v:.3g}% on {k}" for k, v in sorted(pw.share_by_option.items(), key=lambda x: -x[1]))
        parts.append(f"Split by the hour: {split} (owned replicas for the base load, the API for the peak)")
    if t.kind[chosen] == API:
        owned = best_of(j[w : w + 1], ~t.is_api, t.tpot_s[w : w + 1], t.is_api)[0]
        if owned < 0:
            has_gpus = bool((~t.is_api).any())
            parts.append("No option on owned or rented GPUs can serve it" if has_gpus else "The scenario has no GPUs")
        elif t.quality[w, chosen] > t.quality[w, owned] and t.cost_usd[w, chosen] > t.cost_usd[w, owned]:
            own = "rented" if t.rented is not None and bool(t.rented[owned]) else "owned"
            parts.append(f"The API's higher quality is worth more than what the plan's {own} capacity would save")
        else:
            # which of the two parts of its marginal J outweighs the API: a reader with an idle fleet read
            # "(replicas or nodes it would need, or failures)" and could not tell which
            total, fails = float(j[w, owned]), min(float(failure_usd[owned]), float(j[w, owned]))
            of = dollars_alike(fails, total)  # "$0.001000 of $0.001212", not "$0.001 of $0.001212"
            why = (
                f"mostly the expected cost of its failed tasks there ({of[0]} of {of[1]} a task)"
                if total > 0 and fails >= 0.5 * total
                else "mostly the replicas or nodes it would need there"
            )
            parts.append(f"Carrying it on {names[owned]} would cost the plan more than the API's bill: {why}")
    else:
        if t.sovereign[w]:
            parts.append("Sovereign data: only on-premises or sovereign-cloud nodes")
        if pw.nodes_to_buy:
            parts.append(
                # marginal, not a share: two workloads can need the same new nodes, so these do not add up
                f"without it the plan would buy {plural(pw.nodes_to_buy, 'node')} fewer "
                f"({_money(pw.node_capital_usd)} less capital, {_money(pw.node_usd_per_month)}/month less)"
            )
        else:
            parts.append("it runs on GPUs the plan already pays for")
        bound = f"latency-bound (β = {beta:.2g} < 1: no batch forms)" if beta < 1 else f"batchable (β = {beta:.2g} ≥ 1)"
        parts.append(bound)
    pair = (float(j[w, chosen]), float(j[w, runner])) if runner >= 0 else (float(j[w, chosen]),)
    costs = dollars_alike(*pair)  # one number of decimals, so "$0.2000 vs $0.2906", not "$0.2 vs $0.2906"
    parts.append(f"marginal J = {costs[0]}/task on {names[chosen]}")
    errors = min(float(failure_usd[chosen]), pair[0])
    if errors > 0:
        # alike, and as precise as the cost they add up to: "$0.005375 paid …, $0.004000 expected …" of $0.009375,
        # "$0.0034 paid …, $0.1000 expected …" of $0.1034 (not "$0.003385 …, $0.100000")
        paid, err = dollars_alike(pair[0] - errors, errors, like=pair[0])
        a_month = errors * float(t.avg_requests_per_s[w]) * SECONDS_PER_MONTH
        parts[-1] += (
            f" ({paid} paid to run it, {err} expected cost of its failed tasks: "
            f"{_money(a_month)} a month, not in the bill)"
        )
    if runner >= 0:
        parts.append(f"vs {costs[1]} on {names[runner]}")
    else:
        parts.append("no other allowed option can serve it")
    return sentence("; ".join(parts) + ".")  # "It runs on GPUs …", not "it runs on GPUs …"


_OPTION_RESULTS = TypeAdapter(tuple[OptionResult, ...])


def _option_results(ev: Evaluation) -> tuple[OptionResult, ...]:
    t, s = ev.table, ev.scenario
    w = ev.workloads
    c = t.cost_usd
    feasible = t.feasible
    cols: dict[str, NDArray[Any]] = {
        "allowed": t.allowed,
        "cost_usd_per_request": c,
        "cost_usd_per_mtok_output": cost_per_mtok(c, w.output_tokens[:, None]),
        "cost_usd_per_mtok_total": cost_per_mtok(c, (w.input_tokens + w.output_tokens)[:, None]),
        "expected_cost_usd_per_request": ev.route.expected_cost_usd,
        "quality": t.quality,
        "tpot_s": t.tpot_s,
        "ttft_s": np.stack([a.ttft for a in ev.options], axis=1),
        "replicas": np.where(feasible, t.replicas, 0).astype(int),
        "gpus": np.where(feasible, np.stack([a.gpus for a in ev.options], axis=1), 0).astype(int),
        "utilization": t.utilization,
        "capacity_requests_per_s": t.capacity_requests_per_s,
        "achieved_batch": t.achieved_batch,
        "speculation_on": np.stack([a.speculation_on for a in ev.options], axis=1),
        "batch_tier": np.stack([a.batch_tier for a in ev.options], axis=1),
    }
    n_options = len(t.option_ids)
    ok_flat = feasible.ravel().tolist()
    kinds: list[OptionKind] = [OPTION_KINDS[int(k)] for k in t.kind]
    # one flat list per field, row-major (workload, option) like the loop it replaces; rows are zipped from them
    columns: dict[str, list[Any]] = {name: col.ravel().tolist() for name, col in cols.items()}
    columns["workload_id"] = [wl.id for wl in s.workloads for _ in range(n_options)]
    columns["option_id"] = list(t.option_ids) * len(s.workloads)
    columns["option_name"] = list(ev.option_names) * len(s.workloads)
    columns["kind"] = kinds * len(s.workloads)
    columns["feasible"] = ok_flat
    columns["reason"] = ["" if ok else str(why) for ok, why in zip(ok_flat, ev.reasons.ravel().tolist(), strict=True)]
    names = list(columns)
    rows = [dict(zip(names, values, strict=True)) for values in zip(*columns.values(), strict=True)]
    return _OPTION_RESULTS.validate_python(rows)


_DECISIONS = TypeAdapter(tuple[WorkloadDecision, ...])


def plan_route(ev: Evaluation, fp: FleetPlan) -> tuple[OptionTable, Route]:
    """The option table priced at each workload's marginal cost in the plan (everything else held fixed)
    and the plan's route on it: the chosen option is the plan's main route, the runner-up the next best
    by marginal expected cost per task (issue 10, item 6)."""
    t = ev.table
    marginal = marginal_usd_per_month(fp.problem, fp.solution)
    vol = t.avg_requests_per_s * SECONDS_PER_MONTH
    g, fail = fp.problem.attempts, fp.problem.failure_usd
    with np.errstate(divide="ignore", invalid="ignore"):
        c = (marginal / vol[:, None] - fail) / g
    c = np.where(np.isfinite(marginal) & t.feasible, np.maximum(c, 0.0), np.inf)
    tm = replace(t, cost_usd=c)
    r = tm.route()
    chosen = fp.main
    j = r.expected_cost_usd
    rows = np.arange(len(chosen))
    others = np.isfinite(j).copy()
    others[rows[chosen >= 0], chosen[chosen >= 0]] = False
    runner = best_of(j, others, t.tpot_s, t.is_api)
    j_c = np.where(chosen >= 0, j[rows, np.maximum(chosen, 0)], np.nan)
    j_r = np.where(runner >= 0, j[rows, np.maximum(runner, 0)], np.inf)
    with np.errstate(invalid="ignore"):
        margin = np.where((runner >= 0) & (chosen >= 0), j_r - j_c, np.inf)
    return tm, Route(expected_cost_usd=j, chosen=chosen, runner_up=runner, margin_usd=margin)


def _pivot_j(fp: FleetPlan, tm: OptionTable) -> Callable[[IntArray, FloatArray], FloatArray]:
    """``(pivot, scale) -> J`` per workload: its marginal expected cost per task on ``pivot`` when that
    option's SLO capacity for it is ``scale`` times today's, the rest of the plan fixed [USD]."""
    p, sol = fp.problem, fp.solution
    rows = np.arange(p.shape[0])
    vol = tm.avg_requests_per_s * SECONDS_PER_MONTH

    def j(pivot: IntArray, scale: FloatArray) -> FloatArray:
        cap = np.ones(p.allowed.shape)
        cap[rows, pivot] = scale
        m = marginal_usd_per_month(p, sol, capacity_scale=cap, options=np.unique(pivot))
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(m[rows, pivot] / vol, dtype=np.float64)

    return j


def decision_flips(ev: Evaluation, fp: FleetPlan) -> list[list[dict[str, Any]]]:
    """Every workload's flip thresholds on the plan (:mod:`economics.flips`), as field dicts of
    :class:`~economics.result.FlipThreshold`: the closed forms, the target-utilization scan and the throughput
    bisection, each a marginal-cost pass over the plan (about a third of :func:`evaluate`'s time for the bank)."""
    tm, r = plan_route(ev, fp)
    found = utilization_flips(fp.problem, fp.solution, fp.main)
    return flip_rows(plan_flips(tm, r, _pivot_j(fp, tm), (found, U_MIN)), tm.option_ids, ev.option_names)


def _decisions(ev: Evaluation, co: Coordinates, fp: FleetPlan, flips: bool = True) -> tuple[WorkloadDecision, ...]:
    s = ev.scenario
    tm, r = plan_route(ev, fp)
    plan_ev = replace(ev, table=tm, route=r)
    chosen = r.chosen.tolist()
    thresholds = decision_flips(ev, fp) if flips else [[] for _ in s.workloads]
    margins, labels, betas = r.margin_usd.tolist(), co.labels.tolist(), co.batchability.tolist()
    v_stars, u_stars, lam_stars = co.value_star.tolist(), co.u_star.tolist(), co.lambda_star.tolist()
    kinds = tm.kind.tolist()
    rows: list[dict[str, Any]] = []
    for wi, wl in enumerate(s.workloads):
        ch = chosen[wi]
        pw = fp.plan.workloads[wi]
        api_m = pw.best_api_cost_usd_per_month
        rows.append(
            {
                "workload_id": wl.id,
                "workload_name": wl.name,
                "chosen_option_id": tm.option_ids[ch] if ch >= 0 else None,
                "chosen_kind": OPTION_KINDS[kinds[ch]] if ch >= 0 else None,
                "route_label": ROUTE_LABELS[labels[wi]],
                "reason": _reason(plan_ev, co, wi, pw, fp.problem.failure_usd[wi]),
                "margin_usd_per_request": margins[wi],
                "batchability": betas[wi],
                "value_usd_per_output_token": wl.value_usd_per_output_token,
                "break_even_value_usd_per_output_token": _none_if_nan(v_stars[wi]),
                "break_even_utilization": _none_if_nan(u_stars[wi]),
                "break_even_demand_requests_per_s": _none_if_nan(lam_stars[wi]),
                "monthly_cost_usd": pw.cost_usd_per_month,
                "standalone_monthly_cost_usd": pw.standalone_cost_usd_per_month,
                "share_by_option": pw.share_by_option,
                "all_api_monthly_cost_usd": api_m,
                "baseline_monthly_cost_usd": pw.baseline_cost_usd_per_month,
                "savings_vs_api_usd_per_month": None if api_m is None else api_m - pw.cost_usd_per_month,
                "flips": thresholds[wi],
            }
        )
    return _DECISIONS.validate_python(rows)


def _stale_warnings(s: Scenario) -> list[str]:
    out: list[str] = []
    for field, offers in (("nodes", s.nodes), ("apis", s.apis)):
        for i, offer in enumerate(offers):
            try:
                as_of = dt.date.fromisoformat(offer.as_of[:10])
            except ValueError:
                continue
            age = (s.review_date - as_of).days
            if age > s.policy.stale_after_days:
                out.append(
                    f"{field}.{i} ({offer.name}): price last checked {as_of}, {age} days before the review date "
                    f"(stale after {s.policy.stale_after_days} days)"
                )
    return out


@dataclass(frozen=True)
class FleetPlan:
    """The solved plan with its problem and accounts (arrays), and its typed summary."""

    problem: PlanProblem
    solution: PlanSolution
    accounts: Accounts
    plan: Plan
    main: IntArray  # (W,) main option of each workload, −1 if unserved


def _share_dicts(option_ids: tuple[str, ...], volume: FloatArray) -> list[dict[str, float]]:
    """Per workload (row of ``volume``, (W, O)), each option's share of its volume, shares above 1e-9 only; one
    pass over the matrix (a loop over rows cost 13 µs a workload, 5 s a horizon of 5,000 workloads)."""
    total = volume.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(total[:, None] > 0, volume / total[:, None], 0.0)
    out: list[dict[str, float]] = [{} for _ in range(volume.shape[0])]
    rows, cols = np.nonzero(share > 1e-9)
    for w, o, x in zip(rows.tolist(), cols.tolist(), share[rows, cols].tolist(), strict=True):
        out[w][option_ids[o]] = x
    return out


def plan_fleet(ev: Evaluation, lens: Lens | None = None) -> FleetPlan:
    """Solve the fleet plan of an evaluation in a lens (the scenario's policy by default) and account for it."""
    s, t = ev.scenario, ev.table
    lens = s.policy.lens if lens is None else lens
    demand = day_demand(s.workloads)
    p = plan_problem(s, t, demand, lens)
    sol = solve_fleet(p)
    acc = plan_accounts(s, p, sol, lens)
    volume = acc.volume
    served = volume.sum(axis=1) > 0
    main = np.where(served, np.argmax(volume, axis=1), -1).astype(np.intp)
    needs = nodes_needed_by(p, sol)  # (W, K)
    owned_nodes = np.array([isinstance(n, OwnedNode) for n in s.nodes], dtype=bool)
    owned_count = np.array([n.nodes_owned if isinstance(n, OwnedNode) else 0 for n in s.nodes], dtype=np.float64)
    new_units = np.where(owned_nodes, np.maximum(sol.units - owned_count, 0.0), 0.0)
    capex = np.array([n.capex_usd if isinstance(n, OwnedNode) else 0.0 for n in s.nodes], dtype=np.float64)
    need = np.minimum(needs, new_units[None, :])
    standalone = monthly_cost(_take(t.cost_usd, main), t.avg_requests_per_s)
    api_pick = best_api(t, ev.route)
    api_monthly = monthly_cost(_take(t.cost_usd * p.attempts, api_pick), t.avg_requests_per_s)
    shares = _share_dicts(t.option_ids, volume)
    base = baseline_accounts(s, p, sol, t, lens)
    rows = []
    for w, wl in enumerate(s.workloads):
        ch = int(main[w])
        unserved = "" if ch >= 0 else "; ".join(sorted({str(x) for x in ev.reasons[w] if x}))
        rows.append(
            PlanWorkload(
                workload_id=wl.id,
                workload_name=wl.name,
                option_id=t.option_ids[ch] if ch >= 0 else None,
                share_by_option=shares[w],
                cost_usd_per_month=float(acc.workload_usd[w]),
                api_cost_usd_per_month=float(acc.api_usd[w]),
                owned_cost_usd_per_month=float(acc.owned_usd[w]),
                failure_cost_usd_per_month=float(acc.failure_usd[w]),
                standalone_cost_usd_per_month=float(standalone[w]) if ch >= 0 else None,
                best_api_id=t.option_ids[int(api_pick[w])] if api_pick[w] >= 0 else None,
                best_api_cost_usd_per_month=float(api_monthly[w]) if api_pick[w] >= 0 else None,
                # with no workload free to move, the baseline is the plan itself and each share its share here
                baseline_cost_usd_per_month=float((acc if base is None else base).workload_usd[w]),
                nodes_to_buy=round(float(need[w].sum())),
                node_capital_usd=float((need[w] * capex).sum()),
                node_usd_per_month=float((need[w] * p.unit_usd_per_month).sum()),
                unserved_reason=unserved,
            )
        )
    nodes = plan_nodes(s, p, sol, acc, lens)
    total = acc.total_usd
    power = float(acc.power_usd.sum())
    # a rented node's "power" is a serverless replica's billed seconds: rent too
    rented = float(
        sum(acc.node_cash_usd[k] + acc.power_usd[k] for k, n in enumerate(s.nodes) if isinstance(n, RentedNode))
    )
    api_total = float(acc.api_usd.sum())
    cash = float(acc.node_cash_usd.sum()) + power + api_total
    full = float(acc.node_full_usd.sum()) + power + api_total
    plan = Plan(
        lens=lens,
        solver_status=sol.status,
        mip_gap=sol.mip_gap if np.isfinite(sol.mip_gap) else 1.0,
        solve_time_s=sol.solve_time_s,
        total_cost_usd_per_month=total,
        objective_usd_per_month=total + float(acc.failure_usd.sum()),
        failure_cost_usd_per_month=float(acc.failure_usd.sum()),
        cash_cost_usd_per_month=cash,
        full_cost_usd_per_month=full,
        api_cost_usd_per_month=api_total,
        rented_cost_usd_per_month=rented,
        owned_cost_usd_per_month=total - api_total - rented,
        sunk_usd_per_month=float(sum(n.sunk_usd_per_month for n in nodes)),
        sunk_capital_usd=float((owned_count * capex).sum()),
        nodes_to_buy=int(sum(n.nodes_to_buy for n in nodes)),
        capital_to_buy_usd=float(sum(n.capital_to_buy_usd for n in nodes)),
        new_nodes_usd_per_month=float(sum(n.new_nodes_usd_per_month for n in nodes)),
        unallocated_usd_per_month=acc.unallocated_usd,
        all_api_cost_usd_per_month=total if base is None else base.total_usd,
        baseline_unallocated_usd_per_month=(acc if base is None else base).unallocated_usd,
        nodes=nodes,
        replicas=plan_replicas(s, sol, acc),
        workloads=tuple(rows),
    )
    return FleetPlan(p, sol, acc, plan, main)


def _plan_fleet_summary(s: Scenario, fp: FleetPlan) -> FleetSummary:
    """The old fleet summary, read off the plan (so that every page's headline is the plan's total)."""
    plan = fp.plan
    owned = [n for n in plan.nodes if n.kind == "owned"]
    gpus = sum(n.gpus_paid for n in owned)
    busy = sum(n.utilization * n.gpus_paid for n in owned)
    u = busy / gpus if gpus else 0.0
    return FleetSummary(
        owned_nodes=sum(max(n.nodes_used, n.nodes_owned) for n in owned),
        owned_gpus=gpus,
        owned_cost_usd_per_month=plan.owned_cost_usd_per_month,
        owned_utilization=u,
        idle_cost_usd_per_month=plan.owned_cost_usd_per_month * (1.0 - min(max(u, 0.0), 1.0)),
        rented_cost_usd_per_month=plan.rented_cost_usd_per_month,
        api_cost_usd_per_month=plan.api_cost_usd_per_month,
        total_cost_usd_per_month=plan.total_cost_usd_per_month,
        all_api_cost_usd_per_month=plan.all_api_cost_usd_per_month,
    )


def _plan_warnings(s: Scenario, fp: FleetPlan) -> list[str]:
    plan = fp.plan
    out: list[str] = []
    if plan.solver_status != "optimal":
        bound = (
            f"the plan may cost up to {100 * plan.mip_gap:.3g}% more than the best one"
            if fp.solution.mip_gap < math.inf
            else "how far it is from the best one is unknown"
        )
        out.append(f"plan: the solver stopped before proving the plan optimal ({plan.solver_status}); {bound}")
    for i, n in enumerate(plan.nodes):
        if n.nodes_to_buy:
            out.append(
                f"nodes.{i} ({n.node_name}): the plan needs {plural(n.nodes_used, 'node')}, {n.nodes_owned} are owned; "
                f"buy {n.nodes_to_buy}: +{_money(n.capital_to_buy_usd)} capital, "
                f"+{_money(n.new_nodes_usd_per_month)}/month"
            )
        elif n.kind == "owned" and n.nodes_owned and n.gpus_used == 0:
            out.append(
                f"nodes.{i} ({n.node_name}): {plural(n.nodes_owned, 'owned node')} carry no workload; "
                f"{_money(n.sunk_usd_per_month)}/month of capital and fixed costs is paid for idle GPUs"
            )
    return out


def evaluate(scenario: Scenario, *, flips: bool = True) -> Result:
    """Evaluate a scenario: every workload on every option, the chosen routes and the fleet
    (docs/serving.md#serving-and-queues to docs/routing.md#routing-rule).

    ``flips=False`` leaves every decision's ``flips`` empty and skips their computation (about a third of the
    time): for callers that do not show them, such as the dashboard's pages other than Reviews (and the
    what-changed banner). Everything else in the result is the same as with ``flips=True``.

    For each owned option: SLO capacity λ_max (docs/serving.md#slo-capacity), and, as the labelled stand-alone
    comparison, replicas for the peak with headroom, the operating point at the average load
    (docs/serving.md#continuous-batching) and the cost per request on dedicated replicas (docs/costs.md#cost-per-token).
    For each API: cost with caching, batch tier and negotiated discount (docs/costs.md#api-price) and feasibility
    against the workload's SLOs and data rule. Then the fleet plan (issue 10, :mod:`economics.plan`): routes, replicas
    and nodes decided together by one exact MIP in the policy's lens (cash by default), money plus expected failure cost
    (docs/quality.md#expected-cost) minimised, capacity checked hour by hour.

    Accounting: a workload's ``monthly_cost_usd`` is its share of the plan (rule on
    :class:`~economics.result.PlanWorkload`); the shares plus ``plan.unallocated_usd_per_month`` sum to
    ``fleet.total_cost_usd_per_month`` = ``plan.total_cost_usd_per_month``. Reasons, flip thresholds and
    the quadrant use the workload's marginal cost in the plan, the rest held fixed.

    Infeasible options carry a reason and cost ``inf``; nothing is NaN.

    >>> from economics.io.scenarios import default_scenario
    >>> result = evaluate(default_scenario())
    >>> [d.route_label for d in result.decisions]
    ['owned AR (batch)', 'owned AR', 'owned AR', 'owned AR', 'frontier API']
    >>> result.plan.solver_status, result.plan.nodes_to_buy
    ('optimal', 0)
    """
    return evaluate_with_plan(scenario, flips=flips)[0]


def evaluate_with_plan(scenario: Scenario, *, flips: bool = True) -> tuple[Result, FleetPlan]:
    """:func:`evaluate`, and the solved fleet plan it read (its problem, solution and accounts), for views that
    hold the plan fixed (:func:`evaluate_grid`'s ``fleet``): a caller that keeps both solves the plan once."""
    ev = evaluate_arrays(scenario)
    fp = plan_fleet(ev)
    co = coordinates(ev, fp.main)
    decisions = _decisions(ev, co, fp, flips)
    warnings = _stale_warnings(scenario) + _plan_warnings(scenario, fp)
    warnings += [
        f"workloads.{i} ({d.workload_name}): no allowed option can serve it: {pw.unserved_reason}"
        for i, (d, pw) in enumerate(zip(decisions, fp.plan.workloads, strict=True))
        if d.chosen_option_id is None
    ]
    if scenario.policy.cost_mode == "pooled":
        warnings.append(
            "policy.cost_mode: 'pooled' no longer changes any cost; the plan shares replicas across workloads "
            "and the lens (policy.lens) says whether bought nodes count"
        )
    from economics.route_bands import with_bands  # bands read the calibration report (pandas): loaded on first use

    options, decisions = with_bands(ev, fp, _option_results(ev), decisions)
    result = Result(
        scenario_name=scenario.name,
        review_date=scenario.review_date,
        options=options,
        decisions=decisions,
        fleet=_plan_fleet_summary(scenario, fp),
        warnings=tuple(warnings),
        plan=fp.plan,
    )
    return result, fp


# ---- the two-axis grid ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DecisionGrid:
    """One workload's route over a demand × failure-cost grid: the quadrant's decision regions
    (docs/routing.md#routing-rule).

    Rows are failure costs (the value axis, ``v = C_fail/T_out``), columns are average demands (the
    batchability axis, ``β ∝ λ_peak``). Option indices refer to ``option_ids``; −1 means none feasible.
    """

    workload_id: str
    option_ids: tuple[str, ...]
    avg_requests_per_s: FloatArray  # (nx,) [req/s]
    failure_cost_usd: FloatArray  # (ny,) [USD]
    batchability: FloatArray  # (nx,) β on the best owned AR option [1]
    value_usd_per_output_token: FloatArray  # (ny,) v [USD/token]
    cost_usd: FloatArray  # (nx, O) cost per attempt (marginal in the plan, or stand-alone); inf where infeasible [USD]
    chosen: IntArray  # (ny, nx)
    label: NDArray[np.int8]  # (ny, nx) index into ROUTE_LABELS
    expected_cost_usd: FloatArray  # (ny, nx) J of the chosen option [USD]
    margin_usd: FloatArray  # (ny, nx) runner-up J − chosen J [USD]
    break_even_utilization: FloatArray  # (ny, nx) U* best owned vs best API; NaN where undefined [1]
    break_even_value_usd_per_output_token: FloatArray  # (ny, nx) v*; NaN where undefined [USD/token]

    @property
    def label_names(self) -> tuple[str, ...]:
        return ROUTE_LABELS


#: OptionTable fields with one row per workload; the others are per option ``(O,)`` or scalars.
_TABLE_ROWS = (
    "cost_usd",
    "quality",
    "allowed",
    "feasible",
    "tpot_s",
    "capacity_requests_per_s",
    "replicas",
    "utilization",
    "achieved_batch",
    "api_price_multiplier",
    "failure_cost_usd",
    "max_attempts",
    "avg_requests_per_s",
    "peak_requests_per_s",
    "output_tokens",
    "sovereign",
)


def _tile_table(table: OptionTable, ny: int, failure_cost_usd: FloatArray) -> OptionTable:
    """The table repeated ``ny`` times along the workload axis (grid rows), with one failure cost per row."""
    values: dict[str, Any] = {}
    for name in _TABLE_ROWS:
        v = getattr(table, name)
        values[name] = np.tile(v, (ny,) + (1,) * (v.ndim - 1))
    values["failure_cost_usd"] = failure_cost_usd
    if table.sizing_rates is not None:
        values["sizing_rates"] = np.tile(table.sizing_rates, (ny, 1))
    return replace(table, **values)


def _plan_costs(
    scenario: Scenario, wl: Workload, x: FloatArray, table_x: OptionTable, fleet: FleetPlan | None
) -> FloatArray:
    """(nx, O) the workload's marginal cost per attempt in the plan at each average demand ``x`` [USD]."""
    fp = plan_fleet(evaluate_arrays(scenario)) if fleet is None else fleet
    wi = [w.id for w in scenario.workloads].index(wl.id)
    rows = np.full(len(x), wi, dtype=np.intp)
    marginal = marginal_usd_per_month(fp.problem, fp.solution, rows, x / wl.avg_requests_per_s)
    g, fail = fp.problem.attempts[wi], fp.problem.failure_usd[wi]
    with np.errstate(divide="ignore", invalid="ignore"):
        c = (marginal / (x * SECONDS_PER_MONTH)[:, None] - fail[None, :]) / g[None, :]
    ok = np.isfinite(marginal) & table_x.feasible
    return np.asarray(np.where(ok, np.maximum(c, 0.0), np.inf), dtype=np.float64)


def evaluate_grid(
    scenario: Scenario,
    workload_id: str,
    avg_requests_per_s: ArrayLike,
    failure_cost_usd: ArrayLike,
    *,
    peak_to_average: float | None = None,
    basis: Literal["plan", "standalone"] = "plan",
    fleet: FleetPlan | None = None,
) -> DecisionGrid:
    """Route one workload over a grid of average demand (columns) × failure cost (rows), vectorized.

    ``basis="plan"`` (default, issue 10): the rest of the fleet plan is held fixed and each option costs the
    workload its *marginal* cost in the plan at that demand — spare capacity the plan already pays for is
    free, extra replicas and nodes are not (:func:`economics.plan_accounts.marginal_usd_per_month`, all
    demands at once, no solve per cell; the plan is solved once, or passed as ``fleet``). The workload
    keeps its day shape, scaled. ``basis="standalone"``: each option on its own dedicated replicas, the peak
    ``peak_to_average`` × the average (by default the ratio evaluate sizes the workload by: its sizing peak).

    Each owned option is evaluated once over the demand axis (one serving call, SLO capacity solved once
    for the shape); the failure-cost axis only changes ``J``, so the whole ``ny × nx`` grid is routed as
    one array.
    """
    wl = next((w for w in scenario.workloads if w.id == workload_id), None)
    if wl is None:
        raise ValueError(f"workload_id: unknown workload {workload_id!r}")
    x = np.atleast_1d(np.asarray(avg_requests_per_s, dtype=np.float64))
    y = np.atleast_1d(np.asarray(failure_cost_usd, dtype=np.float64))
    if np.any(~np.isfinite(x)) or np.any(x <= 0) or np.any(~np.isfinite(y)) or np.any(y < 0):
        raise ValueError("avg_requests_per_s must be finite and > 0, failure_cost_usd finite and ≥ 0")
    # the workload's own ratio is the one evaluate sizes it by (its sizing peak: the declared peak, or its volume
    # when deferrable), so that the grid's cell at its own point reproduces evaluate's batchability and label
    own = float(day_demand((wl,)).sizing_peak[0]) / wl.avg_requests_per_s
    p2a = own if peak_to_average is None else peak_to_average
    w_x = WorkloadArrays.sweep(wl, x, x * p2a)
    arrays = [owned_option_arrays(scenario, o, w_x) for o in scenario.owned_options]
    arrays += [api_option_arrays(a, w_x) for a in scenario.apis]
    option_ids = tuple(o.id for o in scenario.owned_options) + tuple(a.id for a in scenario.apis)
    base = np.array([o.quality for o in scenario.owned_options] + [a.quality for a in scenario.apis])
    q = np.array([wl.quality_overrides.get(oid, float(b)) for oid, b in zip(option_ids, base, strict=True)])
    ny, nx = len(y), len(x)
    # Everything but J depends on the demand alone: assemble the nx columns once, then tile the table rows.
    table_x, _ = _option_table(scenario, w_x, arrays, np.tile(q, (nx, 1)), with_reasons=False, workloads=(wl,) * nx)
    if basis == "plan":
        table_x = replace(table_x, cost_usd=_plan_costs(scenario, wl, x, table_x, fleet))
    table = _tile_table(table_x, ny, np.repeat(y, nx))
    r = table.route()
    beta = np.stack([a.batchability for a in arrays], axis=1)
    co = quadrant_coordinates(table, r, np.tile(beta, (ny, 1)))
    best_j = np.where(r.chosen >= 0, _take(r.expected_cost_usd, r.chosen), np.inf)
    cost_x = table_x.cost_usd
    return DecisionGrid(
        workload_id=wl.id,
        option_ids=option_ids,
        avg_requests_per_s=x,
        failure_cost_usd=y,
        batchability=co.batchability[:nx],
        value_usd_per_output_token=y / wl.output_tokens,
        cost_usd=cost_x,
        chosen=r.chosen.reshape(ny, nx),
        label=co.labels.reshape(ny, nx),
        expected_cost_usd=best_j.reshape(ny, nx),
        margin_usd=r.margin_usd.reshape(ny, nx),
        break_even_utilization=co.u_star.reshape(ny, nx),
        break_even_value_usd_per_output_token=co.value_star.reshape(ny, nx),
    )
