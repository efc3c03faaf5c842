"""Continuous batching as a Little's-law fixed point (docs/serving.md#continuous-batching).

Orca-style iteration-level scheduling with Sarathi-Serve stall-free chunked prefill: every iteration runs
the ``B`` sequences in decode plus ``C`` prompt tokens, and new requests join at the next iteration. With
Poisson arrivals at ``λ`` per replica the mean iteration time ``t`` solves ``t = h(λ·t)``, where ``h`` is
the roofline pass time (:mod:`economics.serving.passes`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from economics.capacity import kv_capacity
from economics.hardware import Deployment, Efficiency
from economics.iteration import AnyScheme
from economics.model import FloatArray, ModelSpec
from economics.serving.passes import (
    DEFAULT_MAX_ITERATION_S,
    DEFAULT_PREFILL_CHUNK_TOKENS,
    PassTimeFunction,
    ServingShape,
    affine_pass_terms,
    along_littles_law,
    iteration_time_at,
    kv_bytes_per_sequence,
    request_latency,
    roofline_pass_time,
    serving_shape,
)
from economics.serving.solvers import least_fixed_point

BoolArray = NDArray[np.bool_]
FixedPointMethod = Literal["auto", "closed_form", "iterate"]


@dataclass(frozen=True)
class ContinuousBatching:
    """Steady state of one continuously batched replica; arrays share the broadcast shape of the inputs.

    Where ``stable`` is False the replica is overloaded: its queue grows without bound, and every time,
    the batch and the KV bytes are ``inf`` (never a large finite number).
    """

    arrival_rate_per_s: FloatArray  # λ, requests per second offered to the replica [req/s]
    iteration_time_s: FloatArray  # t*, mean time of one iteration (forward pass) [s]
    batch: FloatArray  # B*, mean sequences in decode per iteration [count]
    prefill_tokens_per_iteration: FloatArray  # C*, mean prompt tokens per iteration [tokens]
    tpot_s: FloatArray  # time per output token per stream, t*/e [s]
    queue_wait_s: FloatArray  # W_q, mean wait before the first prefill chunk is scheduled [s]
    ttft_s: FloatArray  # mean time to first token [s]
    e2e_mean_s: FloatArray  # mean end-to-end latency of a request [s]
    output_tokens_per_s: FloatArray  # delivered output rate λ·T_out (meaningful where stable) [tok/s]
    zero_load_iteration_time_s: FloatArray  # f(0): iteration time as λ → 0 [s]
    batchability: FloatArray  # β = λ·(T_out/e)·t(B=1): concurrency at batch-1 speed [1]
    kv_bytes: FloatArray  # B*·S_avg·r_kv·kv_tok, KV cache resident on average [B]
    kv_free_bytes: FloatArray  # M_free, memory left for the KV cache [B]
    max_batch: FloatArray  # B_max = floor(Tok_max/S_avg), sequences the KV memory holds [count]
    stable: BoolArray  # a finite fixed point below the iteration-time cap, within the prefill budget [-]
    kv_feasible: BoolArray  # the model fits, one full sequence fits and B*·S_avg·r_kv·kv_tok ≤ M_free [-]
    method: Literal["closed_form", "iterate"]  # how t* was found [-]

    @property
    def feasible(self) -> BoolArray:
        """Stable and within KV memory [-]."""
        return np.asarray(self.stable & self.kv_feasible, dtype=np.bool_)


def _closed_form(lam: FloatArray, intercept: FloatArray, slope: FloatArray) -> FloatArray:
    """``t* = max_i a_i/(1 − λ·k_i)`` if ``max_i λ·k_i < 1``, else ``inf``."""
    s = lam[None, ...] * slope
    overloaded = np.max(s, axis=0) >= 1.0
    t = np.max(intercept / np.where(s < 1.0, 1.0 - s, 1.0), axis=0)
    return np.asarray(np.where(overloaded, np.inf, t), dtype=np.float64)


def continuous_batching(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    scheme: AnyScheme,
    arrival_rate_per_s: ArrayLike,
    input_tokens: ArrayLike,
    output_tokens: ArrayLike,
    *,
    prefill_chunk_tokens: ArrayLike = DEFAULT_PREFILL_CHUNK_TOKENS,
    max_iteration_s: float = DEFAULT_MAX_ITERATION_S,
    kv_reserve_bytes: float = 0.0,
    method: FixedPointMethod = "auto",
) -> ContinuousBatching:
    """Little's-law fixed point of a continuously batched replica (docs/serving.md#continuous-batching).

    Parameters
    ----------
    model, deployment, efficiency : the replica (``N``-way tensor parallel) and its efficiency factors.
    scheme : AR, speculative or diffusion scheme, i.e. ``Scheme(q, e, bidir, t_extra)``.
    arrival_rate_per_s : Poisson arrival rate ``λ`` per replica [req/s], ≥ 0.
    input_tokens : mean prompt length ``T_in`` [tokens].
    output_tokens : mean output length ``T_out`` [tokens].
    prefill_chunk_tokens : prompt tokens one iteration may carry, ``C_chunk`` [tokens]; default 8192, the
        product-wide default of :mod:`economics.throughput` [assumption]. ``inf`` means unchunked prefill.
    max_iteration_s : iteration times above this count as overload [s]; default 30.
    kv_reserve_bytes : activation/workspace memory held back from the KV cache [B].
    method : ``"closed_form"`` (dense model, EAGLE's dense draft included), ``"iterate"`` (anything), or
        ``"auto"`` (the closed form wherever it exists).

    Returns
    -------
    ContinuousBatching; every array broadcasts ``λ``, ``T_in``, ``T_out`` and ``C_chunk``.

    Notes
    -----
    Per iteration of length ``t`` there are, by Little's law::

        B = λ·(T_out/e)·t        C = λ·T_in·t        t = f(t) = h(λ·t)

    ``h`` is :func:`~economics.roofline.forward_time` with ``n = B·q + C`` tokens (the ``C`` prompt
    tokens at ``mfu_prefill``, attending to ``T_in/2`` earlier tokens on average) plus the draft passes.

    * Dense model: ``f(t) = max_i (a_i + λ·k_i·t)`` over the branch combinations of the roofline's max
      terms (4; 16 with an EAGLE draft, whose dense passes add their own two maxima), so the least fixed
      point is exactly ``t* = max_i a_i/(1 − λ·k_i)`` when ``max_i λ·k_i < 1`` and overload otherwise
      (:mod:`economics.serving.affine`).
    * MoE (concave expert coverage): monotone iteration from ``t_0 = f(0)`` (≤ 300 steps) with a
      bisection finish, :func:`~economics.serving.solvers.least_fixed_point`.

    Derived outputs: ``TPOT = t*/e``; the mean wait before scheduling is the residual of the iteration in
    flight, ``W_q = t*/2`` (Poisson arrivals see time averages; admission is immediate while KV memory
    lasts, see :func:`~economics.serving.queues.admission_queueing` for the M/M/c refinement);
    ``TTFT = W_q + k·t_prompt + S_first·t*`` and ``E2E = W_q + k·t_prompt + (T_out/e)·t*`` with
    ``k = ceil(T_in/C_chunk)`` chunks, each in an iteration that carries it
    (:func:`~economics.serving.passes.request_latency`: the first spec's ``k·t*`` at high load, docs/roofline.md#prefill
    prefill time at low load); delivered ``X = λ·T_out``. The replica is stable when ``t*`` is finite and below
    ``max_iteration_s`` and the prompt load fits the chunk budget, ``C* ≤ C_chunk`` (otherwise prompts queue without
    bound).

    References
    ----------
    Yu et al., Orca, OSDI 2022; Kwon et al., vLLM/PagedAttention, SOSP 2023; Agrawal et al.,
    Sarathi-Serve, OSDI 2024; Little's law.

    Examples
    --------
    docs/serving.md#continuous-batching: Llama-3.1-70B, 8×H100, ``T_in = 1000``, ``T_out = 500``, the first spec's
    efficiency.

    >>> from economics.hardware import GPU
    >>> from economics.schemes import ARScheme
    >>> h100 = GPU(id="h100", name="H100", peak_flops_bf16_per_s=989.4e12, hbm_bandwidth_bytes_per_s=3.35e12,
    ...     hbm_capacity_bytes=80e9, link_bandwidth_bytes_per_s=450e9, power_w=700)
    >>> llama70 = ModelSpec(id="l70", name="l70", n_layers=80, d_model=8192, n_heads=64, n_kv_heads=8,
    ...     head_dim=128, d_ff=28672, vocab=128256)
    >>> spec = Efficiency(allreduce_half_bytes=0)  # the first spec's all-reduce, as in the docs' table
    >>> cb = continuous_batching(llama70, Deployment(gpu=h100, n_gpus=8), spec, ARScheme(),
    ...     [0.1, 10.0, 13.0], 1000, 500)
    >>> (cb.iteration_time_s * 1e3).round(2).tolist(), cb.batch.round(1).tolist(), cb.stable.tolist()
    ([9.65, 13.12, inf], [0.5, 65.6, inf], [True, True, False])
    """
    lam = np.asarray(arrival_rate_per_s, dtype=np.float64)
    if np.any(~np.isfinite(lam)) or np.any(lam < 0):
        raise ValueError("arrival_rate_per_s must be finite and ≥ 0")
    chunk = np.asarray(prefill_chunk_tokens, dtype=np.float64)
    if np.any(np.isnan(chunk)) or np.any(chunk < 1):
        raise ValueError("prefill_chunk_tokens must be ≥ 1 (inf for unchunked prefill)")
    if not max_iteration_s > 0:
        raise ValueError("max_iteration_s must be > 0")
    shape = serving_shape(scheme, input_tokens, output_tokens)
    full = np.broadcast_shapes(lam.shape, shape.input_tokens.shape, chunk.shape)
    lam = np.broadcast_to(lam, full)
    affine = None if method == "iterate" else affine_pass_terms(model, deployment, efficiency, shape)
    if method == "closed_form" and affine is None:
        raise ValueError("the closed form needs a dense model (MoE expert coverage is not affine)")

    pass_time = affine.time if affine is not None else roofline_pass_time(model, deployment, efficiency, shape)

    def f(t: FloatArray) -> FloatArray:
        return iteration_time_at(pass_time, shape, lam * t)

    t0 = np.broadcast_to(iteration_time_at(pass_time, shape, np.zeros(full)), full).astype(np.float64)
    if affine is not None:
        branches = along_littles_law(affine, shape).broadcast_to(full)
        t_raw = _closed_form(lam, branches.intercept_s, branches.slope_s)
        t_raw = np.where(t_raw > max_iteration_s, np.inf, t_raw)
    else:
        t_raw = least_fixed_point(f, t0, max_iteration_s)
    used: Literal["closed_form", "iterate"] = "closed_form" if affine is not None else "iterate"
    return _steady_state(model, deployment, efficiency, shape, pass_time, lam, chunk, t_raw, t0, kv_reserve_bytes, used)


def _steady_state(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    shape: ServingShape,
    pass_time: PassTimeFunction,
    lam: FloatArray,
    chunk: FloatArray,
    t_raw: FloatArray,
    t0: FloatArray,
    kv_reserve_bytes: float,
    method: Literal["closed_form", "iterate"],
) -> ContinuousBatching:
    finite = np.isfinite(t_raw)
    t_fin = np.where(finite, t_raw, 0.0)
    prefill = np.broadcast_to(lam * shape.prefill_tokens * t_fin, lam.shape)
    stable = finite & (prefill <= chunk)
    t = np.where(stable, t_raw, np.inf)

    def inf_or(v: FloatArray) -> FloatArray:
        return np.asarray(np.where(stable, v, np.inf), dtype=np.float64)

    batch = inf_or(lam * shape.passes_per_request * t_fin)
    lat = request_latency(shape, pass_time, lam * t_fin, t_fin, chunk)
    cap = kv_capacity(model, deployment, efficiency, kv_reserve_bytes)
    kv_seq = kv_bytes_per_sequence(model, deployment, shape)
    kv_bytes = inf_or(batch * kv_seq)
    one_fits = shape.input_tokens + shape.output_tokens <= cap.max_tokens  # a request at its longest
    kv_ok = cap.feasible & one_fits & (kv_bytes <= cap.free_bytes)
    t1 = pass_time(np.ones(()), np.zeros(()))  # one sequence, no prompt: the batch-1 speed of β
    # (docs/serving.md#continuous-batching)
    return ContinuousBatching(
        arrival_rate_per_s=np.asarray(lam, dtype=np.float64),
        iteration_time_s=np.asarray(t, dtype=np.float64),
        batch=batch,
        prefill_tokens_per_iteration=inf_or(prefill),
        tpot_s=np.asarray(t / shape.tokens_per_pass, dtype=np.float64),
        queue_wait_s=inf_or(lat.queue_wait_s),
        ttft_s=inf_or(lat.ttft_s),
        e2e_mean_s=inf_or(lat.e2e_mean_s),
        output_tokens_per_s=np.asarray(np.broadcast_to(lam * shape.output_tokens, lam.shape), dtype=np.float64),
        zero_load_iteration_time_s=np.asarray(t0, dtype=np.float64),
        batchability=np.asarray(np.broadcast_to(lam * shape.passes_per_request * t1, lam.shape), dtype=np.float64),
        kv_bytes=np.asarray(np.broadcast_to(kv_bytes, lam.shape), dtype=np.float64),
        kv_free_bytes=np.full(lam.shape, cap.free_bytes),
        max_batch=np.asarray(np.broadcast_to(cap.max_batch(shape.resident_tokens), lam.shape), dtype=np.float64),
        stable=np.asarray(stable, dtype=np.bool_),
        kv_feasible=np.asarray(np.broadcast_to(kv_ok, lam.shape), dtype=np.bool_),
        method=method,
    )
