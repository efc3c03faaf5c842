"""forward_time: docs/roofline.md#worked-example-70b to docs/roofline.md#roofline-checks worked values, golden points
C1, C2, C8, and roofline properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from economics.hardware import GPU, Deployment, Efficiency
from economics.model import ModelSpec
from economics.roofline import forward_time
from tests.economics.configs import A100_40GB, IDEAL, LLAMA_2_13B, LLAMA_31_8B, LLAMA_31_70B, SPEC_DEFAULTS, h100
from tests.strategies import PROPERTIES, deployments, efficiencies, models

# ---- docs/roofline.md#worked-example-70b worked example: Llama-3.1-70B, BF16, 8×H100 SXM, default efficiency, S = 4096
# -------------------

# docs/roofline.md#worked-example-70b batch sweep (prototype, independent reference computation): TPOT [ms] and tok/s
# per replica.
TABLE_33 = [
    (1, 9.70, 103),
    (8, 10.28, 778),
    (16, 10.93, 1463),
    (32, 12.25, 2613),
    (64, 14.87, 4303),
    (128, 20.12, 6361),
    (256, 32.02, 7995),
    (324, 39.97, 8106),
]


@pytest.mark.parametrize(("batch", "tpot_ms", "tok_s"), TABLE_33)
def test_section_3_3_batch_sweep(batch: int, tpot_ms: float, tok_s: float) -> None:
    t = float(forward_time(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, batch, 1, 4096).time_s)
    assert t * 1e3 == pytest.approx(tpot_ms, abs=0.006)  # the table prints two decimals
    assert batch / t == pytest.approx(tok_s, rel=0.002)


def test_section_3_3_terms_at_batch_1() -> None:
    # docs/roofline.md#worked-example-70b: t_lin = 141.1e9 B / (8·3.35e12·0.7) = 7.52 ms; t_att = 4097·327680 B /
    # 18.76e12 = 0.07 ms; t_comm = 160 all-reduces × (10 µs + 2·7/8·16384 B / 450e9) = 1.61 ms; tau0 = 0.5 ms; total
    # 9.70 ms.
    p = forward_time(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, 1, 1, 4096)
    assert float(p.linear_s) * 1e3 == pytest.approx(7.52, abs=0.005)
    assert float(p.attention_s) * 1e3 == pytest.approx(0.0716, abs=0.0005)
    assert float(p.comm_s) * 1e3 == pytest.approx(1.61, abs=0.005)
    assert float(p.overhead_s) == 0.5e-3
    assert not bool(p.compute_bound)


def test_default_all_reduce_departs_from_the_spec_by_the_hand_count() -> None:
    # docs/departures.md#all-reduce-below-link-bandwidth: the default charges each of the 160 all-reduces of a step
    # 2·(7/8)·4e6 B / 450e9 B/s = 15.556 µs more than the spec, 2.4889 ms per step at any batch: the worked example's
    # batch 1 goes 9.70 → 12.19 ms, batch 324 39.97 → 42.46 ms (docs/roofline.md#worked-example-70b); the 1,000-token
    # prefill's all-reduces (16.384 MB each) 11.8 → 160 × (10 + 2·7/8·20.384e6/450e9 s) = 14.28 ms.
    for batch, spec_ms in ((1, 9.70), (324, 39.97)):
        t = float(forward_time(LLAMA_31_70B, h100(8), Efficiency(), batch, 1, 4096).time_s)
        assert t * 1e3 == pytest.approx(spec_ms + 2.4889, abs=0.006)
    p = forward_time(LLAMA_31_70B, h100(8), Efficiency(), 1, 1000, 0, prefill=True)
    assert float(p.comm_s) * 1e3 == pytest.approx(14.28, abs=0.01)
    # one GPU has no all-reduce, so nothing changes there
    one = forward_time(LLAMA_31_8B, h100(1), Efficiency(), 8, 1, 2048)
    assert float(one.comm_s) == 0.0


def test_pcie_links_carry_their_own_half_performance_length() -> None:
    # PCIe Gen4 (32 GB/s): n½ = 18.286 µs · 32e9 B/s = 585,143 B, from 8×RTX 4090's 42 µs all-reduce of 8 bytes
    # (NCCL issue #1530): 10 µs + 2·(7/8)·(128 B + 585,143 B)/32e9 B/s = 42.01 µs reproduces it; NVLink 4's 4 MB would
    # say 229 µs. Llama-3.1-70B on 4×L40S, batch 1: m = 8192·2 B; 10 + 1.5·(16,384 + 585,143)/32e9 s = 38.196 µs,
    # ·160 = 6.111 ms; with 4 MB 10 + 1.5·4,016,384/32e9 s = 198.27 µs, ·160 = 31.72 ms.
    from economics.io.catalog import load_catalog
    from economics.roofline import tensor_parallel_allreduce_s

    gpus = load_catalog().gpus
    # one layer of d = 64: a 128-byte message
    tiny = ModelSpec(id="t", name="t", n_layers=1, d_model=64, n_heads=1, n_kv_heads=1, head_dim=64, d_ff=64, vocab=8)
    eight_bytes = tensor_parallel_allreduce_s(tiny, Deployment(gpu=gpus["rtx-4090"], n_gpus=8), Efficiency(), 1)
    assert float(eight_bytes) / 2 * 1e6 == pytest.approx(42.01, abs=0.01)  # 2 all-reduces per layer
    l40s = tensor_parallel_allreduce_s(LLAMA_31_70B, Deployment(gpu=gpus["l40s"], n_gpus=4), Efficiency(), 1)
    assert float(l40s) * 1e3 == pytest.approx(6.111, abs=0.001)
    # a GPU's own length overrides its link class's, an efficiency's overrides both; 0 is the first spec
    own = gpus["l40s"].model_copy(update={"allreduce_half_bytes": 4e6})
    assert float(tensor_parallel_allreduce_s(LLAMA_31_70B, Deployment(gpu=own, n_gpus=4), Efficiency(), 1)) * 1e3 == (
        pytest.approx(31.72, abs=0.01)
    )
    spec = tensor_parallel_allreduce_s(LLAMA_31_70B, Deployment(gpu=gpus["l40s"], n_gpus=4), SPEC_DEFAULTS, 1)
    assert float(spec) * 1e3 == pytest.approx(160 * (10 + 1.5 * 16_384 / 32e9 * 1e6) / 1e3, rel=1e-9)


def test_section_3_4_prefill() -> None:
    # docs/roofline.md#prefill: 1000-token prompt, 70B on 8×H100, MFU_pre 0.45: linear 1000 × 139.0 GFLOP / 3.96e15 =
    # 39.0 ms (compute-bound), attention 0.37 ms, comm 160 × (10 µs + 63.7 µs) = 11.8 ms, total 51.7 ms.
    p = forward_time(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, 1, 1000, 0, prefill=True)
    assert float(p.linear_s) * 1e3 == pytest.approx(39.0, abs=0.05)
    assert float(p.attention_s) * 1e3 == pytest.approx(0.37, abs=0.01)
    assert float(p.comm_s) * 1e3 == pytest.approx(11.8, abs=0.05)
    assert float(p.time_s) * 1e3 == pytest.approx(51.7, abs=0.05)


def test_section_3_5_ideal_batch_1_no_context() -> None:
    # docs/roofline.md#roofline-checks item 2: 26.8e12 B/s / 141.1e9 B = 189.9 tok/s (weights only), ±0.5%.
    t = float(forward_time(LLAMA_31_70B, h100(8), IDEAL, 1, 1, 0).time_s)
    assert 1.0 / t == pytest.approx(189.9, rel=0.005)


def test_section_3_5_kipply_crossover_batch() -> None:
    # docs/roofline.md#roofline-checks item 3 ([KIP]): ideal, S = 0, b_w = 2: the linear layers turn compute-bound at B
    # ≈ F/BW, 208 for 312e12/1.5e12, when W = 2·P_mm (tied embeddings). Activation bytes move it by < 1%.
    gpu = GPU(id="a100", name="A100 (kipply)", peak_flops_bf16_per_s=312e12, hbm_bandwidth_bytes_per_s=1.5e12,
              hbm_capacity_bytes=80e9, link_bandwidth_bytes_per_s=300e9, power_w=400)  # fmt: skip
    model = LLAMA_31_70B.model_copy(update={"tied_embeddings": True})
    batch = np.arange(195, 225)
    bound = forward_time(model, Deployment(gpu=gpu), IDEAL, batch, 1, 0).linear_compute_bound
    crossover = int(batch[np.argmax(bound)])
    assert 206 <= crossover <= 212


def test_section_3_5_arithmetic_intensity_batch_1() -> None:
    # docs/roofline.md#roofline-checks item 10: 2·P_mm FLOP over ≈ 2·P_total B in BF16 → AI ∈ [0.9, 1.1] FLOP/B for
    # dense models.
    for model in (LLAMA_31_8B, LLAMA_31_70B, LLAMA_2_13B):
        ai = float(forward_time(model, h100(1), SPEC_DEFAULTS, 1, 1, 0).arithmetic_intensity_flop_per_byte)
        assert 0.9 <= ai <= 1.1


# ---- golden points of docs/calibration.md#golden-values --------------------------------------------------------------


def _aggregate_device(n: int, bw: float, flops: float, memory: float) -> Deployment:
    """n chips folded into one device (N = 1): the memory-only [SB] examples ignore TP communication."""
    gpu = GPU(id="agg", name="aggregate", peak_flops_bf16_per_s=n * flops, hbm_bandwidth_bytes_per_s=n * bw,
              hbm_capacity_bytes=n * memory, link_bandwidth_bytes_per_s=1e12, power_w=1000)  # fmt: skip
    return Deployment(gpu=gpu, n_gpus=1)


def test_c1_scaling_book_pop_quiz() -> None:
    # C1, [SB] "All About Transformer Inference" pop quiz: 30B int8 model on TPU v5e 4×4 (16 chips of 8.1e11 B/s
    # and 1.97e14 FLOP/s), 8192 context, 100 kB/token KV → 2.5 ms at B = 4 and 21 ms at B = 256 (the first design spec
    # (docs/README.md#origin) prototype 2.57 / 21.1 ms; tolerance ±2%, ideal mode). Hand derivation: B = 4: (30e9 +
    # 4·819.2e6) B / 1.296e13 B/s = 2.57 ms; B = 256: KV 256·819.2e6/1.296e13 = 16.2 ms + compute 2·30e9·256/3.152e15 =
    # 4.87 ms. The architecture below has P_total ≈ 30.0e9 and 2·L·n_kv·d_h·b_kv = 2·50·8·125·1 = 100,000 B/token.
    model = ModelSpec(id="sb30b", name="SB 30B int8", n_layers=50, d_model=8192, n_heads=64, n_kv_heads=8,
                      head_dim=125, d_ff=18417, vocab=2, tied_embeddings=True, bytes_per_weight=1.0,
                      bytes_per_kv=1.0)  # fmt: skip
    assert model.params_total == pytest.approx(30e9, rel=0.001)
    assert model.kv_bytes_per_token == 100_000
    dep = _aggregate_device(16, 8.1e11, 1.97e14, 16e9)
    t = forward_time(model, dep, IDEAL, np.array([4, 256]), 1, 8192).time_s * 1e3
    assert t[0] == pytest.approx(2.57, rel=0.02)
    assert t[1] == pytest.approx(21.1, rel=0.02)


@pytest.mark.parametrize(("batch", "published_ms"), [(1, 4.98), (240, 249.1)])
def test_c2_scaling_book_llama2_13b_memory_only(batch: int, published_ms: float) -> None:
    # C2, [SB] LLaMA-2-13B table on 8×TPU v5e: (26 GiB + B·6.7 GiB)/6.5 TiB/s → 4.98 ms (B = 1, 200.6 tok/s)
    # … 249.1 ms (B = 240, 963.5 tok/s) at 8192 context, memory only; tolerance ±3%. With the real config
    # (W = 26.03e9 B, KV 6.711e9 B per sequence) and 8 × 8.1e11 B/s: (26.03e9 + 6.711e9)/6.48e12 = 5.05 ms.
    dep = _aggregate_device(8, 8.1e11, 1.97e14, 16e9)
    t = float(forward_time(LLAMA_2_13B, dep, IDEAL, batch, 1, 8192).time_s) * 1e3
    assert t == pytest.approx(published_ms, rel=0.03)


@pytest.mark.parametrize(
    ("n_gpus", "mbu", "allreduce_s", "measured_ms"), [(1, 0.90, 0.0, 22.0), (2, 0.87, 20e-6, 13.5)]
)
def test_c8_kipply_13b(n_gpus: int, mbu: float, allreduce_s: float, measured_ms: float) -> None:
    # C8, [KIP] "Transformer Inference Arithmetic": 13B GPT-style model (40 layers, d 5120, MHA, 4d MLP), 512
    # context, FasterTransformer on A100-40GB at batch 1: 22.0 ms/token on 1 GPU, 13.5 ms on 2. The first design spec
    # (docs/README.md#origin) setting: MBU 0.9 (0.87 on 2 GPUs), 1 ms per-step overhead, 20 µs per all-reduce; tolerance
    # ±15%. The 2-matrix 4d MLP is the SwiGLU-equivalent d_ff = 2/3·4·5120 = 13653.
    model = ModelSpec(id="kip13b", name="kipply 13B", n_layers=40, d_model=5120, n_heads=40, n_kv_heads=40,
                      head_dim=128, d_ff=13653, vocab=50257)  # fmt: skip
    eff = Efficiency(mbu=mbu, step_overhead_s=1e-3, allreduce_latency_s=allreduce_s)
    t = float(forward_time(model, Deployment(gpu=A100_40GB, n_gpus=n_gpus), eff, 1, 1, 512).time_s) * 1e3
    assert t == pytest.approx(measured_ms, rel=0.15)


# ---- exact identities ----------------------------------------------------------------------------------


def test_one_token_causal_equals_bidirectional() -> None:
    # A one-token block attends only to itself either way: q(q+1)/2 = q² = 1 pair. The spec's 2·q² causal
    # term counted half a pair here; the exact count makes the two passes identical.
    kw = {"batch": np.array([1.0, 64.0]), "new_tokens": 1, "context_tokens": np.array([0.0, 4096.0])}
    causal = forward_time(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, **kw)
    bidir = forward_time(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, bidirectional=True, **kw)
    np.testing.assert_array_equal(causal.flops, bidir.flops)
    np.testing.assert_array_equal(causal.time_s, bidir.time_s)


def test_block_attention_flops_hand_count() -> None:
    # q = 32 new tokens, S = 1000 cached, B = 1, Llama-3.1-8B (L·n_q·d_h = 32·32·128 = 131072):
    # causal: 131072·(4·32·1000 + 2·32·33) = 1.705e10; bidirectional: 131072·(4·32·1000 + 4·32·32) = 1.731e10.
    lin = 32 * 2 * LLAMA_31_8B.params_matmul
    causal = forward_time(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, 1, 32, 1000).flops
    bidir = forward_time(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, 1, 32, 1000, bidirectional=True).flops
    assert float(causal) - lin == pytest.approx(131072 * (128_000 + 2112))
    assert float(bidir) - lin == pytest.approx(131072 * (128_000 + 4096))


def test_batch_zero_limit_dense() -> None:
    # docs/roofline.md#roofline-checks item 6: B → 0 gives W/BW_eff + tau0 + 2L·alpha_ar (70B, 8×H100, defaults):
    # 141.1048e9/18.76e12 = 7.5216 ms + 0.5 ms + 160·10 µs = 9.6216 ms.
    t = float(forward_time(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, 0.0, 1, 4096).time_s)
    assert t == pytest.approx(141.104775168e9 / (8 * 3.35e12 * 0.7) + 0.5e-3 + 160 * 10e-6, rel=1e-12)


# ---- properties (docs/roofline.md#roofline-checks items 4–8) ---------------------------------------------------------

_batch = st.floats(0.0, 4096.0)
_ctx = st.floats(0.0, 131_072.0)


@PROPERTIES
@given(models(), deployments(), efficiencies(), _batch, _ctx, st.integers(1, 64))
def test_pass_time_non_decreasing_in_load(
    model: ModelSpec, dep: Deployment, eff: Efficiency, batch: float, ctx: float, q: int
) -> None:
    base = float(forward_time(model, dep, eff, batch, q, ctx).time_s)
    assert np.isfinite(base)
    assert base > 0
    assert float(forward_time(model, dep, eff, batch * 1.5 + 1, q, ctx).time_s) >= base
    assert float(forward_time(model, dep, eff, batch, q + 1, ctx).time_s) >= base
    assert float(forward_time(model, dep, eff, batch, q, ctx + 100).time_s) >= base
    slower = eff.model_copy(update={"step_overhead_s": eff.step_overhead_s + 1e-4, "allreduce_latency_s": 1e-4})
    assert float(forward_time(model, dep, slower, batch, q, ctx).time_s) >= base
    bigger_kv = model.model_copy(update={"bytes_per_kv": model.bytes_per_kv * 2})
    assert float(forward_time(bigger_kv, dep, eff, batch, q, ctx).time_s) >= base


@PROPERTIES
@given(models(), deployments(), efficiencies(), _batch, _ctx)
def test_pass_time_non_increasing_in_hardware(
    model: ModelSpec, dep: Deployment, eff: Efficiency, batch: float, ctx: float
) -> None:
    base = float(forward_time(model, dep, eff, batch, 1, ctx).time_s)
    g = dep.gpu
    faster = g.model_copy(
        update={
            "hbm_bandwidth_bytes_per_s": g.hbm_bandwidth_bytes_per_s * 1.3,
            "peak_flops_bf16_per_s": g.peak_flops_bf16_per_s * 1.3,
            "link_bandwidth_bytes_per_s": g.link_bandwidth_bytes_per_s * 1.3,
        }
    )
    assert float(forward_time(model, dep.model_copy(update={"gpu": faster}), eff, batch, 1, ctx).time_s) <= base
    better = eff.model_copy(update={"mbu": min(1.0, eff.mbu * 1.2), "mfu_decode": min(1.0, eff.mfu_decode * 1.2)})
    assert float(forward_time(model, dep, better, batch, 1, ctx).time_s) <= base


@PROPERTIES
@given(models(), deployments(), _ctx)
def test_decode_throughput_non_decreasing_and_bounded(model: ModelSpec, dep: Deployment, ctx: float) -> None:
    # docs/roofline.md#roofline-checks item 5 (ideal, tau0 = 0): X = B/t non-decreasing in B and ≤ min(F/(2·P_mm),
    # BW/(r_kv·S·kv_tok)).
    batch = np.array([1.0, 2.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 8192.0])
    x = batch / forward_time(model, dep, IDEAL, batch, 1, ctx).time_s
    assert np.all(np.diff(x) >= -1e-9 * x[1:])
    r_kv = dep.n_gpus / min(dep.n_gpus, model.n_kv_heads)
    compute_cap = dep.peak_flops_per_s / (2 * model.params_matmul)
    memory_cap = dep.hbm_bandwidth_bytes_per_s / (r_kv * ctx * model.kv_bytes_per_token) if ctx > 0 else np.inf
    assert np.all(x <= min(compute_cap, memory_cap) * (1 + 1e-9))


@PROPERTIES
@given(models(), deployments(), efficiencies(), _batch, _ctx)
def test_sum_of_rooflines_at_least_single_roofline(
    model: ModelSpec, dep: Deployment, eff: Efficiency, batch: float, ctx: float
) -> None:
    # docs/roofline.md#roofline-checks item 7.
    s = float(forward_time(model, dep, eff, batch, 1, ctx).time_s)
    single = float(forward_time(model, dep, eff, batch, 1, ctx, mode="single_roofline").time_s)
    assert s >= single * (1 - 1e-12)


def test_sum_equals_single_when_memory_dominates_both() -> None:
    # docs/roofline.md#roofline-checks item 7: at batch 1 both kernels are memory-bound, so the two forms agree.
    a = float(forward_time(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, 1, 1, 4096).time_s)
    b = float(forward_time(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, 1, 1, 4096, mode="single_roofline").time_s)
    assert a == pytest.approx(b, rel=1e-12)


@PROPERTIES
@given(models(), efficiencies(), st.sampled_from([2, 4, 8]))
def test_tensor_parallel(model: ModelSpec, eff: Efficiency, n_gpus: int) -> None:
    # docs/roofline.md#roofline-checks item 8: N = 1 has no communication; with alpha_ar > 0 the small-batch TP speedup
    # is below N.
    one = forward_time(model, h100(1), eff, 1, 1, 1024)
    assert float(one.comm_s) == 0.0
    eff = eff.model_copy(update={"allreduce_latency_s": max(eff.allreduce_latency_s, 1e-6), "comm_overlap": 0.0})
    many = forward_time(model, h100(n_gpus), eff, 1, 1, 1024)
    assert float(forward_time(model, h100(1), eff, 1, 1, 1024).time_s) / float(many.time_s) < n_gpus


def test_large_batch_linear_growth() -> None:
    # docs/roofline.md#roofline-checks item 6: for large B, t/B tends to a constant.
    b = np.array([1e6, 2e6])
    t = forward_time(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, b, 1, 4096).time_s
    assert t[1] / b[1] == pytest.approx(t[0] / b[0], rel=1e-3)


def test_allreduce_half_performance_length_hand_count() -> None:
    # Llama-3.1-70B (80 layers, d 8192, BF16 activations) on 8×H100 (450 GB/s link), batch 64 decode, α = 10 µs,
    # n_1/2 = 4 MB: message m = 64·8192·2 = 1,048,576 B; per all-reduce 10 µs + 2·7/8·(1,048,576 + 4e6)/450e9
    # = 10 + 19.634 = 29.634 µs; 2·80 all-reduces per pass = 4.7414 ms. Without n_1/2: 10 + 4.078 µs -> 2.2525 ms.
    eff = SPEC_DEFAULTS.model_copy(update={"allreduce_latency_s": 10e-6, "comm_overlap": 0.0})
    with_half = forward_time(LLAMA_31_70B, h100(8), eff.model_copy(update={"allreduce_half_bytes": 4e6}), 64, 1, 0)
    without = forward_time(LLAMA_31_70B, h100(8), eff.model_copy(update={"allreduce_half_bytes": 0.0}), 64, 1, 0)
    assert float(with_half.comm_s) == pytest.approx(4.7414e-3, rel=1e-4)
    assert float(without.comm_s) == pytest.approx(2.2525e-3, rel=1e-4)
    # on by default (docs/departures.md#all-reduce-below-link-bandwidth); the first spec's formula has none
    assert Efficiency().allreduce_half_bytes is None  # the GPU's link value
    assert h100(8).gpu.link_half_bytes == 4e6
    assert SPEC_DEFAULTS.allreduce_half_bytes == 0.0
