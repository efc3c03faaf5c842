"""Speculative decoding: Leviathan closed forms, the batch-aware speedup and "optimized AR"
(docs/specdec.md#speculative-decoding).

The closed forms of Leviathan et al. (2023) assume that verifying ``γ+1`` tokens costs as much as
generating one, which holds only while the target pass is memory-bound. The batch-aware speedup prices
the verify pass and the draft passes with :func:`~economics.roofline.forward_time`, so speculation turns
into a slowdown once the linear layers become compute-bound (large batch), and keeps its gain where KV
reads dominate (long context, MagicDec).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from economics.hardware import Deployment, Efficiency
from economics.model import FloatArray, ModelSpec
from economics.roofline import forward_time
from economics.schemes import SpeculativeScheme


def leviathan_tokens_per_pass(acceptance_rate: ArrayLike, draft_tokens: ArrayLike) -> FloatArray:
    """Expected tokens emitted per target pass, ``τ(α, γ) = (1 − α^(γ+1)) / (1 − α)`` [tokens].

    Parameters
    ----------
    acceptance_rate : α ∈ [0, 1], expected per-token acceptance (``E[β]``, β = 1 − TV(p, q)) [1].
    draft_tokens : γ ≥ 0, draft tokens per iteration [count].

    Returns
    -------
    τ ∈ [1, γ+1]; the degenerate case α = 1 returns exactly ``γ + 1`` (the limit of the formula).

    References
    ----------
    Leviathan, Kalman, Matias, "Fast Inference from Transformers via Speculative Decoding", ICML 2023, Eq. 1
    (i.i.d. acceptance).

    >>> leviathan_tokens_per_pass([0.0, 0.8, 1.0], 4).round(4).tolist()
    [1.0, 3.3616, 5.0]
    """
    a = np.asarray(acceptance_rate, dtype=np.float64)
    g = np.asarray(draft_tokens, dtype=np.float64)
    one = a >= 1.0
    a_safe = np.where(one, 0.5, a)
    tau = -np.expm1((g + 1.0) * np.log(np.where(a_safe > 0, a_safe, 1.0))) / (1.0 - a_safe)
    tau = np.where(a_safe > 0, tau, 1.0)  # α = 0: only the bonus token
    return np.asarray(np.where(one, g + 1.0, tau), dtype=np.float64)


def leviathan_speedup(acceptance_rate: ArrayLike, draft_tokens: ArrayLike, draft_cost_ratio: ArrayLike) -> FloatArray:
    """Expected walltime improvement ``S_lev = τ(α, γ) / (γ·c + 1)`` [1].

    ``c`` is the time of one draft step over the time of one target step [1]. An improvement exists iff
    ``α > c`` (γ = 1 gives ``(1+α)/(1+c)``). Memory-bound regime only: see :func:`speculative_speedup` for
    the batch-aware version.

    Example (docs/specdec.md#leviathan): α = 0.8, γ = 4, c = 0.05 → τ = 3.36, ``S_lev = 2.80``.

    >>> round(float(leviathan_speedup(0.8, 4, 0.05)), 2)
    2.8
    """
    g = np.asarray(draft_tokens, dtype=np.float64)
    c = np.asarray(draft_cost_ratio, dtype=np.float64)
    return leviathan_tokens_per_pass(acceptance_rate, g) / (g * c + 1.0)


def leviathan_ops_ratio(acceptance_rate: ArrayLike, draft_tokens: ArrayLike, draft_flop_ratio: ArrayLike) -> FloatArray:
    """Increase in arithmetic operations, ``(γ·ĉ + γ + 1) / τ(α, γ)`` [1].

    ``ĉ`` is the FLOP ratio draft/target [1]. Leviathan et al. 2023, Theorem 3.11 written with τ; it is 1
    for γ = 0 and grows with γ when α < 1.

    >>> round(float(leviathan_ops_ratio(0.8, 4, 0.0)), 4)
    1.4874
    """
    g = np.asarray(draft_tokens, dtype=np.float64)
    c_hat = np.asarray(draft_flop_ratio, dtype=np.float64)
    return (g * c_hat + g + 1.0) / leviathan_tokens_per_pass(acceptance_rate, g)


def best_draft_tokens(
    acceptance_rate: ArrayLike, draft_cost_ratio: ArrayLike, max_draft_tokens: int = 16
) -> FloatArray:
    """``γ* = argmax_γ S_lev(α, γ, c)`` over the integers 1..``max_draft_tokens`` [count].

    Evaluated on the whole integer grid at once (a fixed-size axis), so it broadcasts over α and c.

    >>> best_draft_tokens([0.6, 0.8, 0.9], 0.05).tolist()
    [4.0, 8.0, 13.0]
    """
    a = np.asarray(acceptance_rate, dtype=np.float64)[..., None]
    c = np.asarray(draft_cost_ratio, dtype=np.float64)[..., None]
    gammas = np.arange(1, max_draft_tokens + 1, dtype=np.float64)
    speedups = leviathan_speedup(a, gammas, c)
    return np.asarray(gammas[np.argmax(speedups, axis=-1)], dtype=np.float64)


def draft_model(target: ModelSpec, scheme: SpeculativeScheme) -> ModelSpec | None:
    """The draft as a :class:`ModelSpec`: ``draft_layers`` dense decoder layers of the target's width and
    heads plus an LM head over ``draft_vocab`` tokens (EAGLE); ``None`` when the draft is fused into the
    verify pass (Medusa heads, ``draft_layers = 0``).

    The input embedding is the target's (a lookup, no FLOPs), so the draft is declared with tied
    embeddings: its only embedding matrix is the LM head. An MoE target gets a dense draft layer whose FFN
    is as wide as the target's active experts (``k + n_shared`` experts) when it has no dense FFN.
    """
    if scheme.draft_layers == 0:
        return None
    d_ff = target.d_ff or target.d_ff_expert * (target.experts_top_k + target.n_shared_experts)
    return ModelSpec(
        id=f"{target.id}-draft"[:64],
        name=f"draft of {target.name}"[:120],
        n_layers=scheme.draft_layers,
        d_model=target.d_model,
        n_heads=target.n_heads,
        n_kv_heads=target.n_kv_heads,
        head_dim=target.head_dim,
        d_ff=d_ff,
        vocab=scheme.draft_vocab,
        tied_embeddings=True,
        bytes_per_weight=target.bytes_per_weight,
        bytes_per_kv=target.bytes_per_kv,
        bytes_per_activation=target.bytes_per_activation,
    )


def draft_time(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    scheme: SpeculativeScheme,
    batch: ArrayLike,
    context_tokens: ArrayLike = 0,
) -> FloatArray:
    """Draft time per iteration, ``t_draft = draft_steps · forward_time_draft(B, q=1, S)`` [s].

    Each draft step is one pass of :func:`draft_model` on the same replica, with its own per-pass overhead
    ``draft_step_overhead_s`` in place of ``tau0``. 0 for fused drafts (Medusa).
    """
    draft = draft_model(model, scheme)
    B = np.asarray(batch, dtype=np.float64)
    S = np.asarray(context_tokens, dtype=np.float64)
    if draft is None or scheme.draft_steps == 0:
        return np.zeros(np.broadcast(B, S).shape)
    eff = efficiency.model_copy(update={"step_overhead_s": scheme.draft_step_overhead_s})
    return scheme.draft_steps * forward_time(draft, deployment, eff, B, 1, S).time_s


@dataclass(frozen=True)
class SpeculativeTimes:
    """Per-iteration times of plain AR and speculative decoding at the same operating point (per replica)."""

    ar_s: FloatArray  # t_AR: one plain decode step [s]
    verify_s: FloatArray  # target pass over q_verify tokens per sequence [s]
    draft_s: FloatArray  # all draft steps of one iteration [s]
    spec_s: FloatArray  # t_spec = verify + draft [s]
    tokens_per_pass: float  # τ: tokens emitted per speculative iteration [tokens]
    speedup: FloatArray  # τ·t_AR / t_spec [1]
    use_speculation: NDArray[np.bool_]  # speedup > 1: "optimized AR" switches speculation on [-]
    ar_opt_time_per_token_s: FloatArray  # min(t_AR, t_spec/τ) [s/token]


def speculative_speedup(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    scheme: SpeculativeScheme,
    batch: ArrayLike,
    context_tokens: ArrayLike = 0,
) -> SpeculativeTimes:
    """Batch-aware speedup of speculative decoding over plain AR (docs/specdec.md#batch-aware-speedup to
    docs/specdec.md#optimized-ar).

    ``t_AR = forward_time(B, 1, S)``, ``t_spec = forward_time(B, q_verify, S) + t_draft(B)`` and
    ``Speedup(B) = τ·t_AR / t_spec``. The "optimized AR" baseline switches speculation on only where it
    helps: time per token ``min(t_AR, t_spec/τ)``.

    Limits: at small batch with weights dominating, ``t_spec ≈ t_AR·(1 + γc)`` and Speedup → ``S_lev``; once
    the linear layers are compute-bound, ``t_spec/t_AR → q_verify`` and Speedup → ``τ/q_verify < 1``.

    References: Leviathan et al. 2023; Li et al., EAGLE-3 (arXiv 2503.01840): 1.38× throughput at batch 64
    in SGLang; Sadhukhan et al., MagicDec (arXiv 2408.11049) for the long-context regime.

    Example (docs/calibration.md#golden-values C10): Llama-3.1-8B on one H100, EAGLE-3-like tree (16 verified tokens, τ
    = 4), context 2048: ~3.0× at batch 1, 1.38× at batch 64 (EAGLE-3 measured 1.38× in SGLang).

    >>> from economics.io.catalog import load_catalog
    >>> catalog = load_catalog()
    >>> one_h100 = Deployment(gpu=catalog.gpus["h100-sxm"])
    >>> r = speculative_speedup(catalog.models["llama-3.1-8b"], one_h100, Efficiency(),
    ...     catalog.speculative["eagle3-tree"], [1, 64], 2048)
    >>> r.speedup.round(2).tolist(), r.use_speculation.tolist()
    ([3.02, 1.38], [True, True])
    """
    B = np.asarray(batch, dtype=np.float64)
    S = np.asarray(context_tokens, dtype=np.float64)
    t_ar = forward_time(model, deployment, efficiency, B, 1, S).time_s
    t_verify = forward_time(model, deployment, efficiency, B, scheme.verify_tokens, S).time_s
    t_draft = draft_time(model, deployment, efficiency, scheme, B, S)
    t_spec = t_verify + t_draft
    tau = scheme.tokens_per_pass
    speedup = tau * t_ar / t_spec
    return SpeculativeTimes(
        ar_s=t_ar,
        verify_s=t_verify,
        draft_s=np.broadcast_to(t_draft, t_ar.shape).astype(np.float64),
        spec_s=t_spec,
        tokens_per_pass=tau,
        speedup=speedup,
        use_speculation=speedup > 1.0,
        ar_opt_time_per_token_s=np.minimum(t_ar, t_spec / tau),
    )
