"""The one orchestrator: ``evaluate(scenario) -> Result`` (docs/serving.md#serving-and-queues to
docs/routing.md#routing-rule), like pvlib's ``ModelChain``.

Pages, the CLI and stored reviews all call :func:`evaluate`. It evaluates every option for all workloads at
once (one serving call per owned option, arrays over workloads), routes each workload to the option with
the lowest expected cost per task, derives the quadrant coordinates, break-evens and flip thresholds, and
sums the fleet, including what the owned nodes cost while idle (the essay's "GPU hangover").

:func:`evaluate_grid` sweeps one workload over two axes (demand × failure cost) for the quadrant's decision
regions and break-even maps.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pydantic import TypeAdapter

from economics.costs import (
    cost_per_mtok,
)
from economics.fleet import fleet_summary, monthly_cost
from economics.flips import all_flips, flip_rows
from economics.option_costs import (
    REASON_SOVEREIGN,
    OptionArrays,
    WorkloadArrays,
    api_option_arrays,
    owned_option_arrays,
)
from economics.result import OptionKind, OptionResult, Result, WorkloadDecision
from economics.routing import (
    API,
    FRONTIER_TIERS,
    OPTION_KINDS,
    ROUTE_LABELS,
    Coordinates,
    OptionTable,
    Route,
    allowed_options,
    best_api,
    quadrant_coordinates,
)
from economics.scenario import Scenario

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
    """The array stage of :func:`evaluate`: every option for every workload, the table and the route."""
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


def _option_table(
    scenario: Scenario,
    w: WorkloadArrays,
    arrays: list[OptionArrays],
    quality: FloatArray,
    with_reasons: bool = True,
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

    allowed = allowed_options(w.sovereign, kind == API)
    able = np.stack([a.feasible for a in arrays], axis=1)
    below_floor = quality < w.min_quality[:, None]
    if with_reasons:
        reasons = np.stack([a.reason for a in arrays], axis=1).astype(object)
        for wi, oi in zip(*np.nonzero(able & below_floor), strict=True):
            reasons[wi, oi] = f"quality {quality[wi, oi]:.3g} is below the workload's floor {w.min_quality[wi]:.3g}"
        reasons = np.where(~allowed, REASON_SOVEREIGN, reasons)
    else:
        reasons = np.empty((0, 0), dtype=object)
    feasible = allowed & able & ~below_floor
    cost = np.where(feasible, stack("cost"), np.inf)
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
        pooled=scenario.policy.cost_mode == "pooled",
        pool_utilization=scenario.policy.pool_utilization,
    )
    return table, reasons


def coordinates(ev: Evaluation) -> Coordinates:
    """β, best owned and best API, v*, U* and the quadrant label of every workload (docs/routing.md#routing-rule step
    5)."""
    beta = np.stack([a.batchability for a in ev.options], axis=1) if ev.options else np.zeros((len(ev.table.kind), 0))
    return quadrant_coordinates(ev.table, ev.route, beta)


def _take(a: FloatArray, idx: IntArray) -> FloatArray:
    rows = np.arange(a.shape[0])
    return np.where(idx >= 0, a[rows, np.maximum(idx, 0)], np.nan)


# ---- assembly --------------------------------------------------------------------------------------------------


def _none_if_nan(x: float) -> float | None:
    return None if math.isnan(x) else x


def _money(x: float) -> str:
    return f"${x:,.4g}" if abs(x) < 1 else f"${x:,.2f}"


def _reason(ev: Evaluation, co: Coordinates, w: int) -> str:
    """One paragraph a reviewer can read: why this route, by how much, and where the node stands."""
    t, r = ev.table, ev.route
    names = ev.option_names
    chosen, runner = int(r.chosen[w]), int(r.runner_up[w])
    if chosen < 0:
        why = sorted({str(x) for x in ev.reasons[w] if x})
        return "No allowed option can serve it: " + "; ".join(why) + "."
    j = r.expected_cost_usd[w]
    label = ROUTE_LABELS[int(co.labels[w])]
    beta = float(co.batchability[w])
    bound = f"latency-bound (β = {beta:.2g} < 1: no batch forms)" if beta < 1 else f"batchable (β = {beta:.2g} ≥ 1)"
    parts: list[str] = []
    if t.kind[chosen] == API:
        owned = int(co.best_owned[w])
        v_star = float(co.value_star[w])
        v = float(t.failure_cost_usd[w] / t.output_tokens[w])
        if owned < 0:
            parts.append("No owned option can serve it")
        elif t.cost_usd[w, chosen] <= t.cost_usd[w, owned] and t.quality[w, chosen] >= t.quality[w, owned]:
            parts.append("Cheaper per request and at least as good as any owned option")
        elif t.quality[w, chosen] > t.quality[w, owned] and not math.isnan(v_star):
            parts.append(
                f"Value at risk {_money(v * 1000)} per 1k output tokens exceeds the break-even "
                f"{_money(v_star * 1000)}: the quality gap is worth more than the price gap"
            )
        else:
            parts.append("Cheapest per task: the API charges only for the tokens it serves, the owned node idles")
    else:
        if t.sovereign[w]:
            parts.append("Sovereign data: APIs are not allowed")
        if label == "owned diffusion":
            parts.append(f"{bound}; diffusion decodes a block per pass and costs least per task")
        elif label == "owned AR (batch)":
            parts.append(f"{bound}: batching amortizes the weight reads")
        else:
            parts.append(f"{bound}")
        parts.append(f"the replica runs at {100 * t.utilization[w, chosen]:.2g}% of its SLO capacity")
    parts.append(f"J = {_money(float(j[chosen]))}/task on {names[chosen]}")
    if runner >= 0:
        parts.append(f"vs {_money(float(j[runner]))} on {names[runner]}")
    u_star = float(co.u_star[w])
    if t.kind[chosen] != API and not math.isnan(u_star):
        parts.append(f"break-even utilization against the best API {100 * u_star:.2g}%")
    return "; ".join(parts) + "."


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


def _decisions(ev: Evaluation, co: Coordinates) -> tuple[WorkloadDecision, ...]:
    t, r, s = ev.table, ev.route, ev.scenario
    chosen = r.chosen.tolist()
    monthly = monthly_cost(_take(t.cost_usd, r.chosen), t.avg_requests_per_s).tolist()
    api_monthly = monthly_cost(_take(t.cost_usd, best_api(t, r)), t.avg_requests_per_s).tolist()
    has_api = np.asarray((t.is_api[None, :] & t.feasible).any(axis=1), dtype=bool).tolist()
    flips = flip_rows(all_flips(t, r), t.option_ids, ev.option_names)
    margins, labels, betas = r.margin_usd.tolist(), co.labels.tolist(), co.batchability.tolist()
    v_stars, u_stars, lam_stars = co.value_star.tolist(), co.u_star.tolist(), co.lambda_star.tolist()
    kinds = t.kind.tolist()
    rows: list[dict[str, Any]] = []
    for wi, wl in enumerate(s.workloads):
        ch = chosen[wi]
        api_m = api_monthly[wi] if has_api[wi] else None
        rows.append(
            {
                "workload_id": wl.id,
                "workload_name": wl.name,
                "chosen_option_id": t.option_ids[ch] if ch >= 0 else None,
                "chosen_kind": OPTION_KINDS[kinds[ch]] if ch >= 0 else None,
                "route_label": ROUTE_LABELS[labels[wi]],
                "reason": _reason(ev, co, wi),
                "margin_usd_per_request": margins[wi],
                "batchability": betas[wi],
                "value_usd_per_output_token": wl.value_usd_per_output_token,
                "break_even_value_usd_per_output_token": _none_if_nan(v_stars[wi]),
                "break_even_utilization": _none_if_nan(u_stars[wi]),
                "break_even_demand_requests_per_s": _none_if_nan(lam_stars[wi]),
                "monthly_cost_usd": monthly[wi],
                "all_api_monthly_cost_usd": api_m,
                "savings_vs_api_usd_per_month": None if api_m is None else api_m - monthly[wi],
                "flips": flips[wi],
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
                    f"(stale after {s.policy.stale_after_days})"
                )
    return out


def evaluate(scenario: Scenario) -> Result:
    """Evaluate a scenario: every workload on every option, the chosen routes and the fleet
    (docs/serving.md#serving-and-queues to docs/routing.md#routing-rule).

    For each owned option: SLO capacity λ_max (docs/serving.md#slo-capacity), replicas for the peak with headroom,
    utilisation of the paid hours, the operating point at the average load (docs/serving.md#continuous-batching) and the
    cost per request (docs/costs.md#cost-per-token, dedicated or pooled). For each API: cost with caching, batch tier
    and negotiated discount (docs/costs.md#api-price) and feasibility against the workload's SLOs. Then ``J = c +
    expected failure cost`` (docs/quality.md#expected-cost), the route by ``argmin J`` (docs/routing.md#routing-rule;
    sovereign data never goes to an API), the quadrant coordinates, break-evens and flip thresholds, and the fleet's
    monthly cost including idle capacity.

    Accounting: a workload's cost per request (and its ``monthly_cost_usd``) is stand-alone — in dedicated
    mode it pays for its own replicas all hours — which is what the routing decision compares. The fleet
    summary instead consolidates the workloads routed to the same owned option onto shared replicas and
    runs ``max(nodes bought, nodes needed)`` owned nodes, so it is the bill actually paid; per-workload
    monthly costs can add up to more than it. Sunk (already bought) nodes are charged in full to both.

    Infeasible options carry a reason and cost ``inf``; nothing is NaN.

    >>> from economics.scenarios import default_scenario
    >>> result = evaluate(default_scenario())
    >>> [d.route_label for d in result.decisions]
    ['owned AR (batch)', 'owned AR', 'owned AR', 'API', 'frontier API']
    """
    ev = evaluate_arrays(scenario)
    co = coordinates(ev)
    fleet, fleet_warnings = fleet_summary(scenario, ev.table, ev.route)
    decisions = _decisions(ev, co)
    warnings = _stale_warnings(scenario) + fleet_warnings
    warnings += [
        f"workloads.{i} ({d.workload_name}): no allowed option can serve it"
        for i, d in enumerate(decisions)
        if d.chosen_option_id is None
    ]
    return Result(
        scenario_name=scenario.name,
        review_date=scenario.review_date,
        options=_option_results(ev),
        decisions=decisions,
        fleet=fleet,
        warnings=tuple(warnings),
    )


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
    cost_usd: FloatArray  # (nx, O) inference cost per request; inf where infeasible [USD]
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
    return replace(table, **values)


def evaluate_grid(
    scenario: Scenario,
    workload_id: str,
    avg_requests_per_s: ArrayLike,
    failure_cost_usd: ArrayLike,
    *,
    peak_to_average: float | None = None,
) -> DecisionGrid:
    """Route one workload over a grid of average demand (columns) × failure cost (rows), vectorized.

    The workload keeps its shape, SLOs and sovereignty; the peak is ``peak_to_average`` × the average (the
    workload's own ratio by default). Each owned option is evaluated once over the demand axis (one serving
    call, SLO capacity solved once for the shape); the failure-cost axis only changes ``J``, so the whole
    ``ny × nx`` grid is routed as one array. 200 × 200 points take tens of milliseconds.
    """
    wl = next((w for w in scenario.workloads if w.id == workload_id), None)
    if wl is None:
        raise ValueError(f"workload_id: unknown workload {workload_id!r}")
    x = np.atleast_1d(np.asarray(avg_requests_per_s, dtype=np.float64))
    y = np.atleast_1d(np.asarray(failure_cost_usd, dtype=np.float64))
    if np.any(~np.isfinite(x)) or np.any(x <= 0) or np.any(~np.isfinite(y)) or np.any(y < 0):
        raise ValueError("avg_requests_per_s must be finite and > 0, failure_cost_usd finite and ≥ 0")
    p2a = wl.peak_requests_per_s / wl.avg_requests_per_s if peak_to_average is None else peak_to_average
    w_x = WorkloadArrays.sweep(wl, x, x * p2a)
    arrays = [owned_option_arrays(scenario, o, w_x) for o in scenario.owned_options]
    arrays += [api_option_arrays(a, w_x) for a in scenario.apis]
    option_ids = tuple(o.id for o in scenario.owned_options) + tuple(a.id for a in scenario.apis)
    base = np.array([o.quality for o in scenario.owned_options] + [a.quality for a in scenario.apis])
    q = np.array([wl.quality_overrides.get(oid, float(b)) for oid, b in zip(option_ids, base, strict=True)])
    ny, nx = len(y), len(x)
    # Everything but J depends on the demand alone: assemble the nx columns once, then tile the table rows.
    table_x, _ = _option_table(scenario, w_x, arrays, np.tile(q, (nx, 1)), with_reasons=False)
    table = _tile_table(table_x, ny, np.repeat(y, nx))
    r = table.route()
    beta = np.stack([a.batchability for a in arrays], axis=1)
    co = quadrant_coordinates(table, r, np.tile(beta, (ny, 1)))
    best_j = np.where(r.chosen >= 0, _take(r.expected_cost_usd, r.chosen), np.inf)
    cost_x = np.stack(
        [np.where(a.feasible & table_x.allowed[:, i], a.cost, np.inf) for i, a in enumerate(arrays)], axis=1
    )
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
