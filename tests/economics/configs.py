"""Reference hardware and architectures typed in from docs/inputs.md#hardware and docs/inputs.md#model-shape (not read
from the catalog).

The golden tests use these so that a catalog edit cannot move a published worked example.
"""

from __future__ import annotations

from economics.hardware import GPU, Deployment, Efficiency
from economics.model import ModelSpec

# docs/inputs.md#hardware: H100 SXM dense BF16 989.4 TFLOP/s, FP8 1979, 3.35 TB/s, 80 GB, NVLink 450 GB/s, 700 W.
H100_SXM = GPU(
    id="h100-sxm",
    name="H100 SXM",
    peak_flops_bf16_per_s=989.4e12,
    peak_flops_fp8_per_s=1979e12,
    hbm_bandwidth_bytes_per_s=3.35e12,
    hbm_capacity_bytes=80e9,
    link_bandwidth_bytes_per_s=450e9,
    power_w=700,
)
# docs/inputs.md#hardware: A100 SXM 80GB 312 TFLOP/s BF16, 2.039 TB/s, NVLink 300 GB/s; 40GB SKU 1.555 TB/s.
A100_80GB = GPU(
    id="a100-80gb",
    name="A100 SXM 80GB",
    peak_flops_bf16_per_s=312e12,
    hbm_bandwidth_bytes_per_s=2.039e12,
    hbm_capacity_bytes=80e9,
    link_bandwidth_bytes_per_s=300e9,
    power_w=400,
)
A100_40GB = A100_80GB.model_copy(
    update={"id": "a100-40gb", "hbm_bandwidth_bytes_per_s": 1.555e12, "hbm_capacity_bytes": 40e9}
)

# docs/inputs.md#model-shape reference configurations.
LLAMA_31_8B = ModelSpec(
    id="llama-3.1-8b", name="Llama 3.1 8B", n_layers=32, d_model=4096, n_heads=32, n_kv_heads=8,
    head_dim=128, d_ff=14336, vocab=128256,
)  # fmt: skip
LLAMA_31_70B = ModelSpec(
    id="llama-3.1-70b", name="Llama 3.1 70B", n_layers=80, d_model=8192, n_heads=64, n_kv_heads=8,
    head_dim=128, d_ff=28672, vocab=128256,
)  # fmt: skip
LLAMA_2_13B = ModelSpec(
    id="llama-2-13b", name="Llama 2 13B", n_layers=40, d_model=5120, n_heads=40, n_kv_heads=40,
    head_dim=128, d_ff=13824, vocab=32000,
)  # fmt: skip
MIXTRAL_8X7B = ModelSpec(
    id="mixtral-8x7b", name="Mixtral 8x7B", n_layers=32, d_model=4096, n_heads=32, n_kv_heads=8,
    head_dim=128, d_ff=0, vocab=32000, n_experts=8, experts_top_k=2, n_moe_layers=32, d_ff_expert=14336,
)  # fmt: skip
# LLaDA-8B (Nie et al. 2025, config.json): MHA, 32 layers, d 4096, FFN 12288, vocab 126464.
LLADA_8B = ModelSpec(
    id="llada-8b", name="LLaDA 8B", n_layers=32, d_model=4096, n_heads=32, n_kv_heads=32, head_dim=128,
    d_ff=12288, vocab=126464, family="diffusion",
)  # fmt: skip

IDEAL = Efficiency.ideal()
#: The first specification's default efficiency. Its tensor-parallel all-reduce (α + 2(N−1)/N·m/BW_link)
#: has no half-performance length, so its worked examples (docs/roofline.md#worked-example-70b, the serving tables)
#: are pinned with n½ = 0; the product's default of 4 MB is a departure tested on its own
#: (docs/departures.md#all-reduce-below-link-bandwidth).
SPEC_DEFAULTS = Efficiency(allreduce_half_bytes=0.0)


def h100(n_gpus: int = 1) -> Deployment:
    return Deployment(gpu=H100_SXM, n_gpus=n_gpus)
