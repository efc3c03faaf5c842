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

from economics.hardware import REFERENCE_MATMUL_FRACTION, Deployment, Efficiency, Precision
from economics.model import PRECISION_BYTES, FloatArray, ModelSpec

RooflineMode = Literal["sum", "single_roofline"]

#: Attention runs in FP8 when the KV cache is FP8 (else BF16) [-].
ATTENTION_FP8_WITH_FP8_KV = False


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


def replication(model: ModelSpec, deployment: Deployment) -> float:
    """KV copies of a deployment: 1 with attention data parallelism (DEP, each rank caches its own sequences),
    else :func:`kv_replication` [1]."""
    return 1.0 if deployment.expert_parallel else kv_replication(model, deployment.n_gpus)


def grouped_gemm_efficiency(tokens_per_expert: ArrayLike, half_tokens: float) -> FloatArray:
    """Efficiency of a grouped expert GEMM relative to a dense GEMM of the same FLOPs [1].

    ``η(t) = t / (t + t½)`` (the roofline applies it through :func:`moe_expert_overhead_flops`): an expert's
    GEMM has ``t`` rows; tiles of 64–128 rows are part-filled and the
    per-expert launch, routing and permutation costs are paid per expert, so short groups waste the tensor
    cores (DeepGEMM / CUTLASS grouped GEMM; vLLM fused_moe tuning tables grow the block size with tokens per
    expert). Limits: ``η → 1`` for ``t ≫ t½``; ``η → t/t½`` (cost per expert constant) for ``t ≪ t½``;
    ``t½ = 0`` is the ideal grouped GEMM (η = 1).

    >>> grouped_gemm_efficiency([64.0, 1e9, 0.0], 64.0).round(3).tolist()
    [0.5, 1.0, 0.0]
    """
    t = np.asarray(tokens_per_expert, dtype=np.float64)
    if half_tokens <= 0:
        return np.ones_like(t)
    return np.asarray(t / (t + half_tokens), dtype=np.float64)


def moe_expert_overhead_flops(
    model: ModelSpec, deployment: Deployment, efficiency: Efficiency, tokens: ArrayLike
) -> FloatArray:
    """Extra FLOP-equivalents the routed-expert GEMMs of a pass of ``tokens`` tokens cost [FLOP].

    Each touched expert pays ``t½`` rows of wasted GEMM work (part-filled tiles, per-expert launch and
    permutation), so the routed compute is ``2·n_moe·P_exp·(k·n + t½·U(n))`` instead of ``2·n_moe·P_exp·k·n``:
    with ``t = k·n/E`` tokens per expert and every expert touched this is :func:`grouped_gemm_efficiency`
    ``η(t) = t/(t + t½)``; it grows monotonically with ``n`` and vanishes with it. Expert parallelism multiplies
    the routed work by the load imbalance ``λ`` (the busiest rank sets the pace). 0 for a dense model.
    """
    n = np.asarray(tokens, dtype=np.float64)
    if not model.is_moe:
        return np.zeros_like(n)
    per_row = 2.0 * model.n_moe_layers * model.params_per_expert
    imbalance = efficiency.moe_load_imbalance if deployment.expert_parallel and deployment.n_gpus > 1 else 1.0
    routed = per_row * model.experts_top_k * n
    wasted = per_row * efficiency.moe_gemm_half_tokens * model.experts_touched(n)
    return np.asarray(imbalance * (routed + wasted) - routed, dtype=np.float64)


def expert_all_to_all_s(model: ModelSpec, deployment: Deployment, tokens: ArrayLike) -> FloatArray:
    """Expert-parallel dispatch + combine time of one pass [s].

    Each token sends its activation to ``k`` experts and gets ``k`` results back in every MoE layer; a share
    ``(N−1)/N`` leaves the GPU: ``2·n_moe·k·d·b_act·n·(N−1)/N`` bytes over ``N`` links. 0 without EP.

    >>> from economics.io.catalog import load_catalog
    >>> c = load_catalog()
    >>> dep = Deployment(gpu=c.gpus["h200-sxm"], n_gpus=8, precision="fp8", expert_parallel=True)
    >>> m = c.models["deepseek-v3"].at_precision("fp8")
    >>> # 2·58·8·7168·2 B·1024 tokens = 13.62e9 B; ·7/8 = 11.92e9 B; / (8·450e9 B/s) = 3.31 ms
    >>> round(float(expert_all_to_all_s(m, dep, 1024)) * 1e3, 2)
    3.31
    """
    n = np.asarray(tokens, dtype=np.float64)
    N = deployment.n_gpus
    if not (model.is_moe and deployment.expert_parallel and N > 1):
        return np.zeros_like(n)
    volume = 2.0 * model.n_moe_layers * model.experts_top_k * model.d_model * model.bytes_per_activation * n
    return np.asarray(volume * (N - 1) / N / (N * deployment.gpu.link_bandwidth_bytes_per_s), dtype=np.float64)


def tensor_parallel_allreduce_s(
    model: ModelSpec, deployment: Deployment, efficiency: Efficiency, tokens: ArrayLike
) -> FloatArray:
    """Time of the two ring all-reduces per layer of a tensor-parallel pass over ``tokens`` rows [s].

    ``2L·(α + 2(N−1)/N·(m + n½)/BW_link)`` with ``m = n·d·b_act``: Hockney's half-performance length ``n½``
    (the efficiency's, else the GPU's link value) makes a message of ``m`` bytes move at ``BW_link·m/(m + n½)``
    (a decode step's few-MB messages well below the link rate, a prefill's hundreds of MB near it;
    docs/calibration.md#all-reduce-half-performance-length).

    >>> from economics.io.catalog import load_catalog
    >>> c = load_catalog()
    >>> dep = Deployment(gpu=c.gpus["h100-sxm"], n_gpus=8, precision="fp8")
    >>> m = c.models["llama-3.1-70b"].at_precision("fp8")
    >>> # m = 64·8192·2 B = 1,048,576 B; 10 µs + 1.75·(1,048,576 + 4e6)/450e9 = 29.63 µs; ·160 = 4.74 ms
    >>> round(float(tensor_parallel_allreduce_s(m, dep, Efficiency(), 64)) * 1e3, 2)
    4.74
    """
    n = np.asarray(tokens, dtype=np.float64)
    N = deployment.n_gpus
    if N == 1:
        return np.zeros_like(n)
    msg = n * model.d_model * model.bytes_per_activation + efficiency.allreduce_half_bytes_on(deployment.gpu)
    per_ar = efficiency.allreduce_latency_s + 2.0 * (N - 1) / N * msg / deployment.gpu.link_bandwidth_bytes_per_s
    return np.asarray(2.0 * model.n_layers * per_ar, dtype=np.float64)


#: Tensor-core format of the attention matmuls (QKᵀ and AV) whatever the weights' precision [-]. Attention multiplies
#: activations by cached keys and values, not by weights, so FP8 or FP4 *weights* do not make it low-precision; an
#: FP8 KV cache halves the bytes read but serving kernels (vLLM/SGLang FlashAttention, FlashInfer) dequantise it to
#: BF16 before the matmuls. Conservative for engines that also quantise the query (TensorRT-LLM's FP8 FMHA).
ATTENTION_PRECISION: Precision = "bf16"


def attention_flops_per_s(deployment: Deployment, efficiency: Efficiency) -> float:
    """Attainable attention FLOP/s of the replica before the MFU, ``N·F_bf16·(MAMF/0.80)`` [FLOP/s].

    >>> from economics.io.catalog import load_catalog
    >>> b200 = Deployment(gpu=load_catalog().gpus["b200"], n_gpus=8, precision="fp4")
    >>> # 8 · 2250e12 FLOP/s BF16 · 0.78/0.80 = 17.55e15 FLOP/s, not the FP4 peak 8 · 9000e12
    >>> round(attention_flops_per_s(b200, Efficiency()) / 1e15, 2)
    17.55
    """
    prec = deployment.gpu.compute_precision(ATTENTION_PRECISION)
    peak = deployment.n_gpus * deployment.gpu.peak_flops_per_s(prec)
    return peak * deployment.gpu.max_matmul_fraction / REFERENCE_MATMUL_FRACTION * efficiency.precision_scale(prec)


def linear_flops_per_s(
    deployment: Deployment, efficiency: Efficiency, mfu: float, bytes_per_weight: float | None = None
) -> float:
    """Achieved FLOP/s of the replica's weight matmuls at utilisation ``mfu``, ``N·F_p·(MAMF/0.80)·s_p·m·MFU``
    [FLOP/s].

    ``F_p`` is the dense peak of the tensor-core format the deployment computes in (:meth:`GPU.compute_precision`),
    ``MAMF/0.80`` the GPU's best-GEMM share of peak relative to the H100 the MFUs are stated for
    (:attr:`Deployment.attainable_flops_per_s`) and ``s_p`` the FP8/FP4 efficiency relative to BF16
    (:meth:`Efficiency.precision_scale`). ``m`` is :func:`mixed_input_scale` of the weights' ``bytes_per_weight``
    (1 when not given). The one compute rate of :func:`forward_time` and of the serving layer's closed forms
    (:func:`economics.serving.affine.forward_term`), so the two paths cannot disagree.

    >>> from economics.io.catalog import load_catalog
    >>> h100 = Deployment(gpu=load_catalog().gpus["h100-sxm"], n_gpus=1, precision="fp8")
    >>> # 1979e12 FLOP/s FP8 · (0.80/0.80) · 0.89 · 0.50 = 880.7e12 FLOP/s
    >>> round(linear_flops_per_s(h100, Efficiency(), 0.5) / 1e12, 1)
    880.7
    """
    compute = deployment.gpu.compute_precision(deployment.precision)
    scale = efficiency.precision_scale(compute) * mixed_input_scale(compute, efficiency, bytes_per_weight)
    return deployment.attainable_flops_per_s * mfu * scale


def mixed_input_scale(compute: Precision, efficiency: Efficiency, bytes_per_weight: float | None) -> float:
    """Share of the compute format's GEMM rate left when the weights are stored narrower than it [1].

    A weight-only quantised GEMM (4-bit weights on BF16 compute, MXFP4 on a GPU without FP4 tensor cores, FP8
    weights on an A100) widens every weight tile to the compute format inside its main loop, with integer and
    scale work the tensor cores wait for: ``Efficiency.mixed_input_gemm_efficiency`` when
    ``bytes_per_weight`` is below the compute format's own bytes (``PRECISION_BYTES``), else 1
    (docs/calibration.md#mixed-input-gemm-efficiency). Memory-bound passes are unaffected: only the compute rate
    scales.

    >>> mixed_input_scale("bf16", Efficiency(), 0.53), mixed_input_scale("fp8", Efficiency(), 1.0)
    (0.6, 1.0)
    >>> mixed_input_scale("bf16", Efficiency(), None)
    1.0
    """
    if bytes_per_weight is None or bytes_per_weight >= PRECISION_BYTES[compute][0] - 1e-9:
        return 1.0
    return efficiency.mixed_input_gemm_efficiency


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

    ``t = max(max(bytes_lin/BW_eff, flops_lin/F_eff) + max(bytes_att/BW_eff, flops_att/F_att), L·τ_layer) +
    (1−ovl)·t_comm + τ0`` with ``BW_eff = N·BW·MBU``, ``F_eff = N·F·MFU`` (docs/roofline.md#forward-pass) and
    attention at the BF16 rate ``F_att`` (:data:`ATTENTION_PRECISION`); ``τ_layer`` is the least time a layer's
    chain of kernels takes (``Efficiency.layer_floor_s``, docs/calibration.md#physics-parameters). The linear layers
    read the weights once per pass (``W_read(n)`` for MoE, docs/moe.md#distinct-experts) plus ``4·L·d·b_act``
    activation bytes per token; attention reads every sequence's own cache and is never amortised across the batch;
    Megatron tensor parallelism adds two ring all-reduces per layer. ``prefill_tokens`` (C) are chunked-prefill
    tokens riding along in the same pass (Sarathi-Serve), each attending to ``prefill_context_tokens`` earlier
    prompt tokens on average; they are computed at ``mfu_prefill``. ``mode="single_roofline"`` is the optimistic
    bound ``max(total bytes/BW, total FLOPs/F)``.

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

    >>> from economics.io.catalog import load_catalog
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
    pair_unit = model.attention_flops_per_pair_per_layer  # 4·n_q·d_h (GQA) or 2·n_q·(2r + d_R) (MLA)
    pair_pre = model.prefill_attention_flops_per_pair_per_layer  # MLA prefill: decompressed multi-head form

    bw_eff = deployment.hbm_bandwidth_bytes_per_s * efficiency.mbu
    mfu_main = efficiency.mfu_prefill if prefill else efficiency.mfu_decode
    f_main = linear_flops_per_s(deployment, efficiency, mfu_main, model.bytes_per_weight)
    f_pre = linear_flops_per_s(deployment, efficiency, efficiency.mfu_prefill, model.bytes_per_weight)
    r_kv = replication(model, deployment)
    kv_tok = model.kv_bytes_per_token

    n_main = B * q
    n = n_main + C
    # 1) linear layers; routed-expert GEMMs run at the grouped-GEMM efficiency of their tokens per expert
    bytes_lin = model.weight_bytes_read(n) + n * 4.0 * L * d * model.bytes_per_activation
    if deployment.expert_parallel and model.is_moe:
        bytes_lin = bytes_lin + (N - 1) * model.bytes_per_weight * model.params_non_expert  # DEP: one copy per rank
    flops_lin = n * model.flops_linear_per_token
    t_lin_mem = bytes_lin / bw_eff
    extra = moe_expert_overhead_flops(model, deployment, efficiency, n)
    t_lin_cmp = (n_main / f_main + C / f_pre) * model.flops_linear_per_token + extra / f_main
    # 2) attention
    # pairs inside the block of q new tokens: q² bidirectional, q(q+1)/2 causal (a token sees itself), at
    # 4 FLOP per pair per head-dim (QKᵀ and AV). The first spec (docs/departures.md#departures) writes the causal term
    # as 2·q², i.e. q²/2 pairs, which counts half a pair at q = 1 and makes a one-token causal pass differ from the
    # identical one-token bidirectional pass; the exact count removes that artefact (negligible for q ≫ 1).
    # Sliding-window layers attend to at most W cached keys (:meth:`ModelSpec.attended_layer_keys`).
    pairs_in_block = q * q if bidirectional else q * (q + 1.0) / 2.0
    bytes_att = r_kv * kv_tok * (B * (S + q) + C) + B * model.sliding_kv_bytes(S + q)
    flops_att_main = B * (pair_pre if prefill else pair_unit) * (q * model.attended_layer_keys(S) + L * pairs_in_block)
    flops_att_pre = C * pair_pre * model.attended_layer_keys(S_pre)
    flops_att = flops_att_main + flops_att_pre
    t_att_mem = bytes_att / bw_eff
    att = attention_flops_per_s(deployment, efficiency)
    t_att_cmp = flops_att_main / (mfu_main * att) + flops_att_pre / (efficiency.mfu_prefill * att)
    # 3) tensor-parallel all-reduces, or (DEP: attention data-parallel, experts split) the all-to-all
    if N == 1:
        t_comm = np.zeros_like(n)
    elif deployment.expert_parallel and model.is_moe:
        t_comm = expert_all_to_all_s(model, deployment, n)
    else:
        t_comm = tensor_parallel_allreduce_s(model, deployment, efficiency, n)
    t_comm = (1.0 - efficiency.comm_overlap) * t_comm
    tau0 = np.full_like(n, efficiency.step_overhead_s) + B * efficiency.sequence_overhead_s

    t_lin = np.maximum(t_lin_mem, t_lin_cmp)
    t_att = np.maximum(t_att_mem, t_att_cmp)
    floor = L * efficiency.layer_floor_s  # the kernels of a layer run one after the other (docs/roofline.md)
    if mode == "sum":
        total = np.maximum(t_lin + t_att, floor) + t_comm + tau0
    else:
        total = np.maximum(np.maximum(t_lin_mem + t_att_mem, t_lin_cmp + t_att_cmp), floor) + t_comm + tau0
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
