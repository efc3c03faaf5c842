"""Text diffusion: docs/diffusion.md#diffusion-examples worked examples, docs/diffusion.md#diffusion-checks properties,
the K = S = 1 identity, AR crossover."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from economics.diffusion import (
    ar_overtakes_diffusion_batch,
    compute_inflation,
    diffusion_pass_time,
    diffusion_throughput,
    diffusion_tokens_per_pass,
)
from economics.hardware import GPU, Deployment, Efficiency
from economics.iteration import iteration_time
from economics.model import ModelSpec
from economics.roofline import forward_time
from economics.schemes import ARScheme, DiffusionScheme, SpeculativeScheme
from tests.economics.configs import A100_80GB, IDEAL, LLADA_8B, LLAMA_31_8B, SPEC_DEFAULTS, h100
from tests.strategies import PROPERTIES, efficiencies, gpus, models

FAST = DiffusionScheme(block_tokens=32, denoising_steps=8, refresh_passes=1)  # docs/diffusion.md#diffusion-examples
# (a): e = 32/9 = 3.56
BATCHES = np.array([1, 2, 4, 8, 16, 32, 64, 128, 256], dtype=float)


def test_section_7_2a_table() -> None:
    # docs/diffusion.md#diffusion-examples (a): Llama-3.1-8B shapes on one H100, default efficiency, K = 32, S = 8, ρ =
    # 1, prefix 1024 tokens (prototype values of the first design spec (docs/README.md#origin), an independent reference
    # computation).
    diff_stream = [479, 474, 465, 407, 209, 106, 54, 27, 13]
    ar_stream = [135, 134, 132, 128, 121, 109, 91, 68, 44]
    diff_agg = [479, 949, 1861, 3255, 3351, 3401, 3426, 3439, 3446]
    ar_agg = [135, 268, 528, 1024, 1934, 3480, 5795, 8684, 11163]
    r = diffusion_throughput(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, FAST, BATCHES, 1024, 0)
    np.testing.assert_allclose(r.per_stream_tokens_per_s, diff_stream, rtol=0.01, atol=0.5)
    np.testing.assert_allclose(r.aggregate_tokens_per_s, diff_agg, rtol=0.003)
    t_ar = forward_time(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, BATCHES, 1, 1024).time_s
    np.testing.assert_allclose(1 / t_ar, ar_stream, rtol=0.01, atol=0.5)
    np.testing.assert_allclose(BATCHES / t_ar, ar_agg, rtol=0.003)


@pytest.mark.parametrize(("block", "steps", "stream_b1"), [(32, 32, 130), (32, 4, 857), (256, 16, 1778)])
def test_section_7_2b_llada(block: int, steps: int, stream_b1: float) -> None:
    # docs/diffusion.md#diffusion-examples (b): LLaDA-8B-like (MHA), 512-token prefix, ρ = 1: 130 / 857 / 1,778 tok/s
    # per stream at B = 1.
    scheme = DiffusionScheme(block_tokens=block, denoising_steps=steps, refresh_passes=1)
    r = diffusion_throughput(LLADA_8B, h100(1), SPEC_DEFAULTS, scheme, 1, 512, 0)
    assert float(r.per_stream_tokens_per_s) == pytest.approx(stream_b1, rel=0.005)


def test_section_7_2b_large_block_is_flat_in_batch() -> None:
    # docs/diffusion.md#diffusion-examples (b): K = 256, S = 16 is compute-bound at batch 1; aggregate stays ~1,890
    # tok/s at any B.
    scheme = DiffusionScheme(block_tokens=256, denoising_steps=16, refresh_passes=1)
    agg = diffusion_throughput(LLADA_8B, h100(1), SPEC_DEFAULTS, scheme, np.array([1.0, 8.0, 64.0]), 512, 0)
    np.testing.assert_allclose(agg.aggregate_tokens_per_s, 1890, rtol=0.06)


def test_c11_vanilla_llada_no_cache() -> None:
    # C11 / docs/diffusion.md#diffusion-examples (c): vanilla LLaDA-8B without a cache on an A100, 1000-token prompt,
    # 256 generated tokens in 256 steps → single-digit tok/s (Fast-dLLM Table 1 baselines); tolerance: order of
    # magnitude. Hand count: each pass runs the 1256-token canvas: 1256·2·7.497e9 + 4·32·32·128·1256² = 1.966e13 FLOP at
    # 312e12·0.5 FLOP/s
    # = 126.0 ms + 0.5 ms → 7.9 tok/s. The first design spec (docs/README.md#origin) prints 140 ms / 7.1 tok/s: it
    # priced this pass at MFU_pre 0.45, while its own docs/inputs.md#efficiency assigns MFU_dec to diffusion passes
    # (1.966e13/1.404e14 = 140 ms).
    vanilla = DiffusionScheme(block_tokens=256, denoising_steps=256, refresh_passes=0, prefix_cache=False)
    r = diffusion_throughput(LLADA_8B, Deployment(gpu=A100_80GB), SPEC_DEFAULTS, vanilla, 1, 1000, 256)
    assert float(r.pass_time.time_s) * 1e3 == pytest.approx(126.5, abs=0.3)
    assert 1.0 < float(r.per_stream_tokens_per_s) < 10.0


def test_no_cache_needs_the_canvas() -> None:
    vanilla = DiffusionScheme(block_tokens=32, denoising_steps=32, prefix_cache=False)
    with pytest.raises(ValueError, match="canvas_tokens"):
        diffusion_pass_time(LLADA_8B, h100(1), SPEC_DEFAULTS, vanilla, 1, 512)


# ---- docs/diffusion.md#diffusion-checks ------------------------------------------------------------------------------


def test_tokens_per_pass_and_inflation() -> None:
    # e = K/(S+ρ): 32/9; S = K, ρ = 0 → 1; without a cache there is no refresh pass: e = K/S. Inflation: S + ρ = 9
    # with a cache; S·(T_p + T_g)/K = 8·(1000 + 256)/32 = 314 without.
    assert float(diffusion_tokens_per_pass(32, 8, 1)) == pytest.approx(32 / 9)
    assert float(diffusion_tokens_per_pass(64, 64, 0)) == 1.0
    no_cache = DiffusionScheme(block_tokens=32, denoising_steps=8, refresh_passes=1, prefix_cache=False)
    assert no_cache.tokens_per_pass == 4.0
    assert float(compute_inflation(FAST, 1000, 256)) == 9.0
    assert float(compute_inflation(no_cache, 1000, 256)) == 314.0


@PROPERTIES
@given(st.integers(1, 1024), st.integers(1, 1024), st.integers(0, 8))
def test_tokens_per_pass_bounds(block: int, steps: int, refresh: int) -> None:
    e = float(diffusion_tokens_per_pass(block, min(steps, block), refresh))
    assert 0 < e <= block


@pytest.mark.parametrize("eff", [SPEC_DEFAULTS, IDEAL])
def test_k1_s1_equals_ar_exactly(eff: Efficiency) -> None:
    # docs/diffusion.md#diffusion-checks: K = 1, S = 1, ρ = 0 is AR: one token per pass, and a one-token bidirectional
    # block is the same computation as a one-token causal step, so the pass times are identical, not just close.
    one = DiffusionScheme(block_tokens=1, denoising_steps=1, refresh_passes=0)
    batch, ctx = np.array([1.0, 7.0, 64.0, 512.0]), np.array([0.0, 100.0, 4096.0, 32768.0])
    ar = forward_time(LLAMA_31_8B, h100(2), eff, batch, 1, ctx).time_s
    np.testing.assert_array_equal(diffusion_pass_time(LLAMA_31_8B, h100(2), eff, one, batch, ctx).time_s, ar)
    it_diff = iteration_time(LLAMA_31_8B, h100(2), eff, one, batch, ctx)
    it_ar = iteration_time(LLAMA_31_8B, h100(2), eff, ARScheme(), batch, ctx)
    np.testing.assert_array_equal(it_diff.time_s, it_ar.time_s)
    assert it_diff.tokens_per_pass == it_ar.tokens_per_pass == 1.0


def test_memory_bound_speedup_close_to_e() -> None:
    # docs/diffusion.md#diffusion-checks: while B·K·2/b_w ≤ 0.5·I_ridge_eff (211 on H100 BF16 defaults → B·K ≤ 105), the
    # per-stream speedup over AR lies in [0.9·e, e].
    e = FAST.tokens_per_pass
    for batch in (1.0, 2.0, 3.0):
        d = float(
            diffusion_throughput(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, FAST, batch, 1024, 0).per_stream_tokens_per_s
        )
        a = 1.0 / float(forward_time(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, batch, 1, 1024).time_s)
        assert 0.9 * e <= d / a <= e


@PROPERTIES
@given(models(), gpus(), st.integers(1, 512), st.integers(1, 64), st.integers(0, 2), st.floats(0.0, 8192.0))
def test_aggregate_non_decreasing_and_saturates(
    model: ModelSpec, gpu: GPU, block: int, steps: int, refresh: int, prefix: float
) -> None:
    # docs/diffusion.md#diffusion-checks (ideal, tau0 = 0): X_diff(B) non-decreasing in B and ≤ F/(2·P_mm·(S+ρ)).
    scheme = DiffusionScheme(block_tokens=block, denoising_steps=min(steps, block), refresh_passes=refresh)
    dep = Deployment(gpu=gpu)
    x = diffusion_throughput(model, dep, IDEAL, scheme, BATCHES, prefix, 0).aggregate_tokens_per_s
    assert np.all(np.diff(x) >= -1e-9 * x[1:])
    bound = gpu.peak_flops_bf16_per_s / (2 * model.params_matmul * (scheme.denoising_steps + refresh))
    assert np.all(x <= bound * (1 + 1e-9))


def test_large_block_flat_in_batch() -> None:
    # docs/diffusion.md#diffusion-checks: K ≥ 2·I_ridge_eff·b_w/2 (ideal H100 BF16: I_ridge = 295 → K ≥ 590): X(64)/X(1)
    # < 1.2.
    scheme = DiffusionScheme(block_tokens=640, denoising_steps=16, refresh_passes=1)
    x = diffusion_throughput(LLAMA_31_8B, h100(1), IDEAL, scheme, np.array([1.0, 64.0]), 0, 0).aggregate_tokens_per_s
    assert x[1] / x[0] < 1.2


@PROPERTIES
@given(efficiencies(), st.integers(2, 64), st.integers(0, 2))
def test_peak_diffusion_below_peak_ar(eff: Efficiency, steps: int, refresh: int) -> None:
    # docs/diffusion.md#diffusion-checks: max_B X_diff < max_B X_AR whenever S + ρ > 1 (ideal, no context); checked with
    # the default factors too.
    scheme = DiffusionScheme(block_tokens=64, denoising_steps=steps, refresh_passes=refresh)
    big = np.array([1e4, 1e5, 1e6])
    for e in (IDEAL, eff):
        x_diff = diffusion_throughput(LLAMA_31_8B, h100(1), e, scheme, big, 0, 0).aggregate_tokens_per_s.max()
        x_ar = (big / forward_time(LLAMA_31_8B, h100(1), e, big, 1, 0).time_s).max()
        assert x_diff < x_ar


# ---- where AR overtakes diffusion ------------------------------------------------------------------------


def test_crossover_section_7_2a() -> None:
    # docs/diffusion.md#diffusion-examples (a): diffusion has the higher aggregate throughput up to B ≈ 30; the table
    # has diffusion ahead at B = 16 (3,351 vs 1,934) and AR ahead at B = 32 (3,480 vs 3,401).
    b = float(ar_overtakes_diffusion_batch(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, FAST, 1024, 0))
    assert 17 <= b <= 32


def test_crossover_against_optimized_ar_comes_earlier() -> None:
    # Speculation only helps AR, so AR_opt catches diffusion at the same batch or earlier; vectorised over prompts.
    tree = SpeculativeScheme(mean_accepted_tokens=4.0, verify_tokens=16)
    prompts = np.array([256.0, 1024.0, 4096.0])
    plain = ar_overtakes_diffusion_batch(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, FAST, prompts, 0)
    opt = ar_overtakes_diffusion_batch(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, FAST, prompts, 0, speculation=tree)
    assert plain.shape == (3,)
    assert np.all(opt <= plain)
    assert np.all(np.isfinite(plain))


def test_crossover_never_when_ar_cannot_catch_up() -> None:
    # With the batch capped at 8 (max_batch) AR never reaches diffusion's aggregate throughput: inf.
    assert (
        float(ar_overtakes_diffusion_batch(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, FAST, 1024, 0, max_batch=8)) == np.inf
    )
