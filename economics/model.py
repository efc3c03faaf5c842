"""Model architecture, parameter counts, KV-cache bytes and MoE expert coverage (docs/inputs.md#model-shape,
docs/model.md#parameter-counts, docs/moe.md#mixture-of-experts)."""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pydantic import Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from economics._base import Frozen
from economics.hardware import Precision, drop_new_defaults

FloatArray = NDArray[np.float64]

#: Bytes per weight, KV element and activation for each deployment precision. FP4 counts the group-size-32
#: FP16 scales (0.5 + 2/32 = 0.5625 B per weight); FP8 and FP4 deployments keep an FP8 KV cache, as the
#: TensorRT-LLM ModelOpt checkpoints in the calibration set do. Activations stay 16-bit.
PRECISION_BYTES: dict[Precision, tuple[float, float, float]] = {
    "bf16": (2.0, 2.0, 2.0),
    "fp8": (1.0, 1.0, 2.0),
    "fp4": (0.5625, 1.0, 2.0),
}


class ModelSpec(Frozen):
    """A decoder-only transformer (dense or MoE), with the byte widths it is served at."""

    id: str = Field(min_length=1, max_length=64, description="catalog id, e.g. 'llama-3.1-70b'")
    name: str = Field(min_length=1, max_length=120, description="display name")
    n_layers: int = Field(ge=1, le=1000, description="transformer layers L [count]")
    d_model: int = Field(ge=64, le=100_000, description="hidden size d [count]")
    n_heads: int = Field(ge=1, le=1024, description="query heads n_q [count]")
    n_kv_heads: int = Field(ge=1, le=1024, description="key/value heads n_kv (GQA when < n_q) [count]")
    head_dim: int = Field(ge=8, le=1024, description="head dimension d_h [count]")
    d_ff: int = Field(ge=0, le=1_000_000, description="dense SwiGLU FFN hidden size (3 matrices) [count]")
    vocab: int = Field(ge=2, le=2_000_000, description="vocabulary size V [count]")
    tied_embeddings: bool = Field(default=False, description="input and output embeddings share weights [-]")
    n_experts: int = Field(default=0, ge=0, le=4096, description="routed experts E per MoE layer; 0 = dense [count]")
    experts_top_k: int = Field(default=0, ge=0, le=256, description="routed experts per token k [count]")
    n_moe_layers: int = Field(default=0, ge=0, le=1000, description="layers whose FFN is MoE [count]")
    d_ff_expert: int = Field(default=0, ge=0, le=1_000_000, description="hidden size of one expert [count]")
    n_shared_experts: int = Field(default=0, ge=0, le=64, description="always-active experts per MoE layer [count]")
    kv_elements_per_token_override: int | None = Field(
        default=None,
        ge=1,
        le=100_000_000,
        description="KV elements per token over all layers for compressed caches, e.g. MLA L·(512+64) [count]",
    )
    mla_kv_lora_rank: int = Field(
        default=0, ge=0, le=65_536, description="MLA latent KV rank r (DeepSeek kv_lora_rank); 0 = not MLA [count]"
    )
    mla_rope_head_dim: int = Field(
        default=0, ge=0, le=4096, description="MLA decoupled RoPE key dimension d_R (qk_rope_head_dim) [count]"
    )
    mla_qk_nope_head_dim: int = Field(
        default=0, ge=0, le=4096, description="MLA per-head query/key dimension without RoPE (qk_nope_head_dim) [count]"
    )
    mla_v_head_dim: int = Field(
        default=0, ge=0, le=4096, description="MLA per-head value dimension (v_head_dim) [count]"
    )
    sliding_window: int = Field(
        default=0, ge=0, le=10_000_000, description="keys a sliding-window layer attends to W; 0 = none [tokens]"
    )
    n_sliding_layers: int = Field(
        default=0, ge=0, le=1000, description="layers with sliding-window (or chunked) attention [count]"
    )
    bytes_per_weight: float = Field(default=2.0, ge=0.125, le=4, description="bytes per weight b_w [B]")
    bytes_per_kv: float = Field(default=2.0, ge=0.125, le=4, description="bytes per KV element b_kv [B]")
    bytes_per_activation: float = Field(default=2.0, ge=0.5, le=4, description="bytes per activation b_act [B]")
    family: Literal["ar", "diffusion"] = Field(default="ar", description="how the model decodes [-]")
    source: str = Field(default="", max_length=1000, description="where the configuration comes from")
    as_of: str = Field(default="", max_length=64, description="date of the source")

    @model_serializer(mode="wrap")
    def _drop_new_defaults(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        return drop_new_defaults(
            self,
            handler(self),
            (
                "mla_kv_lora_rank",
                "mla_rope_head_dim",
                "mla_qk_nope_head_dim",
                "mla_v_head_dim",
                "sliding_window",
                "n_sliding_layers",
            ),
        )

    @model_validator(mode="after")
    def _check_moe(self) -> ModelSpec:
        if self.n_kv_heads > self.n_heads:
            raise ValueError("n_kv_heads must not exceed n_heads")
        if self.n_experts > 0:
            if not 1 <= self.experts_top_k <= self.n_experts:
                raise ValueError("experts_top_k must be between 1 and n_experts for an MoE model")
            if not 1 <= self.n_moe_layers <= self.n_layers:
                raise ValueError("n_moe_layers must be between 1 and n_layers for an MoE model")
            if self.d_ff_expert < 1:
                raise ValueError("d_ff_expert must be positive for an MoE model")
        elif self.experts_top_k or self.n_moe_layers or self.n_shared_experts:
            raise ValueError("experts_top_k, n_moe_layers and n_shared_experts need n_experts > 0")
        if self.n_sliding_layers > self.n_layers or (self.n_sliding_layers > 0) != (self.sliding_window > 0):
            raise ValueError("n_sliding_layers (<= n_layers) and sliding_window must be given together")
        if self.d_ff == 0 and self.n_moe_layers < self.n_layers:
            raise ValueError("d_ff must be positive when some layers are dense")
        return self

    def at_precision(self, precision: Precision) -> ModelSpec:
        """The same architecture served at ``precision`` (weight, KV and activation bytes of PRECISION_BYTES)."""
        b_w, b_kv, b_act = PRECISION_BYTES[precision]
        return self.model_copy(update={"bytes_per_weight": b_w, "bytes_per_kv": b_kv, "bytes_per_activation": b_act})

    # ---- parameter counts (docs/model.md#parameter-counts) -----------------------------------------------------------
    @property
    def is_moe(self) -> bool:
        return self.n_experts > 0

    @property
    def params_attention(self) -> float:
        """``L·(2·d·n_q·d_h + 2·d·n_kv·d_h)``: Wq, Wo, Wk, Wv [count]."""
        L, d, dh = self.n_layers, self.d_model, self.head_dim
        return float(L * (2 * d * self.n_heads * dh + 2 * d * self.n_kv_heads * dh))

    @property
    def params_dense_mlp(self) -> float:
        """``(L − n_moe)·3·d·d_ff`` [count]."""
        return float((self.n_layers - self.n_moe_layers) * 3 * self.d_model * self.d_ff)

    @property
    def params_per_expert(self) -> float:
        """``3·d·d_ff_e`` [count]."""
        return float(3 * self.d_model * self.d_ff_expert)

    @property
    def params_routed(self) -> float:
        return float(self.n_moe_layers * self.n_experts) * self.params_per_expert

    @property
    def params_shared(self) -> float:
        return float(self.n_moe_layers * self.n_shared_experts) * self.params_per_expert

    @property
    def params_embedding(self) -> float:
        """``V·d·(1 if tied else 2)`` [count]."""
        return float(self.vocab * self.d_model * (1 if self.tied_embeddings else 2))

    @property
    def params_total(self) -> float:
        """All resident parameters; norms and biases ignored (<0.01%) [count]."""
        return (
            self.params_attention
            + self.params_dense_mlp
            + self.params_routed
            + self.params_shared
            + self.params_embedding
        )

    @property
    def params_non_expert(self) -> float:
        return self.params_total - self.params_routed

    @property
    def params_active(self) -> float:
        """Parameters a token touches: non-expert plus k routed experts per MoE layer [count]."""
        return self.params_non_expert + self.n_moe_layers * self.experts_top_k * self.params_per_expert

    @property
    def params_matmul(self) -> float:
        """FLOP-bearing parameters per token: active minus the input-embedding lookup [count]."""
        return self.params_active - (0.0 if self.tied_embeddings else float(self.vocab * self.d_model))

    @property
    def weight_bytes(self) -> float:
        """``W = P_total · b_w``: weights resident in memory [B]."""
        return self.params_total * self.bytes_per_weight

    @property
    def flops_linear_per_token(self) -> float:
        """``2·P_mm``: matmul FLOPs per token, unembedding included [FLOP]."""
        return 2.0 * self.params_matmul

    @property
    def flops_routed_per_token(self) -> float:
        """``2·n_moe·k·P_exp``: matmul FLOPs of the routed experts per token (0 for dense) [FLOP]."""
        return 2.0 * self.n_moe_layers * self.experts_top_k * self.params_per_expert

    # ---- KV cache (docs/model.md#kv-cache-bytes) ---------------------------------------------------------------------
    @property
    def kv_bytes_per_token(self) -> float:
        """``2·L·n_kv·d_h·b_kv``, or the override elements times ``b_kv`` (MLA) [B/token].

        >>> round(ModelSpec(id="x", name="x", n_layers=40, d_model=5120, n_heads=40, n_kv_heads=40,
        ...     head_dim=128, d_ff=13824, vocab=32000).kv_bytes_per_token)
        819200
        """
        if self.kv_elements_per_token_override is not None:
            return self.kv_elements_per_token_override * self.bytes_per_kv
        return 2.0 * self.n_layers * self.n_kv_heads * self.head_dim * self.bytes_per_kv

    # ---- attention FLOPs (MLA, sliding windows) -------------------------------------------------------
    @property
    def is_mla(self) -> bool:
        return self.mla_kv_lora_rank > 0

    @property
    def attention_flops_per_pair_per_layer(self) -> float:
        """FLOPs of one query attending to one key in one layer [FLOP].

        GQA/MHA: ``4·n_q·d_h`` (QKᵀ and AV, 2 FLOP per multiply-add). MLA in the weight-absorbed form that
        decode kernels use (DeepSeek-V2 docs/model.md#parameter-counts.2, FlashMLA): every head scores against the
        shared latent of ``r + d_R`` elements and sums values over the ``r``-element latent, ``2·n_q·(r + d_R) +
        2·n_q·r``.

        >>> m = ModelSpec(id="m", name="m", n_layers=1, d_model=7168, n_heads=128, n_kv_heads=1, head_dim=101,
        ...     d_ff=18432, vocab=1000, mla_kv_lora_rank=512, mla_rope_head_dim=64)
        >>> m.attention_flops_per_pair_per_layer
        278528.0
        """
        if self.is_mla:
            r, d_r = self.mla_kv_lora_rank, self.mla_rope_head_dim
            return float(2 * self.n_heads * (r + d_r) + 2 * self.n_heads * r)
        return float(4 * self.n_heads * self.head_dim)

    @property
    def prefill_attention_flops_per_pair_per_layer(self) -> float:
        """FLOPs of one prompt token attending to one key in one layer during prefill [FLOP].

        Prefill kernels run MLA in its decompressed, multi-head form: the latent is expanded to per-head keys of
        ``d_nope + d_R`` and values of ``d_v`` elements and ordinary attention runs over them,
        ``2·n_q·(d_nope + d_R) + 2·n_q·d_v``: vLLM's MLA backends use this "compute friendly approach" for
        prefill and the weight-absorbed "data-movement friendly approach" for decode (``mla/common.py`` module
        docstring, PR #13789); TensorRT-LLM's tech blog 03 finds the non-absorbed form faster for prefills of 256
        tokens or more (docs/calibration.md#mla-prefill-attention). DeepSeek-V3: 2·128·(128 + 64) + 2·128·128 =
        81,920 FLOP, against 278,528 absorbed. Equal to :attr:`attention_flops_per_pair_per_layer` for GQA/MHA,
        and for MLA when the head dimensions are not given.

        >>> m = ModelSpec(id="m", name="m", n_layers=1, d_model=7168, n_heads=128, n_kv_heads=1, head_dim=101,
        ...     d_ff=18432, vocab=1000, mla_kv_lora_rank=512, mla_rope_head_dim=64, mla_qk_nope_head_dim=128,
        ...     mla_v_head_dim=128)
        >>> m.prefill_attention_flops_per_pair_per_layer
        81920.0
        """
        if self.is_mla and self.mla_qk_nope_head_dim > 0 and self.mla_v_head_dim > 0:
            qk = self.mla_qk_nope_head_dim + self.mla_rope_head_dim
            return float(2 * self.n_heads * qk + 2 * self.n_heads * self.mla_v_head_dim)
        return self.attention_flops_per_pair_per_layer

    def attended_layer_keys(self, context: ArrayLike) -> FloatArray:
        """Keys attended per query summed over layers at ``context`` cached tokens [count].

        ``(L − L_sw)·S + L_sw·min(S, W)``: full layers see the whole context, sliding-window layers at most
        ``W`` keys (gpt-oss alternates full and 128-token windows).
        """
        s = np.asarray(context, dtype=np.float64)
        full = float(self.n_layers - self.n_sliding_layers)
        return np.asarray(
            full * s + self.n_sliding_layers * np.minimum(s, float(self.sliding_window)), dtype=np.float64
        )

    def sliding_kv_bytes(self, context: ArrayLike) -> FloatArray:
        """KV bytes one sequence holds in its sliding-window layers, ``L_sw·2·n_kv·d_h·b_kv·min(S, W)`` [B].

        The catalog's KV override counts the full-attention layers only; this is the (bounded) rest.
        """
        s = np.asarray(context, dtype=np.float64)
        per_token = 2.0 * self.n_sliding_layers * self.n_kv_heads * self.head_dim * self.bytes_per_kv
        return per_token * np.minimum(s, float(self.sliding_window))

    # ---- MoE expert coverage (docs/moe.md#distinct-experts) ----------------------------------------------------------
    def experts_touched(self, tokens: ArrayLike) -> FloatArray:
        """Expected distinct routed experts per MoE layer for ``tokens`` in one pass [count].

        ``U(n) = E·[1 − (1 − k/E)^n]`` under uniform independent routing, which is an upper bound for any
        non-uniform routing with the same k (Schur concavity). 0 for a dense model.
        """
        n = np.asarray(tokens, dtype=np.float64)
        if not self.is_moe:
            return np.zeros_like(n)
        E, k = float(self.n_experts), float(self.experts_top_k)
        return E * -np.expm1(n * np.log1p(-k / E)) if k < E else np.where(n > 0, E, 0.0)

    def weight_bytes_read(self, tokens: ArrayLike) -> FloatArray:
        """Weight bytes one pass over ``tokens`` tokens streams from memory [B].

        Dense: ``W`` whatever the token count. MoE: ``b_w·(P_nonexp + n_moe·U(n)·P_exp)``.
        """
        n = np.asarray(tokens, dtype=np.float64)
        if not self.is_moe:
            return np.full_like(n, self.weight_bytes)
        touched = self.experts_touched(np.maximum(n, 1.0))
        return self.bytes_per_weight * (self.params_non_expert + self.n_moe_layers * touched * self.params_per_expert)
