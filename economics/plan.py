"""The fleet plan: every workload's route, the replicas and the nodes, decided together as one mixed-integer
program solved exactly by HiGHS through :func:`scipy.optimize.milp` (issue 10; docs/serving.md#serving-and-queues to
docs/routing.md#routing-rule).

Decision variables
    ``x[w,o]``    share of workload w on option o: binary, or continuous (and hour by hour) when the policy
                  lets a workload whose data may leave split between owned replicas and an API
    ``y[w,o,h]``  a deferrable workload's processing rate on owned option o in hour h of its window [req/s]
    ``r[o]``      replicas of owned option o, the same all day (integer); ``r[o,h]`` hour by hour on an offer
                  billed per hour used (on-demand, negotiated, spot: ``PlanProblem.hourly_units``)
    ``n[k]``      nodes (whole instances, or single GPUs where the provider rents GPUs) of node offer k
                  (integer; owned offers: at least the nodes bought in the cash lens); ``n[k,h]`` hour by hour
                  on an offer billed per hour used, each paid ``C_k/H`` (a commitment, a reservation or a bought
                  node is paid every hour whether used or not)

Constraints
    every served workload is fully assigned (each hour when split);
    capacity in every hour h and owned option o: ``Σ_w x·λ_w,h·g_w,o/(u_target·λmax_w,o) ≤ r[o]``
    (``y`` in place of ``x·λ`` for deferrable work; g the mean attempts with retries);
    a deferrable workload's day's volume is processed inside its window: ``Σ_h y = x·Σ_h λ_w,h``;
    GPUs of a node offer are shared: ``Σ_o r[o]·N_o ≤ n[k]·unit_k`` (each hour on an hourly-billed offer);
    data rules, SLOs and the quality floor enter as which ``(w, o)`` pairs exist at all.

Objective [USD/month]: APIs' bills (retries included), owned replicas' power above idle (a serverless replica's
billed seconds: busy, warm idle and cold starts, :mod:`economics.finance.serverless`), the cost per
month of every node unit (capital recovery plus fixed costs for owned nodes, the rent for rented ones) and
the expected failure cost ``(1 − q)^m·C_fail`` per task. Bought nodes enter as a lower bound on ``n`` in
the cash lens (their cost is then a constant, removed from the reported money) and as ordinary nodes in
the full lens. APIs have no capacity, so only each workload's cheapest API (by the objective) is kept:
that pruning is exact.

The solver runs with a time limit; at the limit it returns its best plan with the MIP gap and a warning.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing as mp
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import Bounds, LinearConstraint, milp  # type: ignore[import-untyped]
from scipy.sparse import coo_array  # type: ignore[import-untyped]

from economics.units import HOURS_PER_MONTH, SECONDS_PER_HOUR

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
BoolArray = NDArray[np.bool_]

SECONDS_PER_MONTH = HOURS_PER_MONTH * SECONDS_PER_HOUR
#: HiGHS's default relative gap, measured on the objective above each workload's cheapest route (see
#: _constraints): "optimal" means within 0.01% of what the plan can still change; the gap is reported.
MIP_REL_GAP = 1e-4
_EPS = 1e-9
MAX_UNITS = 1_000_000
#: Above this many integer variables the solve runs in a forked process with a hard time limit.
GUARD_INTEGERS = 1500
#: The guarded solve is stopped at GUARD_GRACE × the time limit + 1 s.
GUARD_GRACE = 1.5
NO_PLAN = "no plan found"
#: Status of a plan rounded from the LP relaxation when the MIP gave none in time (its gap is proven).
ROUNDED = "time limit: the rounded LP relaxation"


@dataclass(frozen=True)
class PlanProblem:
    """Everything the fleet MIP needs, as arrays. W workloads, O options, K node offers, H periods.

    Money and failure cost are per request; rates per second; node costs per unit and month.
    """

    allowed: BoolArray  # (W, O) the pair may serve: data rule, SLO, quality floor, fits [-]
    is_api: BoolArray  # (O,)
    api_cost_usd: FloatArray  # (W, O) price of one attempt on an API; 0 for owned [USD]
    attempts: FloatArray  # (W, O) mean attempts g(q, m) [count]
    failure_usd: FloatArray  # (W, O) expected failure cost per task (1 − q)^m·C_fail [USD]
    capacity_requests_per_s: FloatArray  # (W, O) SLO capacity of one replica λmax; 0/inf for APIs [req/s]
    option_node: IntArray  # (O,) node offer of an owned option, −1 for an API
    gpus_per_replica: FloatArray  # (O,) [count]
    replica_variable_usd_per_hour: FloatArray  # (O,) power above idle of one replica at full load [USD/h]
    unit_gpus: FloatArray  # (K,) GPUs per unit: a node or instance, or 1 where single GPUs are rented
    unit_usd_per_month: FloatArray  # (K,) cost of one unit per month in the plan [USD/month]
    min_units: FloatArray  # (K,) lower bound on units (bought nodes in the cash lens, committed rentals) [count]
    capacity_rate: FloatArray  # (W, H) [req/s]
    bill_rate: FloatArray  # (W, H) [req/s]
    deferrable: BoolArray  # (W,)
    window: BoolArray  # (W, H)
    split: BoolArray  # (W,) may split between options, hour by hour [-]
    target_utilization: float  # u_target [1]
    time_limit_s: float  # [s]
    #: (W, O) what a serverless option bills per request beyond its busy time: warm idle, cold starts, billing
    #: increments (economics.finance.serverless); None = no serverless option [USD]
    serverless_usd: FloatArray | None = None
    #: (K,) the offer is billed per hour used (on-demand, negotiated, spot): its units follow the day hour by
    #: hour; None = every offer is paid all day [-]
    hourly_units: BoolArray | None = None

    @property
    def hourly(self) -> BoolArray:
        """(K,) offers billed per hour used (all False when ``hourly_units`` is None) [-]."""
        k = len(self.unit_gpus)
        return np.zeros(k, dtype=bool) if self.hourly_units is None else np.asarray(self.hourly_units, dtype=bool)

    def option_hourly(self) -> BoolArray:
        """(O,) owned options on an offer billed per hour used [-] (computed once: the marginal costs ask often)."""
        cached = self.__dict__.get("_option_hourly")
        if cached is None:
            hourly = np.append(self.hourly, False)  # an API's node index −1 reads the False appended
            cached = np.asarray(~self.is_api & hourly[self.option_node], dtype=bool)
            cached.flags.writeable = False
            object.__setattr__(self, "_option_hourly", cached)
        return cast(BoolArray, cached)

    @property
    def shape(self) -> tuple[int, int, int, int]:
        w, o = self.allowed.shape
        return w, o, len(self.unit_gpus), self.capacity_rate.shape[1]

    def _once(self, name: str, compute: Callable[[], FloatArray]) -> FloatArray:
        """``compute()`` on the first call, the same read-only array after: the problem is frozen, and the flips
        and the Monte Carlo read these coefficients hundreds of times per evaluation."""
        cached = self.__dict__.get(name)
        if cached is None:
            cached = np.asarray(compute(), dtype=np.float64)
            cached.flags.writeable = False
            object.__setattr__(self, name, cached)
        return cast(FloatArray, cached)

    def per_request_usd(self) -> FloatArray:
        """(W, O) money plus expected failure cost of one task on each option, power above idle included
        (the objective's coefficient per request of volume) [USD]."""

        def compute() -> FloatArray:
            busy_s = self.busy_seconds_per_request()
            power = busy_s * self.replica_variable_usd_per_hour[None, :] / SECONDS_PER_HOUR
            if self.serverless_usd is not None:
                power = power + self.serverless_usd
            return np.asarray(self.api_cost_usd * self.attempts + power + self.failure_usd, dtype=np.float64)

        return self._once("_per_request_usd", compute)

    def busy_seconds_per_request(self) -> FloatArray:
        """(W, O) replica-seconds one task keeps a replica busy, ``g/λmax``; 0 for APIs and pairs that
        cannot run [s]."""

        def compute() -> FloatArray:
            cap = self.capacity_requests_per_s
            ok = ~self.is_api[None, :] & np.isfinite(cap) & (cap > 0)
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.asarray(np.where(ok, self.attempts / np.where(ok, cap, 1.0), 0.0), dtype=np.float64)

        return self._once("_busy_seconds_per_request", compute)

    def load_per_request(self) -> FloatArray:
        """(W, O) replicas one request per second occupies at the target utilisation, ``g/(u·λmax)`` [s]."""
        return self._once("_load_per_request", lambda: self.busy_seconds_per_request() / self.target_utilization)


@dataclass(frozen=True)
class PlanSolution:
    """The solved plan. Shares are per period; counts are whole."""

    share: FloatArray  # (W, O, H) share of each workload's period volume on each option [1]
    processed_rate: FloatArray  # (W, O, H) rate processed on each option in each period [req/s]
    replicas: FloatArray  # (O,) replicas of each owned option, 0 for APIs [count]
    units: FloatArray  # (K,) units of each node offer the plan runs [count]
    served: BoolArray  # (W,) the workload has at least one allowed option [-]
    status: str  # "optimal", "time limit: best plan found", "no plan found: …"
    mip_gap: float  # relative gap between the plan and the best bound [1]; 0 when optimal
    objective_usd_per_month: float  # solver objective, bought nodes' cost included in the cash lens [USD/month]
    solve_time_s: float  # [s]
    #: a proven lower bound on the objective (the LP relaxation's), when the plan came from rounding it [USD/month]
    bound_usd_per_month: float = -math.inf
    #: the money no route avoids (each workload's cheapest route), the origin of the relative gap [USD/month]
    floor_usd_per_month: float = 0.0

    @property
    def optimal(self) -> bool:
        return self.status == "optimal"

    def gap_of(self, objective_usd_per_month: float) -> float:
        """Relative gap of a plan with this objective to the proven bound, on what the plan can still change
        (the objective above :attr:`floor_usd_per_month`, like HiGHS's MIP gap); ``inf`` without a bound [1]."""
        if not math.isfinite(self.bound_usd_per_month):
            return math.inf
        room = max(objective_usd_per_month - self.floor_usd_per_month, _EPS)
        return max(0.0, objective_usd_per_month - self.bound_usd_per_month) / room


def candidate_pairs(problem: PlanProblem) -> BoolArray:
    """(W, O) pairs the MIP keeps: the cheapest allowed API per workload, and each allowed owned pair that
    costs less per request than that API.

    Both prunings are exact. APIs have no capacity, so a workload never gains from a dearer API. An owned
    pair whose money plus failure cost per request (power above idle included) is at least its best API's
    is dominated: moving any share of it to the API costs no more per request and frees capacity, so some
    optimal plan never uses it. On large portfolios this removes most pairs before the solver sees them."""
    cost = np.where(problem.allowed, problem.per_request_usd(), np.inf)
    api_cost = np.where(problem.is_api[None, :], cost, np.inf)
    best_api = np.argmin(api_cost, axis=1)
    rows = np.arange(cost.shape[0])
    api_best = api_cost[rows, best_api]
    keep = problem.allowed & ~problem.is_api[None, :] & (cost < api_best[:, None])
    has_api = np.isfinite(api_best)
    keep[rows[has_api], best_api[has_api]] = True
    return np.asarray(keep, dtype=bool)


@dataclass(frozen=True)
class _Layout:
    """Where each variable sits in the MIP's vector."""

    pw: IntArray  # (P,) workload of each pair
    po: IntArray  # (P,) option of each pair
    hourly: BoolArray  # (P,) the pair's share has one variable per period
    x_start: IntArray  # (P,) first share variable of the pair
    y_pair: IntArray  # (Y,) pair of each processing variable
    y_hour: IntArray  # (Y,) period of each processing variable
    y_start: int
    r_start: int
    owned: IntArray  # owned options with a variable r, in order
    r_col: IntArray  # (len(owned), H) column of each owned option's replicas in each period
    n_start: int
    n_col: IntArray  # (K, H) column of each offer's units in each period
    n_total: int


def _layout(p: PlanProblem, keep: BoolArray) -> _Layout:
    _, _, _k, h = p.shape
    pw, po = np.nonzero(keep)
    pw, po = pw.astype(np.intp), po.astype(np.intp)
    hourly = p.split[pw] & ~p.deferrable[pw] & (h > 1)
    sizes = np.where(hourly, h, 1)
    x_start = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.intp) if len(sizes) else np.zeros(0, np.intp)
    n_x = int(sizes.sum())
    deferred = np.flatnonzero(p.deferrable[pw] & ~p.is_api[po])
    win = p.window[pw[deferred]]
    y_pair = np.repeat(deferred, win.sum(axis=1)).astype(np.intp)
    y_hour = np.nonzero(win)[1].astype(np.intp)
    owned = np.unique(po[~p.is_api[po]]).astype(np.intp)
    y_start = n_x
    r_start = y_start + len(y_pair)
    r_col, n_r = _columns(r_start, p.option_hourly()[owned], h)
    n_start = r_start + n_r
    n_col, n_n = _columns(n_start, p.hourly, h)
    return _Layout(
        pw, po, hourly, x_start, y_pair, y_hour, y_start, r_start, owned, r_col, n_start, n_col, n_start + n_n
    )


def _columns(start: int, per_hour: BoolArray, h: int) -> tuple[IntArray, int]:
    """(N, H) the column of each of N integer variables in each period (one column all day, or one per period
    where ``per_hour``), and how many columns they take."""
    sizes = np.where(per_hour, h, 1)
    first = start + np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.intp) if len(sizes) else sizes
    cols = first[:, None] + np.where(per_hour[:, None], np.arange(h)[None, :], 0)
    return np.asarray(cols, dtype=np.intp).reshape(len(sizes), h), int(sizes.sum())


def _constraints(p: PlanProblem, lay: _Layout) -> tuple[list[LinearConstraint], FloatArray, float]:
    """The MIP's rows (assignment, capacity, deferred volume, GPUs), the objective vector, and the constant it
    was shifted by (the money of each workload's cheapest route, see below) [USD/month]."""
    w_count, o_count, k_count, h_count = p.shape
    pw, po = lay.pw, lay.po
    per_req = p.per_request_usd()[pw, po]  # (P,)
    load = p.load_per_request()[pw, po]  # (P,)
    c = np.zeros(lay.n_total)
    hours = np.arange(h_count)
    # objective on shares: volume-weighted money per period
    vol = p.bill_rate[pw] * SECONDS_PER_MONTH / h_count  # (P, H) requests per month in each period
    hourly_idx = np.flatnonzero(lay.hourly)
    single_idx = np.flatnonzero(~lay.hourly)
    c[lay.x_start[single_idx]] = per_req[single_idx] * vol[single_idx].sum(axis=1)
    if hourly_idx.size:
        cols = lay.x_start[hourly_idx][:, None] + hours[None, :]
        c[cols] = per_req[hourly_idx][:, None] * vol[hourly_idx]
    # a unit paid all day costs C_k in its one column; an hourly-billed unit costs C_k/H in each period's column
    np.add.at(c, lay.n_col.ravel(), np.repeat(p.unit_usd_per_month / h_count, h_count))
    # Each workload's shares sum to 1 (per period when hourly), so subtracting its cheapest coefficient from
    # all of them shifts the objective by a constant: the solver's gap is then measured on what the plan can
    # still change, not on failure costs no route avoids.
    x_cols = np.arange(lay.y_start)
    owner = np.repeat(np.arange(len(pw)), np.where(lay.hourly, h_count, 1))
    period = np.concatenate([np.arange(h_count) if hr else [0] for hr in lay.hourly]) if len(pw) else x_cols
    key = pw[owner] * h_count + period
    low = np.full(w_count * h_count, np.inf)
    np.minimum.at(low, key, c[x_cols])
    c[x_cols] -= low[key]
    shift = float(low[np.isfinite(low)].sum())
    rows: list[LinearConstraint] = []
    # 1) assignment: each served workload's shares sum to 1 (each period when hourly)
    a_r, a_c = [], []
    served = np.unique(pw)
    row_of = np.full(w_count, -1, dtype=np.intp)
    row_of[served] = np.arange(len(served))
    n_rows = len(served)
    # hourly workloads get one row per period, appended after the single rows
    hourly_w = np.unique(pw[lay.hourly])
    hourly_row = np.full(w_count, -1, dtype=np.intp)
    hourly_row[hourly_w] = n_rows + np.arange(len(hourly_w)) * h_count
    for idx in (single_idx,):
        a_r.append(row_of[pw[idx]])
        a_c.append(lay.x_start[idx])
    if hourly_idx.size:
        a_r.append((hourly_row[pw[hourly_idx]][:, None] + hours[None, :]).ravel())
        a_c.append((lay.x_start[hourly_idx][:, None] + hours[None, :]).ravel())
        # a split workload has no single row: drop those (all its pairs are hourly)
    total_rows = n_rows + len(hourly_w) * h_count
    ar, ac = np.concatenate(a_r), np.concatenate(a_c)
    a = coo_array((np.ones(len(ar)), (ar, ac)), shape=(total_rows, lay.n_total)).tocsr()
    used = np.unique(ar)
    a = a[used]
    rows.append(LinearConstraint(a, 1.0, 1.0))
    # 2) capacity per (owned option, period): Σ load·λ·share − r ≤ 0
    opt_row = np.full(o_count, -1, dtype=np.intp)
    opt_row[lay.owned] = np.arange(len(lay.owned))
    owned_pairs = np.flatnonzero(~p.is_api[po] & ~p.deferrable[pw])
    cr, cc, cv = [], [], []
    if owned_pairs.size:
        r_idx = opt_row[po[owned_pairs]][:, None] * h_count + hours[None, :]
        col = lay.x_start[owned_pairs][:, None] + np.where(lay.hourly[owned_pairs][:, None], hours[None, :], 0)
        val = load[owned_pairs][:, None] * p.capacity_rate[pw[owned_pairs]]
        cr.append(r_idx.ravel())
        cc.append(col.ravel())
        cv.append(val.ravel())
    if lay.y_pair.size:
        cr.append(opt_row[po[lay.y_pair]] * h_count + lay.y_hour)
        cc.append(lay.y_start + np.arange(len(lay.y_pair)))
        cv.append(load[lay.y_pair])
    if len(lay.owned):
        cr.append(np.repeat(np.arange(len(lay.owned)) * h_count, h_count) + np.tile(hours, len(lay.owned)))
        cc.append(lay.r_col.ravel())
        cv.append(np.full(len(lay.owned) * h_count, -1.0))
        m = coo_array(
            (np.concatenate(cv), (np.concatenate(cr), np.concatenate(cc))),
            shape=(len(lay.owned) * h_count, lay.n_total),
        ).tocsr()
        rows.append(LinearConstraint(m, -np.inf, 0.0))
    # 3) deferred volume: Σ_h y − x·Σ_h λ = 0 per deferrable owned pair
    deferred = np.unique(lay.y_pair)
    if deferred.size:
        d_row = np.full(len(po), -1, dtype=np.intp)
        d_row[deferred] = np.arange(len(deferred))
        dr = np.concatenate([d_row[lay.y_pair], d_row[deferred]])
        dc = np.concatenate([lay.y_start + np.arange(len(lay.y_pair)), lay.x_start[deferred]])
        dv = np.concatenate([np.ones(len(lay.y_pair)), -p.bill_rate[pw[deferred]].sum(axis=1)])
        m = coo_array((dv, (dr, dc)), shape=(len(deferred), lay.n_total)).tocsr()
        rows.append(LinearConstraint(m, 0.0, 0.0))
    # 4) GPUs per node offer (per period on an hourly-billed offer): Σ_o r·N − n·unit ≤ 0
    if len(lay.owned) and k_count:
        node = p.option_node[lay.owned]
        per_h = p.hourly[:, None] | (hours[None, :] == 0)  # (K, H) the offer's rows: period 0 only, or every period
        o_idx, o_h = np.nonzero(per_h[node])
        k_idx, k_h = np.nonzero(per_h)
        gr = np.concatenate([node[o_idx] * h_count + o_h, k_idx * h_count + k_h])
        gc = np.concatenate([lay.r_col[o_idx, o_h], lay.n_col[k_idx, k_h]])
        gv = np.concatenate([p.gpus_per_replica[lay.owned][o_idx], -p.unit_gpus[k_idx]])
        m = coo_array((gv, (gr, gc)), shape=(k_count * h_count, lay.n_total)).tocsr()
        rows.append(LinearConstraint(m[np.unique(gr)], -np.inf, 0.0))
    # 5) an owned option that carries any share runs at least one replica: Σ x − (number of x)·r ≤ 0. Implied
    # by the capacity rows, but a trickle's load (1e-7 replicas) is inside HiGHS's feasibility tolerance there.
    x_opt = np.repeat(po, np.where(lay.hourly, h_count, 1))
    owned_x = np.flatnonzero(~p.is_api[x_opt])
    if owned_x.size and len(lay.owned):
        n_x = np.bincount(opt_row[x_opt[owned_x]], minlength=len(lay.owned)).astype(np.float64)
        # on an hourly-billed offer: at least one replica-hour, Σ x − (number of x)·Σ_h r[o,h] ≤ 0
        ro, rh = np.nonzero(p.option_hourly()[lay.owned][:, None] | (hours[None, :] == 0))
        er = np.concatenate([opt_row[x_opt[owned_x]], ro])
        ec = np.concatenate([owned_x, lay.r_col[ro, rh]])
        ev = np.concatenate([np.ones(owned_x.size), -n_x[ro]])
        m = coo_array((ev, (er, ec)), shape=(len(lay.owned), lay.n_total)).tocsr()
        rows.append(LinearConstraint(m, -np.inf, 0.0))
    return rows, c, shift


def counts(p: PlanProblem, share: FloatArray, processed: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The fewest replicas and units that carry a given assignment: ``r = ceil(max_h load)`` (the busiest
    hour's replicas) and the units paid, ``n = max(min, ceil(Σ r·N / unit))``; on an offer billed per hour
    used, the day's mean of the units each hour needs (what it is paid for) [count]."""
    replicas_h, units_h = hourly_counts(p, processed)
    return np.asarray(replicas_h.max(axis=1, initial=0.0), dtype=np.float64), np.asarray(
        units_h.mean(axis=1), dtype=np.float64
    )


def hourly_counts(p: PlanProblem, processed: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(O, H) replicas and (K, H) units in each period that carry the processed rates: all day at the busiest
    hour's count, except options and offers billed per hour used, which follow each hour's load [count]."""
    load = p.load_per_request()  # (W, O)
    per_hour = np.einsum("wo,woh->oh", load, processed)  # (O, H) replicas needed
    need = np.maximum(np.ceil(per_hour - 1e-7), 0.0)
    peak = need.max(axis=1, initial=0.0)[:, None]
    replicas = np.where(p.is_api[:, None], 0.0, np.where(p.option_hourly()[:, None], need, peak))
    k, h = len(p.unit_gpus), processed.shape[2]
    gpus = np.zeros((k, h))
    owned = np.flatnonzero(~p.is_api)
    np.add.at(gpus, p.option_node[owned], replicas[owned] * p.gpus_per_replica[owned][:, None])
    units = np.maximum(p.min_units[:, None], np.ceil(gpus / p.unit_gpus[:, None] - 1e-9))
    return np.asarray(replicas, dtype=np.float64), np.asarray(units, dtype=np.float64)


def _rates(p: PlanProblem, share: FloatArray) -> FloatArray:
    """(W, O, H) rate processed per option and period when a workload follows its demand."""
    return np.asarray(share * p.capacity_rate[:, None, :], dtype=np.float64)


def _from_vector(p: PlanProblem, lay: _Layout, v: FloatArray) -> tuple[FloatArray, FloatArray]:
    w_count, o_count, _, h_count = p.shape
    share = np.zeros((w_count, o_count, h_count))
    hours = np.arange(h_count)
    single = np.flatnonzero(~lay.hourly)
    share[lay.pw[single], lay.po[single], :] = v[lay.x_start[single]][:, None]
    hourly = np.flatnonzero(lay.hourly)
    if hourly.size:
        share[lay.pw[hourly][:, None], lay.po[hourly][:, None], hours[None, :]] = v[
            lay.x_start[hourly][:, None] + hours[None, :]
        ]
    binary = ~p.split[lay.pw]
    if binary.any():  # binaries come back within the solver's tolerance of 0 or 1
        bw, bo = lay.pw[binary], lay.po[binary]
        share[bw, bo, :] = np.round(share[bw, bo, :])
    share = np.where(share < 1e-9, 0.0, np.minimum(share, 1.0))
    processed = _rates(p, share)
    deferred = p.deferrable
    processed[deferred] = 0.0
    if lay.y_pair.size:
        y = np.maximum(v[lay.y_start : lay.r_start], 0.0)
        np.add.at(processed, (lay.pw[lay.y_pair], lay.po[lay.y_pair], lay.y_hour), y)
    # deferrable work on an API follows its bill rate (the API has no capacity to respect)
    api_def = deferred[:, None] & p.is_api[None, :]
    processed = np.where(api_def[:, :, None], share * p.bill_rate[:, None, :], processed)
    return share, processed


def _fallback(p: PlanProblem, keep: BoolArray) -> tuple[FloatArray, FloatArray]:
    """Each workload on its cheapest pair per request (stand-alone), when the solver returns nothing."""
    w_count, o_count, _, h_count = p.shape
    cost = np.where(keep, p.per_request_usd() + p.load_per_request() * 1e-3, np.inf)
    best = np.argmin(cost, axis=1)
    share = np.zeros((w_count, o_count, h_count))
    ok = np.isfinite(cost[np.arange(w_count), best])
    share[np.flatnonzero(ok), best[ok], :] = 1.0
    processed = _rates(p, share)
    d = p.deferrable
    processed[d] = share[d] * p.bill_rate[d][:, None, :]
    return share, processed


def money_usd_per_month(p: PlanProblem, share: FloatArray, units: FloatArray) -> float:
    """The objective of an assignment with its counts: per-request money and failure cost plus units [USD/month]."""
    h = share.shape[2]
    vol = p.bill_rate * SECONDS_PER_MONTH / h  # (W, H)
    per_req = np.where(p.allowed, p.per_request_usd(), 0.0)
    return float(np.einsum("wo,woh,wh->", per_req, share, vol) + np.dot(units, p.unit_usd_per_month))


@dataclass(frozen=True)
class _Milp:
    """What the solve returns (picklable, so that a guarded solve can send it back)."""

    x: FloatArray | None
    status: int
    message: str
    mip_gap: float | None


_QUIET_LOCK = threading.Lock()
_quiet: list[int] = []  # [saved descriptor 1, solves under way] while a solve has standard output silenced


@contextlib.contextmanager
def _solver_output_silenced() -> Iterator[None]:
    """Standard output (file descriptor 1) on /dev/null while HiGHS solves.

    HiGHS prints some lines of its own even with ``disp`` off. On large fleets a sub-MIP heuristic prints
    ``HighsMipSolverData::transformNewIntegerFeasibleSolution tmpSolver.run();``, and that line landed in the
    middle of the CLI's JSON on standard output. Solves run in several threads of one app server. The first
    solve saves the descriptor, and the last one to finish puts it back."""
    with _QUIET_LOCK:
        if not _quiet:
            if sys.stdout is not None:
                sys.stdout.flush()
            try:
                saved = os.dup(1)
            except OSError:  # no standard output at all: nothing to silence
                saved = -1
            if saved >= 0:
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                os.close(null)
            _quiet.extend([saved, 0])
        _quiet[1] += 1
    try:
        yield
    finally:
        with _QUIET_LOCK:
            _quiet[1] -= 1
            if _quiet[1] == 0:
                saved = _quiet[0]
                if saved >= 0:
                    os.dup2(saved, 1)
                    os.close(saved)
                _quiet.clear()


def _fresh_quiet_lock() -> None:
    """A forked child gets a lock of its own: the parent's may have been held by another thread at the fork."""
    global _QUIET_LOCK
    _QUIET_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):  # POSIX only; elsewhere no solve is forked
    os.register_at_fork(after_in_child=_fresh_quiet_lock)


def _milp(
    c: FloatArray, constraints: list[LinearConstraint], integrality: NDArray[np.uint8], bounds: Bounds, limit: float
) -> _Milp:
    with _solver_output_silenced():
        res = milp(
            c,
            constraints=constraints,
            integrality=integrality,
            bounds=bounds,
            options={"time_limit": limit, "mip_rel_gap": MIP_REL_GAP, "disp": False},
        )
    return _Milp(res.x, int(res.status), str(res.message), getattr(res, "mip_gap", None))


def _milp_child(conn: Connection, *args: Any) -> None:
    try:
        conn.send(_milp(*args))
    finally:
        conn.close()


def _milp_guarded(*args: Any) -> _Milp | None:
    """:func:`_milp` in a forked process, stopped when it overruns its time limit by more than half.

    HiGHS checks its time limit between phases; on large fleets some of its heuristics (sub-MIPs at the
    root) run far past it. The guard makes the limit hard: None when the solver did not answer in time."""
    limit = float(args[-1])
    ctx = mp.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_milp_child, args=(send, *args), daemon=True)
    proc.start()
    send.close()
    try:
        if receive.poll(GUARD_GRACE * limit + 1.0):
            return cast(_Milp, receive.recv())
        return None
    except EOFError:
        return None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        receive.close()


@dataclass(frozen=True)
class _Model:
    """The MIP as handed to HiGHS, with what is needed to read its answer."""

    keep: BoolArray
    lay: _Layout
    args: tuple[Any, ...]  # c, constraints, integrality, bounds, time limit
    shift: float  # [USD/month]
    guarded: bool


def _model(p: PlanProblem) -> _Model | None:
    """Build the MIP; None when no workload has a candidate pair."""
    keep = candidate_pairs(p)
    if not keep.any():
        return None
    lay = _layout(p, keep)
    constraints, c, shift = _constraints(p, lay)
    integrality = np.zeros(lay.n_total, dtype=np.uint8)
    lo = np.zeros(lay.n_total)
    hi = np.full(lay.n_total, np.inf)
    single = np.flatnonzero(~lay.hourly)
    binary = single[~p.split[lay.pw[single]]]
    integrality[lay.x_start[binary]] = 1
    x_end = lay.y_start
    hi[:x_end] = 1.0
    integrality[lay.r_start : lay.n_total] = 1
    n_cols, first = np.unique(lay.n_col, return_index=True)
    k_of = first // lay.n_col.shape[1]  # the offer of each units column
    lo[n_cols] = p.min_units[k_of]
    hi[n_cols] = np.maximum(p.min_units[k_of], MAX_UNITS)
    args = (c, constraints, integrality, Bounds(lo, hi), float(p.time_limit_s))
    guarded = int(integrality.sum()) > GUARD_INTEGERS and "fork" in mp.get_all_start_methods()
    return _Model(keep, lay, args, shift, guarded)


def large(p: PlanProblem) -> bool:
    """The MIP has more binaries than HiGHS reliably proves within its time limit (its solve is then
    guarded, and :func:`economics.plan_accounts.solve_fleet` tries the rounded relaxation first)."""
    return int((candidate_pairs(p) & ~p.split[:, None]).sum()) > GUARD_INTEGERS


def _rounded_relaxation(p: PlanProblem, m: _Model) -> tuple[FloatArray, FloatArray, float] | None:
    """Solve the MIP's LP relaxation (HiGHS's simplex honours its time limit), put each workload whole on
    its largest share (split workloads keep their hourly shares), and return the shares, the processed
    rates and the relaxation's objective, a proven lower bound on the shifted objective; None when the
    relaxation has no answer either."""
    c, constraints, integrality, bounds, limit = m.args
    relaxed = (c, constraints, np.zeros_like(integrality), bounds, limit)
    res = _milp_guarded(*relaxed) if m.guarded else _milp(*relaxed)
    if res is None or res.x is None or res.status != 0:
        return None
    share, _ = _from_vector(p, m.lay, np.asarray(res.x, dtype=np.float64))
    binary = ~p.split
    main = np.argmax(np.where(m.keep, share.sum(axis=2), -1.0), axis=1)
    rows = np.flatnonzero(binary & m.keep.any(axis=1))
    share[binary] = 0.0
    share[rows, main[rows], :] = 1.0
    processed = _rates(p, share)
    d = p.deferrable
    processed[d] = share[d] * p.bill_rate[d][:, None, :]
    return share, processed, float(np.dot(c, res.x))


def _empty(p: PlanProblem, start: float) -> PlanSolution:
    w_count, o_count, _k_count, h_count = p.shape
    share = np.zeros((w_count, o_count, h_count))
    replicas, units = counts(p, share, share)
    served = np.zeros(w_count, dtype=bool)
    return PlanSolution(share, share, replicas, units, served, "optimal", 0.0,
                        money_usd_per_month(p, share, units), time.perf_counter() - start)  # fmt: skip


def _rounded_solution(p: PlanProblem, m: _Model, why: str, start: float) -> PlanSolution | None:
    relaxed = _rounded_relaxation(p, m)
    if relaxed is None:
        return None
    share, processed, lp = relaxed
    replicas, units = counts(p, share, processed)
    objective = money_usd_per_month(p, share, units)
    served = np.asarray(m.keep.any(axis=1), dtype=bool)
    out = PlanSolution(share, processed, replicas, units, served, f"{ROUNDED} ({why}), not proven optimal", math.inf,
                       objective, time.perf_counter() - start, lp + m.shift, m.shift)  # fmt: skip
    return replace(out, mip_gap=out.gap_of(objective))


def solve_relaxation(p: PlanProblem) -> PlanSolution:
    """The plan rounded from the MIP's LP relaxation, with its gap to the relaxation's bound (a proven gap).

    For large portfolios, where the binaries barely bind: each workload whole on its largest share, the
    fewest replicas and nodes that carry that. Its status says it is rounded; ``mip_gap`` is measured
    like HiGHS's, so a caller may call it optimal when the gap is within :data:`MIP_REL_GAP`."""
    start = time.perf_counter()
    m = _model(p)
    if m is None:
        return _empty(p, start)
    out = _rounded_solution(p, m, "large portfolio", start)
    return solve_plan(p) if out is None else out


def solve_plan(p: PlanProblem) -> PlanSolution:
    """Solve the fleet MIP exactly with HiGHS (:func:`scipy.optimize.milp`) within ``p.time_limit_s``.

    Deterministic: HiGHS is run with its defaults and a fixed relative gap (:data:`MIP_REL_GAP`); the replica and node
    counts are then lowered to the fewest that carry the chosen shares (which never raises the objective). At
    the time limit HiGHS's best plan is kept with its gap; when HiGHS gives no plan in time (on large fleets
    its heuristics overrun the limit and the guard stops it), the LP relaxation is rounded, with its proven
    gap; only when that fails too does each workload go on its cheapest option stand-alone (gap unknown).
    """
    start = time.perf_counter()
    m = _model(p)
    if m is None:
        return _empty(p, start)
    served = np.asarray(m.keep.any(axis=1), dtype=bool)
    res = _milp_guarded(*m.args) if m.guarded else _milp(*m.args)
    if res is None or res.x is None or res.status not in (0, 1):
        why = "the solver did not return within the time limit" if res is None else res.message.strip()
        rounded = _rounded_solution(p, m, why, start)
        if rounded is not None:
            return rounded
        share, processed = _fallback(p, m.keep)
        status = f"{NO_PLAN} ({why}): each workload on its cheapest option stand-alone"
        gap = math.inf
    else:
        gap = float(res.mip_gap or 0.0)
        share, processed = _from_vector(p, m.lay, np.asarray(res.x, dtype=np.float64))
        status = "optimal" if res.status == 0 else "time limit: best plan found"
        if res.status == 0:
            gap = max(0.0, min(gap, MIP_REL_GAP))
    replicas, units = counts(p, share, processed)
    objective = money_usd_per_month(p, share, units)
    return PlanSolution(share, processed, replicas, units, served, status, gap, objective, time.perf_counter() - start)
