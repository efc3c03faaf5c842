"""How a scheme turns a stream of requests into forward passes (docs/serving.md#serving-and-queues, ``Scheme(q, e,
bidir, t_extra)``).

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

For a dense model, EAGLE's dense draft included, ``h`` is a sum of maxima of affine functions of ``x``
(:func:`affine_pass_terms`, :mod:`economics.serving.affine`), which gives the closed-form fixed point and
SLO capacity; for an MoE model ``h`` is evaluated with :func:`~economics.roofline.forward_time` (and
:func:`~economics.specdec.draft_time`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike, NDArray

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
from economics.serving.affine import AffineIteration, AffinePass, forward_term
from economics.specdec import draft_model
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
    """Map a decoding scheme and a workload shape to ``Scheme(q, e, bidir, t_extra)``
    (docs/serving.md#serving-and-queues).

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
    the ``2·L·n_q·d_h·C·T_in`` prefill attention of docs/serving.md#continuous-batching. A diffusion model without a
    prefix cache has no separate prefill: every pass runs over the whole canvas ``T_in + T_out`` with no cached context.
    The first token of a diffusion request is visible after the ``S`` denoising passes of its first block;
    AR and speculative decoding sample it from the last prompt chunk's logits (docs/serving.md#continuous-batching), the
    rule of :func:`~economics.iteration.passes_to_first_token` that :mod:`economics.throughput` uses too.

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
        first_token_passes=float(passes_to_first_token(scheme)),
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
    """TTFT and end-to-end latency of a request in a continuously batched replica (docs/serving.md#continuous-batching)
    [s].

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

    the first spec (docs/departures.md#departures) writes ``TTFT ≈ W_q + ceil(T_in/C_chunk)·t*``. That uses the *mean*
    iteration, in which the prompt load is smeared over all iterations; at low load the iteration that actually carries
    a 1000-token chunk is a compute-bound prefill (51.7 ms for the 70B example, docs/roofline.md#prefill), not the 9.6
    ms mean. Charging the chunk's own iteration, ``C = max(C*, T_in/k)``, recovers docs/roofline.md#prefill prefill time
    at low load and docs/serving.md#continuous-batching formula at high load, where ``C* ≥ T_in/k``. The first token is
    sampled from the last chunk's logits (vLLM, SGLang), so AR adds no decode step; a diffusion block is final after its
    ``S`` passes.
    """
    x = _f(requests_per_iteration)
    t = _f(iteration_s)
    p = prompt_chunks(shape, prefill_chunk_tokens)
    t_prompt = pass_time(x * shape.passes_per_request, np.maximum(x * shape.prefill_tokens, p.tokens_per_chunk))
    t_prompt = np.where(p.has_prompt, t_prompt, 0.0)
    wait = 0.5 * t
    head = wait + p.chunks * t_prompt
    return RequestLatency(
        queue_wait_s=np.asarray(wait, dtype=np.float64),
        prompt_iteration_s=np.asarray(t_prompt, dtype=np.float64),
        ttft_s=np.asarray(head + p.first_token_passes * t, dtype=np.float64),
        e2e_mean_s=np.asarray(head + shape.passes_per_request * t, dtype=np.float64),
    )


@dataclass(frozen=True)
class PromptChunks:
    """How a request's prompt enters the batch, and what the first token waits for after it."""

    has_prompt: NDArray[np.bool_]  # the scheme prefills a prompt (T_in > 0 and a prefill exists) [-]
    chunks: FloatArray  # k = ceil(T_in/C_chunk), at least 1 with a prompt; 0 without [count]
    tokens_per_chunk: FloatArray  # T_in/k; 0 without a prompt [tokens]
    first_token_passes: FloatArray  # S_first, at least 1 without a prompt (a pass must sample it) [count]


def prompt_chunks(shape: ServingShape, prefill_chunk_tokens: ArrayLike) -> PromptChunks:
    """Prompt chunks ``k = ceil(T_in/C_chunk)`` and the passes after them until the first token
    (docs/serving.md#continuous-batching)."""
    chunk = _f(prefill_chunk_tokens)
    has_prompt = shape.prefill_tokens > 0
    chunks = np.where(has_prompt, np.maximum(1.0, np.ceil(shape.prefill_tokens / chunk)), 0.0)
    return PromptChunks(
        has_prompt=np.asarray(has_prompt, dtype=np.bool_),
        chunks=np.asarray(chunks, dtype=np.float64),
        tokens_per_chunk=np.asarray(shape.prefill_tokens / np.where(has_prompt, chunks, 1.0), dtype=np.float64),
        first_token_passes=np.asarray(
            np.where(has_prompt, shape.first_token_passes, np.maximum(1.0, shape.first_token_passes)), dtype=np.float64
        ),
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
    ``mfu_prefill``) plus the draft passes of a speculative scheme. For a dense model (with or without a
    draft) and ``allow_affine`` the same numbers come from :func:`affine_pass_terms`, which is several
    times cheaper; otherwise from :func:`roofline_pass_time`.
    """
    affine = affine_pass_terms(model, deployment, efficiency, shape) if allow_affine else None
    if affine is not None:
        return affine.time
    return roofline_pass_time(model, deployment, efficiency, shape)


def roofline_pass_time(
    model: ModelSpec, deployment: Deployment, efficiency: Efficiency, shape: ServingShape
) -> PassTimeFunction:
    """``(B, C) ↦ iteration_time(B, S_avg, C, (T_in+1)/2)`` evaluated with ``forward_time`` (any model) [s]."""
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


def affine_pass_terms(
    model: ModelSpec, deployment: Deployment, efficiency: Efficiency, shape: ServingShape
) -> AffinePass | None:
    """The iteration time as a sum of maxima of affine branches for a dense model; ``None`` for MoE.

    The main pass (decode, verify or denoise, with the prompt tokens riding along) is one
    :func:`~economics.serving.affine.forward_term`; an EAGLE-style draft adds ``draft_steps`` passes of the
    dense :func:`~economics.specdec.draft_model` over the decoding sequences at the same context, with the
    draft's own per-pass overhead and no prompt tokens, exactly as :func:`~economics.specdec.draft_time`.
    """
    if model.is_moe:
        return None
    main = forward_term(
        model,
        deployment,
        efficiency,
        shape.new_tokens,
        shape.decode_context_tokens,
        shape.prefill_context_tokens,
        bidirectional=shape.bidirectional,
        step_overhead_s=efficiency.step_overhead_s,
    )
    drafter = None if shape.draft is None else draft_model(model, shape.draft)
    if shape.draft is None or drafter is None:
        return AffinePass((main,))
    draft = forward_term(
        drafter,
        deployment,
        efficiency,
        1.0,
        shape.decode_context_tokens,
        0.0,
        bidirectional=False,
        step_overhead_s=shape.draft.draft_step_overhead_s,
        sees_prompt=False,
        passes=float(shape.draft.draft_steps),
    )
    return AffinePass((main, draft))


def affine_iteration_terms(
    model: ModelSpec, deployment: Deployment, efficiency: Efficiency, shape: ServingShape
) -> AffineIteration | None:
    """``h(x) = max_i (a_i + k_i·x)`` along Little's law (:meth:`AffinePass.along`); ``None`` if not affine."""
    affine = affine_pass_terms(model, deployment, efficiency, shape)
    return None if affine is None else along_littles_law(affine, shape)


def along_littles_law(affine: AffinePass, shape: ServingShape) -> AffineIteration:
    """The pass on Little's law, ``B = x·T_out/e`` and ``C = x·T_in``: ``h(x) = max_c (a_c + k_c·x)``."""
    return affine.along(shape.passes_per_request, shape.prefill_tokens)


def kv_bytes_per_sequence(model: ModelSpec, deployment: Deployment, shape: ServingShape) -> FloatArray:
    """KV bytes one resident sequence holds, ``S_avg·r_kv·kv_tok`` (docs/memory.md#kv-capacity) [B]."""
    return shape.resident_tokens * kv_replication(model, deployment.n_gpus) * model.kv_bytes_per_token
