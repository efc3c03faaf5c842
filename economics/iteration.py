"""One iteration of any decoding scheme: the ``Scheme(q, e, bidir, t_extra)`` layer
(docs/serving.md#serving-and-queues).

Every scheme is a forward pass over ``q`` new tokens per sequence that emits ``e`` tokens per sequence,
plus scheme-specific extra time:

============  =====================  ==================  =====  ====================
scheme        q (new tokens)         e (tokens emitted)  bidir  t_extra
============  =====================  ==================  =====  ====================
AR            1                      1                   no     0
speculative   q_verify (γ+1 / tree)  τ                   no     draft passes
diffusion     K (canvas w/o cache)   K/(S+ρ)             yes    0
============  =====================  ==================  =====  ====================

A request needs ``T_out/e`` iterations and its time per output token is ``t_iter/e``. The regimes built
on this layer (steady decode, closed-loop concurrency, offline saturation) live in
:mod:`economics.throughput`, which re-exports :func:`iteration_time` and :func:`tokens_per_iteration` for the
serving layer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from economics.hardware import Deployment, Efficiency
from economics.model import FloatArray, ModelSpec
from economics.roofline import PassTime, forward_time
from economics.schemes import ARScheme, DiffusionScheme, SpeculativeScheme
from economics.specdec import draft_time

AnyScheme = ARScheme | SpeculativeScheme | DiffusionScheme


def tokens_per_iteration(scheme: AnyScheme) -> float:
    """``e``: tokens one iteration emits per sequence [tokens].

    1 for AR, ``τ`` for speculative decoding, ``K/(S+ρ)`` for diffusion (``K/S`` without a prefix cache).

    >>> tokens_per_iteration(ARScheme()), tokens_per_iteration(DiffusionScheme(block_tokens=32, denoising_steps=8))
    (1.0, 3.5555555555555554)
    """
    if isinstance(scheme, ARScheme):
        return 1.0
    return float(scheme.tokens_per_pass)


def new_tokens_per_iteration(scheme: AnyScheme, canvas_tokens: ArrayLike | None = None) -> FloatArray:
    """``q``: new tokens per sequence the main pass runs over [tokens].

    1 for AR, ``verify_tokens`` for speculative decoding, ``K`` for cached diffusion and the whole canvas
    (``canvas_tokens`` = prompt + generated) for diffusion without a prefix cache.
    """
    if isinstance(scheme, ARScheme):
        return np.asarray(1.0)
    if isinstance(scheme, SpeculativeScheme):
        return np.asarray(float(scheme.verify_tokens))
    if scheme.prefix_cache:
        return np.asarray(float(scheme.block_tokens))
    if canvas_tokens is None:
        raise ValueError("canvas_tokens (prompt + generated tokens) is required for diffusion without a prefix cache")
    return np.asarray(canvas_tokens, dtype=np.float64)


def passes_to_first_token(scheme: AnyScheme) -> int:
    """Iterations after the last prompt chunk until the first output token is final [count].

    0 for AR and speculative decoding: engines (vLLM, SGLang, TensorRT-LLM) sample the first token from the
    logits of the last prefill chunk, so TTFT = queueing + prefill. The first spec (docs/departures.md#departures) adds
    one decode step (``TTFT = W_queue + t_prefill + TPOT``); that step produces the second token. ``S`` for diffusion:
    the first block is final after its ``S`` denoising passes (``S`` passes over the canvas without a cache).

    >>> passes_to_first_token(ARScheme()), passes_to_first_token(DiffusionScheme(block_tokens=32, denoising_steps=8))
    (0, 8)
    """
    return scheme.denoising_steps if isinstance(scheme, DiffusionScheme) else 0


def needs_prefill(scheme: AnyScheme) -> bool:
    """False only for diffusion without a prefix cache, whose every pass recomputes the prompt [-]."""
    return not (isinstance(scheme, DiffusionScheme) and not scheme.prefix_cache)


def resident_tokens(
    scheme: AnyScheme, input_tokens: ArrayLike, output_tokens: ArrayLike, reserve_output: bool = False
) -> FloatArray:
    """KV-cache tokens one sequence holds on average [tokens].

    ``T_in + T_out/2`` for a paged cache (vLLM, SGLang: the actual tokens); ``T_in + T_out`` when the engine
    reserves the whole output up front (``reserve_output``: TensorRT-LLM's default ``GUARANTEED_NO_EVICT``
    policy, docs/memory.md#kv-capacity). A cached diffusion block adds its ``K`` positions; without a prefix cache the
    pass materialises K and V for the whole canvas, which is counted as if cached (a conservative
    stand-in for its activation memory).
    """
    T_in = np.asarray(input_tokens, dtype=np.float64)
    T_out = np.asarray(output_tokens, dtype=np.float64)
    if isinstance(scheme, DiffusionScheme) and not scheme.prefix_cache:
        return np.asarray(T_in + T_out, dtype=np.float64)
    tokens = T_in + (T_out if reserve_output else T_out / 2.0)
    if isinstance(scheme, DiffusionScheme):
        tokens = tokens + scheme.block_tokens
    return np.asarray(tokens, dtype=np.float64)


@dataclass(frozen=True)
class IterationTime:
    """One iteration of a scheme over a batch, per replica (the ``t_pass + t_extra`` of
    docs/serving.md#serving-and-queues)."""

    time_s: FloatArray  # whole iteration: main pass + draft passes [s]
    main: PassTime  # the target pass (decode, verify or denoise, with any chunked prefill riding along)
    draft_s: FloatArray  # draft passes of a speculative iteration, 0 otherwise [s]
    new_tokens: FloatArray  # q per sequence in the main pass [tokens]
    tokens_per_pass: float  # e per sequence [tokens]

    @property
    def time_per_output_token_s(self) -> FloatArray:
        """``TPOT = t_iter / e`` [s/token]."""
        return np.asarray(self.time_s / self.tokens_per_pass, dtype=np.float64)


def iteration_time(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    scheme: AnyScheme,
    batch: ArrayLike,
    context_tokens: ArrayLike,
    prefill_tokens: ArrayLike = 0,
    prefill_context_tokens: ArrayLike = 0,
    *,
    canvas_tokens: ArrayLike | None = None,
) -> IterationTime:
    """Time of one decoding iteration of ``scheme`` over ``batch`` sequences [s].

    ``t_iter = forward_time(B, q, S_ctx, bidir, C prefill tokens) + t_extra`` with ``(q, bidir, t_extra)``
    from the scheme table in the module docstring (docs/serving.md#serving-and-queues). ``context_tokens`` is each
    sequence's cached context (the diffusion prefix); ``prefill_tokens`` (C) are chunked-prefill tokens riding along,
    attending to ``prefill_context_tokens`` earlier prompt tokens on average (Sarathi-Serve). Without a
    prefix cache a diffusion pass runs over ``canvas_tokens`` positions with no cached context.

    Example: one AR step of Llama-3.1-70B on 8×H100 with the default efficiency at 4096 context is 12.19 ms, the
    first spec's 9.70 ms plus 2.49 ms of all-reduce half-performance length (docs/roofline.md#worked-example-70b); a
    diffusion iteration with K = S = 1 and ρ = 0 is exactly an AR step.

    >>> from economics.io.catalog import load_catalog
    >>> catalog = load_catalog()
    >>> replica = Deployment(gpu=catalog.gpus["h100-sxm"], n_gpus=8)
    >>> it = iteration_time(catalog.models["llama-3.1-70b"], replica, Efficiency(), ARScheme(), 1, 4096)
    >>> round(float(it.time_s) * 1e3, 2)
    12.19
    """
    e = tokens_per_iteration(scheme)
    q = new_tokens_per_iteration(scheme, canvas_tokens)
    bidir = isinstance(scheme, DiffusionScheme)
    ctx = 0.0 if bidir and not needs_prefill(scheme) else context_tokens
    main = forward_time(
        model,
        deployment,
        efficiency,
        batch,
        q,
        ctx,
        bidirectional=bidir,
        prefill_tokens=prefill_tokens,
        prefill_context_tokens=prefill_context_tokens,
    )
    if isinstance(scheme, SpeculativeScheme):
        draft = np.broadcast_to(
            draft_time(model, deployment, efficiency, scheme, batch, context_tokens), main.time_s.shape
        )
    else:
        draft = np.zeros_like(main.time_s)
    return IterationTime(
        time_s=np.asarray(main.time_s + draft, dtype=np.float64),
        main=main,
        draft_s=np.asarray(draft, dtype=np.float64),
        new_tokens=np.broadcast_to(q, main.time_s.shape).astype(np.float64),
        tokens_per_pass=e,
    )
