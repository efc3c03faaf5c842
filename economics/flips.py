"""Decision-flip thresholds: how far one driver can move before a workload's route changes
(docs/routing.md#routing-rule).

For every workload and each driver, everything else held fixed:

=================  ==========================================================  ========================
driver             what moves                                                  method
=================  ==========================================================  ========================
api_output_price   output price in use (list less the negotiated discount, or  closed form (J affine)
                   a negotiated rate) of the chosen API, or of the best API
node_price         $/node-hour of the node behind the chosen (or best) owned   closed form: lower
                   option; every option on that node moves with it             envelope of lines
utilization        utilisation of that owned option (U_pool when pooled)       closed form in 1/U
quality_gap        best API quality minus that owned option's quality          closed form if m = 1,
                                                                               else bisection on q
throughput         SLO capacity per replica of that owned option               bisection on log scale
=================  ==========================================================  ========================

The "pivot" of a driver is the option it acts on. When the pivot is the chosen option, the route flips
when the pivot gets worse, to the runner-up; otherwise it flips when the pivot gets better than the chosen
option, to the pivot. Each driver is an array computation over all workloads at once; bisections run a
fixed 60 iterations. A threshold that is out of range (negative price, utilisation above 1, quality
outside [0, 1], a price or capacity beyond 1000× today's) is ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from economics.costs import hourly_cost_usd, owned_cost_per_request
from economics.option_costs import paid_replicas_per_hour
from economics.quality import expected_attempts, expected_cost_per_task, failure_probability
from economics.result import FlipThreshold
from economics.routing import OptionTable, Route, best_of
from economics.units import MTOK, SECONDS_PER_HOUR

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
BoolArray = NDArray[np.bool_]

BISECTION_STEPS = 60
MAX_CAPACITY_SCALE = 1000.0
#: A price threshold beyond this multiple of today's price is reported as "none in range", like a capacity
#: beyond MAX_CAPACITY_SCALE: in the cash lens a bought node's capital is sunk, so its line is nearly flat in
#: the node price and the crossing lands at absurd prices (a bank with a second node offer read $3×10¹⁵/node-hour).
MAX_PRICE_SCALE = 1000.0
#: 27 halvings of log(10⁶) = 13.8 leave a relative error of 13.8/2²⁷ ≈ 1e-7 on the threshold, far below the
#: 3–4 significant digits it is shown with; each step is one marginal-cost pass over the plan (the bank's costliest
#: flip), so more steps only cost time.
PLAN_BISECTION_STEPS = 27


@dataclass(frozen=True)
class FlipArrays:
    """One driver's thresholds for every workload; ``threshold`` is NaN where the route never flips."""

    driver: str
    unit: str
    pivot: IntArray  # (W,) option the driver acts on, −1 if none
    current: FloatArray  # (W,) the driver's value now
    threshold: FloatArray  # (W,) value at which the route changes; NaN = never in range
    above: BoolArray  # (W,) the route flips when the driver rises above the threshold
    new_option: IntArray  # (W,) option that takes over, −1 if none
    what: str = ""  # what moves, in words ({pivot} = the pivot's name); "" = the driver's usual words
    searched: str = "in range"  # where a threshold was looked for, in words


def _take(a: FloatArray, idx: IntArray) -> FloatArray:
    """``a[w, idx[w]]`` with NaN where ``idx`` is −1."""
    rows = np.arange(a.shape[0])
    return np.where(idx >= 0, a[rows, np.maximum(idx, 0)], np.nan)


def _pivots(table: OptionTable, r: Route) -> tuple[IntArray, IntArray, BoolArray]:
    """The owned pivot, the API pivot, and whether the chosen option is an API."""
    is_api = table.is_api
    j = r.expected_cost_usd
    chosen_api = (r.chosen >= 0) & is_api[np.maximum(r.chosen, 0)]
    chosen_owned = (r.chosen >= 0) & ~chosen_api
    best_owned = best_of(j, ~is_api, table.tpot_s, is_api)
    best_api = best_of(j, is_api, table.tpot_s, is_api)
    owned_pivot = np.where(chosen_owned, r.chosen, best_owned).astype(np.intp)
    api_pivot = np.where(chosen_api, r.chosen, best_api).astype(np.intp)
    return owned_pivot, api_pivot, chosen_api


def _target(r: Route, pivot: IntArray) -> tuple[FloatArray, IntArray, BoolArray]:
    """J the pivot must cross, the option that takes over, and whether the pivot is the chosen option."""
    j = r.expected_cost_usd
    is_chosen = (pivot >= 0) & (pivot == r.chosen)
    j_runner = np.where(r.runner_up >= 0, _take(j, r.runner_up), np.inf)
    target = np.where(is_chosen, j_runner, _take(j, r.chosen))
    new = np.where(is_chosen, r.runner_up, pivot).astype(np.intp)
    valid = (pivot >= 0) & (r.chosen >= 0)
    return np.where(valid, target, np.nan), np.where(valid, new, -1).astype(np.intp), is_chosen


def _attempt_factor(table: OptionTable) -> tuple[FloatArray, FloatArray]:
    """``g`` (mean attempts) and ``F`` (expected failure cost) per (workload, option)."""
    m = table.max_attempts[:, None]
    g = expected_attempts(table.quality, m)
    fail = failure_probability(table.quality, m) * table.failure_cost_usd[:, None]
    return g, fail


def api_output_price_flip(table: OptionTable, r: Route) -> FlipArrays:
    """Output price in use of the pivot API at which the route changes [USD/Mtok] (closed form).

    The price in use is the organisation's rate: the list price less the negotiated discount ``d``, or a
    negotiated rate from the price book (which replaces the list price), ``p = p_list·(1 − d)``; a batch
    tier still halves (or so) what a deferrable workload pays on top of it. ``J_api(p) = J_api(p0) +
    g·T_out·mult·(p − p0)/(1e6·(1 − d))`` is affine in p, so ``p* = p0 + (T − J)/slope``.
    """
    _, pivot, _ = _pivots(table, r)
    target, new, is_chosen = _target(r, pivot)
    g, _ = _attempt_factor(table)
    safe = np.maximum(pivot, 0)
    keep = np.ones(len(table.option_ids)) if table.api_negotiated_keep is None else table.api_negotiated_keep
    p0 = np.where(pivot >= 0, table.api_output_usd_per_mtok[safe] * keep[safe], np.nan)
    slope = _take(g * table.api_price_multiplier, pivot) / keep[safe] * table.output_tokens / MTOK
    with np.errstate(invalid="ignore", divide="ignore"):
        p_star = p0 + (target - _take(r.expected_cost_usd, pivot)) / slope
    ok = np.isfinite(p_star) & (p_star >= 0) & (slope > 0) & (p_star <= MAX_PRICE_SCALE * p0)
    return FlipArrays(
        "api_output_price",
        "USD/Mtok",
        pivot,
        p0,
        np.where(ok, p_star, np.nan),
        is_chosen,
        np.where(ok, new, -1),
        searched=f"up to {MAX_PRICE_SCALE:,.0f}× today's",
    )


def node_price_flip(table: OptionTable, r: Route) -> FlipArrays:
    """$/node-hour of the pivot's node at which the route changes (lower envelope of lines in k).

    Every option on the node has ``J_o(k) = F_o + k·g_o·c_o`` for a multiplier k on the node's $/h; other
    options stay put. From the current k = 1 the route changes at the nearest crossing of the chosen
    option's line with another line in the driver's direction.
    """
    pivot, _, _ = _pivots(table, r)
    w, o = table.cost_usd.shape
    g, fail = _attempt_factor(table)
    j = r.expected_cost_usd
    node = np.where(pivot >= 0, table.node_index[np.maximum(pivot, 0)], -2)
    on_node = (table.node_index[None, :] == node[:, None]) & np.isfinite(j)
    a = np.where(on_node, fail, j)
    b = np.where(on_node, g * np.where(np.isfinite(table.cost_usd), table.cost_usd, 0.0), 0.0)
    chosen = np.maximum(r.chosen, 0)
    rows = np.arange(w)
    a_c, b_c = a[rows, chosen][:, None], b[rows, chosen][:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        k = (a - a_c) / (b_c - b)
    other = (np.arange(o)[None, :] != chosen[:, None]) & np.isfinite(a)
    is_chosen = (pivot >= 0) & (pivot == r.chosen)
    up = other & (b_c > b) & (k >= 1.0) & np.isfinite(k)
    down = other & (b_c < b) & (k <= 1.0) & (k >= 0.0) & np.isfinite(k)
    k_up = np.where(up, k, np.inf)
    k_down = np.where(down, k, -np.inf)
    new_up, new_down = np.argmin(k_up, axis=1), np.argmax(k_down, axis=1)
    k_star = np.where(is_chosen, k_up[rows, new_up], k_down[rows, new_down])
    new = np.where(is_chosen, new_up, new_down)
    ok = (pivot >= 0) & (r.chosen >= 0) & np.isfinite(k_star) & (k_star <= MAX_PRICE_SCALE)
    share = np.where(pivot >= 0, table.replica_share_of_node[np.maximum(pivot, 0)], np.nan)
    u = _take(table.utilization, pivot)
    fixed = table.replica_fixed_usd_per_hour[np.maximum(pivot, 0)]
    variable = table.replica_variable_usd_per_hour[np.maximum(pivot, 0)]
    node_now = hourly_cost_usd(fixed, variable, table.pool_utilization if table.pooled else u) / share
    return FlipArrays(
        "node_price",
        "USD/node-hour",
        pivot,
        node_now,
        np.where(ok, k_star * node_now, np.nan),
        is_chosen,
        np.where(ok, new, -1).astype(np.intp),
        searched=f"up to {MAX_PRICE_SCALE:,.0f}× today's",
    )


def utilization_flip(table: OptionTable, r: Route) -> FlipArrays:
    """Utilisation of the owned pivot at which the route changes [1] (break-even U*, quality included).

    Dedicated: ``c(U) = (C_fixed/U + C_var)/(3600·λ_max)`` per replica, affine in ``x = 1/U``; pooled: the
    pool's ``U_pool`` with ``c ∝ 1/U_pool``. ``J = g·c + F`` crosses the target at ``U* = 1/x*``, which
    must lie in (0, 1].
    """
    pivot, _, _ = _pivots(table, r)
    target, new, is_chosen = _target(r, pivot)
    g, fail = _attempt_factor(table)
    safe = np.maximum(pivot, 0)
    g_p, f_p, c_p = _take(g, pivot), _take(fail, pivot), _take(table.cost_usd, pivot)
    if table.pooled:
        u0 = np.full(pivot.shape, table.pool_utilization)
        alpha, beta = c_p * u0, np.zeros_like(c_p)
    else:
        u0 = _take(table.utilization, pivot)
        lam = _take(table.capacity_requests_per_s, pivot)
        alpha = table.replica_fixed_usd_per_hour[safe] / (SECONDS_PER_HOUR * lam)
        beta = table.replica_variable_usd_per_hour[safe] / (SECONDS_PER_HOUR * lam)
    with np.errstate(invalid="ignore", divide="ignore"):
        x = ((target - f_p) / g_p - beta) / alpha
        u_star = 1.0 / x
    ok = (pivot >= 0) & np.isfinite(u_star) & (x > 0) & (u_star <= 1.0) & np.isfinite(c_p)
    return FlipArrays(
        "utilization",
        "share of SLO capacity",
        pivot,
        u0,
        np.where(ok, u_star, np.nan),
        ~is_chosen,
        np.where(ok, new, -1),
    )


def quality_gap_flip(table: OptionTable, r: Route) -> FlipArrays:
    """Quality gap (best API minus the owned pivot) at which the route changes [1].

    ``J(q) = c·g(q, m) + (1 − q)^m·C_fail`` is non-increasing in q. With one attempt it is affine,
    ``c + (1 − q)·C_fail``, and the pivot's quality that meets the target is ``1 − (target − c)/C_fail``;
    with retries (m > 1) it is found by 60 bisection steps on [0, 1] for those workloads at once.
    """
    pivot, api, _ = _pivots(table, r)
    target, new, is_chosen = _target(r, pivot)
    has = (pivot >= 0) & (api >= 0)
    c = np.where(has, _take(table.cost_usd, pivot), np.nan)
    fail, m = table.failure_cost_usd, table.max_attempts
    q_ref = _take(table.quality, api)

    j_lo = expected_cost_per_task(c, np.zeros_like(c), fail, m)
    j_hi = expected_cost_per_task(c, np.ones_like(c), fail, m)
    # one attempt: J = c + (1 − q)·C_fail is affine in q, q* = 1 − (target − c)/C_fail
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        q_star = np.clip(1.0 - (target - c) / fail, 0.0, 1.0)  # [0, 1] like the bisection, whatever the rounding
    retried = np.flatnonzero(m > 1)
    if retried.size:  # retries: J = c·(1 − (1−q)^m)/q + (1−q)^m·C_fail, bisection on those rows only
        c_r, fail_r, m_r, target_r = c[retried], fail[retried], m[retried], target[retried]
        lo, hi = np.zeros_like(c_r), np.ones_like(c_r)
        for _ in range(BISECTION_STEPS):
            mid = 0.5 * (lo + hi)
            above_target = expected_cost_per_task(c_r, mid, fail_r, m_r) > target_r
            lo = np.where(above_target, mid, lo)
            hi = np.where(above_target, hi, mid)
        q_star[retried] = 0.5 * (lo + hi)
    ok = has & np.isfinite(c) & np.isfinite(target) & (j_lo > target) & (j_hi <= target)
    ok &= (table.failure_cost_usd > 0) | (table.max_attempts > 1)
    gap_now = q_ref - _take(table.quality, pivot)
    return FlipArrays(
        "quality_gap",
        "quality points (0–1)",
        pivot,
        gap_now,
        np.where(ok, q_ref - q_star, np.nan),
        is_chosen,
        np.where(ok, new, -1),
    )


def _owned_cost_at_scale(table: OptionTable, pivot: IntArray, scale: FloatArray) -> FloatArray:
    """Cost per request of the owned pivot if its SLO capacity per replica were ``scale`` times higher [USD].

    Priced as the option table prices it (:func:`economics.option_costs.owned_option_arrays`): replicas for the
    busiest hour, ``R = max(1, ceil(λ_peak/(u_target·s·λ_max)))``, paid all day; on an offer billed per hour
    used, each hour's replicas for that hour (:func:`economics.option_costs.paid_replicas_per_hour`); then
    ``c = R_paid·(C_fixed + C_var·U)/(3600·λ_avg)`` with ``U = λ_avg/(R_paid·s·λ_max)``
    (:func:`economics.costs.owned_cost_per_request`)."""
    safe = np.maximum(pivot, 0)
    fixed, variable = table.replica_fixed_usd_per_hour[safe], table.replica_variable_usd_per_hour[safe]
    lam_max = _take(table.capacity_requests_per_s, pivot) * scale
    if table.pooled:
        b0 = _take(table.achieved_batch, pivot)
        c0 = _take(table.cost_usd, pivot)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(c0 * np.minimum(1.0, b0 / scale) / np.minimum(1.0, b0), dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        replicas = np.maximum(1.0, np.ceil(table.peak_requests_per_s / (table.target_utilization * lam_max) - 1e-9))
        paid = replicas
        if table.billed_per_hour_used is not None and table.sizing_rates is not None:
            hourly = (pivot >= 0) & table.billed_per_hour_used[safe]
            cap = np.where(hourly & np.isfinite(lam_max), lam_max, 0.0)  # 0: the busiest hour's replicas
            paid = paid_replicas_per_hour(table.sizing_rates, cap, table.target_utilization, replicas)
        u = table.avg_requests_per_s / (paid * lam_max)
        return owned_cost_per_request(fixed, variable, paid, u, table.avg_requests_per_s)


def _bisect_capacity_scale(
    cheap_enough: Callable[[FloatArray], BoolArray], shape: tuple[int, ...], steps: int
) -> tuple[FloatArray, BoolArray, BoolArray]:
    """The smallest capacity scale s in [1/MAX_CAPACITY_SCALE, MAX_CAPACITY_SCALE] at which the monotone
    predicate ``cheap_enough(log s)`` holds, by ``steps`` halvings of ``log s`` for every workload at once;
    with the predicate at both ends (a boundary exists only where it fails at the low end and holds at the
    high one)."""
    lo = np.full(shape, -np.log(MAX_CAPACITY_SCALE))
    hi = np.full(shape, np.log(MAX_CAPACITY_SCALE))
    ok_lo, ok_hi = cheap_enough(lo), cheap_enough(hi)
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        good = cheap_enough(mid)
        hi = np.where(good, mid, hi)
        lo = np.where(good, lo, mid)
    return np.exp(hi), ok_lo, ok_hi


def throughput_flip(table: OptionTable, r: Route) -> FlipArrays:
    """SLO capacity per replica of the owned pivot at which the route changes [req/s] (bisection on log s).

    Dedicated cost (:func:`_owned_cost_at_scale`, the option table's: each hour's replicas on an offer billed
    per hour used) is a step function of the capacity (replicas are whole); it is non-increasing, so the
    predicate ``J(s) ≤ target`` is monotone in the scale s and 60 bisection steps on ``log s`` over
    [1/1000, 1000] find its boundary. Pooled mode scales the achieved batch as ``B*/s`` (low-load
    approximation).
    """
    pivot, _, _ = _pivots(table, r)
    target, new, is_chosen = _target(r, pivot)
    g, fail = _attempt_factor(table)
    g_p, f_p = _take(g, pivot), _take(fail, pivot)
    lam0 = _take(table.capacity_requests_per_s, pivot)
    usable = (pivot >= 0) & np.isfinite(lam0) & (lam0 > 0) & np.isfinite(_take(table.cost_usd, pivot))

    def cheap_enough(log_s: FloatArray) -> BoolArray:
        j = g_p * _owned_cost_at_scale(table, pivot, np.exp(log_s)) + f_p
        return np.asarray(j <= target, dtype=bool)

    s_star, ok_lo, ok_hi = _bisect_capacity_scale(cheap_enough, pivot.shape, BISECTION_STEPS)
    ok = usable & ~ok_lo & ok_hi & np.isfinite(target)
    return FlipArrays(
        "throughput",
        "req/s per replica",
        pivot,
        lam0,
        np.where(ok, s_star * lam0, np.nan),
        ~is_chosen,
        np.where(ok, new, -1),
    )


def all_flips(table: OptionTable, r: Route) -> tuple[FlipArrays, ...]:
    """Every driver's thresholds, in a fixed order."""
    return (
        api_output_price_flip(table, r),
        node_price_flip(table, r),
        utilization_flip(table, r),
        quality_gap_flip(table, r),
        throughput_flip(table, r),
    )


_WHAT = {
    "api_output_price": "the output price of {pivot} in use (after any negotiated discount)",
    "node_price": "the hourly cost of the node behind {pivot}",
    "utilization": "the utilization of {pivot}",
    "quality_gap": "the quality gap (share of acceptable answers) between the best API and {pivot}",
    "throughput": "the SLO capacity per replica of {pivot}",
}


def _fmt(value: float, unit: str, extra: int = 0) -> str:
    """``value`` in ``unit`` for a sentence, with ``extra`` more digits than usual."""
    if unit == "USD/Mtok":
        return f"${value:,.{4 + extra}g}/Mtok"
    if unit == "USD/node-hour":
        return f"${value:,.{2 + extra}f}/node-hour"
    if unit == "share of SLO capacity":
        return f"{100 * value:.{3 + extra}g}%"
    if unit == "quality points (0–1)":
        # a signed gap with a true minus sign; no sign on a gap of zero ("+0 points" read as a rounding slip)
        points = f"{100 * value:+.{3 + extra}g}"
        return f"{'0' if float(points) == 0 else points.replace('-', '−')} percentage points"
    return f"{value:.{3 + extra}g} {unit}"


def _fmt_pair(threshold: float, current: float, unit: str) -> tuple[str, str]:
    """The threshold and today's value with as many digits as it takes to tell them apart (up to 3 more): a route
    on the edge read "falls below 80% (now 80%)".

    >>> _fmt_pair(0.7996, 0.8, "share of SLO capacity")
    ('79.96%', '80%')
    >>> _fmt_pair(10.19, 10.2, "req/s per replica")
    ('10.19 req/s per replica', '10.2 req/s per replica')
    """
    for extra in range(4):
        a, b = _fmt(threshold, unit, extra), _fmt(current, unit, extra)
        if a != b:
            return a, b
    return a, b


def flip_rows(
    flips: tuple[FlipArrays, ...], option_ids: tuple[str, ...], option_names: tuple[str, ...]
) -> list[list[dict[str, Any]]]:
    """Every workload's thresholds as :class:`FlipThreshold` field dicts, one sentence each, for the drivers
    that apply (plain dicts so that a whole result validates in one call)."""
    n = len(flips[0].pivot) if flips else 0
    out: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    for f in flips:
        pivots, currents, thresholds = f.pivot.tolist(), f.current.tolist(), f.threshold.tolist()
        aboves, news = f.above.tolist(), f.new_option.tolist()
        for w in range(n):
            pivot, current = pivots[w], currents[w]
            if pivot < 0 or not math.isfinite(current):
                continue
            th, above, new = thresholds[w], aboves[w], news[w]
            what = (f.what or _WHAT[f.driver]).format(pivot=option_names[pivot])
            threshold: float | None = None
            new_id: str | None = None
            if new < 0 and not math.isnan(th):  # no runner-up: never index the option list with −1
                text = f"No other allowed option can take over, whatever {what} does (now {_fmt(current, f.unit)})."
            elif math.isnan(th):
                text = f"No value of {what} {f.searched} changes the route (now {_fmt(current, f.unit)})."
            else:
                way = "rises above" if above else "falls below"
                shown_th, shown_now = _fmt_pair(th, current, f.unit)
                if shown_th == shown_now:  # the threshold is today's value: any move that way flips the route
                    text = (
                        f"The route is on the edge: it moves to {option_names[new]} if {what} "
                        f"{'rises' if above else 'falls'} at all from today's {shown_now}."
                    )
                else:
                    edge = abs(th - current) <= 0.005 * abs(current)
                    text = (
                        f"The route moves to {option_names[new]} if {what} {way} {shown_th} "
                        f"(now {shown_now}{', close to the edge' if edge else ''})."
                    )
                threshold, new_id = th, option_ids[new]
            out[w].append(
                {
                    "driver": f.driver,
                    "unit": f.unit,
                    "current": current,
                    "threshold": threshold,
                    "direction": "above" if above else "below",
                    "new_option_id": new_id,
                    "text": text,
                }
            )
    return out


def flip_records(
    flips: tuple[FlipArrays, ...], option_ids: tuple[str, ...], option_names: tuple[str, ...]
) -> list[tuple[FlipThreshold, ...]]:
    """Every workload's thresholds as typed records (see :func:`flip_rows`)."""
    return [tuple(FlipThreshold(**row) for row in rows) for rows in flip_rows(flips, option_ids, option_names)]


def plan_throughput_flip(
    table: OptionTable, r: Route, pivot_j: Callable[[IntArray, FloatArray], FloatArray]
) -> FlipArrays:
    """SLO capacity per replica of the owned pivot at which the plan moves the workload [req/s].

    ``pivot_j(pivot, scale)`` is the workload's marginal J on its pivot with that option's capacity scaled
    by ``scale`` (``(W,)`` each), the rest of the plan fixed. More capacity never needs more replicas, so J
    is non-increasing in the scale and PLAN_BISECTION_STEPS (27) halvings of ``log s`` over [1/1000, 1000]
    find the boundary, for all workloads at once.
    """
    pivot, _, _ = _pivots(table, r)
    target, new, is_chosen = _target(r, pivot)
    lam0 = _take(table.capacity_requests_per_s, pivot)
    usable = (pivot >= 0) & np.isfinite(lam0) & (lam0 > 0) & np.isfinite(_take(table.cost_usd, pivot))
    safe = np.maximum(pivot, 0)

    def cheap_enough(log_s: FloatArray) -> BoolArray:
        return np.asarray(pivot_j(safe, np.exp(log_s)) <= target, dtype=bool)

    s_star, ok_lo, ok_hi = _bisect_capacity_scale(cheap_enough, pivot.shape, PLAN_BISECTION_STEPS)
    ok = usable & ~ok_lo & ok_hi & np.isfinite(target) & (new >= 0)
    return FlipArrays(
        "throughput",
        "req/s per replica",
        pivot,
        lam0,
        np.where(ok, s_star * lam0, np.nan),
        ~is_chosen,
        np.where(ok, new, -1),
    )


def plan_utilization_flip(
    table: OptionTable, r: Route, found: tuple[FloatArray, BoolArray, IntArray], low: float
) -> FlipArrays:
    """The target-utilization flip on the plan (:func:`economics.plan_utilization.utilization_flips` gives
    ``found``: threshold, above, new option). On the plan a workload's utilization is an outcome; the input
    is ``policy.target_utilization``, the share of SLO capacity replicas are sized to, and the flip is the
    value of it at which the plan moves the workload. Shown for workloads with an allowed owned option."""
    pivot, _, _ = _pivots(table, r)
    threshold, above, new = found
    ok = (pivot >= 0) & np.isfinite(threshold) & (new >= 0)
    return FlipArrays(
        "utilization",
        "share of SLO capacity",
        pivot,
        np.full(pivot.shape, table.target_utilization),
        np.where(ok, threshold, np.nan),
        above,
        np.where(ok, new, -1).astype(np.intp),
        what="the target utilization that replicas are sized to",
        searched=f"between {100 * low:.3g}% and 100%",
    )


def plan_flips(
    table: OptionTable,
    r: Route,
    pivot_j: Callable[[IntArray, FloatArray], FloatArray] | None = None,
    utilization: tuple[tuple[FloatArray, BoolArray, IntArray], float] | None = None,
) -> tuple[FlipArrays, ...]:
    """The drivers on the plan's marginal table (:func:`economics.evaluate.plan_route`), the rest of the plan
    held fixed: API output price and node price (the marginal owned cost scales with the node's $/h) in
    closed form, the target utilization (``utilization``: the scan's result and its lower end), the quality
    gap, and the throughput through ``pivot_j``. A workload's own utilization is not a driver in the plan:
    it is the outcome of everything routed to the node (the stand-alone break-even utilization stays on
    each decision as ``break_even_utilization``)."""
    flips = [api_output_price_flip(table, r), node_price_flip(table, r)]
    if utilization is not None:
        flips.append(plan_utilization_flip(table, r, *utilization))
    flips.append(quality_gap_flip(table, r))
    if pivot_j is not None:
        flips.append(plan_throughput_flip(table, r, pivot_j))
    return tuple(flips)
