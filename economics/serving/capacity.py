"""SLO-constrained capacity ("goodput") of a replica and the replicas a peak needs (docs/serving.md#slo-capacity)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from economics.capacity import kv_capacity
from economics.hardware import Deployment, Efficiency
from economics.iteration import AnyScheme
from economics.model import FloatArray, ModelSpec
from economics.serving.affine import AffinePass, Lines, largest_x_within, scaled, sum_of_maxima
from economics.serving.passes import (
    DEFAULT_MAX_ITERATION_S,
    DEFAULT_PREFILL_CHUNK_TOKENS,
    ServingShape,
    affine_pass_terms,
    iteration_time_at,
    kv_bytes_per_sequence,
    prompt_chunks,
    request_latency,
    roofline_pass_time,
    serving_shape,
)
from economics.serving.solvers import largest_within

BoolArray = NDArray[np.bool_]
StrArray = NDArray[np.str_]

#: Names of the constraint that sets ``λ_max`` (``SloCapacity.binding``).
BINDING = ("tpot", "ttft", "deadline", "iteration_cap", "kv_memory", "prefill_budget")

REASON_NO_FIT = "model does not fit in memory"
REASON_ONE_SEQUENCE = "the KV cache of one request does not fit in memory"
REASON_TPOT = "TPOT SLO missed even at zero load (batch → 0)"
REASON_TTFT = "TTFT SLO missed even at zero load (batch → 0)"
REASON_DEADLINE = "end-to-end deadline missed even at zero load (batch → 0)"
REASON_CAP = "iteration time above the overload cap even at zero load"

CapacityMethod = Literal["auto", "closed_form", "bisect"]


def _slo(value: ArrayLike | None) -> FloatArray:
    """An SLO array with ``None`` meaning off (``inf``)."""
    out = np.asarray(np.inf if value is None else value, dtype=np.float64)
    if np.any(np.isnan(out)) or np.any(out <= 0):
        raise ValueError("latency SLOs must be > 0 (None or inf for off)")
    return out


@dataclass(frozen=True)
class SloCapacity:
    """Largest arrival rate one replica serves within its SLOs, and the operating point there.

    Where ``feasible`` is False, ``max_arrival_rate_per_s`` is 0, the operating-point arrays are ``inf``
    and ``reason`` says why.
    """

    max_arrival_rate_per_s: FloatArray  # λ_max, goodput of one replica [req/s]
    iteration_time_s: FloatArray  # t* at λ_max [s]
    batch: FloatArray  # B* at λ_max [count]
    tpot_s: FloatArray  # time per output token at λ_max [s]
    ttft_s: FloatArray  # mean time to first token at λ_max [s]
    e2e_mean_s: FloatArray  # mean end-to-end latency at λ_max [s]
    output_tokens_per_s: FloatArray  # λ_max·T_out [tok/s]
    feasible: BoolArray  # λ_max > 0 [-]
    binding: StrArray  # constraint that sets λ_max, one of BINDING; '' when infeasible [-]
    reason: StrArray  # why infeasible; '' when feasible [-]


def slo_capacity(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    scheme: AnyScheme,
    input_tokens: ArrayLike,
    output_tokens: ArrayLike,
    *,
    tpot_max_s: ArrayLike | None = None,
    ttft_max_s: ArrayLike | None = None,
    deadline_s: ArrayLike | None = None,
    prefill_chunk_tokens: ArrayLike = DEFAULT_PREFILL_CHUNK_TOKENS,
    max_iteration_s: float = DEFAULT_MAX_ITERATION_S,
    kv_reserve_bytes: float = 0.0,
    method: CapacityMethod = "auto",
) -> SloCapacity:
    """Capacity of one continuously batched replica under latency SLOs (docs/serving.md#slo-capacity).

    ``λ_max = max λ s.t. stable ∧ TPOT ≤ TPOT_max ∧ TTFT ≤ TTFT_max ∧ E2E ≤ D ∧ B*·S_avg·r_kv·kv_tok ≤ M_free``

    with the steady state of :func:`~economics.serving.continuous.continuous_batching` (same defaults).

    Parameters
    ----------
    model, deployment, efficiency, scheme : the replica and its decoding scheme.
    input_tokens, output_tokens : mean ``T_in`` and ``T_out`` [tokens].
    tpot_max_s : time-per-output-token SLO [s]; None (or inf) for none.
    ttft_max_s : mean time-to-first-token SLO [s]; None for none.
    deadline_s : mean end-to-end deadline [s]; None for none.
    prefill_chunk_tokens : chunked-prefill budget ``C_chunk`` per iteration [tokens].
    max_iteration_s : iteration times above this count as overload [s].
    kv_reserve_bytes : memory held back from the KV cache [B].
    method : ``"closed_form"`` (dense model, EAGLE's dense draft included), ``"bisect"`` (anything), or
        ``"auto"`` (the closed form wherever it exists).

    Returns
    -------
    SloCapacity, broadcast over every array argument.

    Notes
    -----
    The search runs in ``x = λ·t`` (requests arriving per iteration) instead of ``λ``: at a given ``x`` the
    iteration time is explicit, ``t = h(x)``, and so are ``B = x·T_out/e``, ``C = x·T_in``, every latency
    (:func:`~economics.serving.passes.request_latency`) and the KV bytes, all non-decreasing in ``x``.
    ``λ = x/h(x)`` is the exact inverse of the fixed point (increasing in ``x``, because ``h(x)/x`` is
    non-increasing). The answer is the largest ``x`` in ``[0, min(X_kv, X_chunk)]`` whose worst latency/SLO
    ratio is ≤ 1; no fixed point is solved.

    * Dense model (EAGLE's dense draft included): ``h``, TTFT and E2E are sums of maxima of affine
      functions of ``x`` (:mod:`economics.serving.affine`), so each SLO gives ``x ≤ min_c (L − a_c)/k_c``
      over the combinations of branches, exactly (:func:`_affine_largest_x`).
    * MoE: one 60-step bisection on ``x``, vectorised over all problems.

    ``λ_max = 0`` with a reason when the model or one request's KV cache does not fit, or when the SLO is
    missed even as the load tends to zero.

    References: Zhong et al., DistServe, OSDI 2024 (goodput); Agrawal et al., Sarathi-Serve, OSDI 2024.

    Examples
    --------
    docs/serving.md#slo-capacity, Llama-3.1-70B on 8×H100, 1000 in / 500 out, TPOT ≤ 20, 50, 100 ms. The prompt chunks
    ride along at ``mfu_prefill`` (see the test module for why the spec's 11.3/12.1/12.4 differ).

    >>> from economics.hardware import GPU
    >>> from economics.schemes import ARScheme
    >>> h100 = GPU(id="h100", name="H100", peak_flops_bf16_per_s=989.4e12, hbm_bandwidth_bytes_per_s=3.35e12,
    ...     hbm_capacity_bytes=80e9, link_bandwidth_bytes_per_s=450e9, power_w=700)
    >>> llama70 = ModelSpec(id="l70", name="l70", n_layers=80, d_model=8192, n_heads=64, n_kv_heads=8,
    ...     head_dim=128, d_ff=28672, vocab=128256)
    >>> spec = Efficiency(allreduce_half_bytes=0)  # the first spec's all-reduce, as in the docs' table
    >>> cap = slo_capacity(llama70, Deployment(gpu=h100, n_gpus=8), spec, ARScheme(), 1000, 500,
    ...     tpot_max_s=[0.02, 0.05, 0.1])
    >>> cap.max_arrival_rate_per_s.round(2).tolist(), cap.binding.tolist()
    ([10.81, 11.57, 11.82], ['tpot', 'tpot', 'tpot'])
    """
    shape = serving_shape(scheme, input_tokens, output_tokens)
    tpot, ttft, deadline = _slo(tpot_max_s), _slo(ttft_max_s), _slo(deadline_s)
    chunk = np.asarray(prefill_chunk_tokens, dtype=np.float64)
    if np.any(np.isnan(chunk)) or np.any(chunk < 1):
        raise ValueError("prefill_chunk_tokens must be ≥ 1 (inf for unchunked prefill)")
    full = np.broadcast_shapes(shape.input_tokens.shape, tpot.shape, ttft.shape, deadline.shape, chunk.shape)
    e = shape.tokens_per_pass
    mem = kv_capacity(model, deployment, efficiency, kv_reserve_bytes)
    kv_per_x = shape.passes_per_request * kv_bytes_per_sequence(model, deployment, shape)
    x_kv = np.broadcast_to(mem.free_bytes / kv_per_x, full)
    with np.errstate(divide="ignore"):
        x_pf = np.broadcast_to(np.where(shape.prefill_tokens > 0, chunk / shape.prefill_tokens, np.inf), full)
    x_upper = np.minimum(x_kv, x_pf)

    affine = None if method == "bisect" else affine_pass_terms(model, deployment, efficiency, shape)
    if method == "closed_form" and affine is None:
        raise ValueError("the closed form needs a dense model (MoE expert coverage is not affine)")
    pass_time = affine.time if affine is not None else roofline_pass_time(model, deployment, efficiency, shape)

    def h(x: FloatArray) -> FloatArray:
        return iteration_time_at(pass_time, shape, x)

    latency_slos = bool(np.isfinite(ttft).any() or np.isfinite(deadline).any())

    def ratios(x: FloatArray) -> FloatArray:
        """Each latency over its SLO (0 where the SLO is off), stacked: TPOT, TTFT, E2E, iteration cap."""
        t = h(x)
        if not latency_slos:  # skip the prompt-iteration pass when no TTFT or deadline SLO is set
            zero = np.zeros_like(t)
            return np.stack(np.broadcast_arrays(t / e / tpot, zero, zero, t / max_iteration_s))
        lat = request_latency(shape, pass_time, x, t, chunk)
        return np.stack(
            np.broadcast_arrays(t / e / tpot, lat.ttft_s / ttft, lat.e2e_mean_s / deadline, t / max_iteration_s)
        )

    def worst(x: FloatArray) -> FloatArray:
        return np.asarray(np.max(ratios(x), axis=0), dtype=np.float64)

    r0 = ratios(np.zeros(full))
    miss0 = np.max(r0, axis=0) > 1.0
    which0 = np.argmax(r0, axis=0)
    one_fits = np.broadcast_to(shape.input_tokens + shape.output_tokens <= mem.max_tokens, full)
    reason = np.select(
        [
            np.full(full, not mem.feasible),
            ~one_fits,
            miss0 & (which0 == 0),
            miss0 & (which0 == 1),
            miss0 & (which0 == 2),
            miss0,
        ],
        [REASON_NO_FIT, REASON_ONE_SEQUENCE, REASON_TPOT, REASON_TTFT, REASON_DEADLINE, REASON_CAP],
        default="",
    )
    feasible = reason == ""
    if affine is not None:
        x_slo = _affine_largest_x(affine, shape, chunk, tpot, ttft, deadline, max_iteration_s)
        x_max = np.minimum(np.broadcast_to(x_slo, full), x_upper)
    else:
        x_max = largest_within(worst, np.ones(full), np.where(feasible, x_upper, 0.0))
    x_max = np.where(feasible, x_max, 0.0)
    t = np.broadcast_to(h(x_max), full)
    lat = request_latency(shape, pass_time, x_max, t, chunk)
    lam = np.where(feasible, x_max / t, 0.0)
    at_upper = x_max >= x_upper
    binding_idx = np.where(at_upper, np.where(x_kv <= x_pf, 4, 5), np.argmax(ratios(x_max), axis=0))
    binding = np.where(feasible, np.asarray(BINDING)[binding_idx], "")

    def inf_or(v: FloatArray) -> FloatArray:
        return np.asarray(np.where(feasible, v, np.inf), dtype=np.float64)

    return SloCapacity(
        max_arrival_rate_per_s=np.asarray(lam, dtype=np.float64),
        iteration_time_s=inf_or(t),
        batch=inf_or(x_max * shape.passes_per_request),
        tpot_s=inf_or(t / e),
        ttft_s=inf_or(lat.ttft_s),
        e2e_mean_s=inf_or(lat.e2e_mean_s),
        output_tokens_per_s=np.asarray(lam * shape.output_tokens, dtype=np.float64),
        feasible=np.asarray(feasible, dtype=np.bool_),
        binding=np.asarray(binding, dtype=np.str_),
        reason=np.asarray(reason, dtype=np.str_),
    )


def _affine_largest_x(
    affine: AffinePass,
    shape: ServingShape,
    chunk: FloatArray,
    tpot: FloatArray,
    ttft: FloatArray,
    deadline: FloatArray,
    max_iteration_s: float,
) -> FloatArray:
    """Largest ``x = λ·t`` within the TPOT, TTFT, E2E and iteration-cap limits on an affine pass, exactly.

    With ``B = x·T_out/e``, ``C = x·T_in``, ``k`` prompt chunks of ``T_in/k`` tokens and ``S_first``
    passes after them (:func:`~economics.serving.passes.request_latency`)::

        h(x)        = t(x·T_out/e, x·T_in)                          ≤ min(e·TPOT_max, t_cap)
        t_prompt(x) = t(x·T_out/e, max(x·T_in, T_in/k)) = max(h(x), v(x)),   v(x) = t(x·T_out/e, T_in/k)
        TTFT(x)     = ½h + k·t_prompt + S_first·h = max((½ + S_first + k)·h, (½ + S_first)·h + k·v)
        E2E(x)      = the same with T_out/e in place of S_first

    (``t`` is non-decreasing in ``C``, hence ``t(B, max(C1, C2)) = max(t(B, C1), t(B, C2))``.) Each right-hand
    side is a sum of maxima of lines in ``x``; a draft term does not see ``C``, so its part of ``v`` equals
    its part of ``h``. :func:`~economics.serving.affine.largest_x_within` solves each limit; the answer is
    the smallest. The caller has already checked that every limit holds at ``x = 0``.
    """
    ppr = shape.passes_per_request
    h = affine.on_ray(ppr, shape.prefill_tokens)
    x = largest_x_within(sum_of_maxima(h), np.minimum(shape.tokens_per_pass * tpot, max_iteration_s))
    prompt = prompt_chunks(shape, chunk)
    v = affine.on_ray(ppr, 0.0, prompt.tokens_per_chunk)
    k = prompt.chunks
    for lead, limit in ((0.5 + prompt.first_token_passes, ttft), (0.5 + ppr, deadline)):
        if not np.isfinite(limit).any():
            continue
        parts: list[Lines] = [
            sum_of_maxima([scaled(ht, lead), scaled(vt, k)]) if term.sees_prompt else scaled(ht, lead + k)
            for term, ht, vt in zip(affine.terms, h, v, strict=True)
        ]
        whole = largest_x_within(scaled(sum_of_maxima(h), lead + k), limit)
        x = np.minimum(x, np.minimum(whole, largest_x_within(sum_of_maxima(parts), limit)))
    return x


@dataclass(frozen=True)
class ReplicaPlan:
    """Replicas sized for the peak, the GPUs they take, and how busy the paid hours are."""

    replicas: FloatArray  # R = max(1, ceil(λ_peak/(u_target·λ_max))); inf when λ_max = 0 [count]
    gpus: FloatArray  # R·N [count]
    utilization: FloatArray  # λ_avg/(R·λ_max), share of paid capacity used on average; 0 when R = inf [1]
    feasible: BoolArray  # λ_max > 0 [-]


def replicas_for_peak(
    peak_arrival_rate_per_s: ArrayLike,
    capacity_per_replica_per_s: ArrayLike,
    gpus_per_replica: ArrayLike,
    *,
    average_arrival_rate_per_s: ArrayLike | None = None,
    target_utilization: ArrayLike = 0.8,
) -> ReplicaPlan:
    """Replicas and GPUs for a peak load with headroom (docs/serving.md#slo-capacity).

    ``R = max(1, ceil(λ_peak / (u_target·λ_max)))``, ``GPUs = R·N`` and utilisation of the paid hours
    ``U = λ_avg / (R·λ_max)``.

    Parameters
    ----------
    peak_arrival_rate_per_s : ``λ_peak`` [req/s], ≥ 0.
    capacity_per_replica_per_s : SLO capacity of one replica ``λ_max`` [req/s], ≥ 0.
    gpus_per_replica : tensor-parallel degree ``N`` [count].
    average_arrival_rate_per_s : ``λ_avg`` [req/s]; defaults to the peak.
    target_utilization : ``u_target`` ∈ (0, 1], headroom for bursts and tails; 0.8 [assumption].

    Returns
    -------
    ReplicaPlan. A dedicated deployment keeps at least one replica (``R ≥ 1``). ``λ_max = 0`` gives
    ``R = GPUs = inf``, ``U = 0`` and ``feasible=False``. The ratio is shrunk by one part in 10¹² before the
    ceiling so that an exact multiple (e.g. 3.0000000000000004) does not buy a spare replica.

    >>> plan = replicas_for_peak([5.0, 9.0, 20.0], 11.3, 8, average_arrival_rate_per_s=[2.0, 2.0, 2.0])
    >>> plan.replicas.tolist(), plan.gpus.tolist(), plan.utilization.round(3).tolist()
    ([1.0, 1.0, 3.0], [8.0, 8.0, 24.0], [0.177, 0.177, 0.059])
    """
    peak = np.asarray(peak_arrival_rate_per_s, dtype=np.float64)
    cap = np.asarray(capacity_per_replica_per_s, dtype=np.float64)
    n = np.asarray(gpus_per_replica, dtype=np.float64)
    avg = peak if average_arrival_rate_per_s is None else np.asarray(average_arrival_rate_per_s, dtype=np.float64)
    u = np.asarray(target_utilization, dtype=np.float64)
    if np.any(~np.isfinite(peak)) or np.any(peak < 0) or np.any(avg < 0) or np.any(cap < 0):
        raise ValueError("arrival rates and capacities must be finite and ≥ 0")
    if np.any(u <= 0) or np.any(u > 1):
        raise ValueError("target_utilization must be in (0, 1]")
    if np.any(n < 1):
        raise ValueError("gpus_per_replica must be ≥ 1")
    ok = cap > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(ok, peak / (u * np.where(ok, cap, 1.0)), np.inf)
        replicas = np.where(ok, np.maximum(1.0, np.ceil(ratio * (1.0 - 1e-12))), np.inf)
        util = np.where(ok, avg / (replicas * np.where(ok, cap, 1.0)), 0.0)
    return ReplicaPlan(
        replicas=np.asarray(replicas, dtype=np.float64),
        gpus=np.asarray(replicas * n, dtype=np.float64),
        utilization=np.asarray(util, dtype=np.float64),
        feasible=np.asarray(np.broadcast_to(ok, replicas.shape), dtype=np.bool_),
    )
