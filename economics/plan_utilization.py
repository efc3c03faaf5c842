"""The target-utilization flip on the fleet plan (issue 10, item 6).

On the plan, a workload's utilization is an outcome (of everything routed to its replicas), so it cannot be
a driver of one workload. What the user sets is ``policy.target_utilization`` ``u``: the share of SLO
capacity every replica is sized to in its busiest hour. The flip is the value of ``u`` at which the plan,
the other workloads' routes held fixed (their replicas and nodes re-sized for ``u``), would move this
workload: its marginal cost on another option falls below its marginal cost on its route.

Why it is cheap and exact: every replica count the marginal cost uses is ``ceil(X/u)`` of a load ``X``
computed once at ``u = 1`` (loads are ``g/(u·λmax)`` per request, and the water level of a deferrable
workload's window is homogeneous in them). So the marginal costs at any ``u`` are a few array operations:
a scan of :data:`GRID` values of ``u`` in [:data:`U_MIN`, 1] for all workloads at once finds the nearest
change on each side of today's value, and :data:`BISECTION_STEPS` bisection steps on each workload's
bracket place it. A route that changes and changes back within one grid step (1 percentage point) is
not seen; the search range is stated in the flip's words.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from economics.plan import SECONDS_PER_MONTH, PlanProblem, PlanSolution
from economics.plan_accounts import fill_level, hourly_offer_extra_usd

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
BoolArray = NDArray[np.bool_]

U_MIN = 0.01
GRID = 100
#: 20 halvings of one grid step (0.01) place the threshold within 1e-8.
BISECTION_STEPS = 20


def _loads_at_one(p: PlanProblem, sol: PlanSolution) -> tuple[FloatArray, FloatArray]:
    """``M`` (W, O): replicas each owned option needs without the workload, and ``F`` (W, O): with it put
    back whole on the option (a deferrable workload filling its window), both at ``u = 1`` before rounding."""
    w_count, o_count, _, _ = p.shape
    busy = p.busy_seconds_per_request()  # the load per request at u = 1
    per_hour = np.einsum("wo,woh->oh", busy, sol.processed_rate)
    contrib = busy[:, :, None] * sol.processed_rate
    base = per_hour[None] - contrib  # (W, O, H)
    m = np.where(p.is_api[None, :], 0.0, np.max(base, axis=2, initial=0.0))
    f = np.zeros((w_count, o_count))
    for o in np.flatnonzero(~p.is_api):
        add = busy[:, o][:, None] * p.capacity_rate
        f[:, o] = np.max(base[:, o, :] + add, axis=1, initial=0.0)
        d = np.flatnonzero(p.deferrable & p.allowed[:, o])
        if d.size:
            volume = busy[d, o] * p.bill_rate[d].sum(axis=1)
            level = fill_level(base[d, o, :], p.window[d], volume)
            f[d, o] = np.where(volume > 0, np.maximum(level, 0.0), 0.0)
    return m, f


def marginal_by_utilization(
    p: PlanProblem, sol: PlanSolution, u: FloatArray, loads: tuple[FloatArray, FloatArray] | None = None
) -> FloatArray:
    """(G, W, O) each workload's marginal money plus failure cost in the plan on each option when the target
    utilization is ``u`` (shape (G, 1) or (G, W)), the rest of the plan's routes held fixed
    (:func:`economics.plan_accounts.marginal_usd_per_month` at that ``u``, all at once) [USD/month].
    ``loads`` is :func:`_loads_at_one`, when already computed."""
    _w_count, o_count, k_count, h_count = p.shape
    u3 = np.asarray(u, dtype=np.float64)[:, :, None]  # (G, W|1, 1)
    vol = p.bill_rate.sum(axis=1) * SECONDS_PER_MONTH / h_count
    own = np.where(p.allowed, p.per_request_usd() * vol[:, None], np.inf)  # (W, O), independent of u
    m, f = _loads_at_one(p, sol) if loads is None else loads
    r_without = np.where(p.is_api[None, None, :], 0.0, np.maximum(np.ceil(m[None] / u3 - 1e-7), 0.0))  # (G, W, O)
    owned = np.flatnonzero(~p.is_api)
    inc = np.zeros((o_count, k_count))
    inc[owned, p.option_node[owned]] = p.gpus_per_replica[owned]
    gpus_without = r_without @ inc  # (G, W, K)
    units_without = np.maximum(p.min_units, np.ceil(gpus_without / p.unit_gpus - 1e-9))
    out = np.broadcast_to(own, r_without.shape).copy()
    hourly = p.option_hourly()
    for o in owned:
        k = int(p.option_node[o])
        if hourly[o]:  # an offer billed per hour used: each hour's replicas and units at each u
            out[:, :, o] = _hourly_at_utilization(p, sol, int(o), np.broadcast_to(u3[:, :, 0], out.shape[:2]), own)
            continue
        r_follow = np.ceil(f[None, :, o] / u3[:, :, 0] - 1e-7)
        r_new = np.maximum(r_follow, r_without[:, :, o])
        gpus_new = gpus_without[:, :, k] + (r_new - r_without[:, :, o]) * p.gpus_per_replica[o]
        units_new = np.maximum(p.min_units[k], np.ceil(gpus_new / p.unit_gpus[k] - 1e-9))
        extra = (units_new - units_without[:, :, k]) * p.unit_usd_per_month[k]
        out[:, :, o] = np.where(p.allowed[None, :, o], own[None, :, o] + extra, np.inf)
    return out


def _hourly_at_utilization(p: PlanProblem, sol: PlanSolution, o: int, u: FloatArray, own: FloatArray) -> FloatArray:
    """(G, W) the marginal cost on option ``o`` of an hourly-billed offer at each target utilization ``u``
    (G, W) (:func:`economics.plan_accounts.hourly_offer_extra_usd` with the loads at ``u = 1`` divided by ``u``)."""
    busy = p.busy_seconds_per_request()
    per_hour = np.einsum("wo,woh->oh", busy, sol.processed_rate)
    contrib = busy[:, :, None] * sol.processed_rate
    rows = np.arange(p.shape[0])
    ones = np.ones(len(rows))
    out = np.empty(u.shape)
    for g in range(u.shape[0]):
        extra = hourly_offer_extra_usd(p, o, per_hour, contrib, rows, busy[:, o], rows, ones, p.allowed[:, o], u[g])
        out[g] = np.where(p.allowed[:, o], own[:, o] + extra, np.inf)
    return out


def _moved(marginal: FloatArray, main: IntArray) -> tuple[BoolArray, IntArray]:
    """(G, W) whether another option costs the plan less than the main route, and the cheapest other."""
    rows = np.arange(marginal.shape[1])
    safe = np.maximum(main, 0)
    on_route = marginal[:, rows, safe]  # (G, W)
    others = marginal.copy()
    others[:, rows, safe] = np.inf
    best = np.argmin(others, axis=2)
    low = np.take_along_axis(others, best[..., None], axis=2)[..., 0]
    with np.errstate(invalid="ignore"):  # an unserved workload's route costs inf
        cheaper = low < on_route - 1e-9 * np.maximum(1.0, np.abs(on_route))
    return (main[None, :] >= 0) & np.isfinite(low) & cheaper, best.astype(np.intp)


def utilization_flips(p: PlanProblem, sol: PlanSolution, main: IntArray) -> tuple[FloatArray, BoolArray, IntArray]:
    """(W,) the target utilization nearest today's at which the plan moves each workload (NaN: no change in
    [:data:`U_MIN`, 1]), whether that is above today's value, and the option that takes over (−1 if none)."""
    u0 = float(p.target_utilization)
    grid = np.unique(np.concatenate([np.linspace(U_MIN, 1.0, GRID), [u0]]))
    i0 = int(np.searchsorted(grid, u0))
    loads = _loads_at_one(p, sol)
    moved, _ = _moved(marginal_by_utilization(p, sol, grid[:, None], loads), main)  # (G, W)
    g_idx = np.arange(len(grid))[:, None]
    below = np.where(moved & (g_idx < i0), g_idx, -1).max(axis=0)
    above = np.where(moved & (g_idx > i0), g_idx, len(grid)).min(axis=0)
    has_below, has_above = below >= 0, above < len(grid)
    d_below = np.where(has_below, u0 - grid[np.maximum(below, 0)], np.inf)
    d_above = np.where(has_above, grid[np.minimum(above, len(grid) - 1)] - u0, np.inf)
    up = d_above < d_below
    found = has_below | has_above
    # bracket [same route, moved] on the side found, then bisection for all workloads at once
    changed_u = np.where(up, grid[np.minimum(above, len(grid) - 1)], grid[np.maximum(below, 0)])
    same_u = np.where(up, grid[np.maximum(above - 1, 0)], grid[np.minimum(below + 1, len(grid) - 1)])
    same_u, changed_u = np.where(found, same_u, u0), np.where(found, changed_u, u0)
    for _ in range(BISECTION_STEPS):
        mid = 0.5 * (same_u + changed_u)
        now, _ = _moved(marginal_by_utilization(p, sol, mid[None, :], loads), main)
        changed_u = np.where(now[0], mid, changed_u)
        same_u = np.where(now[0], same_u, mid)
    _, new = _moved(marginal_by_utilization(p, sol, changed_u[None, :], loads), main)
    threshold = np.where(found, changed_u, np.nan)
    return threshold, up & found, np.where(found, new[0], -1).astype(np.intp)
