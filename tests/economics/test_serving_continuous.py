"""Continuous batching as a Little's-law fixed point (docs/serving.md#continuous-batching) and its
docs/serving.md#serving-checks properties.

Expected values are the spec's independently computed docs/serving.md#continuous-batching table, or derived by hand from
docs/inputs.md#inputs to docs/roofline.md#forward-pass constants in the comments (``hand()`` below re-does that
arithmetic with plain floats, never with the serving code).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from economics.hardware import Deployment, Efficiency
from economics.iteration import AnyScheme
from economics.model import ModelSpec
from economics.roofline import forward_time
from economics.schemes import ARScheme, DiffusionScheme, SpeculativeScheme
from economics.serving import DEFAULT_MAX_ITERATION_S, continuous_batching, serving_shape
from economics.serving.passes import pass_time_function
from economics.specdec import draft_time
from tests.economics.configs import LLAMA_31_8B, LLAMA_31_70B, MIXTRAL_8X7B, SPEC_DEFAULTS, h100
from tests.strategies import PROPERTIES, deployments, efficiencies, models, speculative_schemes

T_IN, T_OUT = 1000.0, 500.0
EAGLE = SpeculativeScheme(verify_tokens=8, mean_accepted_tokens=3.0, draft_tokens=4)  # docs/serving.md#slo-capacity "q
# = 8, τ = 3"


# ---- hand derivation for Llama-3.1-70B, BF16, 8×H100, default efficiency, T_in 1000, T_out 500 --------------
# docs/model.md#parameter-counts: P_total = 12_079_595_520 (attn) + 56_371_445_760 (mlp) + 2_101_346_304 (emb) =
# 70_552_387_584;
#       P_mm = P_total − V·d = 69_501_714_432, so 2·P_mm = 139.0 GFLOP per token; W = 2·P_total = 141.1 GB.
# docs/roofline.md#forward-pass: BW_eff = 8·3.35e12·0.7 = 18.76e12 B/s; F_dec = 8·989.4e12·0.5; F_pre = 8·989.4e12·0.45.
# Per request (x = λ·t = 1): B = T_out = 500 decode slots at S = 1250, C = T_in = 1000 prompt tokens.
#   linear, compute:  500·2P_mm/F_dec + 1000·2P_mm/F_pre                     = 17.561 + 39.026 ms
#   linear, memory:   W/BW_eff (intercept 7.52 ms) + 1500·4·L·d·2 B/BW_eff     = 0.419 ms
#   attention, memory (> its compute, 0.78 ms): (500·1251 + 1000)·327_680 B/BW_eff = 10.943 ms
#   comm: 2L·(10 µs) = 1.6 ms intercept + 1500·2L·2·(7/8)·d·2 B/450e9         = 15.292 ms
#   tau0 = 0.5 ms.
# Memory branch:  t = a_M/(1 − λ·k_M), a_M = 7.5215 + 1.6 + 0.5 ms, k_M = 0.419 + 10.943 + 15.292 ms.
# Compute branch: t = a_C/(1 − λ·k_C), a_C = 1.6 + 0.5 ms,          k_C = 56.587 + 10.943 + 15.292 ms.
def hand(mfu_prefill: float = 0.45) -> dict[str, float]:
    L, d, V = 80, 8192, 128256
    p_total = 80 * (2 * d * d + 2 * d * 1024) + 80 * 3 * d * 28672 + 2 * V * d
    flop = 2.0 * (p_total - V * d)
    bw = 8 * 3.35e12 * 0.7
    f_dec, f_pre = 8 * 989.4e12 * 0.5, 8 * 989.4e12 * mfu_prefill
    kv = 2 * L * 8 * 128 * 2
    att_mem = (T_OUT * (T_IN + T_OUT / 2 + 1) + T_IN) * kv / bw
    comm_k = (T_IN + T_OUT) * 2 * L * 2 * 7 / 8 * d * 2 / 450e9
    comm_a, tau0 = 2 * L * 10e-6, 0.5e-3
    act = (T_IN + T_OUT) * 4 * L * d * 2 / bw
    return {
        "a_M": 2.0 * p_total / bw + comm_a + tau0,
        "k_M": act + att_mem + comm_k,
        "a_C": comm_a + tau0,
        "k_C": T_OUT * flop / f_dec + T_IN * flop / f_pre + att_mem + comm_k,
    }


def test_hand_derivation_matches_the_spec_constants() -> None:
    h = hand()
    assert h["a_M"] == pytest.approx(9.6215e-3, rel=1e-4)  # docs/roofline.md#worked-example-70b: 7.52 + 1.61 + 0.5 ms
    # at batch → 0
    assert h["k_M"] == pytest.approx(26.654e-3, rel=1e-3)
    assert h["k_C"] == pytest.approx(82.82e-3, rel=1e-3)


# ---- docs/serving.md#continuous-batching worked table ----------------------------------------------------------------


def test_section_8_1_table() -> None:
    # docs/serving.md#continuous-batching: λ = 0.01, 0.1, 1, 5, 10 req/s → t* = 9.62, 9.65, 9.89, 11.10, 13.12 ms and
    # B* = 0.05, 0.48, 4.9, 27.8, 65.6. The memory branch binds (hand: 9.6215/(1 − λ·0.026654) ms).
    lam = np.array([0.01, 0.1, 1.0, 5.0, 10.0])
    cb = continuous_batching(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), lam, T_IN, T_OUT)
    np.testing.assert_allclose(cb.iteration_time_s * 1e3, [9.62, 9.65, 9.89, 11.10, 13.12], atol=0.006)
    np.testing.assert_allclose(cb.tpot_s, cb.iteration_time_s)  # AR: e = 1
    np.testing.assert_allclose(cb.batch, [0.05, 0.48, 4.9, 27.8, 65.6], rtol=0.01, atol=0.003)
    h = hand()
    np.testing.assert_allclose(cb.iteration_time_s, h["a_M"] / (1 - lam * h["k_M"]), rtol=1e-4)
    assert cb.stable.all()
    assert cb.kv_feasible.all()
    assert cb.feasible.all()
    assert cb.method == "closed_form"


def test_section_8_1_derived_outputs() -> None:
    # λ = 1: t* = 9.885 ms, B* = 4.94. W_q = t*/2 (residual of the iteration in flight). The 1000-token
    # prompt fits one 8192-token chunk; the iteration that carries it has B* = 4.94 decoding sequences and
    # C = max(C*, 1000) = 1000 prompt tokens:
    #   linear (compute) 4.94·35.12 µs + 1000·39.03 µs = 39.20 ms; attention (compute > memory)
    #   4.94·655_360·5004/F_dec + 1000·655_360·4·500.5/F_pre = 0.372 ms; comm 1.6 + 1004.94·10.194 µs =
    #   11.845 ms; tau0 0.5 ms → t_prompt = 51.92 ms (docs/roofline.md#prefill lone prefill is 51.7 ms).
    # TTFT = W_q + t_prompt = 56.86 ms; E2E = W_q + t_prompt + 500·t*; X = λ·T_out = 500 tok/s;
    # β = λ·T_out·t(B=1) with t(B=1) ≈ 9.64 ms (docs/roofline.md#worked-example-70b at S = 1250) → β ≈ 4.8.
    cb = continuous_batching(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), 1.0, T_IN, T_OUT)
    t = float(cb.iteration_time_s)
    assert t * 1e3 == pytest.approx(9.885, abs=0.001)
    assert float(cb.queue_wait_s) == pytest.approx(t / 2)
    assert float(cb.ttft_s) * 1e3 == pytest.approx(0.5 * t * 1e3 + 51.92, abs=0.01)
    assert float(cb.e2e_mean_s) == pytest.approx(float(cb.ttft_s) + 500 * t)
    assert float(cb.output_tokens_per_s) == 500.0
    assert float(cb.batchability) == pytest.approx(4.82, abs=0.01)
    # KV: B*·S_avg·kv_tok = 4.94·1250·327_680 B ≈ 2.0 GB of the 434.9 GB free (docs/memory.md#kv-capacity); B_max(1250)
    # = 1061
    assert float(cb.kv_bytes) == pytest.approx(4.9425 * 1250 * 327_680, rel=1e-3)
    assert float(cb.kv_free_bytes) == pytest.approx(434.9e9, rel=1e-3)
    assert float(cb.max_batch) == 1061.0


def test_ttft_counts_prompt_chunks() -> None:
    # A 3000-token prompt in 1024-token chunks takes ceil(3000/1024) = 3 iterations of 1000 tokens each. At
    # λ = 0.01 each is a prefill-sized pass: linear 1000·39.03 µs = 39.03 ms; attention (compute)
    # 1000·655_360·4·1500.5/F_pre = 1.105 ms; comm 1.6 + 1000·10.194 µs = 11.794 ms; tau0 0.5 ms
    # → 52.43 ms each; TTFT = t*/2 + 3·52.43 ms = 4.8 + 157.3 = 162.1 ms.
    cb = continuous_batching(
        LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), 0.01, 3000, 500, prefill_chunk_tokens=1024
    )
    assert float(cb.ttft_s) * 1e3 == pytest.approx(162.1, abs=0.1)


def test_ttft_at_high_load_is_the_spec_formula() -> None:
    # λ = 11.9: t* = 2.1 ms/(1 − 11.9·82.822 ms) = 145.6 ms (compute branch, hand) and C* = λ·1000·t* = 1733
    # prompt tokens per iteration ≥ the request's own 1000: its chunk rides in a mean iteration, and
    # TTFT = W_q + ceil(T_in/C_chunk)·t* = 1.5·t* as the first spec (docs/departures.md#departures) writes it.
    cb = continuous_batching(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), 11.9, T_IN, T_OUT)
    t = float(cb.iteration_time_s)
    assert t == pytest.approx(2.1e-3 / (1 - 11.9 * 82.822e-3), rel=2e-3)
    assert float(cb.prefill_tokens_per_iteration) > T_IN
    assert float(cb.ttft_s) == pytest.approx(1.5 * t, rel=1e-12)


def test_overload_near_the_compute_ceiling() -> None:
    # Hand: the compute branch diverges at λ = 1/k_C = 1/0.08282 = 12.07 req/s (prefill 12.1k tok/s + decode
    # 6.0k tok/s). The spec's "unstable at ≥ ~12.4" comes from its prototype charging the prompt chunks at
    # MFU_dec (1/k_C = 12.67 there): see test_serving_capacity.py. Just below: stable, t* = a_C/(1 − λ·k_C).
    h = hand()
    lam_c = 1.0 / h["k_C"]
    assert lam_c == pytest.approx(12.07, abs=0.01)
    cb = continuous_batching(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), [12.0, 12.1, 12.4, 20.0], T_IN, T_OUT)
    assert cb.stable.tolist() == [True, False, False, False]
    assert float(cb.iteration_time_s[0]) == pytest.approx(h["a_C"] / (1 - 12.0 * h["k_C"]), rel=1e-3)
    for name in ("iteration_time_s", "batch", "tpot_s", "ttft_s", "e2e_mean_s", "kv_bytes"):
        assert np.isinf(getattr(cb, name)[1:]).all(), name
    assert not cb.feasible[1:].any()


def test_prefill_budget_overload() -> None:
    # With 1024-token chunks the prompt load C* = λ·T_in·t* must stay ≤ 1024: at λ = 12 the compute-branch
    # t* = 0.34 s gives C* = 4.1k tokens per iteration, so the prompt queue grows: unstable.
    cb = continuous_batching(
        LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), [10.0, 12.0], T_IN, T_OUT, prefill_chunk_tokens=1024
    )
    assert cb.stable.tolist() == [True, False]


def test_iteration_cap_reports_overload() -> None:
    cb = continuous_batching(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), 12.0, T_IN, T_OUT, max_iteration_s=0.1)
    assert not bool(cb.stable)
    assert math.isinf(float(cb.tpot_s))


def test_model_that_does_not_fit_is_kv_infeasible() -> None:
    # 141 GB of weights on one 80 GB H100: stable as arithmetic, never feasible.
    cb = continuous_batching(LLAMA_31_70B, h100(1), SPEC_DEFAULTS, ARScheme(), [0.0, 0.1], T_IN, T_OUT)
    assert not cb.kv_feasible.any()
    assert not cb.feasible.any()
    assert (cb.kv_free_bytes == 0).all()
    assert (cb.max_batch == 0).all()


def test_kv_memory_limits_feasibility() -> None:
    # 16k-token outputs: S_avg = 1000 + 8000 = 9000 tokens = 2.95 GB each; 434.9 GB hold B_max = 147.
    # Memory branch (hand): k_M = 4.75 ms (activations) + (16000·9001 + 1000)·327_680 B/18.76e12 = 2.5156 s
    # (KV) + 17000·10.194 µs = 0.1733 s (comm), so t* = 9.6215 ms/(1 − λ·2.694):
    # λ = 0.20 → 20.86 ms, B* = λ·16000·t* = 66.7 (fits); λ = 0.28 → 39.2 ms, B* = 175 > 147 (stable, no room).
    cb = continuous_batching(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), [0.2, 0.28], 1000, 16_000)
    assert cb.max_batch.tolist() == [147.0, 147.0]
    np.testing.assert_allclose(cb.iteration_time_s * 1e3, [20.86, 39.16], atol=0.02)
    np.testing.assert_allclose(cb.batch, [66.7, 175.4], atol=0.1)
    assert cb.stable.all()
    assert cb.kv_feasible.tolist() == [True, False]


# ---- speculative, MoE and diffusion ---------------------------------------------------------------------------


def test_speculation_at_low_load() -> None:
    # docs/serving.md#slo-capacity: EAGLE-like speculation (q = 8, τ = 3) cuts TPOT from 9.6 ms to about 3.6 ms at low
    # load. Hand: verify pass at B → 0 reads the same 141.1 GB (9.6215 ms); the draft is one 70B-wide layer plus a
    # 32k-vocab head: (150_994_944 + 704_643_072 + 262_144_000)·2 B/18.76e12 = 0.1192 ms, + 2·10 µs all-reduce
    # + 0.1 ms overhead = 0.2392 ms per step, 4 steps = 0.957 ms. TPOT = (9.6215 + 0.957)/3 = 3.526 ms
    # (283 tok/s). The spec's 3.6 ms (281 tok/s) came from its prototype's slightly heavier draft (2% apart).
    # The draft is a dense model, so its passes add two more maxima of affine terms: closed form
    # (docs/serving.md#continuous-batching).
    cb = continuous_batching(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, EAGLE, 0.01, T_IN, T_OUT)
    assert float(cb.tpot_s) * 1e3 == pytest.approx(3.526, abs=0.005)
    assert float(cb.tpot_s) * 1e3 == pytest.approx(3.6, rel=0.025)
    assert cb.method == "closed_form"
    iterated = continuous_batching(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, EAGLE, 0.01, T_IN, T_OUT, method="iterate")
    assert float(iterated.tpot_s) == pytest.approx(float(cb.tpot_s), rel=1e-9)


def test_fixed_point_residual_for_moe_and_speculation() -> None:
    # Whatever the solver, t* must reproduce itself: the roofline pass at (B*, C*) takes t*. MoE iterates;
    # the dense 8B with an EAGLE draft has the closed form.
    for model, dep, scheme, method in (
        (MIXTRAL_8X7B, h100(2), ARScheme(), "iterate"),
        (LLAMA_31_8B, h100(1), EAGLE, "closed_form"),
    ):
        lam = np.array([0.0, 0.5, 2.0, 8.0, 15.0])
        cb = continuous_batching(model, dep, SPEC_DEFAULTS, scheme, lam, T_IN, T_OUT)
        assert cb.method == method
        ok = cb.stable
        assert ok[:3].all()
        q = float(getattr(scheme, "verify_tokens", 1))
        t_main = forward_time(
            model, dep, SPEC_DEFAULTS, cb.batch[ok], q, T_IN + T_OUT / 2,
            prefill_tokens=cb.prefill_tokens_per_iteration[ok], prefill_context_tokens=(T_IN + 1) / 2,
        ).time_s  # fmt: skip
        residual = t_main - cb.iteration_time_s[ok]
        if isinstance(scheme, SpeculativeScheme):
            assert (residual < 0).all()  # the draft passes make up the rest
            draft = draft_time(model, dep, SPEC_DEFAULTS, scheme, cb.batch[ok], T_IN + T_OUT / 2)
            np.testing.assert_allclose(t_main + draft, cb.iteration_time_s[ok], rtol=1e-9)
        else:
            np.testing.assert_allclose(t_main, cb.iteration_time_s[ok], rtol=1e-9)


def test_moe_near_saturation_is_solved_to_precision() -> None:
    # Close to the ceiling plain iteration converges slowly (ratio f'(t*) → 1); the bisection finish must still
    # land on the fixed point. Find a load just below the overload point by scanning, then check the residual.
    lam = np.linspace(1.0, 60.0, 400)
    cb = continuous_batching(MIXTRAL_8X7B, h100(2), SPEC_DEFAULTS, ARScheme(), lam, T_IN, T_OUT)
    last = int(np.flatnonzero(cb.stable)[-1])
    assert last < lam.size - 1  # the scan crosses the ceiling
    b, c, t = cb.batch[last], cb.prefill_tokens_per_iteration[last], cb.iteration_time_s[last]
    again = forward_time(MIXTRAL_8X7B, h100(2), SPEC_DEFAULTS, b, 1, T_IN + T_OUT / 2, prefill_tokens=c,
                         prefill_context_tokens=(T_IN + 1) / 2).time_s  # fmt: skip
    assert float(again) == pytest.approx(float(t), rel=1e-8)


def test_diffusion_first_block_and_tokens_per_pass() -> None:
    # Block diffusion K = 32, S = 8, ρ = 1: e = 32/9 tokens per pass; TPOT = t*/e; the first block is visible
    # after the prompt chunk and its 8 denoising passes: TTFT = W_q + t_prompt + 8·t*.
    scheme = DiffusionScheme(block_tokens=32, denoising_steps=8, refresh_passes=1)
    cb = continuous_batching(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, scheme, 1.0, T_IN, T_OUT)
    t = float(cb.iteration_time_s)
    assert float(cb.tpot_s) == pytest.approx(t * 9 / 32)
    t_prompt = float(cb.ttft_s) - 8.5 * t
    assert t < t_prompt < 10 * t
    assert float(cb.batch) == pytest.approx(1.0 * T_OUT * 9 / 32 * t)
    assert cb.method == "closed_form"


def test_negative_rate_is_rejected() -> None:
    with pytest.raises(ValueError, match="arrival_rate_per_s"):
        continuous_batching(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), -1.0, T_IN, T_OUT)
    with pytest.raises(ValueError, match="closed form"):
        continuous_batching(MIXTRAL_8X7B, h100(2), SPEC_DEFAULTS, ARScheme(), 1.0, T_IN, T_OUT, method="closed_form")


# ---- docs/serving.md#serving-checks properties -----------------------------------------------------------------------

LAMBDAS = np.geomspace(1e-3, 1e3, 40)


def _dense_case(model: ModelSpec, dep: Deployment) -> None:
    assume(model.weight_bytes < 0.9 * dep.hbm_capacity_bytes)


@PROPERTIES
@given(models(moe=False), deployments(), efficiencies(), st.integers(1, 8000), st.integers(1, 4000))
def test_zero_load_is_the_empty_pass(model: ModelSpec, dep: Deployment, eff: Efficiency, t_in: int, t_out: int) -> None:
    # docs/serving.md#serving-checks: t*(λ → 0) = f(0), the pass with nothing in it (weights, all-reduce latency, tau0).
    cb = continuous_batching(model, dep, eff, ARScheme(), [0.0, 1e-9], t_in, t_out)
    f0 = float(forward_time(model, dep, eff, 0.0, 1, t_in + t_out / 2).time_s)
    assert float(cb.iteration_time_s[0]) == pytest.approx(f0, rel=1e-12)
    assert float(cb.iteration_time_s[1]) == pytest.approx(f0, rel=1e-6)
    assert float(cb.zero_load_iteration_time_s[0]) == pytest.approx(f0, rel=1e-12)


MEDUSA = SpeculativeScheme(verify_tokens=16, mean_accepted_tokens=3.0, draft_layers=0)  # heads fused: no draft
CLOSED_FORM_SCHEMES = [
    ARScheme(),
    DiffusionScheme(block_tokens=32, denoising_steps=8, refresh_passes=1),
    DiffusionScheme(block_tokens=64, denoising_steps=16, prefix_cache=False),
    MEDUSA,
]


@PROPERTIES
@given(
    models(moe=False),
    deployments(),
    efficiencies(),
    st.integers(1, 8000),
    st.integers(1, 4000),
    st.sampled_from(CLOSED_FORM_SCHEMES),
)
def test_closed_form_equals_iteration(
    model: ModelSpec, dep: Deployment, eff: Efficiency, t_in: int, t_out: int, scheme: AnyScheme
) -> None:
    # docs/serving.md#serving-checks: on dense configurations (AR, block diffusion with and without a cache, Medusa) the
    # closed form and the monotone iteration on forward_time agree to 1e-6.
    closed = continuous_batching(model, dep, eff, scheme, LAMBDAS, t_in, t_out, method="closed_form")
    iterated = continuous_batching(model, dep, eff, scheme, LAMBDAS, t_in, t_out, method="iterate")
    half = DEFAULT_MAX_ITERATION_S / 2
    sure = closed.stable & (closed.iteration_time_s < half)
    assert iterated.stable[sure].all()
    np.testing.assert_allclose(iterated.iteration_time_s[sure], closed.iteration_time_s[sure], rtol=1e-6)
    assert closed.stable[iterated.stable & (iterated.iteration_time_s < half)].all()


@PROPERTIES
@given(
    models(moe=False), deployments(), efficiencies(), st.integers(1, 8000), st.integers(1, 4000), speculative_schemes()
)
def test_closed_form_equals_iteration_with_a_draft(
    model: ModelSpec, dep: Deployment, eff: Efficiency, t_in: int, t_out: int, scheme: SpeculativeScheme
) -> None:
    # docs/serving.md#continuous-batching: a dense target with a dense draft (EAGLE: draft_steps passes of draft_layers
    # layers) is a sum of maxima of affine terms, 16 branch combinations; t* = max_c a_c/(1 − λ·k_c) must equal the
    # monotone iteration on forward_time + draft_time to 1e-6 (seeded hypothesis examples, tests/strategies.py).
    closed = continuous_batching(model, dep, eff, scheme, LAMBDAS, t_in, t_out, method="closed_form")
    iterated = continuous_batching(model, dep, eff, scheme, LAMBDAS, t_in, t_out, method="iterate")
    assert closed.method == "closed_form"
    half = DEFAULT_MAX_ITERATION_S / 2
    sure = closed.stable & (closed.iteration_time_s < half)
    assert iterated.stable[sure].all()
    np.testing.assert_allclose(iterated.iteration_time_s[sure], closed.iteration_time_s[sure], rtol=1e-6)
    np.testing.assert_allclose(iterated.ttft_s[sure], closed.ttft_s[sure], rtol=1e-6)
    assert closed.stable[iterated.stable & (iterated.iteration_time_s < half)].all()


@PROPERTIES
@given(
    models(moe=False),
    deployments(),
    efficiencies(),
    st.integers(1, 8000),
    st.integers(1, 4000),
    st.one_of(st.sampled_from(CLOSED_FORM_SCHEMES), speculative_schemes()),
)
def test_affine_pass_equals_the_roofline_off_littles_law(
    model: ModelSpec, dep: Deployment, eff: Efficiency, t_in: int, t_out: int, scheme: AnyScheme
) -> None:
    # TTFT evaluates the pass at (B*, max(C*, T_in/k)), off the Little's-law ray: the affine branches must
    # equal iteration_time/forward_time (+ draft_time) for any (B, C), not only for C/B = T_in·e/T_out.
    shape = serving_shape(scheme, t_in, t_out)
    batch = np.array([0.0, 0.5, 1.0, 7.0, 64.0, 300.0, 5000.0])[:, None]
    prompt = np.array([0.0, 1.0, 512.0, 8192.0, 1e5])[None, :]
    fast = pass_time_function(model, dep, eff, shape)(batch, prompt)
    slow = pass_time_function(model, dep, eff, shape, allow_affine=False)(batch, prompt)
    np.testing.assert_allclose(fast, slow, rtol=1e-12)


@PROPERTIES
@given(models(), deployments(), efficiencies(), st.integers(1, 8000), st.integers(1, 4000))
def test_littles_law_and_the_fixed_point(
    model: ModelSpec, dep: Deployment, eff: Efficiency, t_in: int, t_out: int
) -> None:
    # docs/serving.md#serving-checks: B*/t*·e = λ·T_out (delivered tokens), and t* is a fixed point of the roofline pass
    # time.
    cb = continuous_batching(model, dep, eff, ARScheme(), LAMBDAS[::4], t_in, t_out)
    ok = cb.stable
    np.testing.assert_allclose(cb.batch[ok] / cb.iteration_time_s[ok], LAMBDAS[::4][ok] * t_out, rtol=1e-9)
    np.testing.assert_allclose(cb.output_tokens_per_s, LAMBDAS[::4] * t_out, rtol=1e-12)
    again = forward_time(model, dep, eff, cb.batch[ok], 1, t_in + t_out / 2,
                         prefill_tokens=cb.prefill_tokens_per_iteration[ok],
                         prefill_context_tokens=(t_in + 1) / 2).time_s  # fmt: skip
    np.testing.assert_allclose(again, cb.iteration_time_s[ok], rtol=1e-8)
    for name in ("iteration_time_s", "batch", "tpot_s", "ttft_s", "e2e_mean_s", "kv_bytes", "batchability"):
        v = getattr(cb, name)
        assert not np.isnan(v).any(), name
        assert (v >= 0).all(), name


@PROPERTIES
@given(models(), deployments(), efficiencies(), st.integers(1, 8000), st.integers(1, 4000), st.integers(1, 2000))
def test_monotone_in_load_and_lengths(
    model: ModelSpec, dep: Deployment, eff: Efficiency, t_in: int, t_out: int, extra: int
) -> None:
    # docs/serving.md#serving-checks: t* and B* non-decreasing in λ; t* non-decreasing in T_in and T_out (inf counts as
    # largest).
    base = continuous_batching(model, dep, eff, ARScheme(), LAMBDAS, t_in, t_out)
    t = base.iteration_time_s
    finite = np.isfinite(t)
    assert (np.diff(t[finite]) >= -1e-12 * t[finite][:-1]).all()
    assert (np.diff(base.batch[finite]) >= 0).all()
    assert (~finite[:-1] <= ~finite[1:]).all()  # once overloaded, always overloaded
    longer_in = continuous_batching(model, dep, eff, ARScheme(), LAMBDAS, t_in + extra, t_out)
    longer_out = continuous_batching(model, dep, eff, ARScheme(), LAMBDAS, t_in, t_out + extra)
    for other in (longer_in, longer_out):
        both = finite & np.isfinite(other.iteration_time_s)
        assert (other.iteration_time_s[both] >= t[both] * (1 - 1e-12)).all()
        assert (~np.isfinite(other.iteration_time_s) >= ~finite).all()


@PROPERTIES
@given(models(moe=False), deployments(), efficiencies(), st.integers(1, 8000), st.integers(1, 4000))
def test_overload_above_the_compute_bound(
    model: ModelSpec, dep: Deployment, eff: Efficiency, t_in: int, t_out: int
) -> None:
    # docs/serving.md#serving-checks: λ·(T_in + T_out)·2·P_mm > F_eff means more FLOPs arrive per second than the
    # replica has: unstable. F_eff at the larger of the two MFUs keeps the bound safe whichever MFU the tokens run at.
    f_eff = dep.peak_flops_per_s * max(eff.mfu_decode, eff.mfu_prefill)
    lam = 1.01 * f_eff / ((t_in + t_out) * model.flops_linear_per_token)
    cb = continuous_batching(model, dep, eff, ARScheme(), lam, t_in, t_out)
    assert not bool(cb.stable)
    assert math.isinf(float(cb.iteration_time_s))
