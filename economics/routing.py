"""The routing rule: the quadrant is derived from the economics, not tabled (docs/routing.md#routing-rule).

Inputs are per-option costs that the serving and cost layers already computed, as arrays of shape
``(W, O)`` (workloads × options). The router removes options a workload may not use (sovereign data never
goes to an API) or that cannot serve it, adds the expected failure cost (docs/quality.md#expected-cost), and picks
``argmin J``; ties go to the lower TPOT, then to owned over API, then to the option listed first. The
quadrant label is read off the winner and the margins, so it moves when prices, hardware or SLOs move.

Decision-flip thresholds (how far one driver can move before the route changes) live in
:mod:`economics.flips`; the two-axis grid in :func:`economics.evaluate.evaluate_grid`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

import numpy as np
from numpy.typing import ArrayLike, NDArray

from economics.costs import break_even_demand, break_even_utilization
from economics.quality import break_even_failure_cost, expected_cost_per_task
from economics.result import OptionKind, RouteLabel

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
BoolArray = NDArray[np.bool_]

#: Codes of :data:`OPTION_KINDS`, used in ``(O,)`` arrays.
OWNED_AR, OWNED_DIFFUSION, API = 0, 1, 2
OPTION_KINDS: tuple[OptionKind, ...] = ("owned-ar", "owned-diffusion", "api")

#: Route labels, in the order of their integer codes in grids (the order of :data:`economics.result.RouteLabel`).
ROUTE_LABELS: tuple[RouteLabel, ...] = get_args(RouteLabel)
(LABEL_OWNED_DIFFUSION, LABEL_OWNED_AR_BATCH, LABEL_OWNED_AR, LABEL_FRONTIER_API, LABEL_API, LABEL_NONE) = range(6)
#: The same routes on a rented node: a GPU rented by the hour or committed is not "owned".
LABEL_RENTED_DIFFUSION, LABEL_RENTED_AR_BATCH, LABEL_RENTED_AR = range(6, 9)

#: API tiers whose label is "frontier API" (the high-value corner of the quadrant).
FRONTIER_TIERS = frozenset({"frontier", "reasoning"})


def allowed_options(sovereign: ArrayLike, is_api: ArrayLike) -> BoolArray:
    """Step 1 of docs/routing.md#routing-rule: sovereign data forces an owned option, so APIs are dropped [-].

    Returns a ``(W, O)`` mask from ``sovereign`` ``(W,)`` and ``is_api`` ``(O,)``.

    >>> allowed_options([True, False], [False, True]).tolist()
    [[True, False], [True, True]]
    """
    sov = np.asarray(sovereign, dtype=bool)[:, None]
    api = np.asarray(is_api, dtype=bool)[None, :]
    return np.asarray(~(sov & api), dtype=bool)


@dataclass(frozen=True)
class Route:
    """The router's choice for every workload. Indices are option positions; −1 means none."""

    expected_cost_usd: FloatArray  # J per (workload, option); inf where not allowed or not feasible [USD]
    chosen: IntArray  # (W,) the option with the lowest J after tie-breaks, −1 if none is feasible
    runner_up: IntArray  # (W,) the next option in the same order, −1 if there is none
    margin_usd: FloatArray  # (W,) J(runner-up) − J(chosen); inf without a runner-up [USD]

    def order(self, tpot_s: ArrayLike, is_api: ArrayLike) -> IntArray:
        """Options of each workload sorted best first (the router's full order) [index]."""
        return _order(self.expected_cost_usd, tpot_s, is_api)


def _order(j: FloatArray, tpot_s: ArrayLike, is_api: ArrayLike) -> IntArray:
    w, o = j.shape
    tpot = np.broadcast_to(np.nan_to_num(np.asarray(tpot_s, dtype=np.float64), nan=np.inf), (w, o))
    api = np.broadcast_to(np.asarray(is_api, dtype=bool), (w, o))
    position = np.broadcast_to(np.arange(o), (w, o))
    # np.lexsort sorts by the last key first: J, then TPOT, then owned before API, then list order.
    return np.asarray(np.lexsort((position, api, tpot, j), axis=-1), dtype=np.intp)


def _first_rows(jt: FloatArray, options: IntArray, tpot_s: ArrayLike, is_api: ArrayLike) -> IntArray:
    """The first option of :func:`_order` per workload among the rows of ``jt``, −1 where none has a finite J.

    ``jt`` is ``(k, W)``: J of the options ``options`` (indices into the ``O`` columns of ``tpot_s`` and
    ``is_api``), one row each, laid out so that reducing over the options is elementwise over workloads.
    The lowest J wins; only workloads whose lowest J is shared pay for the tie-breaks (lower TPOT, then
    owned before API, then the option listed first), which reproduces the lexsort order without sorting.
    Options with a non-finite J never count, so their place in the order is irrelevant.
    """
    w = jt.shape[1]
    if options.size == 0:
        return np.full(w, -1, dtype=np.intp)
    low = np.fmin.reduce(jt, axis=0)  # NaN never wins (and never ties)
    ok = np.isfinite(low)
    tie = jt == low
    first = np.where(ok, options[np.argmax(tie, axis=0)], -1).astype(np.intp)
    shared = np.flatnonzero(ok & (np.count_nonzero(tie, axis=0) > 1))
    if shared.size:
        o = max(int(options.max()) + 1, np.shape(is_api)[-1] if np.ndim(is_api) else 0)
        tpot = np.broadcast_to(np.asarray(tpot_s, dtype=np.float64), (w, o))[shared][:, options]
        api = np.broadcast_to(np.asarray(is_api, dtype=bool), (w, o))[shared][:, options]
        sub = tie[:, shared].T
        tm = np.where(sub, np.nan_to_num(tpot, nan=np.inf), np.inf)
        sub &= tm == np.min(tm, axis=1, keepdims=True)
        owned = sub & ~api
        sub = np.where(owned.any(axis=1, keepdims=True), owned, sub)
        first[shared] = options[np.argmax(sub, axis=1)]
    return first


def _first(j: FloatArray, tpot_s: ArrayLike, is_api: ArrayLike, mask: ArrayLike) -> IntArray:
    """The first option of :func:`_order` among ``mask`` (``(O,)`` or ``(W, O)``), −1 where none is finite."""
    w, o = j.shape
    m = np.asarray(mask, dtype=bool)
    if m.ndim == 1:  # a set of options: select their rows
        options = np.flatnonzero(np.broadcast_to(m, (o,)))
        return _first_rows(np.ascontiguousarray(j.T[options]), options, tpot_s, is_api)
    jt = np.ascontiguousarray(np.where(np.broadcast_to(m, (w, o)), j, np.inf).T)
    return _first_rows(jt, np.arange(o), tpot_s, is_api)


def route(
    cost_usd_per_request: ArrayLike,
    quality: ArrayLike,
    feasible: ArrayLike,
    failure_cost_usd: ArrayLike,
    max_attempts: ArrayLike,
    tpot_s: ArrayLike,
    is_api: ArrayLike,
) -> Route:
    """Choose ``argmin J`` over the feasible options of each workload (docs/routing.md#routing-rule, steps 4–5).

    Parameters
    ----------
    cost_usd_per_request : c per (workload, option), ``(W, O)`` [USD]
    quality : q per (workload, option), ``(W, O)`` or ``(O,)`` [1]
    feasible : allowed and able to serve the workload, ``(W, O)`` [-]
    failure_cost_usd : C_fail per workload, ``(W,)`` [USD]
    max_attempts : m per workload, ``(W,)`` [count]
    tpot_s : time per output token per (workload, option), the first tie-break [s]
    is_api : ``(O,)``; the second tie-break prefers owned options [-]

    ``J = c·g(q, m) + (1 − q)^m·C_fail`` (docs/quality.md#expected-cost) where feasible, ``inf`` elsewhere.

    >>> r = route([[0.01, 0.02, 0.004]], [0.9, 0.97, 0.85], [[True, True, False]], [1.0], [1], 0.01,
    ...           [False, True, False])
    >>> int(r.chosen[0]), int(r.runner_up[0]), round(float(r.margin_usd[0]), 4)
    (1, 0, 0.06)
    """
    c = np.asarray(cost_usd_per_request, dtype=np.float64)
    w, o = c.shape
    ok = np.broadcast_to(np.asarray(feasible, dtype=bool), (w, o))
    q = np.broadcast_to(np.asarray(quality, dtype=np.float64), (w, o))
    fail = np.asarray(failure_cost_usd, dtype=np.float64).reshape(w, 1)
    attempts = np.asarray(max_attempts, dtype=np.float64).reshape(w, 1)
    j = np.where(ok & np.isfinite(c), expected_cost_per_task(np.where(ok, c, 0.0), q, fail, attempts), np.inf)
    rows = np.arange(w)
    options = np.arange(o)
    jt = j.T.copy()  # (O, W), C order; a copy: the runner-up search knocks the chosen entries out
    chosen = _first_rows(jt, options, tpot_s, is_api)
    jt[np.maximum(chosen, 0), rows] = np.where(chosen >= 0, np.inf, jt[np.maximum(chosen, 0), rows])
    runner_up = _first_rows(jt, options, tpot_s, is_api)
    has_second = runner_up >= 0
    j_first = j[rows, np.maximum(chosen, 0)]
    j_second = j[rows, np.maximum(runner_up, 0)]
    with np.errstate(invalid="ignore"):
        margin = np.where(has_second, j_second - j_first, np.inf)
    return Route(expected_cost_usd=j, chosen=chosen, runner_up=runner_up, margin_usd=margin.astype(np.float64))


def best_of(j: FloatArray, mask: ArrayLike, tpot_s: ArrayLike, is_api: ArrayLike) -> IntArray:
    """The router's best option among those in ``mask`` ``(O,)`` or ``(W, O)``, −1 where none is feasible."""
    return _first(j, tpot_s, is_api, np.broadcast_to(np.asarray(mask, dtype=bool), j.shape))


def best_api(t: OptionTable, r: Route) -> IntArray:
    """Per workload, the API the router would pick if only APIs were allowed: lowest expected cost per task
    ``J`` (so quality counts), −1 where no API is allowed and feasible. The all-API baseline uses it."""
    allowed = t.is_api[None, :] & t.feasible & np.isfinite(r.expected_cost_usd)
    return best_of(r.expected_cost_usd, allowed, t.tpot_s, t.is_api)


def batchability(peak_requests_per_s: ArrayLike, output_tokens: ArrayLike, tpot_batch1_s: ArrayLike) -> FloatArray:
    """The quadrant's first axis: ``β = λ_peak · T_out · TPOT_AR(1)`` [1] (docs/serving.md#continuous-batching,
    docs/routing.md#routing-rule).

    The expected number of requests in flight if every request ran at batch-1 speed. ``β < 1`` means the
    workload cannot build a batch within its latency budget, whatever its volume: it pays batch-1 prices.
    (the first spec (docs/departures.md#departures) writes ``λ·T_out·TPOT(1)/e``; with TPOT already per token,
    ``t_pass/e``, the extra ``/e`` would count speculation twice, so it is dropped.)

    >>> round(float(batchability(0.1, 500, 0.00965)), 3)
    0.483
    """
    return np.asarray(
        np.asarray(peak_requests_per_s, dtype=np.float64)
        * np.asarray(output_tokens, dtype=np.float64)
        * np.asarray(tpot_batch1_s, dtype=np.float64),
        dtype=np.float64,
    )


def route_labels(
    chosen: ArrayLike,
    kind: ArrayLike,
    frontier: ArrayLike,
    batchability_index: ArrayLike,
    rented: ArrayLike | None = None,
) -> NDArray[np.int8]:
    """Quadrant label code per workload, from the winner and the batchability margin (docs/routing.md#routing-rule) [-].

    ``kind`` ``(O,)`` holds :data:`OWNED_AR`/:data:`OWNED_DIFFUSION`/:data:`API`; ``frontier`` ``(O,)`` marks
    frontier/reasoning APIs; ``rented`` ``(O,)`` marks options on a rented node (None: none is). Owned AR is
    "(batch)" when ``β ≥ 1`` (a batch can form); owned diffusion, frontier API, other API and "none feasible"
    follow the winner; a winner on a rented node says "rented" instead of "owned". Codes index
    :data:`ROUTE_LABELS`.

    >>> [ROUTE_LABELS[i] for i in route_labels([0, 0, 1, 2, -1], [0, 1, 2], [False, False, True], [3.0, 0.2, 0, 0, 0])]
    ['owned AR (batch)', 'owned AR', 'owned diffusion', 'frontier API', 'none feasible']
    >>> [ROUTE_LABELS[i] for i in route_labels([0, 0, 1], [0, 1, 2], [False] * 3, [3.0, 0.2, 0], [True, True, False])]
    ['rented AR (batch)', 'rented AR', 'rented diffusion']
    """
    ch = np.asarray(chosen, dtype=np.intp)
    kinds = np.asarray(kind, dtype=np.int8)
    front = np.asarray(frontier, dtype=bool)
    safe = np.where(ch >= 0, ch, 0)
    k = kinds[safe]
    beta = np.asarray(batchability_index, dtype=np.float64)
    label = np.select(
        [ch < 0, k == OWNED_DIFFUSION, (k == OWNED_AR) & (beta >= 1.0), k == OWNED_AR, front[safe]],
        [LABEL_NONE, LABEL_OWNED_DIFFUSION, LABEL_OWNED_AR_BATCH, LABEL_OWNED_AR, LABEL_FRONTIER_API],
        default=LABEL_API,
    )
    if rented is not None:
        on_rented = (ch >= 0) & np.asarray(rented, dtype=bool)[safe]
        label = np.where(on_rented & (label == LABEL_OWNED_DIFFUSION), LABEL_RENTED_DIFFUSION, label)
        label = np.where(on_rented & (label == LABEL_OWNED_AR_BATCH), LABEL_RENTED_AR_BATCH, label)
        label = np.where(on_rented & (label == LABEL_OWNED_AR), LABEL_RENTED_AR, label)
    return np.asarray(label, dtype=np.int8)


@dataclass(frozen=True)
class OptionTable:
    """Everything the router and the flip thresholds need, per workload (W) and option (O).

    Built by :func:`economics.evaluate.evaluate` from the serving and cost layers; a plain container of
    arrays so that routing, flips and grids stay vectorized. Money is per request unless named otherwise.
    """

    option_ids: tuple[str, ...]
    kind: NDArray[np.int8]  # (O,) OWNED_AR, OWNED_DIFFUSION or API
    frontier: BoolArray  # (O,) frontier or reasoning API
    node_index: IntArray  # (O,) index of the owned option's node in ``node_ids``, −1 for an API
    node_ids: tuple[str, ...]
    cost_usd: FloatArray  # (W, O) inference cost per request c; inf where infeasible [USD]
    quality: FloatArray  # (W, O) q [1]
    allowed: BoolArray  # (W, O) not forbidden by sovereignty [-]
    feasible: BoolArray  # (W, O) allowed and able to serve the workload [-]
    tpot_s: FloatArray  # (W, O) time per output token at the average load [s]
    capacity_requests_per_s: FloatArray  # (W, O) SLO capacity of one replica λ_max; inf for an API [req/s]
    replicas: FloatArray  # (W, O) replicas sized for the peak; 0 for an API [count]
    utilization: FloatArray  # (W, O) λ_avg / (R·λ_max) [1]
    achieved_batch: FloatArray  # (W, O) B* per replica at the average load [count]
    replica_fixed_usd_per_hour: FloatArray  # (O,) replica cost at zero load; 0 for an API [USD/h]
    replica_variable_usd_per_hour: FloatArray  # (O,) extra replica cost when fully busy (power) [USD/h]
    replica_share_of_node: FloatArray  # (O,) GPUs per replica / GPUs per node; 0 for an API [1]
    api_output_usd_per_mtok: FloatArray  # (O,) list output price; 0 for owned [USD/Mtok]
    api_price_multiplier: FloatArray  # (W, O) (1 − negotiated)·(1 − batch tier) applied to list prices [1]
    failure_cost_usd: FloatArray  # (W,) C_fail [USD]
    max_attempts: FloatArray  # (W,) m [count]
    avg_requests_per_s: FloatArray  # (W,) [req/s]
    peak_requests_per_s: FloatArray  # (W,) [req/s]
    output_tokens: FloatArray  # (W,) T_out [tokens]
    sovereign: BoolArray  # (W,) [-]
    target_utilization: float  # u_target [1]
    pooled: bool  # cost mode of the policy [-]
    pool_utilization: float  # U_pool [1]
    #: (O,) share of the list price kept after the negotiated discount, 1 − d; None = no discount [1]
    api_negotiated_keep: FloatArray | None = None
    #: (W, H) the rate the replicas must carry in each hour of the day profile
    #: (:attr:`economics.option_costs.WorkloadArrays.sizing_rates`); None = no option billed per hour used [req/s]
    sizing_rates: FloatArray | None = None
    #: (O,) the option's offer is paid only for the hours it runs (on-demand, negotiated, spot:
    #: :func:`economics.finance.rental.billed_per_hour_used`); None = none is [-]
    billed_per_hour_used: BoolArray | None = None
    #: (O,) the option runs on a rented node (its route label says "rented"); None = none does [-]
    rented: BoolArray | None = None

    @property
    def is_api(self) -> BoolArray:
        """(O,) the option is an API [-]."""
        return np.asarray(self.kind == API, dtype=bool)

    def route(self) -> Route:
        """The router's choice on this table (:func:`route`)."""
        return route(
            self.cost_usd,
            self.quality,
            self.feasible,
            self.failure_cost_usd,
            self.max_attempts,
            self.tpot_s,
            self.is_api,
        )


# ---- quadrant coordinates and break-evens (docs/routing.md#routing-rule step 5) --------------------------------------


def _take(a: FloatArray, idx: IntArray) -> FloatArray:
    rows = np.arange(a.shape[0])
    return np.asarray(np.where(idx >= 0, a[rows, np.maximum(idx, 0)], np.nan), dtype=np.float64)


@dataclass(frozen=True)
class Coordinates:
    """The quadrant coordinates and the margins that define its regions, per workload (W,)."""

    batchability: FloatArray  # β on the reference owned AR option [1]
    best_owned: IntArray  # the router's best owned option, −1 if none
    best_api: IntArray  # the router's best API, −1 if none
    value_star: FloatArray  # v* between best owned and best API; NaN where undefined [USD/token]
    u_star: FloatArray  # U* of the best owned replica against the best API's cost; NaN where undefined [1]
    lambda_star: FloatArray  # λ* for the best owned option's R replicas; NaN where never or undefined [req/s]
    labels: NDArray[np.int8]  # index into ROUTE_LABELS


def quadrant_coordinates(table: OptionTable, r: Route, batchability_by_option: FloatArray) -> Coordinates:
    """Where each workload sits in the quadrant and how far it is from a boundary (docs/routing.md#routing-rule step 5).

    * β: ``λ_peak·T_out·TPOT_AR(1)`` on the router's best owned AR option (the first AR option when none is
      feasible), from ``batchability_by_option`` ``(W, O)``.
    * v*: the failure cost per output token at which the best owned option and the best API have the same
      expected cost (docs/quality.md#expected-cost, with the workload's retries); NaN when either is missing, their
      qualities are equal, or the better one is also cheaper (then it wins at every value).
    * U*: docs/costs.md#break-even break-even utilisation of the best owned replica against the best API's cost per
      request, with load-dependent power; NaN when either is missing or the replica never breaks even.
    * λ*: docs/costs.md#break-even break-even demand for the best owned option's R replicas, with the capacity check
      (NaN when the replicas cannot carry the break-even volume).
    * the label, from the winner and β (:func:`route_labels`).
    """
    is_api = table.is_api
    j = r.expected_cost_usd
    w = j.shape[0]
    best_owned = best_of(j, ~is_api, table.tpot_s, is_api)
    best_api = best_of(j, is_api, table.tpot_s, is_api)
    ar = table.kind == OWNED_AR
    ref = best_of(j, ar, table.tpot_s, is_api)
    ref = np.where(ref >= 0, ref, int(np.argmax(ar)) if ar.any() else -1).astype(np.intp)
    beta = np.nan_to_num(_take(batchability_by_option, ref), nan=0.0) if ar.any() else np.zeros(w)
    c_o, c_a = _take(table.cost_usd, best_owned), _take(table.cost_usd, best_api)
    q_o, q_a = _take(table.quality, best_owned), _take(table.quality, best_api)
    api_high = q_a >= q_o
    c_star = break_even_failure_cost(
        np.where(api_high, c_a, c_o),
        np.where(api_high, q_a, q_o),
        np.where(api_high, c_o, c_a),
        np.where(api_high, q_o, q_a),
        table.max_attempts,
    )
    both = (best_owned >= 0) & (best_api >= 0)
    v_star = np.where(both & np.isfinite(c_star) & (c_star >= 0), c_star / table.output_tokens, np.nan)
    safe = np.maximum(best_owned, 0)
    u_star = break_even_utilization(
        table.replica_fixed_usd_per_hour[safe],
        _take(table.capacity_requests_per_s, best_owned),
        c_a,
        table.replica_variable_usd_per_hour[safe],
    )
    u_star = np.where(both & np.isfinite(u_star), u_star, np.nan)
    lam_star = break_even_demand(
        _take(table.replicas, best_owned),
        table.replica_fixed_usd_per_hour[safe],
        c_a,
        _take(table.capacity_requests_per_s, best_owned),
        table.replica_variable_usd_per_hour[safe],
    )
    lam_star = np.where(both & np.isfinite(lam_star), lam_star, np.nan)
    labels = route_labels(r.chosen, table.kind, table.frontier, beta, table.rented)
    return Coordinates(beta, best_owned, best_api, v_star, u_star, lam_star, labels)
