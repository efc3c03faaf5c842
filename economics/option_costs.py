"""Every option's operating point and cost for every workload at once (docs/serving.md#serving-and-queues to
docs/costs.md#unit-costs, docs/routing.md#routing-rule steps 2–3).

One serving call per owned option (and per speculation setting of an AR option) covers all workloads as
arrays; APIs are closed-form. The results feed the router (:mod:`economics.routing`) and the result
assembly of :func:`economics.evaluate.evaluate`. Glue code: the formulas live in :mod:`economics.costs`
and :mod:`economics.serving`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from economics.costs import (
    api_offer_cost_per_request,
    batch_tier_usable,
    hourly_cost_usd,
    node_cost_fixed_and_variable,
    owned_cost_per_request,
)
from economics.demand import DEFERRABLE_DEADLINE_S, day_demand
from economics.finance.rental import billed_per_hour_used, billing_reasons
from economics.finance.serverless import serverless_extra_usd_per_request_rows
from economics.finance.terms import RentalTerms
from economics.hardware import Deployment
from economics.measured import measured_capacity
from economics.model import ModelSpec
from economics.offers import ApiOffer, OwnedNode, RentedNode
from economics.routing import API, OWNED_AR, OWNED_DIFFUSION
from economics.scenario import OwnedOption, Scenario
from economics.schemes import ARScheme, DiffusionScheme, SpeculativeScheme
from economics.serving import replicas_for_peak
from economics.serving.memo import continuous_batching, slo_capacity  # remembered: a price edit re-asks the same
from economics.workload import Workload

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
StrArray = NDArray[np.object_]

REASON_SOVEREIGN = "sovereign data may not leave owned infrastructure"


@dataclass(frozen=True)
class WorkloadArrays:
    """The scenario's workloads as ``(W,)`` arrays; absent SLOs are ``inf``, an absent deadline NaN."""

    avg: FloatArray  # λ_avg [req/s]
    peak: FloatArray  # λ_peak, or the busiest hour of a profile, or a deferrable volume's rate [req/s]
    input_tokens: FloatArray  # T_in [tokens]
    output_tokens: FloatArray  # T_out [tokens]
    ttft_slo: FloatArray  # [s], inf = none
    tpot_slo: FloatArray  # [s], inf = none
    deadline: FloatArray  # [s], NaN = none
    cache_hit: FloatArray  # h [1]
    sovereign: BoolArray  # [-]
    failure_cost: FloatArray  # C_fail [USD]
    min_quality: FloatArray  # [1], 0 = none
    max_attempts: FloatArray  # m [count]
    #: (W, H) each hour's rate over the day's mean rate (the day profile; one flat period without one) [1]
    day_shape: FloatArray | None = None

    @property
    def day_rates(self) -> FloatArray:
        """(W, H) the rate in each hour of the day profile, ``λ_avg·shape`` [req/s]."""
        shape = np.ones((len(self.avg), 1)) if self.day_shape is None else self.day_shape
        return np.asarray(self.avg[:, None] * shape, dtype=np.float64)

    @classmethod
    def of(cls, scenario: Scenario) -> WorkloadArrays:
        ws = scenario.workloads

        def arr(values: list[float | None], none: float) -> FloatArray:
            return np.array([none if v is None else v for v in values], dtype=np.float64)

        return cls(
            avg=arr([w.avg_requests_per_s for w in ws], 0.0),
            peak=day_demand(ws).sizing_peak,
            input_tokens=arr([w.input_tokens for w in ws], 0.0),
            output_tokens=arr([w.decoded_output_tokens for w in ws], 0.0),  # hidden output too
            ttft_slo=arr([w.ttft_slo_s for w in ws], np.inf),
            tpot_slo=arr([w.tpot_slo_s for w in ws], np.inf),
            deadline=arr([w.deadline_s for w in ws], np.nan),
            cache_hit=arr([w.prompt_cache_hit_rate for w in ws], 0.0),
            sovereign=np.array([w.sovereign for w in ws], dtype=bool),
            failure_cost=arr([w.failure_cost_usd for w in ws], 0.0),
            min_quality=arr([w.min_quality for w in ws], 0.0),
            max_attempts=arr([w.max_attempts for w in ws], 1.0),
            day_shape=_day_shape(ws),
        )

    @classmethod
    def sweep(
        cls, workload: Workload, avg_requests_per_s: FloatArray, peak_requests_per_s: FloatArray
    ) -> WorkloadArrays:
        """One workload's shape at many demand levels (a grid axis)."""
        n = avg_requests_per_s.shape

        def full(v: float | None, none: float) -> FloatArray:
            return np.full(n, none if v is None else float(v))

        return cls(
            avg=np.asarray(avg_requests_per_s, dtype=np.float64),
            peak=np.asarray(peak_requests_per_s, dtype=np.float64),
            input_tokens=full(workload.input_tokens, 0.0),
            output_tokens=full(workload.decoded_output_tokens, 0.0),
            ttft_slo=full(workload.ttft_slo_s, np.inf),
            tpot_slo=full(workload.tpot_slo_s, np.inf),
            deadline=full(workload.deadline_s, np.nan),
            cache_hit=full(workload.prompt_cache_hit_rate, 0.0),
            sovereign=np.full(n, workload.sovereign),
            failure_cost=full(workload.failure_cost_usd, 0.0),
            min_quality=full(workload.min_quality, 0.0),
            max_attempts=full(workload.max_attempts, 1.0),
            day_shape=np.repeat(_day_shape((workload,)), int(np.prod(n)), axis=0),
        )

    @property
    def latency_slo(self) -> BoolArray:
        """The workload has an interactive SLO (TTFT or TPOT) [-]."""
        return np.asarray(np.isfinite(self.ttft_slo) | np.isfinite(self.tpot_slo), dtype=np.bool_)

    @property
    def deadline_or_inf(self) -> FloatArray:
        return np.where(np.isnan(self.deadline), np.inf, self.deadline)

    @property
    def deferrable(self) -> BoolArray:
        """A deadline of an hour or more and no interactive SLO (:func:`economics.demand.is_deferrable`) [-]."""
        return np.asarray(self.deadline_or_inf >= DEFERRABLE_DEADLINE_S, dtype=np.bool_) & ~self.latency_slo

    @property
    def sizing_rates(self) -> FloatArray:
        """(W, H) the rate the replicas must carry in each hour of the day profile, its busiest hour at the
        sizing peak: ``λ_peak · s_h / max s`` (the profile's hourly rates; ``λ_peak`` every hour without one),
        or for a deferrable workload its spread rate in every hour of its window [req/s]."""
        shape = np.ones((len(self.avg), 1)) if self.day_shape is None else self.day_shape
        top = shape.max(axis=1, keepdims=True)
        scaled = self.peak[:, None] * np.where(top > 0, shape / np.where(top > 0, top, 1.0), 1.0)
        spread = np.where(shape > 0, self.peak[:, None], 0.0)
        return np.asarray(np.where(self.deferrable[:, None], spread, scaled), dtype=np.float64)


def _day_shape(workloads: tuple[Workload, ...]) -> FloatArray:
    """(W, H) each workload's billed rate in each hour of its day profile over its mean rate [1]."""
    bill = day_demand(workloads).bill_rate
    mean = bill.mean(axis=1, keepdims=True)
    return np.asarray(np.where(mean > 0, bill / np.where(mean > 0, mean, 1.0), 1.0), dtype=np.float64)


def paid_replicas_per_hour(
    sizing_rates: FloatArray, capacity: FloatArray, target_utilization: float, replicas_at_peak: FloatArray
) -> FloatArray:
    """(W,) replicas an offer billed per hour used pays for, on average over the day: each hour ``h`` of the
    profile runs ``R_h = ceil(λ_h / (u_target·λ_max))`` replicas and pays each for that hour, as the fleet plan
    does (:mod:`economics.plan`); ``replicas_at_peak`` where there is no capacity or no demand [count].

    .. math:: R̄ = (1/H) · Σ_h ceil(λ_h / (u_{target} · λ_{max}))

    >>> # 8 h needing 2 replicas and 16 h needing 1: (8·2 + 16·1)/24 = 4/3
    >>> rates = np.array([[15.0] * 8 + [5.0] * 16])
    >>> paid_replicas_per_hour(rates, np.array([10.0]), 0.8, np.array([2.0])).round(4).tolist()
    [1.3333]
    """
    ok = capacity > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        need = sizing_rates / (target_utilization * np.where(ok, capacity, 1.0))[:, None]
    paid = np.ceil(need * (1.0 - 1e-12)).mean(axis=1)  # an exact multiple does not buy a spare replica
    return np.asarray(np.where(ok & (paid > 0), paid, replicas_at_peak), dtype=np.float64)


def serverless_idle_usd(scenario: Scenario, option: OwnedOption, w: WorkloadArrays, capacity: FloatArray) -> FloatArray:
    """(W,) what a serverless option bills per request beyond its busy time, over each workload's day profile:
    warm idle, cold starts and billing increments (:mod:`economics.finance.serverless`, as the plan prices it,
    one attempt per request); 0 for any other option [USD]."""
    node = scenario.node(option.node_id)
    if not (isinstance(node, RentedNode) and node.pricing_type == "serverless"):
        return np.zeros_like(w.avg)
    _, variable = replica_cost_split(scenario, option)
    with np.errstate(divide="ignore"):
        busy_s = np.where(capacity > 0, 1.0 / np.where(capacity > 0, capacity, 1.0), 0.0)
    terms = node.billing or RentalTerms()
    return serverless_extra_usd_per_request_rows(w.day_rates, busy_s, terms, variable)


@dataclass(frozen=True)
class OptionArrays:
    """One option evaluated for every workload; all ``(W,)``. Infeasible entries cost ``inf``."""

    kind: int  # OWNED_AR, OWNED_DIFFUSION or API
    cost: FloatArray  # c per request [USD]
    feasible: BoolArray  # able to serve the workload (sovereignty is applied by the caller) [-]
    reason: StrArray  # why not, '' when feasible [-]
    tpot: FloatArray  # at the average load [s]
    ttft: FloatArray  # at the average load [s]
    capacity: FloatArray  # λ_max per replica; inf for an API [req/s]
    replicas: FloatArray  # R; 0 for an API [count]
    gpus: FloatArray  # R·N; 0 for an API [count]
    utilization: FloatArray  # λ_avg/(R_paid·λ_max), R_paid the mean replicas paid per hour; 0 for an API [1]
    batch: FloatArray  # B* per replica at the average load [count]
    batchability: FloatArray  # β = λ_peak·T_out·TPOT(1) on this option [1]
    speculation_on: BoolArray  # [-]
    batch_tier: BoolArray  # [-]
    price_multiplier: FloatArray  # (1 − negotiated)(1 − batch) for an API, 1 for owned [1]
    replica_fixed_usd_per_hour: float  # C_fixed of one replica [USD/h]
    replica_variable_usd_per_hour: float  # C_var of one replica at full load [USD/h]
    replica_share_of_node: float  # N / GPUs per node [1]


def replica_cost_split(scenario: Scenario, option: OwnedOption) -> tuple[float, float]:
    """``(C_fixed, C_var)`` of one replica of ``option``: its GPUs' share ``N / GPUs per node`` of the node's
    ``C_h(U) = C_fixed + C_var·U`` (:func:`economics.costs.node_cost_fixed_and_variable`) [USD/h, USD/h at U = 1]."""
    node = scenario.node(option.node_id)
    share = option.gpus_per_replica / node.gpus_per_node
    fixed_node, variable_node = node_cost_fixed_and_variable(node)
    return fixed_node * share, variable_node * share


def replica_usd_per_hour(scenario: Scenario, option: OwnedOption, utilization: float = 1.0) -> float:
    """Cost of one replica of ``option`` for an hour at ``utilization``: ``C_h(U) = C_fixed + C_var·U`` of its
    share of the node (:func:`replica_cost_split`, :func:`economics.costs.hourly_cost_usd`) [USD/h]; at full load
    by default, the Batching page's cost while busy."""
    fixed, variable = replica_cost_split(scenario, option)
    return hourly_cost_usd(fixed, variable, utilization)


@dataclass(frozen=True)
class _Replica:
    """What an owned option's variants (plain AR, speculation) share: the replica and the distinct shapes."""

    model: ModelSpec
    deployment: Deployment
    share: float  # N / GPUs per node [1]
    fixed_usd_per_hour: float  # C_fixed of one replica [USD/h]
    variable_usd_per_hour: float  # C_var of one replica at full load [USD/h]
    shapes: FloatArray  # (S, 5) distinct (T_in, T_out, TPOT SLO, TTFT SLO, deadline) rows
    inverse: NDArray[np.intp]  # (W,) row of ``shapes`` of each workload

    @classmethod
    def of(cls, scenario: Scenario, option: OwnedOption, w: WorkloadArrays) -> _Replica:
        node = scenario.node(option.node_id)
        gpu = scenario.gpu(node.gpu_id)
        fixed, variable = replica_cost_split(scenario, option)
        # SLO capacity depends only on the workload's shape and SLOs: solve it once per distinct shape
        rows = np.stack([w.input_tokens, w.output_tokens, w.tpot_slo, w.ttft_slo, w.deadline_or_inf], axis=1)
        unique, inverse = np.unique(rows, axis=0, return_inverse=True)
        return cls(
            model=scenario.model(option.model_id).at_precision(option.precision),
            deployment=Deployment(gpu=gpu, n_gpus=option.gpus_per_replica, precision=option.precision),
            share=option.gpus_per_replica / node.gpus_per_node,
            fixed_usd_per_hour=fixed,
            variable_usd_per_hour=variable,
            shapes=unique,
            inverse=np.asarray(inverse, dtype=np.intp).reshape(-1),
        )


def _owned_variant(
    scenario: Scenario,
    option: OwnedOption,
    replica: _Replica,
    scheme: ARScheme | SpeculativeScheme | DiffusionScheme,
    w: WorkloadArrays,
) -> OptionArrays:
    model, deployment = replica.model, replica.deployment
    eff = option.effective_efficiency(scenario.efficiency)
    policy = scenario.policy
    unique, inverse = replica.shapes, replica.inverse
    cap = slo_capacity(
        model,
        deployment,
        eff,
        scheme,
        unique[:, 0],
        unique[:, 1],
        tpot_max_s=unique[:, 2],
        ttft_max_s=unique[:, 3],
        deadline_s=unique[:, 4],
    )
    lam_max, feasible = measured_capacity(  # the user's benchmark, where given, replaces the model's capacity
        option.measured, w.output_tokens, cap.max_arrival_rate_per_s[inverse], np.asarray(cap.feasible[inverse], bool)
    )
    plan = replicas_for_peak(
        w.peak,
        np.where(feasible, lam_max, 0.0),
        option.gpus_per_replica,
        average_arrival_rate_per_s=w.avg,
        target_utilization=policy.target_utilization,
    )
    replicas = np.where(feasible, plan.replicas, 1.0)
    per_replica = w.avg / replicas
    cb = continuous_batching(model, deployment, eff, scheme, per_replica, w.input_tokens, w.output_tokens)
    mode_reason = billing_reasons(scenario.node(option.node_id), w.latency_slo, w.ttft_slo, cb.ttft_s)
    cap_reason = np.where(mode_reason != "", mode_reason, cap.reason[inverse])
    feasible = feasible & (mode_reason == "")
    fixed, variable = replica.fixed_usd_per_hour, replica.variable_usd_per_hour
    # An offer paid only for the hours it runs (on-demand, negotiated, spot) pays each hour's replicas for that
    # hour, as the plan does; any other pays the busiest hour's replicas all day (docs/finance.md).
    paid = replicas
    if billed_per_hour_used(scenario.node(option.node_id)):
        paid = paid_replicas_per_hour(
            w.sizing_rates, np.where(feasible, lam_max, 0.0), policy.target_utilization, replicas
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        util = np.where(feasible, np.where(paid > 0, w.avg / (paid * np.where(feasible, lam_max, 1.0)), 0.0), 0.0)
    # One owned-cost path whatever the old cost_mode says: the stand-alone comparison prices dedicated
    # replicas with C_h(U) = fixed + variable·U (economics.costs.node_cost_fixed_and_variable), utilization
    # over the replica-hours paid.
    cost = owned_cost_per_request(fixed, variable, paid, util, w.avg)
    # a serverless GPU also bills warm idle, cold starts and increments over the day profile, not busy time only
    cost = cost + serverless_idle_usd(scenario, option, w, np.where(feasible, lam_max, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        beta = np.where(per_replica > 0, cb.batchability * w.peak / per_replica, 0.0)
    reason = np.where(feasible, "", cap_reason).astype(object)
    kind = OWNED_DIFFUSION if isinstance(scheme, DiffusionScheme) else OWNED_AR
    return OptionArrays(
        kind=kind,
        cost=np.where(feasible, cost, np.inf),
        feasible=feasible,
        reason=reason,
        tpot=np.where(feasible, cb.tpot_s, np.inf),
        ttft=np.where(feasible, cb.ttft_s, np.inf),
        capacity=np.where(feasible, lam_max, 0.0),
        replicas=np.where(feasible, replicas, 0.0),
        gpus=np.where(feasible, replicas * option.gpus_per_replica, 0.0),
        utilization=util,
        batch=np.where(feasible, cb.batch, 0.0),
        batchability=np.nan_to_num(beta, nan=0.0, posinf=0.0),
        speculation_on=np.full(w.avg.shape, isinstance(scheme, SpeculativeScheme)),
        batch_tier=np.zeros(w.avg.shape, dtype=bool),
        price_multiplier=np.ones_like(w.avg),
        replica_fixed_usd_per_hour=fixed,
        replica_variable_usd_per_hour=variable,
        replica_share_of_node=replica.share,
    )


def _pick(a: OptionArrays, b: OptionArrays, take_b: BoolArray) -> OptionArrays:
    def sel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.where(take_b, y, x)

    return OptionArrays(
        kind=a.kind,
        cost=sel(a.cost, b.cost),
        feasible=sel(a.feasible, b.feasible),
        reason=sel(a.reason, b.reason),
        tpot=sel(a.tpot, b.tpot),
        ttft=sel(a.ttft, b.ttft),
        capacity=sel(a.capacity, b.capacity),
        replicas=sel(a.replicas, b.replicas),
        gpus=sel(a.gpus, b.gpus),
        utilization=sel(a.utilization, b.utilization),
        batch=sel(a.batch, b.batch),
        batchability=a.batchability,  # β is defined on plain AR at batch 1 (docs/routing.md#routing-rule)
        speculation_on=sel(a.speculation_on, b.speculation_on),
        batch_tier=a.batch_tier,
        price_multiplier=a.price_multiplier,
        replica_fixed_usd_per_hour=a.replica_fixed_usd_per_hour,
        replica_variable_usd_per_hour=a.replica_variable_usd_per_hour,
        replica_share_of_node=a.replica_share_of_node,
    )


def owned_option_arrays(scenario: Scenario, option: OwnedOption, w: WorkloadArrays) -> OptionArrays:
    """An owned option for every workload: SLO capacity, replicas for the peak, operating point, cost.

    An AR option with speculation is "optimized AR" (docs/specdec.md#optimized-ar): both settings are evaluated and each
    workload gets the one that is feasible and cheaper per request (then faster per token).
    """
    if option.prefix_caching:  # the cached share of the prompt skips prefill (token_billing module doc)
        w = replace(w, input_tokens=np.maximum(1.0, w.input_tokens * (1.0 - w.cache_hit)))
    replica = _Replica.of(scenario, option, w)
    plain = _owned_variant(scenario, option, replica, option.scheme, w)
    if option.speculation is None:
        return plain
    spec = _owned_variant(scenario, option, replica, option.speculation, w)
    better = spec.feasible & (
        ~plain.feasible | (spec.cost < plain.cost) | ((spec.cost == plain.cost) & (spec.tpot < plain.tpot))
    )
    return _pick(plain, spec, better)


def api_usd_per_task(scenario: Scenario, workload_id: str) -> dict[str, float]:
    """Each API's price of one task of ``workload_id`` (cache, negotiated and batch discounts included), whether
    the workload may use it or not: an API kept out by sovereignty still has a price to compare with [USD]."""
    arrays = WorkloadArrays.of(scenario)
    index = [w.id for w in scenario.workloads].index(workload_id)
    return {a.id: float(api_option_arrays(a, arrays).cost[index]) for a in scenario.apis}


def api_option_arrays(api: ApiOffer, w: WorkloadArrays) -> OptionArrays:
    """An API for every workload: list price with cache, negotiated discount and (where the deadline allows)
    the batch tier; feasible iff the provider's typical latency meets the workload's SLOs (docs/routing.md#routing-rule
    step 3)."""
    batch = batch_tier_usable(api, w.deadline, w.latency_slo)
    cost = api_offer_cost_per_request(api, w.input_tokens, w.output_tokens, w.cache_hit, batch, w.avg)
    tpot = np.full(w.avg.shape, 1.0 / api.typical_output_tokens_per_s)
    ttft = np.full(w.avg.shape, api.typical_ttft_s)
    e2e = ttft + w.output_tokens * tpot
    slow_ttft = ttft > w.ttft_slo
    slow_tpot = tpot > w.tpot_slo
    late = ~batch & (e2e > w.deadline_or_inf)
    reason = np.select(
        [slow_ttft, slow_tpot, late],
        [
            f"typical TTFT {api.typical_ttft_s:g} s misses the TTFT SLO",
            f"typical {1e3 / api.typical_output_tokens_per_s:.3g} ms per token misses the TPOT SLO",
            "typical end-to-end time misses the deadline",
        ],
        default="",
    ).astype(object)
    feasible = reason == ""
    keep = (1.0 - api.negotiated_discount_fraction) * np.where(batch, 1.0 - api.batch_discount_fraction, 1.0)
    return OptionArrays(
        kind=API,
        cost=np.where(feasible, cost, np.inf),
        feasible=np.asarray(feasible, dtype=bool),
        reason=reason,
        tpot=tpot,
        ttft=ttft,
        capacity=np.full(w.avg.shape, np.inf),
        replicas=np.zeros_like(w.avg),
        gpus=np.zeros_like(w.avg),
        utilization=np.zeros_like(w.avg),
        batch=np.zeros_like(w.avg),
        batchability=np.zeros_like(w.avg),
        speculation_on=np.zeros(w.avg.shape, dtype=bool),
        batch_tier=batch,
        price_multiplier=np.asarray(keep, dtype=np.float64),
        replica_fixed_usd_per_hour=0.0,
        replica_variable_usd_per_hour=0.0,
        replica_share_of_node=0.0,
    )


def is_owned_node(scenario: Scenario, node_id: str) -> bool:
    """The node offer is owned (bought), not rented [-]."""
    return isinstance(scenario.node(node_id), OwnedNode)
