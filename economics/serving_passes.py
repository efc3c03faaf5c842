"""How a scheme turns a stream of requests into forward passes (MODEL_SPEC §8, ``Scheme(q, e, bidir, t_extra)``).

Inside a continuously batched replica every iteration carries ``B`` decoding sequences, each adding ``q``
new tokens, and ``C`` chunked-prefill prompt tokens. Little's law ties both to the arrival rate through the
single variable ``x = λ·t`` (requests that arrive during one iteration of length ``t``)::

    B = x · T_out / e        C = x · T_in        n = B·q + C

so the iteration time is a function of ``x`` alone, ``t = h(x)``. This module builds ``h`` for each scheme:

========================  ==========  =============  ===========  ===========================
scheme                    q           e              bidir        t_extra
========================  ==========  =============  ===========  ===========================
AR                        1           1              False        0
speculative               q_verify    τ              False        draft passes (EAGLE); 0 (Medusa)
diffusion, prefix cache   K           K / (S + ρ)    True         0
diffusion, no cache       T_in+T_out  K / S          True         0 (prompt recomputed each pass)
========================  ==========  =============  ===========  ===========================

For a dense model without a separate draft, ``h`` is a sum of maxima of affine functions of ``x``
(:func:`affine_iteration_terms`), which gives the closed-form fixed point; otherwise ``h`` is evaluated
with :func:`~economics.roofline.forward_time` (and :func:`~economics.specdec.draft_time`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike

from economics.hardware import Deployment, Efficiency
from economics.iteration import (
    AnyScheme,
    iteration_time,
    needs_prefill,
    new_tokens_per_iteration,
    passes_to_first_token,
    resident_tokens,
    tokens_per_iteration,
)
from economics.model import FloatArray, ModelSpec
from economics.roofline import kv_replication
from economics.schemes import DiffusionScheme, SpeculativeScheme
from economics.throughput import DEFAULT_PREFILL_CHUNK_TOKENS as _THROUGHPUT_CHUNK

#: Default prompt tokens one iteration may carry, the chunked-prefill chunk ``C_chunk`` [tokens]: the
#: product-wide default of :mod:`economics.throughput` (TensorRT-LLM ``max_num_tokens`` and SGLang
#: ``chunked_prefill_size`` on large GPUs, 8192). vLLM's online default and Sarathi-Serve's budgets are
#: smaller (512–2048): smaller chunks protect TPOT but add TTFT passes for long prompts.
DEFAULT_PREFILL_CHUNK_TOKENS = float(_THROUGHPUT_CHUNK)

#: Iteration times above this are reported as overload (``stable=False``, times ``inf``) [s].
DEFAULT_MAX_ITERATION_S = 30.0


def _f(x: ArrayLike) -> FloatArray:
    return np.asarray(x, dtype=np.float64)


@dataclass(frozen=True)
class ServingShape:
    """Per-request pass structure of one scheme at one workload shape (arrays broadcast together)."""

    scheme: AnyScheme  # the decoding scheme [-]
    new_tokens: FloatArray  # q: new tokens per sequence per pass [tokens]
    tokens_per_pass: float  # e: output tokens a sequence emits per pass [tokens]
    bidirectional: bool  # attention inside the q new tokens is bidirectional (diffusion) [-]
    draft: SpeculativeScheme | None  # separate draft model that adds t_extra(B), or None [-]
    input_tokens: FloatArray  # T_in [tokens]
    output_tokens: FloatArray  # T_out [tokens]
    decode_context_tokens: FloatArray  # S_ctx each decode/verify/denoise pass attends to (mean) [tokens]
    prefill_tokens: FloatArray  # prompt tokens prefilled once per request (0 without a prefix cache) [tokens]
    prefill_context_tokens: FloatArray  # earlier prompt tokens a prefill token attends to (mean) [tokens]
    resident_tokens: FloatArray  # mean KV-cache tokens held per sequence, S_avg [tokens]
    first_token_passes: float  # passes after the prompt before the first token is visible [count]

    @cached_property
    def passes_per_request(self) -> FloatArray:
        """``T_out / e``: decode (verify, denoise) passes one request needs [count]."""
        return self.output_tokens / self.tokens_per_pass

    @cached_property
    def tokens_per_x(self) -> FloatArray:
        """``n/x = q·T_out/e + C/x``: tokens in a pass per unit of ``x = λ·t`` [tokens]."""
        return self.new_tokens * self.passes_per_request + self.prefill_tokens


def serving_shape(scheme: AnyScheme, input_tokens: ArrayLike, output_tokens: ArrayLike) -> ServingShape:
    """Map a decoding scheme and a workload shape to ``Scheme(q, e, bidir, t_extra)`` (MODEL_SPEC §8).

    Parameters
    ----------
    scheme : AR, speculative or diffusion scheme.
    input_tokens : mean prompt length ``T_in`` [tokens], ≥ 0.
    output_tokens : mean output length ``T_out`` [tokens], > 0.

    Returns
    -------
    ServingShape. ``q``, ``e``, the prefill rule and the resident KV tokens come from
    :mod:`economics.iteration`. Decode passes attend to the mean context ``S_avg = T_in + T_out/2``; a
    prompt token attends to ``(T_in + 1)/2`` earlier prompt tokens (itself included) on average, which is
    the ``2·L·n_q·d_h·C·T_in`` prefill attention of §8.1. A diffusion model without a prefix cache has no
    separate prefill: every pass runs over the whole canvas ``T_in + T_out`` with no cached context. The
    first token of a diffusion request is visible after the ``S`` denoising passes of its first block;
    AR and speculative decoding sample it from the last prompt chunk's logits (§8.1).

    >>> from economics.schemes import ARScheme
    >>> s = serving_shape(ARScheme(), 1000, 500)
    >>> float(s.new_tokens), s.tokens_per_pass, float(s.decode_context_tokens), float(s.tokens_per_x)
    (1.0, 1.0, 1250.0, 1500.0)
    """
    t_in, t_out = np.broadcast_arrays(_f(input_tokens), _f(output_tokens))
    if np.any(t_in < 0) or np.any(t_out <= 0) or not (np.all(np.isfinite(t_in)) and np.all(np.isfinite(t_out))):
        raise ValueError("input_tokens must be ≥ 0 and output_tokens > 0, both finite")
    canvas = t_in + t_out
    prefilled = needs_prefill(scheme)
    draft = None
    if isinstance(scheme, SpeculativeScheme) and scheme.draft_layers > 0 and scheme.draft_steps > 0:
        draft = scheme
    diffusion = isinstance(scheme, DiffusionScheme)
    return ServingShape(
        scheme=scheme,
        new_tokens=np.asarray(np.broadcast_to(new_tokens_per_iteration(scheme, canvas), t_in.shape), dtype=np.float64),
        tokens_per_pass=tokens_per_iteration(scheme),
        bidirectional=diffusion,
        draft=draft,
        input_tokens=t_in,
        output_tokens=t_out,
        decode_context_tokens=t_in + 0.5 * t_out if prefilled else np.zeros_like(t_in),
        prefill_tokens=t_in if prefilled else np.zeros_like(t_in),
        prefill_context_tokens=0.5 * (t_in + 1.0) if prefilled else np.zeros_like(t_in),
        resident_tokens=resident_tokens(scheme, t_in, t_out),
        first_token_passes=float(passes_to_first_token(scheme)) if diffusion else 0.0,
    )


@dataclass(frozen=True)
class RequestLatency:
    """Latency of one request at an operating point; arrays broadcast over the inputs."""

    queue_wait_s: FloatArray  # W_q: mean residual of the iteration in flight, t/2 [s]
    prompt_iteration_s: FloatArray  # an iteration that carries one of the request's prompt chunks [s]
    ttft_s: FloatArray  # W_q + chunks·t_prompt + S_first·t [s]
    e2e_mean_s: FloatArray  # W_q + chunks·t_prompt + (T_out/e)·t [s]


def request_latency(
    shape: ServingShape,
    pass_time: PassTimeFunction,
    requests_per_iteration: ArrayLike,
    iteration_s: ArrayLike,
    prefill_chunk_tokens: ArrayLike,
) -> RequestLatency:
    """TTFT and end-to-end latency of a request in a continuously batched replica (MODEL_SPEC §8.1) [s].

    Parameters
    ----------
    shape : the scheme's pass structure at this workload.
    pass_time : ``(B, C) ↦`` iteration time [s], from :func:`pass_time_function`.
    requests_per_iteration : ``x = λ·t`` at the operating point [1].
    iteration_s : the mean iteration time there, ``t = h(x)`` [s].
    prefill_chunk_tokens : chunk size ``C_chunk`` [tokens].

    Returns
    -------
    RequestLatency with::

        W_q      = t/2                                  (Poisson arrivals land mid-iteration)
        k        = ceil(T_in / C_chunk)                  (prompt chunks; 0 without a prefix cache)
        t_prompt = t_pass(B*, C = max(C*, T_in/k))       (an iteration that carries one of the chunks)
        TTFT     = W_q + k·t_prompt + S_first·t          (S_first = S for diffusion, else 0)
        E2E      = W_q + k·t_prompt + (T_out/e)·t        (= TTFT + T_out·TPOT for AR)

    §8.1 writes ``TTFT ≈ W_q + ceil(T_in/C_chunk)·t*``. That uses the *mean* iteration, in which the prompt
    load is smeared over all iterations; at low load the iteration that actually carries a 1000-token chunk
    is a compute-bound prefill (51.7 ms for the 70B example, §3.4), not the 9.6 ms mean. Charging the
    chunk's own iteration, ``C = max(C*, T_in/k)``, recovers §3.4's prefill time at low load and §8.1's
    formula at high load, where ``C* ≥ T_in/k``. The first token is sampled from the last chunk's logits
    (vLLM, SGLang), so AR adds no decode step; a diffusion block is final after its ``S`` passes.
    """
    x = _f(requests_per_iteration)
    t = _f(iteration_s)
    chunk = _f(prefill_chunk_tokens)
    has_prompt = shape.prefill_tokens > 0
    chunks = np.where(has_prompt, np.maximum(1.0, np.ceil(shape.prefill_tokens / chunk)), 0.0)
    per_chunk = shape.prefill_tokens / np.where(has_prompt, chunks, 1.0)
    t_prompt = pass_time(x * shape.passes_per_request, np.maximum(x * shape.prefill_tokens, per_chunk))
    t_prompt = np.where(has_prompt, t_prompt, 0.0)
    first = np.where(has_prompt, shape.first_token_passes, np.maximum(1.0, shape.first_token_passes))
    wait = 0.5 * t
    head = wait + chunks * t_prompt
    return RequestLatency(
        queue_wait_s=np.asarray(wait, dtype=np.float64),
        prompt_iteration_s=np.asarray(t_prompt, dtype=np.float64),
        ttft_s=np.asarray(head + first * t, dtype=np.float64),
        e2e_mean_s=np.asarray(head + shape.passes_per_request * t, dtype=np.float64),
    )


PassTimeFunction = Callable[[FloatArray, FloatArray], FloatArray]
"""``(B, C) ↦ t``: iteration time with ``B`` sequences in decode and ``C`` prompt tokens riding along [s]."""


def pass_time_function(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    shape: ServingShape,
    *,
    allow_affine: bool = True,
) -> PassTimeFunction:
    """The iteration time of this replica and scheme as a function of ``(B, C)`` [s].

    ``t(B, C) = iteration_time(B, S_avg, C, (T_in+1)/2)``: the main pass of
    :func:`~economics.iteration.iteration_time` (``forward_time`` with the prompt tokens riding along at
    ``mfu_prefill``) plus the draft passes of a speculative scheme. For a dense model without a separate
    draft (and ``allow_affine``) the same numbers come from :func:`affine_pass_terms`, which is several
    times cheaper inside the bisections.
    """
    affine = affine_pass_terms(model, deployment, efficiency, shape) if allow_affine else None
    if affine is not None:
        return affine.time
    canvas = shape.input_tokens + shape.output_tokens

    def t(batch: FloatArray, prompt_tokens: FloatArray) -> FloatArray:
        return iteration_time(
            model,
            deployment,
            efficiency,
            shape.scheme,
            batch,
            shape.decode_context_tokens,
            prompt_tokens,
            shape.prefill_context_tokens,
            canvas_tokens=canvas,
        ).time_s

    return t


def iteration_time_at(
    pass_time: PassTimeFunction, shape: ServingShape, requests_per_iteration: ArrayLike
) -> FloatArray:
    """Iteration time ``h(x) = t(B = x·T_out/e, C = x·T_in)`` with ``x = λ·t`` arrivals per iteration [s]."""
    x = _f(requests_per_iteration)
    return pass_time(x * shape.passes_per_request, x * shape.prefill_tokens)


@dataclass(frozen=True)
class AffineIteration:
    """``h(x) = max_i (a_i + k_i·x)`` over the branch combinations of the roofline's max terms.

    Axis 0 enumerates (linear: memory | compute) × (attention: memory | compute); the remaining axes are
    the broadcast shape of the workload arrays.
    """

    intercept_s: FloatArray  # a_i: x-independent time (weights, all-reduce latency, tau0) [s]
    slope_s: FloatArray  # k_i: time per request arriving per iteration [s]

    def broadcast_to(self, shape: tuple[int, ...]) -> AffineIteration:
        """The same branches with trailing axes broadcast to ``shape`` (axis 0 stays the branch axis)."""
        full = (self.slope_s.shape[0], *shape)
        return AffineIteration(
            intercept_s=np.broadcast_to(_lead(self.intercept_s, len(shape)), full),
            slope_s=np.broadcast_to(_lead(self.slope_s, len(shape)), full),
        )

    def time(self, requests_per_iteration: ArrayLike) -> FloatArray:
        """``h(x) = max_i (a_i + k_i·x)`` [s]."""
        x = _f(requests_per_iteration)
        shape = np.broadcast_shapes(x.shape, self.slope_s.shape[1:])
        b = self.broadcast_to(shape)
        return np.asarray(np.max(b.intercept_s + b.slope_s * x[None, ...], axis=0), dtype=np.float64)


@dataclass(frozen=True)
class AffinePass:
    """``t(B, C) = max_i (a_i + kB_i·B + kC_i·C)`` over the branch combinations of the roofline's max terms.

    Axis 0 enumerates (linear: memory | compute) × (attention: memory | compute).
    """

    intercept_s: FloatArray  # a_i: time of an empty pass (weights, all-reduce latency, tau0) [s]
    per_sequence_s: FloatArray  # kB_i: time per sequence in decode [s]
    per_prompt_token_s: FloatArray  # kC_i: time per prompt token riding along [s]

    def time(self, batch: FloatArray, prompt_tokens: FloatArray) -> FloatArray:
        """``t(B, C) = max_i (a_i + kB_i·B + kC_i·C)`` [s]."""
        B, C = _f(batch), _f(prompt_tokens)
        shape = np.broadcast_shapes(B.shape, C.shape, self.intercept_s.shape[1:])
        n = len(shape)
        t = _lead(self.intercept_s, n) + _lead(self.per_sequence_s, n) * B + _lead(self.per_prompt_token_s, n) * C
        return np.asarray(np.broadcast_to(np.max(t, axis=0), shape), dtype=np.float64)

    def along(self, shape: ServingShape) -> AffineIteration:
        """Restrict to Little's law, ``B = x·T_out/e`` and ``C = x·T_in``: ``k_i = kB_i·T_out/e + kC_i·T_in``."""
        slope = self.per_sequence_s * shape.passes_per_request + self.per_prompt_token_s * shape.prefill_tokens
        return AffineIteration(intercept_s=self.intercept_s + np.zeros_like(slope), slope_s=slope)


def _lead(branches: FloatArray, ndim: int) -> FloatArray:
    """Insert axes after the branch axis so that the trailing axes right-align with an ``ndim`` shape."""
    extra = ndim - (branches.ndim - 1)
    return branches.reshape((branches.shape[0],) + (1,) * max(extra, 0) + branches.shape[1:])


def affine_pass_terms(
    model: ModelSpec, deployment: Deployment, efficiency: Efficiency, shape: ServingShape
) -> AffinePass | None:
    """Affine branches of the iteration time for a dense model without a separate draft; ``None`` otherwise.

    Written out from MODEL_SPEC §3.2 for ``B`` sequences adding ``q`` tokens at context ``S`` and ``C``
    prompt tokens attending to ``S_pre`` earlier ones (``n = B·q + C``)::

        linear, memory     W/BW_eff              + n·4·L·d·b_act / BW_eff
        linear, compute                            B·q·2P_mm/F_dec + C·2P_mm/F_pre
        attention, memory                          r_kv·kv_tok·(B·(S+q) + C) / BW_eff
        attention, compute                         L·n_q·d_h·(B·(4qS + pairs(q))/F_dec + C·4·S_pre/F_pre)
        comm (N > 1)       (1−ovl)·2L·alpha_ar   + (1−ovl)·2L·2(N−1)/N·n·d·b_act / BW_link
        overhead           tau0

    ``pairs(q) = 4q²`` bidirectional, ``2q(q+1)`` causal, as in :func:`~economics.roofline.forward_time`.
    The pass time ``max(lin) + max(att) + comm + tau0`` is the maximum of the four sums. Tests pin these
    coefficients to ``forward_time`` (closed form == iteration) so that the two cannot drift apart.
    """
    if model.is_moe or shape.draft is not None:
        return None
    L, d = float(model.n_layers), float(model.d_model)
    N = deployment.n_gpus
    bw = deployment.hbm_bandwidth_bytes_per_s * efficiency.mbu
    f_dec = deployment.peak_flops_per_s * efficiency.mfu_decode
    f_pre = deployment.peak_flops_per_s * efficiency.mfu_prefill
    flop_tok = model.flops_linear_per_token
    att_unit = L * model.n_heads * model.head_dim
    kv = kv_replication(model, N) * model.kv_bytes_per_token
    q, S = shape.new_tokens, shape.decode_context_tokens
    zero = np.zeros(np.broadcast_shapes(q.shape, S.shape, shape.prefill_context_tokens.shape))
    act = 4.0 * L * d * model.bytes_per_activation / bw  # per token
    pairs = 4.0 * q * q if shape.bidirectional else 2.0 * q * (q + 1.0)
    # (per sequence, per prompt token) of each branch
    lin_mem = (q * act + zero, act + zero)
    lin_cmp = (q * flop_tok / f_dec + zero, flop_tok / f_pre + zero)
    att_mem = (kv * (S + q) / bw + zero, kv / bw + zero)
    att_cmp = (
        att_unit * (4.0 * q * S + pairs) / f_dec + zero,
        att_unit * 4.0 * shape.prefill_context_tokens / f_pre + zero,
    )
    if N == 1:
        comm_a, comm = 0.0, (zero, zero)
    else:
        ovl = 1.0 - efficiency.comm_overlap
        comm_a = ovl * 2.0 * L * efficiency.allreduce_latency_s
        per_tok = (
            ovl
            * 2.0
            * L
            * 2.0
            * (N - 1)
            / N
            * d
            * model.bytes_per_activation
            / deployment.gpu.link_bandwidth_bytes_per_s
        )
        comm = (q * per_tok + zero, per_tok + zero)
    common_a = comm_a + efficiency.step_overhead_s
    weights = model.weight_bytes / bw
    combos = [
        (lin_mem, att_mem, weights),
        (lin_mem, att_cmp, weights),
        (lin_cmp, att_mem, 0.0),
        (lin_cmp, att_cmp, 0.0),
    ]
    return AffinePass(
        intercept_s=np.stack([zero + a + common_a for _, _, a in combos]),
        per_sequence_s=np.stack([lin[0] + att[0] + comm[0] for lin, att, _ in combos]),
        per_prompt_token_s=np.stack([lin[1] + att[1] + comm[1] for lin, att, _ in combos]),
    )


def affine_iteration_terms(
    model: ModelSpec, deployment: Deployment, efficiency: Efficiency, shape: ServingShape
) -> AffineIteration | None:
    """``h(x) = max_i (a_i + k_i·x)`` along Little's law (:meth:`AffinePass.along`); ``None`` if not affine."""
    affine = affine_pass_terms(model, deployment, efficiency, shape)
    return None if affine is None else affine.along(shape)


def kv_bytes_per_sequence(model: ModelSpec, deployment: Deployment, shape: ServingShape) -> FloatArray:
    """KV bytes one resident sequence holds, ``S_avg·r_kv·kv_tok`` (MODEL_SPEC §4) [B]."""
    return shape.resident_tokens * kv_replication(model, deployment.n_gpus) * model.kv_bytes_per_token


def single_sequence_iteration_time(
    model: ModelSpec, deployment: Deployment, efficiency: Efficiency, shape: ServingShape
) -> FloatArray:
    """Pass time with one sequence in decode and no prompt riding along, ``t(B = 1, C = 0)`` [s].

    The batch-1 speed that the batchability index of MODEL_SPEC §8.1 refers to.
    """
    return iteration_time(
        model,
        deployment,
        efficiency,
        shape.scheme,
        1.0,
        shape.decode_context_tokens,
        canvas_tokens=shape.input_tokens + shape.output_tokens,
    ).time_s
