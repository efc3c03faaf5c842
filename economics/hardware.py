"""GPUs and the efficiency factors that turn peak figures into achieved ones (docs/inputs.md#hardware to
docs/inputs.md#efficiency)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from economics._base import Frozen

Precision = Literal["bf16", "fp8", "fp4"]
PRECISIONS: tuple[Precision, ...] = ("bf16", "fp8", "fp4")


class GPU(Frozen):
    """One accelerator. Peak FLOP/s are **dense** (no 2:4 sparsity); memory is decimal (1 GB = 1e9 B)."""

    id: str = Field(min_length=1, max_length=64, description="catalog id, e.g. 'h100-sxm'")
    name: str = Field(min_length=1, max_length=120, description="display name")
    peak_flops_bf16_per_s: float = Field(gt=1e11, lt=1e17, description="dense BF16 peak [FLOP/s]")
    peak_flops_fp8_per_s: float | None = Field(
        default=None,
        gt=1e11,
        lt=1e17,
        description="dense FP8 peak; None when the GPU has no FP8 units [FLOP/s]",
    )
    peak_flops_fp4_per_s: float | None = Field(
        default=None,
        gt=1e11,
        lt=1e17,
        description="dense FP4 peak; None when the GPU has no FP4 units [FLOP/s]",
    )
    hbm_bandwidth_bytes_per_s: float = Field(gt=1e10, lt=1e14, description="peak memory bandwidth [B/s]")
    hbm_capacity_bytes: float = Field(gt=1e9, lt=1e13, description="memory capacity, decimal [B]")
    link_bandwidth_bytes_per_s: float = Field(
        gt=1e8,
        lt=1e13,
        description="GPU-to-GPU bandwidth, one direction, per GPU (NVLink, Infinity Fabric or PCIe) [B/s]",
    )
    power_w: float = Field(gt=10, lt=5000, description="board power (TDP or max TGP) [W]")
    source: str = Field(default="", max_length=1000, description="where the numbers come from")
    as_of: str = Field(default="", max_length=64, description="date of the source")

    def peak_flops_per_s(self, precision: Precision) -> float:
        """Dense peak for the compute precision [FLOP/s].

        FP4 weights on a GPU without FP4 units are dequantised and computed in FP8 (or BF16 where there is
        no FP8 either); FP8 on a GPU without FP8 units runs in BF16 (weight-only quantisation).
        """
        if precision == "fp4" and self.peak_flops_fp4_per_s is not None:
            return self.peak_flops_fp4_per_s
        if precision in ("fp4", "fp8") and self.peak_flops_fp8_per_s is not None:
            return self.peak_flops_fp8_per_s
        return self.peak_flops_bf16_per_s

    def ridge_flop_per_byte(self, precision: Precision = "bf16") -> float:
        """Machine balance ``F / BW`` [FLOP/B]; 295 for an H100 SXM in BF16."""
        return self.peak_flops_per_s(precision) / self.hbm_bandwidth_bytes_per_s


class Efficiency(Frozen):
    """Achieved fractions of peak and fixed overheads (the "software" terms, docs/inputs.md#efficiency)."""

    mbu: float = Field(
        default=0.70, gt=0, le=1, description="achieved / peak HBM bandwidth in memory-bound kernels [1]"
    )
    mfu_decode: float = Field(
        default=0.50,
        gt=0,
        le=1,
        description="achieved / peak FLOP/s in compute-bound decode, verify and diffusion passes [1]",
    )
    mfu_prefill: float = Field(default=0.45, gt=0, le=1, description="achieved / peak FLOP/s in prefill [1]")
    step_overhead_s: float = Field(
        default=0.5e-3,
        ge=0,
        le=0.05,
        description="fixed cost per forward pass: launches, sampling, scheduler [s]",
    )
    allreduce_latency_s: float = Field(default=10e-6, ge=0, le=1e-3, description="latency of one all-reduce [s]")
    comm_overlap: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="fraction of tensor-parallel communication hidden behind compute [1]",
    )
    kv_mem_util: float = Field(
        default=0.90,
        gt=0,
        le=1,
        description="fraction of GPU memory the serving engine may use (weights + KV) [1]",
    )

    @classmethod
    def ideal(cls) -> Efficiency:
        """The ideal roofline: MBU = MFU = 1, no per-pass overhead, no all-reduce latency, all memory usable."""
        return cls(
            mbu=1.0,
            mfu_decode=1.0,
            mfu_prefill=1.0,
            step_overhead_s=0.0,
            allreduce_latency_s=0.0,
            comm_overlap=0.0,
            kv_mem_util=1.0,
        )


class Deployment(Frozen):
    """A model replica: one model sharded by tensor parallelism over ``n_gpus`` identical GPUs."""

    gpu: GPU
    n_gpus: int = Field(default=1, ge=1, le=1024, description="GPUs in one tensor-parallel replica [count]")
    precision: Precision = Field(default="bf16", description="compute precision; sets the peak FLOP/s used [-]")

    @property
    def peak_flops_per_s(self) -> float:
        """Aggregate dense peak of the replica for its precision [FLOP/s]."""
        return self.n_gpus * self.gpu.peak_flops_per_s(self.precision)

    @property
    def hbm_bandwidth_bytes_per_s(self) -> float:
        """Aggregate memory bandwidth of the replica [B/s]."""
        return self.n_gpus * self.gpu.hbm_bandwidth_bytes_per_s

    @property
    def hbm_capacity_bytes(self) -> float:
        """Aggregate memory of the replica [B]."""
        return self.n_gpus * self.gpu.hbm_capacity_bytes
