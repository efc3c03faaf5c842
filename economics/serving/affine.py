"""Exact closed forms for dense models: a pass time is a sum of maxima of affine functions
(docs/roofline.md#forward-pass, docs/serving.md#serving-and-queues).

For a dense model every piece of :func:`~economics.roofline.forward_time` is affine in the decode batch ``B``
and in the prompt tokens ``C`` riding along, except the two roofline maxima (linear layers: memory | compute;
attention: memory | compute). Enumerating their four branch combinations, one pass takes::

    t_main(B, C) = max_i (a_i + kB_i·B + kC_i·C)             i ∈ {lin mem, lin cmp} × {att mem, att cmp}

An EAGLE-style draft (a dense model, :func:`~economics.specdec.draft_model`) adds ``draft_steps`` passes over
the ``B`` decoding sequences: a second maximum of the same kind, with ``kC = 0``. So the iteration time is::

    t(B, C) = Σ_g max_i (a_gi + kB_gi·B + kC_gi·C)             g ∈ {main pass, draft passes}

On a ray ``B = b·x``, ``C = c·x + c0`` every term is a maximum of lines in ``x``, and a sum of maxima of lines
is the maximum over every combination of one line per term (``Π_g m_g`` lines: 4 for AR, 16 with a draft).
The serving layer uses two consequences:

* the least fixed point of ``t = max_c (a_c + λ·k_c·t)`` is ``t* = max_c a_c/(1 − λ·k_c)`` when every
  ``λ·k_c < 1``, overload otherwise (docs/serving.md#continuous-batching; ``continuous_batching``);
* the largest ``x ≥ 0`` with ``max_c (a_c + k_c·x) ≤ L`` is ``min_c (L − a_c)/k_c`` over the lines with
  ``k_c > 0``, given that it holds at ``x = 0`` (docs/serving.md#slo-capacity; the SLO capacity, without bisection).

An MoE model has no such form (its expert coverage ``W_read(n)`` is concave in the tokens), so it has no
:class:`AffinePass` and the serving layer iterates on ``forward_time``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from economics.hardware import Deployment, Efficiency
from economics.model import FloatArray, ModelSpec
from economics.roofline import attention_flops_per_s, linear_flops_per_s, replication

Lines = tuple[FloatArray, FloatArray]
"""``(a, k)``: the lines ``a_c + k_c·x``, axis 0 enumerating them; the trailing axes (the workload shape) of
``a`` and ``k`` broadcast against each other."""


def _f(x: ArrayLike) -> FloatArray:
    return np.asarray(x, dtype=np.float64)


def _lead(branches: FloatArray, ndim: int) -> FloatArray:
    """Insert axes after the branch axis so that the trailing axes right-align with an ``ndim`` shape."""
    extra = ndim - (branches.ndim - 1)
    return branches.reshape((branches.shape[0],) + (1,) * max(extra, 0) + branches.shape[1:])


@dataclass(frozen=True)
class AffineTerm:
    """``max_i (a_i + kB_i·B + kC_i·C)``: one maximum of a pass time; axis 0 enumerates its branches."""

    intercept_s: FloatArray  # a_i: time of an empty pass (weights, all-reduce latency, tau0) [s]
    per_sequence_s: FloatArray  # kB_i: time per sequence in decode [s]
    per_prompt_token_s: FloatArray  # kC_i: time per prompt token riding along; 0 for a draft [s]
    sees_prompt: bool  # False when kC ≡ 0 (the draft passes do not carry prompt tokens) [-]

    def time(self, batch: FloatArray, prompt_tokens: FloatArray) -> FloatArray:
        """``max_i (a_i + kB_i·B + kC_i·C)`` [s]."""
        B, C = _f(batch), _f(prompt_tokens)
        n = len(np.broadcast_shapes(B.shape, C.shape, self.intercept_s.shape[1:]))
        t = _lead(self.intercept_s, n) + _lead(self.per_sequence_s, n) * B
        if self.sees_prompt:
            t = t + _lead(self.per_prompt_token_s, n) * C
        return np.asarray(np.max(t, axis=0), dtype=np.float64)

    def on_ray(self, batch_per_x: ArrayLike, prompt_per_x: ArrayLike, prompt_fixed: ArrayLike = 0.0) -> Lines:
        """The term along ``B = b·x``, ``C = c·x + c0``: lines ``(a + kC·c0) + (kB·b + kC·c)·x``."""
        b, c, c0 = _f(batch_per_x), _f(prompt_per_x), _f(prompt_fixed)
        n = max(b.ndim, c.ndim, c0.ndim, self.intercept_s.ndim - 1)
        a, kb, kc = (_lead(v, n) for v in (self.intercept_s, self.per_sequence_s, self.per_prompt_token_s))
        return np.asarray(a + kc * c0, dtype=np.float64), np.asarray(kb * b + kc * c, dtype=np.float64)


@dataclass(frozen=True)
class AffineIteration:
    """``h(x) = max_i (a_i + k_i·x)`` along Little's law, every branch combination flattened on axis 0.

    The remaining axes are the broadcast shape of the workload arrays.
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
    """``t(B, C) = Σ_g max_i (a_gi + kB_gi·B + kC_gi·C)``: the main pass, plus the draft passes of EAGLE."""

    terms: tuple[AffineTerm, ...]

    def time(self, batch: FloatArray, prompt_tokens: FloatArray) -> FloatArray:
        """``t(B, C)`` [s], broadcast over ``B``, ``C`` and the workload shape."""
        B, C = _f(batch), _f(prompt_tokens)
        shape = np.broadcast_shapes(B.shape, C.shape, *(t.intercept_s.shape[1:] for t in self.terms))
        total = self.terms[0].time(B, C)
        for term in self.terms[1:]:
            total = total + term.time(B, C)
        return np.asarray(np.broadcast_to(total, shape), dtype=np.float64)

    def on_ray(self, batch_per_x: ArrayLike, prompt_per_x: ArrayLike, prompt_fixed: ArrayLike = 0.0) -> list[Lines]:
        """Every term along ``B = b·x``, ``C = c·x + c0`` (:meth:`AffineTerm.on_ray`)."""
        return [t.on_ray(batch_per_x, prompt_per_x, prompt_fixed) for t in self.terms]

    def along(self, passes_per_request: ArrayLike, prefill_tokens: ArrayLike) -> AffineIteration:
        """Little's law, ``B = x·T_out/e`` and ``C = x·T_in``: ``h(x)`` as one maximum over all combinations."""
        a, k = sum_of_maxima(self.on_ray(passes_per_request, prefill_tokens))
        return AffineIteration(intercept_s=a, slope_s=k)


def sum_of_maxima(parts: Sequence[Lines]) -> Lines:
    """``Σ_g max_i (a_gi + k_gi·x)`` as one maximum of lines, one per combination of branches (``Π_g m_g``).

    >>> a, k = sum_of_maxima([(np.array([1.0, 0.0]), np.array([0.0, 1.0])), (np.array([2.0]), np.array([3.0]))])
    >>> a.tolist(), k.tolist()
    ([3.0, 2.0], [3.0, 4.0])
    """
    n = max(p.ndim - 1 for part in parts for p in part)
    total_a, total_k = _lead(parts[0][0], n), _lead(parts[0][1], n)
    for a, k in parts[1:]:
        sum_a = total_a[:, None] + _lead(a, n)[None, :]  # (lines so far, this term's lines, *shape)
        sum_k = total_k[:, None] + _lead(k, n)[None, :]
        total_a, total_k = sum_a.reshape(-1, *sum_a.shape[2:]), sum_k.reshape(-1, *sum_k.shape[2:])
    return total_a, total_k


def scaled(lines: Lines, factor: ArrayLike) -> Lines:
    """``f·max_c (a_c + k_c·x) = max_c (f·a_c + f·k_c·x)`` for ``f ≥ 0`` broadcast over the trailing axes."""
    f = _f(factor)
    n = max(lines[0].ndim - 1, f.ndim)
    a, k = _lead(lines[0], n), _lead(lines[1], n)
    return a * f[None, ...], k * f[None, ...]


def largest_x_within(lines: Lines, limit: ArrayLike) -> FloatArray:
    """Largest ``x ≥ 0`` with ``max_c (a_c + k_c·x) ≤ L``: ``min_c (L − a_c)/k_c`` over the rising lines.

    ``inf`` where no line rises and all start at or below ``L`` (or ``L = inf``); 0 where the maximum is
    above ``L`` already at ``x = 0`` (callers report that case as infeasible first).

    >>> largest_x_within((np.array([1.0, 3.0]), np.array([2.0, 0.5])), [5.0, 2.0, np.inf]).tolist()
    [2.0, 0.0, inf]
    """
    L = _f(limit)
    n = max(lines[0].ndim - 1, L.ndim)
    a, k = _lead(lines[0], n), _lead(lines[1], n)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.where(k > 0, (L - a) / np.where(k > 0, k, 1.0), np.where(a <= L, np.inf, 0.0))
    return np.asarray(np.maximum(np.min(x, axis=0), 0.0), dtype=np.float64)


def forward_term(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    new_tokens: ArrayLike,
    context_tokens: ArrayLike,
    prefill_context_tokens: ArrayLike,
    *,
    bidirectional: bool,
    step_overhead_s: float,
    sees_prompt: bool = True,
    passes: float = 1.0,
) -> AffineTerm:
    """``passes × forward_time`` of a dense model as four affine branches in ``(B, C)`` (docs/roofline.md#forward-pass).

    Written out for ``B`` sequences adding ``q`` tokens at context ``S`` and ``C`` prompt tokens attending to
    ``S_pre`` earlier ones (``n = B·q + C``)::

        linear, memory     W/BW_eff              + n·4·L·d·b_act / BW_eff
        linear, compute                            B·q·2P_mm/F_dec + C·2P_mm/F_pre
        attention, memory                          (r_kv·kv_tok·(B·(S+q) + C) + B·kv_sw(S+q)) / BW_eff
        attention, compute                         u·(B·(q·K(S) + L·pairs(q))/A_dec + C·K(S_pre)/A_pre)
        per sequence                               B·τ_seq (CPU scheduling, outside the maxima)
        comm (N > 1)       (1−ovl)·2L·alpha_ar   + (1−ovl)·2L·2(N−1)/N·n·d·b_act / BW_link
        overhead           tau0 (``step_overhead_s``)

    ``F`` and ``A`` are :func:`~economics.roofline.linear_flops_per_s` and
    :func:`~economics.roofline.attention_flops_per_s` times the MFU (the rates ``forward_time`` uses), ``u`` the
    attention FLOPs per query-key pair per layer (GQA or MLA), ``K(S)`` the keys attended over all layers (sliding
    windows capped) and ``kv_sw`` the sliding layers' cache. ``pairs(q) = q²`` bidirectional, ``q(q+1)/2``
    causal, as in :func:`~economics.roofline.forward_time`. The
    pass time ``max(max(lin) + max(att), L·τ_layer) + comm + tau0`` is the maximum of the four sums and the floor.
    ``sees_prompt=False``
    drops the ``C`` coefficients (a draft pass carries no prompt tokens); ``passes`` multiplies everything
    (``draft_steps``). Tests pin these coefficients to ``forward_time`` so that the two cannot drift apart.
    """
    if model.is_moe:
        raise ValueError("an MoE pass is not affine in the token count (W_read is concave)")
    L, d = float(model.n_layers), float(model.d_model)
    N = deployment.n_gpus
    bw = deployment.hbm_bandwidth_bytes_per_s * efficiency.mbu
    # the same compute rates as forward_time: best-GEMM share, FP8/FP4 tensor-core factor, BF16 attention
    f_dec = linear_flops_per_s(deployment, efficiency, efficiency.mfu_decode, model.bytes_per_weight)
    f_pre = linear_flops_per_s(deployment, efficiency, efficiency.mfu_prefill, model.bytes_per_weight)
    f_att = attention_flops_per_s(deployment, efficiency)
    a_dec, a_pre = f_att * efficiency.mfu_decode, f_att * efficiency.mfu_prefill
    flop_tok = model.flops_linear_per_token
    pair_unit = model.attention_flops_per_pair_per_layer
    pair_pre = model.prefill_attention_flops_per_pair_per_layer
    kv = replication(model, deployment) * model.kv_bytes_per_token
    q, S, S_pre = _f(new_tokens), _f(context_tokens), _f(prefill_context_tokens)
    zero = np.zeros(np.broadcast_shapes(q.shape, S.shape, S_pre.shape))
    act = 4.0 * L * d * model.bytes_per_activation / bw  # per token
    pairs = q * q if bidirectional else q * (q + 1.0) / 2.0
    keys, keys_pre = model.attended_layer_keys(S), model.attended_layer_keys(S_pre)
    # (per sequence, per prompt token) of each branch
    lin_mem = (q * act + zero, act + zero)
    lin_cmp = (q * flop_tok / f_dec + zero, flop_tok / f_pre + zero)
    att_mem = ((kv * (S + q) + model.sliding_kv_bytes(S + q)) / bw + zero, kv / bw + zero)
    att_cmp = (pair_unit * (q * keys + L * pairs) / a_dec + zero, pair_pre * keys_pre / a_pre + zero)
    if N == 1:
        comm_a, comm = 0.0, (zero, zero)
    else:
        ovl = 1.0 - efficiency.comm_overlap
        link = deployment.gpu.link_bandwidth_bytes_per_s
        half = 2.0 * (N - 1) / N * efficiency.allreduce_half_bytes_on(deployment.gpu) / link  # Hockney n½, fixed
        comm_a = ovl * 2.0 * L * (efficiency.allreduce_latency_s + half)
        per_tok = ovl * 2.0 * L * 2.0 * (N - 1) / N * d * model.bytes_per_activation / link
        comm = (q * per_tok + zero, per_tok + zero)
    common_a = comm_a + step_overhead_s
    comm = (comm[0] + efficiency.sequence_overhead_s, comm[1])  # CPU cost per running sequence, outside the max
    weights = model.weight_bytes / bw
    combos = [
        (lin_mem, att_mem, weights),
        (lin_mem, att_cmp, weights),
        (lin_cmp, att_mem, 0.0),
        (lin_cmp, att_cmp, 0.0),
    ]
    # the layer floor max(lin + att, L·τ_layer) (docs/calibration.md#physics-parameters) is one more flat branch
    floor = L * efficiency.layer_floor_s
    per_prompt = np.stack([lin[1] + att[1] + comm[1] for lin, att, _ in combos] + [comm[1]])
    return AffineTerm(
        intercept_s=passes * np.stack([zero + a + common_a for _, _, a in combos] + [zero + floor + common_a]),
        per_sequence_s=passes * np.stack([lin[0] + att[0] + comm[0] for lin, att, _ in combos] + [comm[0]]),
        per_prompt_token_s=passes * per_prompt if sees_prompt else np.zeros_like(per_prompt),
        sees_prompt=sees_prompt,
    )
