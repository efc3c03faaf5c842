"""GPUs and the efficiency factors that turn peak figures into achieved ones (docs/inputs.md#hardware to
docs/inputs.md#efficiency)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from economics._base import Frozen

Precision = Literal["bf16", "fp8", "fp4"]
PRECISIONS: tuple[Precision, ...] = ("bf16", "fp8", "fp4")

#: Measured max-matmul / dense peak of the GPU the default MFUs are stated for (H100 SXM, stas00 MAMF: 794.5 of
#: 989 BF16 TFLOP/s) [1].
REFERENCE_MATMUL_FRACTION = 0.80
#: Measured best FP8 GEMM / dense FP8 peak of the same H100 SXM (stas00 MAMF: 1402.6 of 1979 TFLOP/s); the FP8
#: efficiency :attr:`Efficiency.fp8_compute_efficiency` (0.89 = 0.709/0.80) is stated on it [1].
REFERENCE_FP8_MATMUL_FRACTION = 0.709


#: Hockney half-performance length of a tensor-parallel all-reduce over NVLink or Infinity Fabric [B]: nccl-tests
#: all_reduce_perf on 8×H20, NVLink 4 (kvcache-ai/Mooncake PR #3484, NCCL 2.23, 2025: 27.8 / 53.2 / 121 µs at
#: 1 / 4 / 16 MiB); assumed for the other NVLink generations and Infinity Fabric
#: (docs/calibration.md#all-reduce-half-performance-length).
NVLINK_ALLREDUCE_HALF_BYTES = 4e6
#: Fixed time of an all-reduce over PCIe beyond its latency α, per unit of 2(N−1)/N [s]: 8×RTX 4090 on PCIe Gen4
#: all-reduce 8 bytes in 42 µs (NVIDIA/nccl issue #1530, all_reduce_perf); less α = 10 µs that is 32 µs = 2·(7/8)·t,
#: so t = 18.3 µs, n½ = t·BW_link (0.59 MB at 32 GB/s, 1.17 MB at 64 GB/s, the same time assumed on Gen5).
PCIE_ALLREDUCE_FIXED_S = (42e-6 - 10e-6) / (2 * (8 - 1) / 8)  # (measured 8-GPU time − α) / ring factor at N = 8
#: Per-direction link rate from which a GPU's links count as NVLink / Infinity Fabric, not PCIe [B/s]: the catalog's
#: slowest NVLink is 300 GB/s (A100 NVLink 3, H100 NVL bridge), its fastest PCIe 64 GB/s (Gen5 x16).
FAST_LINK_BYTES_PER_S = 100e9


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
    max_matmul_fraction: float = Field(
        default=REFERENCE_MATMUL_FRACTION,
        gt=0,
        le=1,
        description="measured best BF16 GEMM / dense peak (MAMF); MFU scales with it relative to H100's 0.80 [1]",
    )
    max_matmul_fraction_fp8: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="measured best FP8 GEMM / dense FP8 peak (MAMF); None = the BF16 fraction's scaling [1]",
    )
    allreduce_half_bytes: float | None = Field(
        default=None,
        ge=0,
        le=1e9,
        description="message size at which a tensor-parallel all-reduce over this GPU's links reaches half their "
        "bandwidth (Hockney's n½; docs/calibration.md#all-reduce-half-performance-length); empty = the value of "
        "its link class (4 MB on NVLink and Infinity Fabric, about 0.59 MB on PCIe Gen4) [B]",
    )
    source: str = Field(default="", max_length=1000, description="where the numbers come from")
    as_of: str = Field(default="", max_length=64, description="date of the source")

    @model_serializer(mode="wrap")
    def _drop_new_defaults(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        return drop_new_defaults(
            self, handler(self), ("max_matmul_fraction", "max_matmul_fraction_fp8", "allreduce_half_bytes")
        )

    @property
    def link_half_bytes(self) -> float:
        """The all-reduce half-performance length on this GPU's links: its own, else its link class's [B].

        NVLink and Infinity Fabric (at least :data:`FAST_LINK_BYTES_PER_S` per direction) take the length measured
        on NVLink 4; slower links (PCIe) the fixed time measured on PCIe Gen4 at their own rate.

        >>> pcie = GPU(id="g", name="g", peak_flops_bf16_per_s=1e14, hbm_bandwidth_bytes_per_s=1e12,
        ...            hbm_capacity_bytes=8e10, link_bandwidth_bytes_per_s=32e9, power_w=300)
        >>> nvlink = pcie.model_copy(update={"link_bandwidth_bytes_per_s": 450e9})
        >>> round(pcie.link_half_bytes), round(nvlink.link_half_bytes)
        (585143, 4000000)
        """
        if self.allreduce_half_bytes is not None:
            return self.allreduce_half_bytes
        if self.link_bandwidth_bytes_per_s >= FAST_LINK_BYTES_PER_S:
            return NVLINK_ALLREDUCE_HALF_BYTES
        return PCIE_ALLREDUCE_FIXED_S * self.link_bandwidth_bytes_per_s

    def matmul_scale(self, compute: Precision) -> float:
        """Best GEMM of this GPU in ``compute`` relative to the H100 the default MFUs are stated for [1].

        ``MAMF_fp8/0.709`` for FP8 matmuls when the FP8 best GEMM was measured (Blackwell's FP8 tensor cores reach
        nearly their BF16 share, Hopper's do not: B200 76% vs 78%, H100 71% vs 80%), else ``MAMF_bf16/0.80``.

        >>> g = GPU(id="g", name="g", peak_flops_bf16_per_s=1e15, peak_flops_fp8_per_s=2e15,
        ...     hbm_bandwidth_bytes_per_s=3e12, hbm_capacity_bytes=8e10, link_bandwidth_bytes_per_s=4e11, power_w=700,
        ...     max_matmul_fraction=0.78, max_matmul_fraction_fp8=0.763)
        >>> round(g.matmul_scale("fp8"), 4), round(g.matmul_scale("bf16"), 4)
        (1.0762, 0.975)
        """
        if compute == "fp8" and self.max_matmul_fraction_fp8 is not None:
            return self.max_matmul_fraction_fp8 / REFERENCE_FP8_MATMUL_FRACTION
        return self.max_matmul_fraction / REFERENCE_MATMUL_FRACTION

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

    def compute_precision(self, precision: Precision) -> Precision:
        """The tensor-core format the matmuls of a ``precision`` deployment run in on this GPU [-].

        >>> GPU(id="g", name="g", peak_flops_bf16_per_s=1e15, peak_flops_fp8_per_s=2e15, hbm_bandwidth_bytes_per_s=3e12,
        ...     hbm_capacity_bytes=8e10, link_bandwidth_bytes_per_s=4e11, power_w=700).compute_precision("fp4")
        'fp8'
        """
        if precision == "fp4" and self.peak_flops_fp4_per_s is not None:
            return "fp4"
        if precision in ("fp4", "fp8") and self.peak_flops_fp8_per_s is not None:
            return "fp8"
        return "bf16"

    def ridge_flop_per_byte(self, precision: Precision = "bf16") -> float:
        """Machine balance ``F / BW`` [FLOP/B]; 295 for an H100 SXM in BF16."""
        return self.peak_flops_per_s(precision) / self.hbm_bandwidth_bytes_per_s


def drop_new_defaults(obj: Frozen, data: dict[str, object], names: tuple[str, ...]) -> dict[str, object]:
    """``data`` without the fields ``names`` that still hold their defaults (keeps old dumps byte-identical)."""
    fields = type(obj).model_fields
    return {k: v for k, v in data.items() if not (k in names and v == fields[k].default)}


#: Efficiency fields added with the MoE / low-precision / engine physics; dropped from dumps at their defaults.
NEW_EFFICIENCY_FIELDS = (
    "sequence_overhead_s",
    "fp8_compute_efficiency",
    "fp4_compute_efficiency",
    "mixed_input_gemm_efficiency",
    "moe_gemm_half_tokens",
    "moe_load_imbalance",
    "layer_floor_s",
    "allreduce_half_bytes",
)


class Efficiency(Frozen):
    """Achieved fractions of peak and fixed overheads (the "software" terms, docs/inputs.md#efficiency)."""

    # MBU and MFUs of at least 0.001 (0.1%): a near-zero factor overflows pass times to inf and the plan to NaN
    mbu: float = Field(
        default=0.70, ge=0.001, le=1, description="achieved / peak HBM bandwidth in memory-bound kernels [1]"
    )
    mfu_decode: float = Field(
        default=0.50,
        ge=0.001,
        le=1,
        description="achieved / peak FLOP/s in compute-bound decode, verify and diffusion passes [1]",
    )
    mfu_prefill: float = Field(default=0.45, ge=0.001, le=1, description="achieved / peak FLOP/s in prefill [1]")
    sequence_overhead_s: float = Field(
        default=0.0,
        ge=0,
        le=0.01,
        description="CPU scheduling / detokenisation cost per running sequence per iteration (engine) [s]",
    )
    step_overhead_s: float = Field(
        default=0.5e-3,
        ge=0,
        le=0.05,
        description="fixed cost per forward pass: launches, sampling, scheduler [s]",
    )
    allreduce_latency_s: float = Field(default=10e-6, ge=0, le=1e-3, description="latency of one all-reduce [s]")
    allreduce_half_bytes: float | None = Field(
        default=None,
        ge=0,
        le=1e9,
        description="message size at which a tensor-parallel all-reduce reaches half the link's bandwidth "
        "(Hockney's half-performance length, docs/calibration.md#all-reduce-half-performance-length); empty = the "
        "GPU's links' value (4 MB on NVLink, measured with nccl-tests on 8×H20, Mooncake PR #3484, 2025; about "
        "0.59 MB on PCIe Gen4); 0 gives the first spec's all-reduce and its worked example "
        "(docs/departures.md#all-reduce-below-link-bandwidth) [B]",
    )
    comm_overlap: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="fraction of tensor-parallel communication hidden behind compute [1]",
    )
    fp8_compute_efficiency: float = Field(
        default=0.89,
        gt=0,
        le=1,
        description="achieved FP8 / achieved BF16 share of peak in GEMMs: H100 max-matmul 71% vs 80% (stas00 MAMF) [1]",
    )
    fp4_compute_efficiency: float = Field(
        default=0.69,
        gt=0,
        le=1,
        description="achieved FP4 / achieved BF16 share of peak in GEMMs, the activations' FP4 quantisation fused "
        "into the kernel before (block-scale overhead, young kernels; docs/calibration.md#physics-parameters) [1]",
    )
    mixed_input_gemm_efficiency: float = Field(
        default=0.60,
        gt=0,
        le=1,
        description="share of the compute format's GEMM rate reached when the weights are stored narrower than it "
        "and widened inside the GEMM (W4A16, MXFP4 on Hopper, FP8 weights on A100; "
        "docs/calibration.md#mixed-input-gemm-efficiency) [1]",
    )
    moe_gemm_half_tokens: float = Field(
        default=256.0,
        ge=0,
        le=100_000,
        description="tokens per expert at which a grouped expert GEMM reaches half its dense efficiency [tokens]",
    )
    moe_load_imbalance: float = Field(
        default=1.25,
        ge=1,
        le=4,
        description="busiest / mean expert load across expert-parallel ranks (the slowest rank sets the pace) [1]",
    )
    layer_floor_s: float = Field(
        default=0.04e-3,
        ge=0,
        le=0.01,
        description="least time one layer of a pass takes however little it computes or reads: its chain of "
        "dependent kernels (norm, projections, attention, router, expert GEMMs, combine) each take a few µs [s]",
    )
    kv_mem_util: float = Field(
        default=0.90,
        gt=0,
        le=1,
        description="fraction of GPU memory the serving engine may use (weights + KV) [1]",
    )

    @model_serializer(mode="wrap")
    def _drop_new_defaults(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """Leave the issue-13 fields out of a dump while they hold their defaults, so scenario files, share
        links and their hashes written before them stay byte-identical (they load with the same defaults)."""
        return drop_new_defaults(self, handler(self), NEW_EFFICIENCY_FIELDS)

    @classmethod
    def ideal(cls) -> Efficiency:
        """The ideal roofline: MBU = MFU = 1, no per-pass overhead, no all-reduce latency, all memory usable."""
        return cls(
            mbu=1.0,
            mfu_decode=1.0,
            mfu_prefill=1.0,
            step_overhead_s=0.0,
            allreduce_latency_s=0.0,
            allreduce_half_bytes=0.0,
            comm_overlap=0.0,
            kv_mem_util=1.0,
            fp8_compute_efficiency=1.0,
            fp4_compute_efficiency=1.0,
            mixed_input_gemm_efficiency=1.0,
            moe_gemm_half_tokens=0.0,
            moe_load_imbalance=1.0,
            layer_floor_s=0.0,
        )

    def allreduce_half_bytes_on(self, gpu: GPU) -> float:
        """The all-reduce half-performance length in use on ``gpu``'s links: this efficiency's, else the GPU's [B].

        >>> gpu = GPU(id="g", name="g", peak_flops_bf16_per_s=1e14, hbm_bandwidth_bytes_per_s=1e12,
        ...           hbm_capacity_bytes=8e10, link_bandwidth_bytes_per_s=450e9, power_w=300)
        >>> Efficiency().allreduce_half_bytes_on(gpu), Efficiency(allreduce_half_bytes=0).allreduce_half_bytes_on(gpu)
        (4000000.0, 0.0)
        """
        return gpu.link_half_bytes if self.allreduce_half_bytes is None else self.allreduce_half_bytes

    def precision_scale(self, compute: Precision) -> float:
        """Share of the low-precision peak reached relative to BF16's MFU: 1 for BF16 [1]."""
        return {"bf16": 1.0, "fp8": self.fp8_compute_efficiency, "fp4": self.fp4_compute_efficiency}[compute]


class Deployment(Frozen):
    """A model replica: one model sharded by tensor parallelism over ``n_gpus`` identical GPUs."""

    gpu: GPU
    n_gpus: int = Field(default=1, ge=1, le=1024, description="GPUs in one tensor-parallel replica [count]")
    precision: Precision = Field(default="bf16", description="compute precision; sets the peak FLOP/s used [-]")
    expert_parallel: bool = Field(
        default=False, description="MoE experts split across the GPUs (EP): all-to-all and load imbalance [-]"
    )

    @model_serializer(mode="wrap")
    def _drop_new_defaults(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        return drop_new_defaults(self, handler(self), ("expert_parallel",))

    @property
    def peak_flops_per_s(self) -> float:
        """Aggregate dense peak of the replica for its precision [FLOP/s]."""
        return self.n_gpus * self.gpu.peak_flops_per_s(self.precision)

    @property
    def attainable_flops_per_s(self) -> float:
        """Peak scaled by how close the GPU's best GEMM gets to it, relative to the H100 reference [FLOP/s].

        The default MFUs are shares of peak on an H100 (best GEMM 80% of peak); an MI300X whose best BF16 GEMM
        reaches 51% of its peak gets ``0.51/0.80`` of that share. FP8 matmuls scale by the measured FP8 best GEMM
        where there is one (:meth:`GPU.matmul_scale`).
        """
        return self.peak_flops_per_s * self.gpu.matmul_scale(self.gpu.compute_precision(self.precision))

    @property
    def hbm_bandwidth_bytes_per_s(self) -> float:
        """Aggregate memory bandwidth of the replica [B/s]."""
        return self.n_gpus * self.gpu.hbm_bandwidth_bytes_per_s

    @property
    def hbm_capacity_bytes(self) -> float:
        """Aggregate memory of the replica [B]."""
        return self.n_gpus * self.gpu.hbm_capacity_bytes
