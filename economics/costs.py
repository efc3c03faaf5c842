"""Unit economics: node $/hour, cost per request and per million tokens, API prices, break-even
(docs/costs.md#unit-costs).

Every function is a pure formula over numpy arrays (or scalars) that broadcast against each other, and
returns float64 arrays. Degenerate cases have their own branch and a documented result: zero utilisation or
zero demand costs ``inf`` per token, a break-even that cannot be reached is ``inf``.

Notation: ``C_h`` node (or replica) cost per hour [USD/h]; ``U`` utilisation = average load / SLO capacity
of the paid replicas [1]; ``λ_cap`` SLO capacity of one replica [req/s]; ``R`` replicas [count];
``c_api`` API cost of one request [USD].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from economics.finance.rental import effective_usd_per_gpu_hour, rented_cost_split
from economics.offers import ApiOffer, NodeOffer, OwnedNode, RentedNode
from economics.token_billing import cache_write_share, tier_prices
from economics.units import HOURS_PER_MONTH, HOURS_PER_YEAR, MTOK, SECONDS_PER_HOUR

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


def _f(x: ArrayLike) -> FloatArray:
    return np.asarray(x, dtype=np.float64)


def _safe_ratio(numerator: FloatArray, denominator: FloatArray) -> FloatArray:
    """``numerator / denominator`` with ``inf`` where the denominator is 0 (and the numerator is not 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = numerator / denominator
    return np.where(denominator > 0, out, np.where(numerator == 0, 0.0, np.inf)).astype(np.float64)


# ---- docs/costs.md#node-cost node cost per hour ----------------------------------------------------------------------


def capital_recovery_factor(rate: ArrayLike, years: ArrayLike) -> FloatArray:
    """Capital recovery factor: the annual payment that repays 1 USD over ``years`` at ``rate`` [1/year].

    ``CRF(r, n) = r·(1+r)^n / ((1+r)^n − 1)``, and ``CRF(0, n) = 1/n`` (straight-line) in its own branch.
    ``(1+r)^n − 1`` is computed as ``expm1(n·log1p(r))`` so that tiny rates do not cancel.

    Parameters
    ----------
    rate : cost of capital r [1/year], ≥ 0
    years : economic life n [years], > 0

    Reference: any engineering-economics text; numpy-financial's ``pmt`` with ``pv = −1``.

    >>> round(float(capital_recovery_factor(0.08, 4)), 5)
    0.30192
    >>> float(capital_recovery_factor(0.0, 4))
    0.25
    """
    r, n = np.broadcast_arrays(_f(rate), _f(years))
    growth_minus_one = np.expm1(n * np.log1p(r))
    with np.errstate(divide="ignore", invalid="ignore"):
        crf = r * (growth_minus_one + 1.0) / growth_minus_one
    return np.where(r == 0, 1.0 / n, crf).astype(np.float64)


@dataclass(frozen=True)
class NodeCostBreakdown:
    """An owned node's cost per node-hour, by component [USD/h]. Arrays broadcast with the utilisation."""

    capex_usd_per_hour: FloatArray
    power_usd_per_hour: FloatArray
    facility_usd_per_hour: FloatArray
    ops_usd_per_hour: FloatArray

    @property
    def total_usd_per_hour(self) -> FloatArray:
        """``C_h = capex + power + facility + ops`` [USD/h]."""
        return _f(
            self.capex_usd_per_hour + self.power_usd_per_hour + self.facility_usd_per_hour + self.ops_usd_per_hour
        )


def power_fraction(node: OwnedNode, utilization: ArrayLike) -> FloatArray:
    """Drawn power / maximum power at utilisation U: ``f(U) = f_idle + (f_busy − f_idle)·U`` [1].

    U is clipped to [0, 1]. With ``f_idle = f_busy`` (the default 0.7) power does not depend on load.
    """
    u = np.clip(_f(utilization), 0.0, 1.0)
    return _f(node.power_fraction_idle + (node.power_fraction_busy - node.power_fraction_idle) * u)


def owned_node_cost_breakdown(node: OwnedNode, utilization: ArrayLike) -> NodeCostBreakdown:
    """Cost of one owned node per hour, by component, at utilisation U (docs/costs.md#node-cost) [USD/h].

    ```
    C_capex_h    = CapEx · CRF(r, n) / 8760
    C_power_h    = P_node_kW · f(U) · PUE · price_kWh
    C_facility_h = colo_$per_kW_month · P_node_kW / 730       (provisioned = maximum power)
    C_ops_h      = ops_frac · CapEx / 8760 + fixed ops
    ```

    Example (docs/costs.md#node-cost defaults, 8×H100 at $280k, 4 years, 8%, 10.2 kW, f = 0.7, PUE 1.3, $0.10/kWh,
    $150/kW-month, ops 8%): capex 9.65 + power 0.93 + facility 2.10 + ops 2.56 = $15.23 per node-hour.

    >>> b = owned_node_cost_breakdown(OwnedNode(id="n", name="n", gpu_id="h100-sxm"), utilization=0.5)
    >>> [round(float(x), 2) for x in (b.capex_usd_per_hour, b.power_usd_per_hour, b.facility_usd_per_hour,
    ...                               b.ops_usd_per_hour, b.total_usd_per_hour)]
    [9.65, 0.93, 2.1, 2.56, 15.23]
    """
    f = power_fraction(node, utilization)
    crf = float(capital_recovery_factor(node.cost_of_capital_per_year, node.economic_life_years))
    residual = node.capex_usd * node.residual_fraction  # resale S: (CapEx − S)·CRF + S·r (finance.depreciation)
    capex = ((node.capex_usd - residual) * crf + residual * node.cost_of_capital_per_year) / HOURS_PER_YEAR
    power = node.node_power_kw * f * node.pue * node.electricity_usd_per_kwh
    facility = node.colocation_usd_per_kw_month * node.node_power_kw / HOURS_PER_MONTH
    ops = (
        node.ops_fraction_of_capex_per_year * node.capex_usd + node.maintenance_usd_per_year
    ) / HOURS_PER_YEAR + node.ops_fixed_usd_per_hour
    shape = f.shape
    return NodeCostBreakdown(
        capex_usd_per_hour=np.full(shape, capex),
        power_usd_per_hour=_f(power),
        facility_usd_per_hour=np.full(shape, facility),
        ops_usd_per_hour=np.full(shape, ops),
    )


def rented_node_cost_usd_per_hour(node: RentedNode) -> float:
    """``C_h = effective price per GPU-hour · GPUs per node`` [USD/h]; paid whether the node works or not
    (a serverless node only while busy: :func:`economics.finance.rental.rented_cost_split`).

    >>> rented_node_cost_usd_per_hour(RentedNode(id="r", name="r", gpu_id="h100-sxm", price_usd_per_gpu_hour=2.5))
    20.0
    """
    return effective_usd_per_gpu_hour(node) * node.gpus_per_node


def rented_node_list_usd_per_hour(node: RentedNode) -> float:
    """``C_list = list price per GPU-hour · GPUs per node`` [USD/h]: the rental's list price, before spot
    interruptions or a reservation's upfront (those are in :func:`rented_node_cost_usd_per_hour`).

    >>> rented_node_list_usd_per_hour(RentedNode(id="r", name="r", gpu_id="h100-sxm", price_usd_per_gpu_hour=2.5))
    20.0
    """
    return node.price_usd_per_gpu_hour * node.gpus_per_node


def node_cost_usd_per_hour(node: NodeOffer, utilization: ArrayLike = 0.0) -> FloatArray:
    """Cost of one node per hour, owned (docs/costs.md#node-cost, at utilisation U) or rented [USD/h]."""
    if isinstance(node, OwnedNode):
        return owned_node_cost_breakdown(node, utilization).total_usd_per_hour
    fixed, variable = rented_cost_split(node)
    return _f(hourly_cost_usd(fixed, variable, np.clip(_f(utilization), 0.0, 1.0)))


@overload
def hourly_cost_usd(fixed_usd_per_hour: float, variable_usd_per_hour: float, utilization: float) -> float: ...
@overload
def hourly_cost_usd(
    fixed_usd_per_hour: ArrayLike, variable_usd_per_hour: ArrayLike, utilization: ArrayLike
) -> FloatArray: ...
def hourly_cost_usd(fixed_usd_per_hour: Any, variable_usd_per_hour: Any, utilization: Any) -> Any:
    """Cost of a node (or replica) for one hour at a utilization [USD/h] (docs/costs.md#hourly-cost-at-a-utilization).

    .. math:: C_h(U) = C_{fixed} + C_{var} · U

    The one place this formula is written (``tests/test_architecture.py`` checks it): ``C_fixed`` and ``C_var``
    come from :func:`node_cost_fixed_and_variable` (``C_var`` is the load-dependent power of an owned node). The
    arithmetic keeps its operands' types: floats give a float, arrays broadcast to an array.

    Parameters
    ----------
    fixed_usd_per_hour : cost that does not depend on load, ``C_fixed`` [USD/h]
    variable_usd_per_hour : extra cost at full load, ``C_var`` [USD/h]
    utilization : average load / capacity, ``U`` [1]

    >>> hourly_cost_usd(10.0, 2.0, 0.5)  # 10 + 2·0.5 = 11
    11.0
    """
    return fixed_usd_per_hour + variable_usd_per_hour * utilization


def node_cost_fixed_and_variable(node: NodeOffer) -> tuple[float, float]:
    """Split ``C_h(U) = fixed + variable·U`` [USD/h]: the variable part is the load-dependent power of an owned node.

    >>> node_cost_fixed_and_variable(RentedNode(id="r", name="r", gpu_id="g", price_usd_per_gpu_hour=2.0))
    (16.0, 0.0)
    """
    if isinstance(node, RentedNode):
        return rented_cost_split(node)
    fixed = float(owned_node_cost_breakdown(node, 0.0).total_usd_per_hour)
    variable = float(owned_node_cost_breakdown(node, 1.0).total_usd_per_hour) - fixed
    return fixed, variable


# ---- docs/costs.md#cost-per-token cost per request and per million tokens --------------------------------------------


def cost_per_mtok_capacity_form(
    cost_usd_per_hour: ArrayLike, capacity_tokens_per_s: ArrayLike, utilization: ArrayLike
) -> FloatArray:
    """Form (a) of docs/costs.md#cost-per-token: ``$/Mtok = 1e6 · C_h / (3600 · X_cap · U)`` [USD/Mtok].

    ``X_cap`` is the SLO-constrained throughput of one replica (``λ_max · T_out`` for output tokens) and U the
    fraction of that capacity used on average. **Do not** also evaluate X at the low-load batch: U already
    charges the idle capacity. ``U = 0`` (or ``X_cap = 0``) costs ``inf``.

    >>> round(float(cost_per_mtok_capacity_form(15.23, 12.14 * 500, 0.5)), 4)
    1.3939
    """
    return _safe_ratio(MTOK * _f(cost_usd_per_hour), SECONDS_PER_HOUR * _f(capacity_tokens_per_s) * _f(utilization))


def cost_per_request_dedicated(
    cost_usd_per_hour_per_replica: ArrayLike, replicas: ArrayLike, avg_requests_per_s: ArrayLike
) -> FloatArray:
    """Form (b) of docs/costs.md#cost-per-token, the operating point: ``$/req = R · C_h / (3600 · λ_avg)`` [USD].

    The workload pays for its R replicas all hours, busy or idle, and prefill is inside the request.
    Zero demand costs ``inf`` per request.

    >>> round(float(cost_per_request_dedicated(15.23, 1, 0.1)), 5)
    0.04231
    """
    return _safe_ratio(_f(replicas) * _f(cost_usd_per_hour_per_replica), SECONDS_PER_HOUR * _f(avg_requests_per_s))


def owned_cost_per_request(
    fixed_usd_per_hour: ArrayLike,
    variable_usd_per_hour: ArrayLike,
    replicas: ArrayLike,
    utilization: ArrayLike,
    avg_requests_per_s: ArrayLike,
    node_cost_scale: ArrayLike = 1.0,
) -> FloatArray:
    """Owned cost of one request at the operating point of R dedicated replicas (docs/costs.md#cost-per-token) [USD].

    .. math:: c = m · R · (C_{fixed} + C_{var} · U) / (3600 · λ_{avg})

    The stand-alone comparison's owned cost (:func:`economics.option_costs.owned_option_arrays`) and the
    Break-even page's owned curve both come from here: :func:`hourly_cost_usd` at the replicas' utilization,
    then form (b), :func:`cost_per_request_dedicated`. ``m`` scales the whole node bill (a sweep axis; 1 today).

    Parameters
    ----------
    fixed_usd_per_hour : ``C_fixed`` of one replica [USD/h]
    variable_usd_per_hour : ``C_var`` of one replica at full load [USD/h]
    replicas : ``R`` [count]
    utilization : ``U = λ_avg/(R·λ_max)`` [1]
    avg_requests_per_s : ``λ_avg`` [req/s]; zero demand costs ``inf``
    node_cost_scale : ``m`` [1]

    >>> round(float(owned_cost_per_request(15.23, 0.0, 1, 0.5, 0.1)), 5)  # 15.23/(3600·0.1)
    0.04231
    """
    c_h = hourly_cost_usd(_f(fixed_usd_per_hour), _f(variable_usd_per_hour), _f(utilization)) * _f(node_cost_scale)
    return cost_per_request_dedicated(c_h, replicas, avg_requests_per_s)


def owned_cost_per_request_at_utilization(
    fixed_usd_per_hour: ArrayLike,
    variable_usd_per_hour: ArrayLike,
    capacity_requests_per_s: ArrayLike,
    utilization: ArrayLike,
    node_cost_scale: ArrayLike = 1.0,
) -> FloatArray:
    """Owned cost of one request on one replica kept busy a share U of its hours (docs/costs.md#cost-per-token) [USD].

    .. math:: c = m · (C_{fixed} + C_{var} · U) / (3600 · U · λ_{cap})

    :func:`owned_cost_per_request` with ``R = 1`` and ``λ_avg = U·λ_cap``; ``U = 0`` costs ``inf``.

    Parameters
    ----------
    fixed_usd_per_hour : ``C_fixed`` of one replica [USD/h]
    variable_usd_per_hour : ``C_var`` of one replica at full load [USD/h]
    capacity_requests_per_s : SLO capacity of the replica ``λ_cap`` [req/s]
    utilization : ``U`` [1]
    node_cost_scale : ``m`` [1]

    >>> round(float(owned_cost_per_request_at_utilization(15.23, 0.0, 12.14, 0.5)), 6)  # 15.23/(3600·0.5·12.14)
    0.000697
    """
    u = _f(utilization)
    c_h = hourly_cost_usd(_f(fixed_usd_per_hour), _f(variable_usd_per_hour), u) * _f(node_cost_scale)
    return cost_per_request_dedicated(c_h, 1.0, u * _f(capacity_requests_per_s))


def owned_cost_per_mtok_at_utilization(
    fixed_usd_per_hour: ArrayLike,
    variable_usd_per_hour: ArrayLike,
    capacity_tokens_per_s: ArrayLike,
    utilization: ArrayLike,
) -> FloatArray:
    """Owned cost per million tokens of one replica at utilization U, form (a) of docs/costs.md#cost-per-token
    [USD/Mtok].

    .. math:: USD/Mtok = 10^6 · (C_{fixed} + C_{var} · U) / (3600 · X_{cap} · U)

    :func:`hourly_cost_usd` fed to :func:`cost_per_mtok_capacity_form`; the Cost-per-token page's curves and
    the Batching page's cost while busy (``U = 1``) read it.

    Parameters
    ----------
    fixed_usd_per_hour : ``C_fixed`` of one replica [USD/h]
    variable_usd_per_hour : ``C_var`` of one replica at full load [USD/h]
    capacity_tokens_per_s : SLO throughput of the replica ``X_cap`` [tok/s]
    utilization : ``U`` [1]; ``U = 0`` costs ``inf``

    >>> round(float(owned_cost_per_mtok_at_utilization(15.23, 0.0, 12.14 * 500, 0.5)), 4)  # 1e6·15.23/(3600·6070·0.5)
    1.3939
    """
    return cost_per_mtok_capacity_form(
        hourly_cost_usd(fixed_usd_per_hour, variable_usd_per_hour, utilization), capacity_tokens_per_s, utilization
    )


def cost_per_request_pooled(
    cost_usd_per_hour_per_replica: ArrayLike,
    achieved_batch: ArrayLike,
    requests_per_s_per_replica: ArrayLike,
    pool_utilization: ArrayLike,
) -> FloatArray:
    """Pooled (multi-tenant) variant of docs/costs.md#cost-per-token: ``$/req = C_h/3600 · min(1, B*)/λ / U_pool``
    [USD].

    A request occupies ``min(1, B*)/λ`` replica-seconds: alone on the replica while ``B* < 1``, sharing it
    with ``B*`` others once a batch forms. The pool is busy ``U_pool`` of its paid hours.
    This is the essay's "node $/h ÷ (throughput × utilisation)" with throughput at the achieved batch.

    >>> round(float(cost_per_request_pooled(15.23, 0.48, 0.1, 0.7)), 5)
    0.02901
    """
    seconds = _safe_ratio(np.minimum(1.0, _f(achieved_batch)), _f(requests_per_s_per_replica))
    return _safe_ratio(_f(cost_usd_per_hour_per_replica) / SECONDS_PER_HOUR * seconds, _f(pool_utilization))


def cost_per_mtok(cost_usd_per_request: ArrayLike, tokens_per_request: ArrayLike) -> FloatArray:
    """``$/Mtok = 1e6 · $/req / tokens`` [USD/Mtok]: pass ``T_out`` for "all-in per output token", or
    ``T_in + T_out`` for "per total token".

    >>> float(cost_per_mtok(0.0105, 1500))
    7.0
    """
    return _safe_ratio(MTOK * _f(cost_usd_per_request), _f(tokens_per_request))


def max_utilization(peak_to_average: ArrayLike, target_utilization: ArrayLike) -> FloatArray:
    """Highest average utilisation a fleet sized for the peak can reach: ``U_max = u_target / p2a`` [1].

    Replicas are sized as ``R = ceil(λ_peak/(u_target·λ_max))``, so ``R·λ_max ≥ λ_peak/u_target`` and
    ``U = λ_avg/(R·λ_max) ≤ u_target·λ_avg/λ_peak = u_target/p2a``, with equality when the ceiling is exact.
    Owned capacity loses to an API whenever ``U* > U_max``.

    The first spec (docs/departures.md#departures) writes ``U ≤ 1/(p2a·u_target)``, which inverts the headroom: with p2a
    = 1 and u_target = 0.8 it allows U = 1.25, above full load. Headroom lowers the reachable utilisation.

    >>> float(max_utilization(1.0, 0.8)), float(max_utilization(4.0, 0.8))
    (0.8, 0.2)
    """
    return _f(target_utilization) / _f(peak_to_average)


def monthly_cost_usd(cost_usd_per_hour: ArrayLike) -> FloatArray:
    """``C_h · 730`` [USD/month] (8760 h / 12)."""
    return _f(cost_usd_per_hour) * HOURS_PER_MONTH


def idle_cost_usd_per_month(cost_usd_per_hour: ArrayLike, utilization: ArrayLike) -> FloatArray:
    """What an owned fleet pays for capacity it does not use, the essay's "GPU hangover" [USD/month].

    ``idle = C_h · 730 · (1 − U)`` with U the fleet's utilisation (busy share of its SLO capacity) clipped to
    [0, 1]. A node nobody uses (U = 0) is idle for its whole bill.

    >>> round(float(idle_cost_usd_per_month(15.23, 0.25)), 2)
    8338.42
    """
    return monthly_cost_usd(cost_usd_per_hour) * (1.0 - np.clip(_f(utilization), 0.0, 1.0))


# ---- docs/costs.md#api-price API prices ------------------------------------------------------------------------------


def api_cost_per_request(
    input_tokens: ArrayLike,
    output_tokens: ArrayLike,
    input_usd_per_mtok: ArrayLike,
    output_usd_per_mtok: ArrayLike,
    cached_input_usd_per_mtok: ArrayLike | None = None,
    cache_hit_rate: ArrayLike = 0.0,
    discount_fraction: ArrayLike = 0.0,
) -> FloatArray:
    """API cost of one request with prompt caching (docs/costs.md#api-price) [USD].

    ``c = (T_in·p_in·(1 − h) + T_in·h·p_cached + T_out·p_out) · (1 − discount) / 1e6``, prices in $/Mtok.
    ``cached_input_usd_per_mtok=None`` means cache hits are billed at the input price.

    Example (docs/costs.md#break-even): a frontier API at $3/$15 per Mtok, 1000 in / 500 out, costs $0.0105.

    >>> round(float(api_cost_per_request(1000, 500, 3.0, 15.0)), 6)
    0.0105
    >>> round(float(api_cost_per_request(1000, 500, 3.0, 15.0, 0.3, cache_hit_rate=0.5)), 6)
    0.00915
    """
    p_in = _f(input_usd_per_mtok)
    p_cached = p_in if cached_input_usd_per_mtok is None else _f(cached_input_usd_per_mtok)
    h = np.clip(_f(cache_hit_rate), 0.0, 1.0)
    t_in = _f(input_tokens)
    dollars = t_in * p_in * (1.0 - h) + t_in * h * p_cached + _f(output_tokens) * _f(output_usd_per_mtok)
    return dollars * (1.0 - _f(discount_fraction)) / MTOK


def batch_tier_usable(api: ApiOffer, deadline_s: ArrayLike | None, latency_slo: ArrayLike) -> BoolArray:
    """The API's batch tier fits a workload when the API has one, the workload has an end-to-end deadline at
    least as long as the promised turnaround, and no interactive latency SLO (TTFT/TPOT) [-].

    ``deadline_s`` None or NaN means no deadline (then the batch tier is not assumed).

    >>> api = ApiOffer(id="a", name="a", input_usd_per_mtok=3, output_usd_per_mtok=15, batch_discount_fraction=0.5)
    >>> batch_tier_usable(api, [86_400.0, 28_800.0, np.nan], False).tolist()
    [True, False, False]
    """
    deadline = _f(np.nan if deadline_s is None else deadline_s)
    with np.errstate(invalid="ignore"):
        long_enough = deadline >= api.batch_turnaround_s
    usable = long_enough & ~np.asarray(latency_slo, dtype=bool) & (api.batch_discount_fraction > 0)
    return np.asarray(usable, dtype=np.bool_)


def api_offer_cost_per_request(
    api: ApiOffer,
    input_tokens: ArrayLike,
    output_tokens: ArrayLike,
    cache_hit_rate: ArrayLike = 0.0,
    batch_tier: ArrayLike = False,
    requests_per_s: ArrayLike | None = None,
) -> FloatArray:
    """Cost of one request on ``api`` with its negotiated discount and, where ``batch_tier``, its batch
    discount; the two discounts compound: ``(1 − d_neg)·(1 − d_batch)`` [USD]. Long-context tiers and cache
    writes (at arrival rate ``requests_per_s``) as in :mod:`economics.token_billing`."""
    keep = (1.0 - api.negotiated_discount_fraction) * np.where(
        np.asarray(batch_tier, dtype=bool), 1.0 - api.batch_discount_fraction, 1.0
    )
    p_in, p_cached, p_out = tier_prices(api, input_tokens)
    cost = api_cost_per_request(
        input_tokens, output_tokens, p_in, p_out, p_cached, cache_hit_rate, discount_fraction=1.0 - keep
    )
    w = cache_write_share(api, requests_per_s)
    if api.cache_write_usd_per_mtok is None or not np.any(w):
        return cost
    # a write replaces a cached read: h·w·T_in tokens at (p_write − p_cached), scaled like the input tier
    h = np.clip(_f(cache_hit_rate), 0.0, 1.0)
    p_write = api.cache_write_usd_per_mtok * p_in / api.input_usd_per_mtok if api.input_usd_per_mtok else p_in
    extra = _f(input_tokens) * h * w * (p_write - p_cached) / MTOK
    return _f(cost + extra * keep)


def blended_price(
    input_usd_per_mtok: ArrayLike, output_usd_per_mtok: ArrayLike, input_output_ratio: ArrayLike
) -> FloatArray:
    """Price per token of the workload's own mix: ``p_blend = (r·p_in + p_out)/(1 + r)``, ``r = T_in/T_out`` [USD/Mtok].

    With ``p_in = p_out = p`` it is ``p`` for any r. The 3:1 blend of Artificial Analysis is ``r = 3``.

    >>> float(blended_price(3.0, 15.0, 3.0))
    6.0
    """
    r = _f(input_output_ratio)
    return (r * _f(input_usd_per_mtok) + _f(output_usd_per_mtok)) / (1.0 + r)


def effective_output_price(
    input_usd_per_mtok: ArrayLike, output_usd_per_mtok: ArrayLike, input_output_ratio: ArrayLike
) -> FloatArray:
    """Price per output token including the input it needs: ``p_eff_out = p_out + r·p_in`` [USD/Mtok].

    >>> float(effective_output_price(3.0, 15.0, 2.0))
    21.0
    """
    return _f(output_usd_per_mtok) + _f(input_output_ratio) * _f(input_usd_per_mtok)


# ---- docs/costs.md#break-even break-even -----------------------------------------------------------------------------


def break_even_utilization(
    cost_usd_per_hour: ArrayLike,
    capacity_requests_per_s: ArrayLike,
    api_cost_usd_per_request: ArrayLike,
    variable_cost_usd_per_hour: ArrayLike = 0.0,
) -> FloatArray:
    """Utilisation above which the owned replica is cheaper per request than the API (docs/costs.md#break-even) [1].

    Owned costs ``C_h(U)/(3600·λ_cap·U)`` per request with ``C_h(U) = C_fixed + C_var·U`` (load-dependent power).
    Setting it equal to ``c_api`` gives
    ```
    U* = C_fixed / (3600 · λ_cap · c_api − C_var)        (= C_h/(3600·λ_cap·c_api) when power is flat)
    ```
    Own when ``U > U*``. ``U* ≥ 1`` means the API wins at any load the replica can carry (the value is
    returned as is); when ``3600·λ_cap·c_api ≤ C_var`` even a fully busy replica never breaks even: ``inf``.
    ``cost_usd_per_hour`` is ``C_fixed`` (the whole ``C_h`` when power is flat).

    Examples (docs/costs.md#break-even, 70B on 8×H100 at $15.23/h, λ_cap = 12.14 req/s, 1000 in / 500 out):
    against a hosted open 70B at $0.88/Mtok (c = $0.00132) U* = 26%; against a frontier API at $3/$15
    (c = $0.0105) U* = 3.3%.

    >>> round(float(break_even_utilization(15.23, 12.14, 0.00132)), 3)
    0.264
    >>> round(float(break_even_utilization(15.23, 12.14, 0.0105)), 4)
    0.0332
    """
    denominator = SECONDS_PER_HOUR * _f(capacity_requests_per_s) * _f(api_cost_usd_per_request) - _f(
        variable_cost_usd_per_hour
    )
    return _safe_ratio(_f(cost_usd_per_hour), denominator)


def break_even_demand(
    replicas: ArrayLike,
    cost_usd_per_hour_per_replica: ArrayLike,
    api_cost_usd_per_request: ArrayLike,
    capacity_requests_per_s: ArrayLike,
    variable_cost_usd_per_hour_per_replica: ArrayLike = 0.0,
) -> FloatArray:
    """Average demand above which R owned replicas are cheaper than the API (docs/costs.md#break-even) [req/s].

    ```
    λ* = R · C_fixed / (3600 · c_api − C_var/λ_cap)        (= R·C_h/(3600·c_api) when power is flat)
    ```
    Capacity check: R replicas carry at most ``R·λ_cap``. A fleet that cannot produce the break-even volume
    never breaks even, so ``λ* > R·λ_cap`` (equivalently ``U* > 1``) returns ``inf``; so does a
    non-positive denominator.

    >>> round(float(break_even_demand(1, 15.23, 0.00132, 12.14)), 2)
    3.2
    >>> round(float(break_even_demand(1, 15.23, 0.0105, 12.14)), 2)
    0.4
    >>> float(break_even_demand(1, 15.23, 0.0001, 12.14))   # would need 42 req/s from a 12 req/s replica
    inf
    """
    cap = _f(capacity_requests_per_s)
    var_per_req = _safe_ratio(_f(variable_cost_usd_per_hour_per_replica), cap)
    lam = _safe_ratio(
        _f(replicas) * _f(cost_usd_per_hour_per_replica),
        SECONDS_PER_HOUR * _f(api_cost_usd_per_request) - var_per_req,
    )
    return np.where(lam <= _f(replicas) * cap, lam, np.inf).astype(np.float64)
