"""How sure is the routing? A tornado of savings against each uncertain input, and a Monte Carlo band.

Vendor figures are uncertain: text-diffusion throughput and quality (85–95% of AR), the efficiency factors
MBU and MFU, API and node prices. :func:`tornado` moves one input at a time to the ends of its plausible
range (:class:`UncertaintyRanges`); :func:`monte_carlo` draws all of them at once and reports, per
workload, the 5–50–95 % band of the chosen route's cost per million output tokens and the probability
that the best owned option beats the best API.

The approximation (a *surrogate*, so that 10⁴ draws take milliseconds instead of 10⁴ calls to ``evaluate``)
    The scenario is evaluated at base (:func:`economics.evaluate.evaluate_arrays`) and at the two ends of
    the MBU and MFU ranges. Per workload and owned option this gives *secant elasticities* of the SLO
    capacity, ``e = log(λ_max(m)/λ_max(1)) / log m``, and of the cost per request, one towards each end of
    the range. A draw then scales, with everything else held at the evaluated operating point:

    * API cost per request ``c = c₀·a`` (every token price of the offer times ``a``: exact);
    * owned capacity ``λ_max = λ₀·s``, ``s = m_MBU^e_MBU · m_MFU^e_MFU`` (times the diffusion-throughput
      multiplier for diffusion options; exact at the ends of the MBU/MFU ranges, log-linear between), then
      replicas ``R = max(1, ⌈λ_peak/(u_target·λ_max)⌉)``, utilisation ``U = λ_avg/(R·λ_max)`` and, in
      dedicated mode, ``c = c₀·k·R(C_fix + C_var·U) / (R₀(C_fix + C_var·U₀))`` with ``k`` the node-price
      multiplier (exact in ``k``). In pooled mode the cost elasticities are used directly, and the
      diffusion multiplier scales ``min(1, B*/s)/min(1, B*)`` like the flip thresholds do;
    * diffusion quality ``q = q₀·r/r₀``, ``r`` the diffusion/AR quality ratio (base 0.90);
    * ``J = c·g(q, m) + (1 − q)^m·C_fail`` and the route ``argmin J`` over the allowed options that are
      feasible at the base point. Feasibility is not redrawn (an SLO that a slower draw would miss is not
      detected) and an "optimized AR" option keeps its base speculation setting.

    ``tests/reviews/test_uncertainty.py`` checks the surrogate against full ``evaluate`` calls: exact for
    price multipliers and at the MBU/MFU range ends, within tolerance in between.

On the fleet plan (the default, ``build_surrogate(..., basis="plan")``, issue 10)
    The plan is solved once at base; in each draw the owned options the plan may use are priced at the
    workload's marginal cost in it (the rest of the plan held fixed) with the draw's capacity scale and node
    price, so each draw's route, "P(route unchanged)" and the cost band are the plan's (docs/uncertainty.md).

Savings are "all on the best allowed API" (lowest expected cost per task) minus "on the chosen route", summed
over workloads that have an allowed API (sovereign workloads have none), the same definition as
``WorkloadDecision.savings_vs_api``.

>>> Range(low=0.8, base=1.0, high=1.25).multipliers
(0.8, 1.25)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from pydantic import Field, model_validator

from economics._base import Frozen
from economics.costs import hourly_cost_usd
from economics.evaluate import Evaluation, FleetPlan, evaluate_arrays, plan_fleet
from economics.plan_accounts import marginal_usd_per_month
from economics.quality import expected_cost_per_task
from economics.routing import OPTION_KINDS, OWNED_DIFFUSION
from economics.scenario import Scenario
from economics.units import HOURS_PER_MONTH, MTOK, SECONDS_PER_HOUR

__all__ = [
    "INPUT_LABELS",
    "OPTION_BAND_COLUMNS",
    "WORKLOAD_BAND_COLUMNS",
    "MonteCarlo",
    "Range",
    "Surrogate",
    "Tornado",
    "TornadoBar",
    "UncertaintyRanges",
    "build_surrogate",
    "monte_carlo",
    "tornado",
]

FloatArray = NDArray[np.float64]
SECONDS_PER_MONTH = HOURS_PER_MONTH * SECONDS_PER_HOUR  # the 730 h month of evaluate's monthly costs
_INPUTS = ("api_price", "node_price", "mbu", "mfu", "diffusion_throughput", "diffusion_quality")

#: Display label and unit of each uncertain input.
INPUT_LABELS: dict[str, tuple[str, str]] = {
    "api_price": ("API token prices", "× list"),
    "node_price": ("node cost per hour", "× base"),
    "mbu": ("memory-bandwidth utilization (MBU)", "× base"),
    "mfu": ("compute utilization (MFU)", "× base"),
    "diffusion_throughput": ("text-diffusion throughput", "× vendor figure"),
    "diffusion_quality": ("diffusion quality, share of AR", "share"),
}


class Range(Frozen):
    """A plausible range and the scenario's own value (``base``) in the same unit.

    Draws are triangular on [low, high] with their mode at ``base`` (clipped into the range, so a range
    that excludes the scenario's value, e.g. "API prices will fall 40–80 %", peaks at its nearer end).
    """

    low: float = Field(gt=0, le=10, description="lowest plausible value [unit of the input]")
    base: float = Field(default=1.0, gt=0, le=10, description="the value the scenario assumes [unit of the input]")
    high: float = Field(gt=0, le=10, description="highest plausible value [unit of the input]")

    @model_validator(mode="after")
    def _ordered(self) -> Range:
        if not self.low <= self.high:
            raise ValueError("need low ≤ high")
        return self

    @property
    def multipliers(self) -> tuple[float, float]:
        """``(low/base, high/base)`` [1]."""
        return (self.low / self.base, self.high / self.base)


class UncertaintyRanges(Frozen):
    """Plausible ranges of the uncertain inputs. Defaults are **[assumption]**s; edit them on the page."""

    api_price: Range = Field(default=Range(low=0.6, high=1.2), description="multiplier on each API's token prices [1]")
    node_price: Range = Field(default=Range(low=0.8, high=1.25), description="multiplier on node $/h [1]")
    mbu: Range = Field(default=Range(low=0.75, high=1.2), description="multiplier on MBU, capped at MBU = 1 [1]")
    mfu: Range = Field(default=Range(low=0.75, high=1.2), description="multiplier on MFU, capped at MFU = 1 [1]")
    diffusion_throughput: Range = Field(
        default=Range(low=0.5, high=1.2), description="multiplier on diffusion options' capacity [1]"
    )
    diffusion_quality: Range = Field(
        default=Range(low=0.85, base=0.90, high=0.95),
        description="diffusion quality as a share of AR quality; the scenario's value is taken as base [1]",
    )


@dataclass(frozen=True)
class _Secants:
    """Elasticities of one efficiency factor between its base and each end of its range, per (W, O)."""

    capacity_low: FloatArray  # log(λ_max(low)/λ_max(base)) / log(low) [1]
    capacity_high: FloatArray  # same towards the high end [1]
    cost_low: FloatArray  # log(c(low)/c(base)) / log(low), used in pooled mode [1]
    cost_high: FloatArray  # [1]

    def exponent(self, m: FloatArray, kind: str) -> FloatArray:
        """``(N, W, O)`` exponent for multipliers ``m`` ``(N,)``: the low-side secant below 1, else the high."""
        low, high = (self.capacity_low, self.capacity_high) if kind == "capacity" else (self.cost_low, self.cost_high)
        return np.where(m[:, None, None] < 1.0, low[None], high[None])


@dataclass(frozen=True)
class Surrogate:
    """One evaluation plus secant elasticities of capacity and cost: what the vectorized draws need."""

    evaluation: Evaluation
    ranges: UncertaintyRanges
    able: NDArray[np.bool_]  # (W, O) could serve the workload, sovereignty aside (quality floor applied) [-]
    cost_usd: FloatArray  # (W, O) c per request where able, inf elsewhere [USD]
    mbu: _Secants
    mfu: _Secants
    mbu_cap: float  # largest MBU multiplier that keeps MBU ≤ 1 [1]
    mfu_cap: float  # largest MFU multiplier that keeps both MFUs ≤ 1 [1]
    #: the fleet plan at base: owned options are priced at the workload's marginal cost in it; None = stand-alone
    plan: FleetPlan | None = None


def _secant(base: FloatArray, other: FloatArray, m: float, fallback: float) -> FloatArray:
    """``log(other/base)/log(m)`` where both are finite and positive; ``fallback`` elsewhere or when m = 1."""
    if math.isclose(m, 1.0):
        return np.full(base.shape, fallback)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.log(other / base) / math.log(m)
    ok = np.isfinite(base) & np.isfinite(other) & (base > 0) & (other > 0) & np.isfinite(e)
    return np.where(ok, e, fallback)


def _raw_costs(ev: Evaluation) -> tuple[NDArray[np.bool_], FloatArray]:
    t = ev.table
    able = np.stack([o.feasible for o in ev.options], axis=1) & (t.quality >= ev.workloads.min_quality[:, None])
    raw = np.stack([o.cost for o in ev.options], axis=1).astype(np.float64)
    return able, np.where(able, raw, np.inf)


def _secants(scenario: Scenario, ev: Evaluation, name: str, low: float, high: float) -> _Secants:
    eff = scenario.efficiency
    fields = ("mbu",) if name == "mbu" else ("mfu_decode", "mfu_prefill")
    cap0, cost0 = ev.table.capacity_requests_per_s, _raw_costs(ev)[1]
    out: dict[str, FloatArray] = {}
    for side, m in (("low", low), ("high", high)):
        if math.isclose(m, 1.0):
            other = ev
        else:
            changed = eff.model_copy(update={f: getattr(eff, f) * m for f in fields})
            other = evaluate_arrays(scenario.model_copy(update={"efficiency": changed}))
        out[f"capacity_{side}"] = _secant(cap0, other.table.capacity_requests_per_s, m, 1.0)
        out[f"cost_{side}"] = _secant(cost0, _raw_costs(other)[1], m, -1.0)
    return _Secants(**out)


def build_surrogate(
    scenario: Scenario, ranges: UncertaintyRanges | None = None, *, basis: Literal["plan", "standalone"] = "plan"
) -> Surrogate:
    """Evaluate the scenario at base, and at the ends of the MBU and MFU ranges for the secant elasticities.

    Five calls to :func:`economics.evaluate.evaluate_arrays` (fewer when a range end is the base). Where an
    option is feasible at base but not at a range end, the secant falls back to capacity ∝ efficiency.
    ``basis="plan"`` (default, issue 10) also solves the fleet plan once: each draw then prices the owned
    options the plan may use at the workload's marginal cost in it (the rest of the plan held fixed, the
    draw's SLO capacity for the workload and node price applied), so each draw's route is the plan's
    decision. ``"standalone"``: every option on its own dedicated replicas (the labelled comparison).
    """
    rng = ranges or UncertaintyRanges()
    eff = scenario.efficiency
    ev = evaluate_arrays(scenario)
    able, cost = _raw_costs(ev)
    caps = {"mbu": 1.0 / eff.mbu, "mfu": 1.0 / max(eff.mfu_decode, eff.mfu_prefill)}
    secants = {}
    for name in ("mbu", "mfu"):
        low, high = (min(m, caps[name]) for m in getattr(rng, name).multipliers)
        secants[name] = _secants(scenario, ev, name, low, high)
    fp = plan_fleet(ev) if basis == "plan" else None
    if fp is not None:
        on_plan = fp.problem.allowed & ~ev.table.is_api[None, :]
        cost = np.where(on_plan, _plan_cost(fp, ev, np.ones((1, *cost.shape)))[0], cost)
    return Surrogate(
        evaluation=ev,
        ranges=rng,
        able=able,
        cost_usd=cost,
        mbu=secants["mbu"],
        mfu=secants["mfu"],
        mbu_cap=caps["mbu"],
        mfu_cap=caps["mfu"],
        plan=fp,
    )


#: Rows of (draw, workload) priced on the plan at once: bounds the (rows, options, hours) arrays to ~3M numbers.
_PLAN_ROWS = 20_000


#: A difference smaller than this share of the amounts it came from is floating-point rounding [1].
_RELATIVE_NOISE = 1e-9


def _plan_cost(fp: FleetPlan, ev: Evaluation, scale: FloatArray) -> FloatArray:
    """(N, W, O) each workload's marginal cost per attempt in the base plan on each owned option, the rest of
    the plan held fixed, when that option's SLO capacity for it is ``scale`` (N, W, O) times the base
    (:func:`economics.plan_accounts.marginal_usd_per_month`, draws in chunks); inf where the plan may not
    use the pair [USD]."""
    p = fp.problem
    n, w_count, o_count = scale.shape
    owned = np.flatnonzero(~p.is_api)
    vol = ev.table.avg_requests_per_s * SECONDS_PER_MONTH
    out = np.full(scale.shape, np.inf)
    step = max(1, _PLAN_ROWS // max(1, w_count))
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        rows = np.tile(np.arange(w_count), hi - lo)
        cap = np.broadcast_to(scale[lo:hi], (hi - lo, w_count, o_count)).reshape(-1, o_count)
        m = marginal_usd_per_month(p, fp.solution, rows, capacity_scale=cap, options=owned).reshape(
            hi - lo, w_count, -1
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            per_task = m / vol[None, :, None]
            c = (per_task - p.failure_usd[None]) / p.attempts[None]
            # the failure cost comes back out of a sum that held it: on a sunk node the difference is rounding
            # noise (the Reviews page showed S$9.02e-14/Mtok and a log axis down to 1e-13), so it is zero
            c = np.where(np.abs(c * p.attempts[None]) <= _RELATIVE_NOISE * np.abs(per_task), 0.0, c)
        out[lo:hi] = np.where(np.isfinite(m) & p.allowed[None], np.maximum(c, 0.0), np.inf)
    return out


@dataclass(frozen=True)
class _Draws:
    """Multipliers for N draws: per API offer, per node, and shared software/vendor factors."""

    api: FloatArray  # (N, O) multiplier on each option's API prices (1 for owned options)
    node: FloatArray  # (N, O) multiplier on the node behind each owned option (1 for APIs)
    mbu: FloatArray  # (N,)
    mfu: FloatArray  # (N,)
    diffusion_throughput: FloatArray  # (N,)
    diffusion_quality: FloatArray  # (N,) multiplier on diffusion quality (share / base share)


def _base_draws(sg: Surrogate, n: int) -> _Draws:
    o = len(sg.evaluation.table.option_ids)
    ones = np.ones(n)
    return _Draws(np.ones((n, o)), np.ones((n, o)), ones, ones.copy(), ones.copy(), ones.copy())


@dataclass(frozen=True)
class _Outcome:
    cost: FloatArray  # (N, W, O) c per request where able (sovereignty aside), inf elsewhere [USD]
    chosen: NDArray[np.intp]  # (N, W) among allowed options, −1 if none
    chosen_cost: FloatArray  # (N, W) [USD]
    monthly_cost: FloatArray  # (N, W) chosen route on the surrogate's basis (plan, stand-alone); 0 if none [USD/month]
    savings: FloatArray  # (N, W) best allowed API (lowest J) minus chosen; 0 without an allowed API [USD/month]
    owned_beats_api: NDArray[np.bool_]  # (N, W) best owned J < best API J, the API allowed or not


def _propagate(sg: Surrogate, d: _Draws) -> _Outcome:
    t = sg.evaluation.table
    is_api = t.is_api
    diffusion = t.kind == OWNED_DIFFUSION
    mbu, mfu = d.mbu[:, None, None], d.mfu[:, None, None]
    s_diffusion = np.where(diffusion, d.diffusion_throughput[:, None], 1.0)[:, None, :]
    s = mbu ** sg.mbu.exponent(d.mbu, "capacity") * mfu ** sg.mfu.exponent(d.mfu, "capacity") * s_diffusion
    avg, peak = t.avg_requests_per_s[None, :, None], t.peak_requests_per_s[None, :, None]
    lam0 = np.where(is_api, 1.0, t.capacity_requests_per_s)[None]
    fixed, var = t.replica_fixed_usd_per_hour, t.replica_variable_usd_per_hour
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if t.pooled:
            b0 = t.achieved_batch[None]
            diffusion_scale = np.where(b0 > 0, np.minimum(1.0, b0 / s_diffusion) / np.minimum(1.0, b0), 1.0)
            efficiency_scale = mbu ** sg.mbu.exponent(d.mbu, "cost") * mfu ** sg.mfu.exponent(d.mfu, "cost")
            scale = efficiency_scale * diffusion_scale
        else:

            def hourly(lam: FloatArray) -> FloatArray:
                r = np.maximum(1.0, np.ceil(peak / (t.target_utilization * lam) - 1e-9))
                return np.asarray(r * hourly_cost_usd(fixed, var, avg / (r * lam)), dtype=np.float64)

            scale = hourly(lam0 * s) / hourly(lam0)
        owned_cost = sg.cost_usd[None] * d.node[:, None, :] * scale
    if sg.plan is not None:  # on the plan: the marginal cost with this draw's capacity, times the node price
        on_plan = sg.plan.problem.allowed & ~is_api[None, :]
        s_full = np.broadcast_to(s, owned_cost.shape)
        plan_cost = _plan_cost(sg.plan, sg.evaluation, np.where(is_api[None, None, :], 1.0, s_full))
        owned_cost = np.where(on_plan[None], plan_cost * d.node[:, None, :], owned_cost)
    cost = np.where(is_api, sg.cost_usd[None] * d.api[:, None, :], owned_cost)
    cost = np.where(sg.able[None], cost, np.inf)
    q = np.where(diffusion, np.clip(t.quality[None] * d.diffusion_quality[:, None, None], 0.0, 1.0), t.quality[None])
    fail, m = t.failure_cost_usd[None, :, None], t.max_attempts[None, :, None]
    finite = np.isfinite(cost)
    j = np.where(finite, expected_cost_per_task(np.where(finite, cost, 0.0), q, fail, m), np.inf)
    j_allowed = np.where(t.allowed[None], j, np.inf)
    chosen = np.argmin(j_allowed, axis=2)
    j_min = np.take_along_axis(j_allowed, chosen[..., None], axis=2)[..., 0]
    chosen = np.where(np.isfinite(j_min), chosen, -1)
    picked = np.take_along_axis(cost, np.maximum(chosen, 0)[..., None], axis=2)[..., 0]
    chosen_cost = np.where(chosen >= 0, picked, np.inf)
    monthly = np.where(np.isfinite(chosen_cost), chosen_cost * avg[..., 0] * SECONDS_PER_MONTH, 0.0)
    # The API the router would pick among APIs (lowest J, so quality counts), as in evaluate's baseline.
    j_api = np.where(is_api & t.allowed, j, np.inf)
    api_pick = np.argmin(j_api, axis=2)[..., None]
    api_cost = np.where(np.isfinite(j_api.min(axis=2)), np.take_along_axis(cost, api_pick, axis=2)[..., 0], np.inf)
    has_api = np.isfinite(api_cost) & np.isfinite(chosen_cost)
    savings = np.where(has_api, api_cost * avg[..., 0] * SECONDS_PER_MONTH - monthly, 0.0)
    best_owned_j, best_api_j = np.where(is_api, np.inf, j).min(axis=2), np.where(is_api, j, np.inf).min(axis=2)
    return _Outcome(cost, chosen, chosen_cost, monthly, savings, best_owned_j < best_api_j)


# ---- tornado ------------------------------------------------------------------------------------------------


class TornadoBar(Frozen):
    """Fleet savings with one input at each end of its range, everything else at base."""

    input: str = Field(description="input id (see INPUT_LABELS) [-]")
    label: str = Field(description="what the input is [-]")
    low: float = Field(description="low end of the range [unit of the input]")
    high: float = Field(description="high end of the range [unit of the input]")
    savings_at_low_usd_per_month: float = Field(description="savings vs all-API at the low end [USD/month]")
    savings_at_high_usd_per_month: float = Field(description="savings vs all-API at the high end [USD/month]")
    cost_at_low_usd_per_month: float = Field(description="monthly cost of the chosen routes at the low end [USD/month]")
    cost_at_high_usd_per_month: float = Field(
        description="monthly cost of the chosen routes at the high end [USD/month]"
    )

    @property
    def swing_usd_per_month(self) -> float:
        """|savings at high − savings at low| [USD/month]."""
        return abs(self.savings_at_high_usd_per_month - self.savings_at_low_usd_per_month)

    @property
    def cost_swing_usd_per_month(self) -> float:
        """|cost at high − cost at low| [USD/month]."""
        return abs(self.cost_at_high_usd_per_month - self.cost_at_low_usd_per_month)


class Tornado(Frozen):
    """Savings vs all-API and cost of the chosen routes at base, and the bars (widest savings swing first).

    Costs are the per-workload costs of the chosen routes. On the plan basis (``priced_in_plan``, the default
    of :func:`build_surrogate`) an owned route is priced at the workload's marginal cost in the fleet plan, so
    at base the cost and the savings are the plan's (``FleetSummary.total_cost_usd_per_month`` and the savings
    vs all-API); on the stand-alone basis each route runs on its own dedicated replicas.
    """

    base_savings_usd_per_month: float = Field(description="savings vs all-API at the base values [USD/month]")
    base_cost_usd_per_month: float = Field(description="monthly cost of the chosen routes at base [USD/month]")
    bars: tuple[TornadoBar, ...] = Field(description="one bar per input, widest savings swing first [-]")
    priced_in_plan: bool = Field(
        default=True, description="owned routes at their marginal cost in the fleet plan; False = stand-alone [-]"
    )


def _with(sg: Surrogate, name: str, multiplier: float) -> _Draws:
    d = _base_draws(sg, 1)
    t = sg.evaluation.table
    value = np.array([multiplier])
    if name == "api_price":
        return _Draws(np.where(t.is_api, multiplier, 1.0)[None], d.node, d.mbu, d.mfu, *_tail(d))
    if name == "node_price":
        return _Draws(d.api, np.where(t.is_api, 1.0, multiplier)[None], d.mbu, d.mfu, *_tail(d))
    if name == "mbu":
        return _Draws(d.api, d.node, value, d.mfu, *_tail(d))
    if name == "mfu":
        return _Draws(d.api, d.node, d.mbu, value, *_tail(d))
    if name == "diffusion_throughput":
        return _Draws(d.api, d.node, d.mbu, d.mfu, value, d.diffusion_quality)
    return _Draws(d.api, d.node, d.mbu, d.mfu, d.diffusion_throughput, value)


def _tail(d: _Draws) -> tuple[FloatArray, FloatArray]:
    return d.diffusion_throughput, d.diffusion_quality


def _clipped(sg: Surrogate, name: str) -> tuple[float, float]:
    low, high = getattr(sg.ranges, name).multipliers
    cap = {"mbu": sg.mbu_cap, "mfu": sg.mfu_cap}.get(name, math.inf)
    return min(low, cap), min(high, cap)


def tornado(surrogate: Surrogate) -> Tornado:
    """Fleet savings vs all-API with each input at the low and high end of its range, widest swing first."""
    base = _propagate(surrogate, _base_draws(surrogate, 1))
    bars = []
    for name in _INPUTS:
        rng: Range = getattr(surrogate.ranges, name)
        lo_m, hi_m = _clipped(surrogate, name)
        lo, hi = (_propagate(surrogate, _with(surrogate, name, m)) for m in (lo_m, hi_m))
        bars.append(
            TornadoBar(
                input=name,
                label=INPUT_LABELS[name][0],
                low=lo_m * rng.base,
                high=hi_m * rng.base,
                savings_at_low_usd_per_month=float(lo.savings.sum()),
                savings_at_high_usd_per_month=float(hi.savings.sum()),
                cost_at_low_usd_per_month=float(lo.monthly_cost.sum()),
                cost_at_high_usd_per_month=float(hi.monthly_cost.sum()),
            )
        )
    bars.sort(key=lambda b: -b.swing_usd_per_month)
    return Tornado(
        base_savings_usd_per_month=float(base.savings.sum()),
        base_cost_usd_per_month=float(base.monthly_cost.sum()),
        bars=tuple(bars),
        priced_in_plan=surrogate.plan is not None,
    )


# ---- Monte Carlo --------------------------------------------------------------------------------------------

#: Columns of :attr:`MonteCarlo.workloads`.
WORKLOAD_BAND_COLUMNS: dict[str, str] = {
    "workload_id": "workload id [-]",
    "workload_name": "display name [-]",
    "base_option_id": "route chosen at the base values ('' if none) [-]",
    "base_usd_per_mtok": "chosen route's cost per million output tokens at base [USD/Mtok]",
    "p05_usd_per_mtok": "5th percentile over draws of the chosen route's cost [USD/Mtok]",
    "p50_usd_per_mtok": "median [USD/Mtok]",
    "p95_usd_per_mtok": "95th percentile [USD/Mtok]",
    "api_allowed": "an API may serve the workload (False for sovereign data) [-]",
    "prob_owned_beats_api": "share of draws where the best owned option has a lower J than the best API "
    "(for sovereign workloads: the API it may not use); NaN without both [1]",
    "prob_route_unchanged": "share of draws that choose the base route [1]",
    "prob_fleet_short": "for a base route on owned capacity that costs nothing at the base values (a bought node "
    "in the cash lens): share of draws in which it costs more, because the draw's slower GPUs need capacity beyond "
    "the plan's fleet, charged at its full price; NaN for other routes [1]",
}

#: Columns of :attr:`MonteCarlo.options`: options able to serve the workload (APIs of sovereign workloads
#: included, marked not allowed).
OPTION_BAND_COLUMNS: dict[str, str] = {
    "workload_id": "workload id [-]",
    "option_id": "option id [-]",
    "option_name": "display name [-]",
    "kind": "owned-ar, owned-diffusion or api [-]",
    "allowed": "sovereignty allows the option for this workload [-]",
    "base_usd_per_mtok": "cost per million output tokens at base [USD/Mtok]",
    "p05_usd_per_mtok": "5th percentile [USD/Mtok]",
    "p50_usd_per_mtok": "median [USD/Mtok]",
    "p95_usd_per_mtok": "95th percentile [USD/Mtok]",
}


@dataclass(frozen=True)
class MonteCarlo:
    """Bands over ``draws`` seeded draws; tables have the documented columns."""

    draws: int
    seed: int
    workloads: pd.DataFrame  # WORKLOAD_BAND_COLUMNS
    options: pd.DataFrame  # OPTION_BAND_COLUMNS
    savings_p05_usd_per_month: float
    savings_p50_usd_per_month: float
    savings_p95_usd_per_month: float


def _triangular(rng: np.random.Generator, low: float, high: float, size: int | tuple[int, int]) -> FloatArray:
    """Triangular draws on multipliers [low, high] with the mode at 1 (the scenario's value) clipped into the
    range; constant when the range is a point."""
    if high <= low:
        return np.full(size, low)
    return rng.triangular(low, min(max(1.0, low), high), high, size)


def _draw(surrogate: Surrogate, n: int, seed: int) -> _Draws:
    """``n`` seeded draws: one multiplier per API offer and per node, shared software and vendor factors."""
    rng = np.random.default_rng(seed)
    t = surrogate.evaluation.table
    o = len(t.option_ids)
    api = np.ones((n, o))
    api_cols = np.flatnonzero(t.is_api)
    api[:, api_cols] = _triangular(rng, *_clipped(surrogate, "api_price"), (n, len(api_cols)))
    node = np.ones((n, o))
    nodes = _triangular(rng, *_clipped(surrogate, "node_price"), (n, max(1, len(t.node_ids))))
    owned = np.flatnonzero(~t.is_api)
    node[:, owned] = nodes[:, t.node_index[owned]]
    shared = [_triangular(rng, *_clipped(surrogate, name), n) for name in _INPUTS[2:]]
    return _Draws(api, node, *shared)


#: Most draws × workloads × options one Monte Carlo holds [cells]: each (N, W, O) array of the draws is 8 bytes a
#: cell, and a few are alive at once. A 5,000-workload upload at 10,000 draws grew past 15 GB before this cap.
MAX_DRAW_CELLS = 4_000_000


def draws_that_fit(n: int, workloads: int, options: int) -> int:
    """``n``, or fewer so that draws × workloads × options stays within :data:`MAX_DRAW_CELLS` (at least 1).

    >>> draws_that_fit(10_000, 5, 8), draws_that_fit(10_000, 5_000, 8), draws_that_fit(10, 10**6, 10)
    (10000, 100, 1)
    """
    return max(1, min(n, MAX_DRAW_CELLS // max(1, workloads * options)))


def monte_carlo(surrogate: Surrogate, n: int = 10_000, seed: int = 0) -> MonteCarlo:
    """Seeded Monte Carlo over the ranges: bands on $/Mtok and P(owned beats API) per workload.

    A scenario too large for ``n`` draws in memory gets fewer (:func:`draws_that_fit`); ``draws`` on the result
    says how many were made, and every page and the meeting pack print that number."""
    if n < 1:
        raise ValueError("n must be at least 1")
    ev = surrogate.evaluation
    t, sc = ev.table, ev.scenario
    n = draws_that_fit(n, len(sc.workloads), len(t.option_ids))
    out = _propagate(surrogate, _draw(surrogate, n, seed))
    base = _propagate(surrogate, _base_draws(surrogate, 1))
    per_mtok = MTOK / t.output_tokens
    chosen_mtok = np.where(np.isfinite(out.chosen_cost), out.chosen_cost * per_mtok[None], 0.0)
    p05, p50, p95 = np.asarray(np.percentile(chosen_mtok, [5, 50, 95], axis=0), dtype=np.float64)
    has_both = np.asarray((surrogate.able & t.is_api).any(axis=1) & (surrogate.able & ~t.is_api).any(axis=1))
    api_allowed = np.asarray((t.allowed & t.is_api).any(axis=1))
    base_chosen = base.chosen[0]
    rows = []
    for w, wl in enumerate(sc.workloads):
        ch = int(base_chosen[w])
        sunk = ch >= 0 and not t.is_api[ch] and base.chosen_cost[0, w] == 0.0
        rows.append(
            {
                "workload_id": wl.id,
                "workload_name": wl.name,
                "base_option_id": t.option_ids[ch] if ch >= 0 else "",
                "base_usd_per_mtok": float(base.chosen_cost[0, w] * per_mtok[w]) if ch >= 0 else math.nan,
                "p05_usd_per_mtok": float(p05[w]) if ch >= 0 else math.nan,
                "p50_usd_per_mtok": float(p50[w]) if ch >= 0 else math.nan,
                "p95_usd_per_mtok": float(p95[w]) if ch >= 0 else math.nan,
                "api_allowed": bool(api_allowed[w]),
                "prob_owned_beats_api": float(out.owned_beats_api[:, w].mean()) if has_both[w] else math.nan,
                "prob_route_unchanged": float((out.chosen[:, w] == ch).mean()),
                "prob_fleet_short": float((out.cost[:, w, ch] > 0.0).mean()) if sunk else math.nan,
            }
        )
    option_rows = []
    cost_mtok = np.where(np.isfinite(out.cost), out.cost * per_mtok[None, :, None], 0.0)
    q05, q50, q95 = np.asarray(np.percentile(cost_mtok, [5, 50, 95], axis=0), dtype=np.float64)
    for w, wl in enumerate(sc.workloads):
        for o, oid in enumerate(t.option_ids):
            if not surrogate.able[w, o]:
                continue
            option_rows.append(
                {
                    "workload_id": wl.id,
                    "option_id": oid,
                    "option_name": ev.option_names[o],
                    "kind": OPTION_KINDS[int(t.kind[o])],
                    "allowed": bool(t.allowed[w, o]),
                    "base_usd_per_mtok": float(surrogate.cost_usd[w, o] * per_mtok[w]),
                    "p05_usd_per_mtok": float(q05[w, o]),
                    "p50_usd_per_mtok": float(q50[w, o]),
                    "p95_usd_per_mtok": float(q95[w, o]),
                }
            )
    fleet = out.savings.sum(axis=1)
    s05, s50, s95 = np.percentile(fleet, [5, 50, 95])
    return MonteCarlo(
        draws=n,
        seed=seed,
        workloads=pd.DataFrame(rows, columns=list(WORKLOAD_BAND_COLUMNS)),
        options=pd.DataFrame(option_rows, columns=list(OPTION_BAND_COLUMNS)),
        savings_p05_usd_per_month=float(s05),
        savings_p50_usd_per_month=float(s50),
        savings_p95_usd_per_month=float(s95),
    )
