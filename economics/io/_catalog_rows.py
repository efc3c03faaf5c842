"""CSV row models of the catalog files: one field per column, in the files' human units.

Each row model converts itself to its domain model (:class:`~economics.hardware.GPU`,
:class:`~economics.model.ModelSpec`, the scheme presets) with the constants of :mod:`economics.units`; the
loader in :mod:`economics.io.catalog` maps validation errors of the domain model back to CSV columns with the
``*_COLUMNS`` tables here.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from economics.catalog import ModelReference, Provenance
from economics.hardware import GPU, REFERENCE_MATMUL_FRACTION, Precision
from economics.model import ModelSpec
from economics.prices import Confidence, IsoDate
from economics.schemes import DiffusionScheme, SpeculativeScheme
from economics.units import GB, MS, TB, TFLOPS


# ---- CSV row models (human units; one field per column) -------------------------------------------------------
class CsvRow(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    source: str = Field(min_length=1, max_length=1000)
    as_of: IsoDate
    confidence: Confidence
    notes: str = Field(default="", max_length=2000)

    def provenance(self) -> Provenance:
        return Provenance(source=self.source, as_of=self.as_of, confidence=self.confidence, notes=self.notes)


class GpuRow(CsvRow):
    id: str
    name: str
    form_factor: str
    bf16_dense_tflops: float
    fp8_dense_tflops: float | None = None
    fp4_dense_tflops: float | None = None
    hbm_bandwidth_tb_per_s: float
    hbm_capacity_gb: float
    link_bandwidth_gb_per_s: float
    link_type: str
    power_w: float
    max_matmul_fraction: float | None = None
    max_matmul_fraction_fp8: float | None = None

    def to_domain(self) -> GPU:
        return GPU(
            id=self.id,
            name=self.name,
            peak_flops_bf16_per_s=self.bf16_dense_tflops * TFLOPS,
            peak_flops_fp8_per_s=None if self.fp8_dense_tflops is None else self.fp8_dense_tflops * TFLOPS,
            peak_flops_fp4_per_s=None if self.fp4_dense_tflops is None else self.fp4_dense_tflops * TFLOPS,
            hbm_bandwidth_bytes_per_s=self.hbm_bandwidth_tb_per_s * TB,
            hbm_capacity_bytes=self.hbm_capacity_gb * GB,
            link_bandwidth_bytes_per_s=self.link_bandwidth_gb_per_s * GB,
            power_w=self.power_w,
            max_matmul_fraction=self.max_matmul_fraction or REFERENCE_MATMUL_FRACTION,
            max_matmul_fraction_fp8=self.max_matmul_fraction_fp8,
            source=self.source,
            as_of=self.as_of.isoformat(),
        )


GPU_COLUMNS = {
    "peak_flops_bf16_per_s": "bf16_dense_tflops",
    "peak_flops_fp8_per_s": "fp8_dense_tflops",
    "peak_flops_fp4_per_s": "fp4_dense_tflops",
    "hbm_bandwidth_bytes_per_s": "hbm_bandwidth_tb_per_s",
    "hbm_capacity_bytes": "hbm_capacity_gb",
    "link_bandwidth_bytes_per_s": "link_bandwidth_gb_per_s",
}


class ModelRow(CsvRow):
    id: str
    name: str
    family: str
    n_layers: int
    d_model: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    d_ff: int
    vocab: int
    tied_embeddings: bool
    n_experts: int
    experts_top_k: int
    n_moe_layers: int
    d_ff_expert: int
    n_shared_experts: int
    kv_elements_per_token_override: int | None = None
    mla_kv_lora_rank: int = 0
    mla_rope_head_dim: int = 0
    mla_qk_nope_head_dim: int = 0
    mla_v_head_dim: int = 0
    sliding_window: int = 0
    n_sliding_layers: int = 0
    native_precision: Precision
    published_total_params: float = Field(gt=0)
    published_active_params: float = Field(gt=0)
    published_active_basis: Literal["all_weights", "excl_input_embedding"]
    published_params_source: str = Field(min_length=1, max_length=1000)

    def to_domain(self) -> ModelSpec:
        spec = self.model_dump(include=set(ModelSpec.model_fields) - {"source", "as_of"})
        return ModelSpec.model_validate({**spec, "source": self.source, "as_of": self.as_of.isoformat()})

    def reference(self) -> ModelReference:
        return ModelReference.model_validate(self.model_dump(include=set(ModelReference.model_fields)))


class SpeculativeRow(CsvRow):
    id: str
    name: str
    draft_tokens: int
    verify_tokens: int
    acceptance_rate: float | None = None
    mean_accepted_tokens: float | None = None
    draft_layers: int
    draft_vocab: int
    draft_steps: int
    draft_step_overhead_ms: float

    def to_domain(self) -> SpeculativeScheme:
        fields = self.model_dump(include=set(SpeculativeScheme.model_fields) - {"source", "as_of"})
        return SpeculativeScheme.model_validate(
            {
                **fields,
                "draft_step_overhead_s": self.draft_step_overhead_ms * MS,
                "source": self.source,
                "as_of": self.as_of.isoformat(),
            }
        )


class DiffusionRow(CsvRow):
    id: str
    name: str
    block_tokens: int
    denoising_steps: int
    refresh_passes: int
    prefix_cache: bool

    def to_domain(self) -> DiffusionScheme:
        fields = self.model_dump(include=set(DiffusionScheme.model_fields) - {"source", "as_of"})
        return DiffusionScheme.model_validate({**fields, "source": self.source, "as_of": self.as_of.isoformat()})


SPECULATIVE_COLUMNS = {"draft_step_overhead_s": "draft_step_overhead_ms"}
