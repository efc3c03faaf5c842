"""Roofline time of one forward pass: decode, prefill, speculative verify and diffusion (docs/roofline.md#forward-pass).

One function, :func:`forward_time`, covers every pass type. ``new_tokens`` (q) is the number of new
tokens per sequence in the pass: 1 for an AR decode step, the prompt (chunk) for prefill, γ+1 or the tree
size for a speculative verify, the block length K for a diffusion pass. Everything broadcasts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from economics.hardware import Deployment, Efficiency
from economics.model import FloatArray, ModelSpec

RooflineMode = Literal["sum", "single_roofline"]


@dataclass(frozen=True)
class PassTime:
    """Time and traffic of one forward pass, per replica. Arrays share the broadcast shape of the inputs."""

    time_s: FloatArray  # total pass time [s]
    linear_s: FloatArray  # linear layers, max(memory, compute) [s]
    attention_s: FloatArray  # attention, max(memory, compute) [s]
    comm_s: FloatArray  # tensor-parallel all-reduces not hidden behind compute [s]
    overhead_s: FloatArray  # fixed per-pass overhead tau0 [s]
    bytes: FloatArray  # bytes moved from memory [B]
    flops: FloatArray  # floating-point operations [FLOP]
    linear_compute_bound: NDArray[np.bool_]  # linear layers limited by FLOP/s rather than bandwidth [-]
    compute_bound: NDArray[np.bool_]  # the pass as a whole spends more time on compute than on memory [-]

    @property
    def arithmetic_intensity_flop_per_byte(self) -> FloatArray:
        """FLOPs per byte moved for the whole pass [FLOP/B]."""
        return np.asarray(self.flops / self.bytes, dtype=np.float64)


def kv_replication(model: ModelSpec, n_gpus: int) -> float:
    """``r_kv = N / min(N, n_kv)``: KV copies when the TP degree exceeds the KV heads [1].

    A compressed latent cache shared by all heads (MLA) is declared with ``n_kv_heads = 1``, so every
    tensor-parallel rank holds the whole cache: ``r_kv = N``. The KV override alone does not imply MLA: it
    also describes caches that stay split by head, e.g. gpt-oss's full-attention layers (8 KV heads, the
    sliding-window layers left out), which TP up to 8 does not replicate.

    >>> from economics.model import ModelSpec
    >>> m = ModelSpec(id="m", name="m", n_layers=2, d_model=1024, n_heads=16, n_kv_heads=8, head_dim=64,
    ...     d_ff=4096, vocab=32000, kv_elements_per_token_override=1024)
    >>> kv_replication(m, 4), kv_replication(m, 16), kv_replication(m.model_copy(update={"n_kv_heads": 1}), 4)
    (1.0, 2.0, 4.0)
    """
    return n_gpus / min(n_gpus, model.n_kv_heads)


def forward_time(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    batch: ArrayLike,
    new_tokens: ArrayLike = 1,
    context_tokens: ArrayLike = 0,
    *,
    bidirectional: bool = False,
    prefill: bool = False,
    prefill_tokens: ArrayLike = 0,
    prefill_context_tokens: ArrayLike = 0,
    mode: RooflineMode = "sum",
) -> PassTime:
    """Time of one forward pass over ``batch`` sequences with ``new_tokens`` new tokens each [s].

    ``t = max(bytes_lin/BW_eff, flops_lin/F_eff) + max(bytes_att/BW_eff, flops_att/F_eff) + (1−ovl)·t_comm + τ0``
    with ``BW_eff = N·BW·MBU`` and ``F_eff = N·F·MFU`` (docs/roofline.md#forward-pass). The linear layers read the
    weights once per pass (``W_read(n)`` for MoE, docs/moe.md#distinct-experts) plus ``4·L·d·b_act`` activation bytes
    per token; attention reads every sequence's own cache and is never amortised across the batch; Megatron tensor
    parallelism adds two ring all-reduces per layer. ``prefill_tokens`` (C) are chunked-prefill tokens riding along in
    the same pass (Sarathi-Serve), each attending to ``prefill_context_tokens`` earlier prompt tokens on
    average; they are computed at ``mfu_prefill``. ``mode="single_roofline"`` is the optimistic bound
    ``max(total bytes/BW, total FLOPs/F)``.

    Parameters
    ----------
    model : the network: layers, widths, heads, bytes per weight / KV element / activation [-].
    deployment : the GPU and the tensor-parallel degree ``N`` of one replica [-].
    efficiency : MBU, MFU (decode and prefill), per-pass overhead τ0 [s], all-reduce latency [s], overlap [-].
    batch : sequences in the pass ``B`` [sequences]; may be fractional (inside fixed points).
    new_tokens : new tokens per sequence ``q`` [tokens]: 1 decode, prompt (chunk) prefill, γ+1 or tree size
        for a speculative verify, block length K for diffusion.
    context_tokens : cached tokens each sequence attends to ``S`` [tokens].
    bidirectional : attention among the new tokens is full (diffusion) rather than causal [-].
    prefill : the main tokens are prefill, computed at ``mfu_prefill`` [-].
    prefill_tokens : chunked-prefill tokens ``C`` riding along in the pass [tokens].
    prefill_context_tokens : earlier prompt tokens each of them attends to on average [tokens].
    mode : ``"sum"`` (attention and linear layers add) or ``"single_roofline"`` (optimistic bound) [-].

    Array parameters broadcast against each other.

    Returns
    -------
    PassTime : total time and its linear, attention, communication and overhead terms [s], bytes moved [B],
        FLOPs [FLOP], and whether the linear layers / the whole pass are compute-bound.

    Example (docs/roofline.md#worked-example-70b): Llama-3.1-70B in bf16 on 8×H100 SXM, ideal efficiency, batch 1,
    no context. By hand: weights 141.105e9 B + activations 4·80·8192·2 B = 5.2e6 B over 8·3.35e12 B/s = 5.2653 ms;
    the ring all-reduces move 160 · 2·(7/8)·8192·2 B over 450e9 B/s = 0.0102 ms; the KV write (327,680 B) is
    negligible: 5.2755 ms, i.e. 189.6 tok/s against the scaling book's weights-only 190.

    >>> from economics.catalog import load_catalog
    >>> catalog = load_catalog()
    >>> eight_h100 = Deployment(gpu=catalog.gpus["h100-sxm"], n_gpus=8)
    >>> p = forward_time(catalog.models["llama-3.1-70b"], eight_h100, Efficiency.ideal(), batch=1)
    >>> round(float(p.time_s) * 1e3, 2), bool(p.compute_bound)
    (5.28, False)
    """
    B = np.asarray(batch, dtype=np.float64)
    q = np.asarray(new_tokens, dtype=np.float64)
    S = np.asarray(context_tokens, dtype=np.float64)
    C = np.asarray(prefill_tokens, dtype=np.float64)
    S_pre = np.asarray(prefill_context_tokens, dtype=np.float64)
    N = deployment.n_gpus
    L, d = model.n_layers, model.d_model
    att_unit = float(L * model.n_heads * model.head_dim)  # L·n_q·d_h

    bw_eff = deployment.hbm_bandwidth_bytes_per_s * efficiency.mbu
    mfu_main = efficiency.mfu_prefill if prefill else efficiency.mfu_decode
    f_main = deployment.peak_flops_per_s * mfu_main
    f_pre = deployment.peak_flops_per_s * efficiency.mfu_prefill
    r_kv = kv_replication(model, N)
    kv_tok = model.kv_bytes_per_token

    n_main = B * q
    n = n_main + C
    # 1) linear layers
    bytes_lin = model.weight_bytes_read(n) + n * 4.0 * L * d * model.bytes_per_activation
    flops_lin = n * model.flops_linear_per_token
    t_lin_mem = bytes_lin / bw_eff
    t_lin_cmp = n_main * model.flops_linear_per_token / f_main + C * model.flops_linear_per_token / f_pre
    # 2) attention
    # pairs inside the block of q new tokens: q² bidirectional, q(q+1)/2 causal (a token sees itself), at
    # 4 FLOP per pair per head-dim (QKᵀ and AV). The first spec (docs/departures.md#departures) writes the causal term
    # as 2·q², i.e. q²/2 pairs, which counts half a pair at q = 1 and makes a one-token causal pass differ from the
    # identical one-token bidirectional pass; the exact count removes that artefact (negligible for q ≫ 1).
    pair_flops = 4.0 * q * q if bidirectional else 2.0 * q * (q + 1.0)
    bytes_att = r_kv * kv_tok * (B * (S + q) + C)
    flops_att_main = B * att_unit * (4.0 * q * S + pair_flops)
    flops_att_pre = C * att_unit * 4.0 * S_pre
    flops_att = flops_att_main + flops_att_pre
    t_att_mem = bytes_att / bw_eff
    t_att_cmp = flops_att_main / f_main + flops_att_pre / f_pre
    # 3) tensor-parallel communication
    if N == 1:
        t_comm = np.zeros_like(n)
    else:
        msg = n * d * model.bytes_per_activation
        t_comm = (
            2.0
            * L
            * (efficiency.allreduce_latency_s + 2.0 * (N - 1) / N * msg / deployment.gpu.link_bandwidth_bytes_per_s)
        )
    t_comm = (1.0 - efficiency.comm_overlap) * t_comm
    tau0 = np.full_like(n, efficiency.step_overhead_s)

    t_lin = np.maximum(t_lin_mem, t_lin_cmp)
    t_att = np.maximum(t_att_mem, t_att_cmp)
    if mode == "sum":
        total = t_lin + t_att + t_comm + tau0
    else:
        total = np.maximum(t_lin_mem + t_att_mem, t_lin_cmp + t_att_cmp) + t_comm + tau0
    shape = np.broadcast(B, q, S, C, S_pre).shape
    return PassTime(
        time_s=np.broadcast_to(total, shape).astype(np.float64),
        linear_s=np.broadcast_to(t_lin, shape).astype(np.float64),
        attention_s=np.broadcast_to(t_att, shape).astype(np.float64),
        comm_s=np.broadcast_to(t_comm, shape).astype(np.float64),
        overhead_s=np.broadcast_to(tau0, shape).astype(np.float64),
        bytes=np.broadcast_to(bytes_lin + bytes_att, shape).astype(np.float64),
        flops=np.broadcast_to(flops_lin + flops_att, shape).astype(np.float64),
        linear_compute_bound=np.broadcast_to(t_lin_cmp > t_lin_mem, shape).copy(),
        compute_bound=np.broadcast_to(t_lin_cmp + t_att_cmp > t_lin_mem + t_att_mem, shape).copy(),
    )
