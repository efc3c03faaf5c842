"""Text diffusion LMs: pass time, per-stream and aggregate throughput, compute inflation
(docs/diffusion.md#text-diffusion).

A masked (block) diffusion LM emits a block of ``K`` tokens with ``S`` denoising passes; every pass runs
the full network over all ``K`` positions with bidirectional attention inside the block, and with a prefix
KV cache ``ρ`` extra passes per block commit the finished block. So a sequence emits
``e = K/(S+ρ)`` tokens per pass, and each emitted token costs ``S+ρ`` tokens of linear-layer compute. At
small batch the pass is memory-bound and diffusion is ~``e``× faster per stream than AR; at large batch
it saturates at ``1/(S+ρ)`` of AR's peak throughput, so AR overtakes it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from economics.capacity import kv_capacity
from economics.hardware import Deployment, Efficiency
from economics.model import FloatArray, ModelSpec
from economics.roofline import PassTime, forward_time
from economics.schemes import DiffusionScheme, SpeculativeScheme
from economics.specdec import speculative_speedup


def diffusion_tokens_per_pass(
    block_tokens: ArrayLike, denoising_steps: ArrayLike, refresh_passes: ArrayLike = 0
) -> FloatArray:
    """Tokens emitted per pass per sequence, ``e = K / (S + ρ)`` [tokens].

    ``TPF = K/S`` ("tokens per forward") is the special case ρ = 0. ``e ≤ K``; ``S = K, ρ = 0`` gives 1.

    >>> diffusion_tokens_per_pass([32, 32, 256], [8, 32, 16], [1, 0, 1]).round(3).tolist()
    [3.556, 1.0, 15.059]
    """
    K = np.asarray(block_tokens, dtype=np.float64)
    S = np.asarray(denoising_steps, dtype=np.float64)
    rho = np.asarray(refresh_passes, dtype=np.float64)
    return np.asarray(K / (S + rho), dtype=np.float64)


def compute_inflation(scheme: DiffusionScheme, prompt_tokens: ArrayLike, output_tokens: ArrayLike) -> FloatArray:
    """Linear-layer FLOPs per generated token relative to AR's ``2·P_mm`` [1].

    Prefix-cached blocks: ``S + ρ`` (every emitted token rides through ``S+ρ`` passes). Without a cache every
    pass recomputes the whole canvas of ``T_prompt + T_gen`` positions, and ``T_gen·S/K`` passes emit
    ``T_gen`` tokens: ``S·(T_prompt + T_gen)/K``.

    >>> compute_inflation(DiffusionScheme(block_tokens=32, denoising_steps=8, refresh_passes=1), 1000, 256)
    array(9.)
    >>> compute_inflation(DiffusionScheme(block_tokens=256, denoising_steps=256, prefix_cache=False), 1000, 256)
    array(1256.)
    """
    Tp = np.asarray(prompt_tokens, dtype=np.float64)
    Tg = np.asarray(output_tokens, dtype=np.float64)
    K, S = float(scheme.block_tokens), float(scheme.denoising_steps)
    if scheme.prefix_cache:
        return np.asarray(
            np.broadcast_to(S + scheme.effective_refresh_passes, np.broadcast(Tp, Tg).shape), dtype=np.float64
        )
    return np.asarray(S * (Tp + Tg) / K, dtype=np.float64)


def diffusion_pass_time(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    scheme: DiffusionScheme,
    batch: ArrayLike,
    prefix_tokens: ArrayLike,
    canvas_tokens: ArrayLike | None = None,
) -> PassTime:
    """Time of one denoising pass over ``batch`` sequences [s].

    Prefix cache: ``forward_time(B, q=K, S_ctx=prefix, bidirectional=True)``: weights once, each sequence
    reads its cached prefix and the block attends bidirectionally to itself. No cache (vanilla LLaDA):
    ``forward_time(B, q=canvas, S_ctx=0, bidirectional=True)`` with ``canvas = T_prompt + T_gen``; pass it as
    ``canvas_tokens`` (required in that mode).

    Parameters
    ----------
    model, deployment, efficiency : the network, the replica (GPU, ``N``) and its efficiency factors [-].
    scheme : block length ``K`` [tokens], denoising passes ``S``, refresh passes ``ρ``, prefix cache or not [-].
    batch : sequences denoised together ``B`` [sequences]; may be fractional.
    prefix_tokens : cached context each sequence's block attends to (prompt + tokens already generated) [tokens].
    canvas_tokens : ``T_prompt + T_gen`` [tokens]; required without a prefix cache, ignored with one.

    Returns
    -------
    PassTime : time of one pass and its terms [s], bytes [B], FLOPs [FLOP] (see :func:`forward_time`).

    Example (docs/diffusion.md#diffusion-examples (a)): Llama-3.1-8B shapes on one H100, block 32 with a prefix cache,
    1024-token prefix, ideal efficiency. By hand at batch 1: weights 16.060e9 B + activations 32·4·32·4096·2 B =
    33.6e6 B + KV 131,072 B · (1024 + 32) = 138.4e6 B, over 3.35e12 B/s = 4.845 ms: memory-bound, about one AR step.
    At batch 256 the linear layers need 256·32 · 2·7.5047e9 FLOP / 989.4e12 FLOP/s = 124.3 ms and attention reads
    256 · 138.4e6 B / 3.35e12 B/s = 10.6 ms: 134.9 ms, compute-bound.

    >>> from economics.io.catalog import load_catalog
    >>> catalog = load_catalog()
    >>> one_h100 = Deployment(gpu=catalog.gpus["h100-sxm"])
    >>> p = diffusion_pass_time(catalog.models["llama-3.1-8b"], one_h100, Efficiency.ideal(),
    ...     catalog.diffusion["fast-dllm-like"], batch=[1, 256], prefix_tokens=1024)
    >>> (p.time_s * 1e3).round(1).tolist(), p.compute_bound.tolist()
    ([4.8, 134.9], [False, True])

    Without a cache (vanilla LLaDA, docs/diffusion.md#diffusion-examples (c)) every pass runs over the whole
    canvas and is compute-bound already at batch 1.
    """
    if scheme.prefix_cache:
        return forward_time(
            model, deployment, efficiency, batch, scheme.block_tokens, prefix_tokens, bidirectional=True
        )
    if canvas_tokens is None:
        raise ValueError("canvas_tokens (prompt + generated tokens) is required without a prefix cache")
    return forward_time(model, deployment, efficiency, batch, canvas_tokens, 0, bidirectional=True)


@dataclass(frozen=True)
class DiffusionThroughput:
    """Decode-phase speed of a diffusion LM at a batch (per replica)."""

    pass_time: PassTime  # one denoising pass
    tokens_per_pass: float  # e [tokens]
    per_stream_tokens_per_s: FloatArray  # e / t_pass [tok/s]
    aggregate_tokens_per_s: FloatArray  # B·e / t_pass [tok/s]


def diffusion_throughput(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    scheme: DiffusionScheme,
    batch: ArrayLike,
    prompt_tokens: ArrayLike,
    output_tokens: ArrayLike,
) -> DiffusionThroughput:
    """Per-stream ``e/t_pass`` and aggregate ``B·e/t_pass`` decode throughput [tok/s].

    The prefix is the mean resident context over the generation, ``T_prompt + T_gen/2`` (as for AR decode);
    without a cache the canvas is ``T_prompt + T_gen``. Prefill is not included (see
    :mod:`economics.throughput`).

    Example (docs/diffusion.md#diffusion-examples (a)): Llama-3.1-8B shapes on one H100, K = 32, S = 8, ρ = 1,
    1024-token prefix: ~479 tok/s per stream at B = 1 against ~135 for AR; aggregate saturates near 3.4k tok/s.

    >>> from economics.io.catalog import load_catalog
    >>> catalog = load_catalog()
    >>> r = diffusion_throughput(catalog.models["llama-3.1-8b"], Deployment(gpu=catalog.gpus["h100-sxm"]),
    ...     Efficiency(), catalog.diffusion["fast-dllm-like"], [1, 256], 1024, 0)
    >>> r.per_stream_tokens_per_s.round(0).tolist(), r.aggregate_tokens_per_s.round(0).tolist()
    ([479.0, 13.0], [479.0, 3446.0])
    """
    Tp = np.asarray(prompt_tokens, dtype=np.float64)
    Tg = np.asarray(output_tokens, dtype=np.float64)
    B = np.asarray(batch, dtype=np.float64)
    pt = diffusion_pass_time(model, deployment, efficiency, scheme, B, Tp + Tg / 2.0, Tp + Tg)
    e = scheme.tokens_per_pass
    per_stream = e / pt.time_s
    return DiffusionThroughput(
        pass_time=pt,
        tokens_per_pass=e,
        per_stream_tokens_per_s=per_stream,
        aggregate_tokens_per_s=np.asarray(B * per_stream, dtype=np.float64),
    )


def ar_overtakes_diffusion_batch(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    scheme: DiffusionScheme,
    prompt_tokens: ArrayLike,
    output_tokens: ArrayLike,
    speculation: SpeculativeScheme | None = None,
    max_batch: int = 8192,
    ar_model: ModelSpec | None = None,
) -> FloatArray:
    """Smallest integer batch at which AR's aggregate throughput reaches diffusion's [count].

    Compares ``X_AR(B) = B / t_AR(B)`` (or the optimized-AR baseline ``B / min(t_AR, t_spec/τ)`` when
    ``speculation`` is given, docs/specdec.md#optimized-ar) with ``X_diff(B) = B·e / t_pass(B)`` at the same mean
    context ``T_prompt + T_gen/2``, over every batch from 1 to the smaller of ``max_batch`` and the KV-memory
    limit. ``ar_model`` is the AR model of the comparison (the diffusion model's own shapes by default).

    The search evaluates the whole integer grid at once (a fixed-size axis appended to the inputs' shape),
    so it broadcasts over prompt and output lengths. Returns ``inf`` where AR never catches up within the
    feasible batches (or the model does not fit), and 1 where AR is ahead already at batch 1.

    Example (docs/diffusion.md#diffusion-examples (a)): 8B shapes on one H100, K = 32, S = 8, ρ = 1, 1024-token prefix:
    AR overtakes at B ≈ 30 (at 32 on the integer grid: 3,480 vs 3,401 tok/s).

    >>> from economics.io.catalog import load_catalog
    >>> catalog = load_catalog()
    >>> float(ar_overtakes_diffusion_batch(catalog.models["llama-3.1-8b"], Deployment(gpu=catalog.gpus["h100-sxm"]),
    ...     Efficiency(), catalog.diffusion["fast-dllm-like"], 1024, 0))
    32.0
    """
    Tp = np.asarray(prompt_tokens, dtype=np.float64)[..., None]
    Tg = np.asarray(output_tokens, dtype=np.float64)[..., None]
    B = np.arange(1, max_batch + 1, dtype=np.float64)
    ctx = Tp + Tg / 2.0
    x_diff = diffusion_throughput(model, deployment, efficiency, scheme, B, Tp, Tg).aggregate_tokens_per_s
    m_ar = ar_model or model
    if speculation is None:
        t_tok = forward_time(m_ar, deployment, efficiency, B, 1, ctx).time_s
    else:
        t_tok = speculative_speedup(m_ar, deployment, efficiency, speculation, B, ctx).ar_opt_time_per_token_s
    x_ar = B / t_tok
    kv_ctx = ctx + (scheme.block_tokens if scheme.prefix_cache else Tg / 2.0)
    cap = np.minimum(
        kv_capacity(model, deployment, efficiency).max_batch(kv_ctx),
        kv_capacity(m_ar, deployment, efficiency).max_batch(ctx),
    )
    ahead = (x_ar >= x_diff) & (cap >= B)
    first = np.argmax(ahead, axis=-1)
    return np.asarray(np.where(ahead.any(axis=-1), B[first], np.inf), dtype=np.float64)
