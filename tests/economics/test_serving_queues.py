"""Batching windows, static batching and Erlang C (docs/serving.md#slo-capacity to docs/serving.md#static-batching),
with the docs/serving.md#serving-checks properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from economics.hardware import Deployment
from economics.model import ModelSpec
from economics.schemes import ARScheme
from economics.serving import (
    admission_queueing,
    clock_window_batch,
    continuous_batching,
    erlang_c,
    static_batching,
    window_batch,
)
from tests.economics.configs import A100_40GB, LLAMA_31_70B, SPEC_DEFAULTS, h100
from tests.strategies import PROPERTIES

# ---- docs/serving.md#static-batching windows -------------------------------------------------------------------------


def test_section_8_3_window_example() -> None:
    # docs/serving.md#static-batching: λ = 2 req/s, w = 0.5 s: E[B] = 1 + 2·0.5 = 2; wait = (0.5 + 1·0.25)/2 = 0.375 s.
    batch, wait = window_batch(2.0, 0.5)
    assert float(batch) == 2.0
    assert float(wait) == pytest.approx(0.375)


def test_window_closes_when_full() -> None:
    # B_max = 3 at λ = 10 req/s: the window closes after (3 − 1)/10 = 0.2 s < w = 1 s, so E[B] = 3 and the
    # wait is (0.2 + 2·0.1)/3 = 0.1333 s.
    batch, wait = window_batch(10.0, 1.0, 3)
    assert float(batch) == pytest.approx(3.0)
    assert float(wait) == pytest.approx(0.4 / 3)


def test_clock_windows() -> None:
    # E[B | B ≥ 1] = λw/(1 − e^(−λw)): λw = 1 → 1/(1 − 1/e) = 1.581977; λw = 0 → 1 (own branch, no 0/0).
    np.testing.assert_allclose(clock_window_batch([1.0, 0.0, 2.0], [1.0, 5.0, 0.0]), [1.581977, 1.0, 1.0], rtol=1e-6)


@PROPERTIES
@given(st.floats(0.0, 1e4), st.floats(0.0, 100.0), st.floats(1.0, 1e4))
def test_window_properties(lam: float, w: float, bmax: float) -> None:
    # docs/serving.md#serving-checks: E[B] ≤ B_max; the mean wait lies in [w/2, w] while the window runs its full
    # length, and in [0, w] when B_max closes it early.
    batch, wait = (float(v) for v in window_batch(lam, w, bmax))
    assert 1.0 <= batch <= bmax * (1 + 1e-12)
    assert 0.0 <= wait <= w * (1 + 1e-12)
    if lam * w <= bmax - 1:
        assert wait >= w / 2 * (1 - 1e-12)


def test_window_limit_small_load() -> None:
    # docs/serving.md#serving-checks: E[B] → 1 as λw → 0, and the lone request waits the whole window.
    lam = np.geomspace(1e-12, 1e-3, 10)
    batch, wait = window_batch(lam, 1.0)
    np.testing.assert_allclose(batch, 1.0, atol=1e-3)
    assert (np.diff(batch) > 0).all()
    np.testing.assert_allclose(wait, 1.0, atol=1e-3)


# ---- docs/serving.md#static-batching static batching on a real replica -----------------------------------------------


def test_static_batch_service_time_at_low_load() -> None:
    # λ → 0: E[B] = 1. S_batch(1) = t_prefill(1000 tokens) + 500·t_pass(B=1, S=1250).
    # docs/roofline.md#prefill: t_prefill = 39.0 (linear, compute) + 0.37 (attention) + 11.8 (comm) + 0.5 ms = 51.7 ms.
    # t_pass(1) = 9.6215 (weights, latency, tau0) + 1251·327_680 B/18.76e12 (KV, 0.02185) + 0.01019 (comm
    # bytes) + 0.00028 (activations) = 9.6538 ms → S_batch = 51.7 ms + 4.8269 s = 4.879 s.
    sb = static_batching(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), 1e-9, 1000, 500, 0.5)
    assert float(sb.mean_batch) == pytest.approx(1.0)
    assert float(sb.service_time_s) == pytest.approx(4.879, abs=0.002)
    assert float(sb.tpot_s) * 1e3 == pytest.approx(9.654, abs=0.001)
    assert float(sb.window_wait_s) == pytest.approx(0.5)
    assert float(sb.ttft_s) == pytest.approx(0.5 + 0.0517, abs=0.001)
    assert float(sb.e2e_mean_s) == pytest.approx(0.5 + 4.879, abs=0.002)
    # KV memory with whole outputs reserved: floor(1.327e6/1500) = 884 sequences
    assert float(sb.max_batch) == 884.0
    assert bool(sb.stable)


def test_static_batching_calibration_c5() -> None:
    # docs/calibration.md#golden-values C5, [DB] Table 2: MPT-7B on 1×A100-40GB, static batching, 512 in / 64 out: 0.9
    # req/s at B = 1 and 12.5 req/s at B = 64 (14×), ±30%. MPT-7B: 32 layers, d 4096, MHA, 2-matrix GELU MLP of 16384
    # (d_ff_equiv = 2/3·16384 = 10923 for SwiGLU's 3 matrices, docs/inputs.md#model-shape), vocab 50432, tied
    # embeddings.
    mpt = ModelSpec(
        id="mpt-7b", name="MPT 7B", n_layers=32, d_model=4096, n_heads=32, n_kv_heads=32, head_dim=128,
        d_ff=10923, vocab=50432, tied_embeddings=True,
    )  # fmt: skip
    dep = Deployment(gpu=A100_40GB, n_gpus=1)
    # saturated server: every batch is full, throughput = B/S_batch(B)
    sb = static_batching(mpt, dep, SPEC_DEFAULTS, ARScheme(), 1e6, 512, 64, 0.0, max_batch=[1, 64])
    np.testing.assert_array_equal(sb.mean_batch, [1.0, 64.0])
    rate = sb.mean_batch / sb.service_time_s
    assert float(rate[0]) == pytest.approx(0.9, rel=0.3)
    assert float(rate[1]) == pytest.approx(12.5, rel=0.3)
    assert not sb.stable.any()  # 10^6 req/s overloads it, as intended here
    assert np.isinf(sb.queue_wait_s).all()


def test_static_batching_grows_while_the_server_is_busy() -> None:
    # docs/serving.md#static-batching saturation: S_batch ≈ 4.9 s > w = 0.5 s, so requests pile up during service:
    # E[B] = 1 + λ·S_batch(E[B]) (fixed point). At λ = 1: E[B] ≈ 1 + 5 = 6.x, and ρ = λ·S/E[B] < 1.
    sb = static_batching(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), [0.1, 1.0, 10.0], 1000, 500, 0.5)
    b, s = sb.mean_batch, sb.service_time_s
    np.testing.assert_allclose(b, 1.0 + np.array([0.1, 1.0, 10.0]) * s, rtol=1e-9)
    assert (np.diff(b) > 0).all()
    assert sb.stable.all()
    assert (sb.busy_fraction < 1).all()


def test_static_batching_overload_is_reported() -> None:
    sb = static_batching(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), [0.1, 5.0], 1000, 500, 0.5, max_batch=4)
    assert sb.stable.tolist() == [True, False]
    assert float(sb.mean_batch[1]) == 4.0
    assert math.isinf(float(sb.e2e_mean_s[1]))
    nofit = static_batching(LLAMA_31_70B, h100(1), SPEC_DEFAULTS, ARScheme(), 0.1, 1000, 500, 0.5)
    assert not bool(nofit.stable)
    assert float(nofit.mean_batch) == 0.0


@PROPERTIES
@given(st.lists(st.floats(0.0, 50.0), min_size=2, max_size=12), st.floats(0.0, 5.0), st.integers(1, 512))
def test_static_batch_bounded_and_monotone(rates: list[float], w: float, bmax: int) -> None:
    lam = np.sort(np.asarray(rates))
    sb = static_batching(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), lam, 1000, 500, w, max_batch=bmax)
    assert (sb.mean_batch >= 1).all()
    assert (sb.mean_batch <= bmax).all()
    assert (np.diff(sb.mean_batch) >= -1e-9).all()
    assert ((sb.window_wait_s >= 0) & (sb.window_wait_s <= w * (1 + 1e-12))).all()
    assert not np.isnan(sb.e2e_mean_s).any()


# ---- docs/serving.md#slo-capacity Erlang C ---------------------------------------------------------------------------


def test_erlang_c_hand_values() -> None:
    # c = 2, a = 1.5 (λ = 1.5, s̄ = 1): E_1 = 1.5/2.5 = 0.6; E_2 = 0.9/2.9 = 0.310345;
    # P_wait = 2·0.310345/(2 − 1.5·0.689655) = 9/14 = 0.642857; E[W_q] = P_wait·s̄/(c − a) = 1.285714 s;
    # p95: s̄/(c − a)·ln(P_wait/0.05) = 2·ln(12.857) = 5.1078 s.
    q = erlang_c(1.5, 1.0, 2)
    assert float(q.p_wait) == pytest.approx(9 / 14)
    assert float(q.mean_wait_s) == pytest.approx(9 / 14 / 0.5)
    assert float(q.wait_quantile_s) == pytest.approx(2 * math.log(9 / 14 / 0.05))
    assert float(q.utilization) == 0.75
    # a p95 below P_wait's reach is 0: c = 10, a = 2 waits with probability 4e-5 < 5%
    assert float(erlang_c(2.0, 1.0, 10).wait_quantile_s) == 0.0


def test_erlang_c_degenerate_cases() -> None:
    q = erlang_c([0.0, 3.0, 1.0, 10.0], 1.0, [4, 2, 0, 5000])
    assert q.stable.tolist() == [True, False, False, True]
    assert q.p_wait.tolist()[:3] == [0.0, 1.0, 1.0]
    assert float(q.p_wait[3]) == 0.0  # 5000 slots for 10 Erlang: blocking underflows
    assert np.isinf(q.mean_wait_s[1:3]).all()
    assert float(q.mean_wait_s[0]) == 0.0
    with pytest.raises(ValueError, match="quantile"):
        erlang_c(1.0, 1.0, 2, quantile=1.0)


@PROPERTIES
@given(st.floats(1e-3, 10.0), st.integers(1, 300))
def test_erlang_c_properties(service: float, c: int) -> None:
    # docs/serving.md#serving-checks: P_wait ∈ [0, 1] and increasing in λ; waits non-decreasing in λ.
    lam = np.linspace(0.0, 1.2 * c / service, 60)
    q = erlang_c(lam, service, c)
    assert ((q.p_wait >= 0) & (q.p_wait <= 1)).all()
    assert (np.diff(q.p_wait) >= -1e-12).all()
    ok = q.stable
    assert (np.diff(q.mean_wait_s[ok]) >= -1e-12).all()
    assert (q.wait_quantile_s[ok] >= 0).all()
    assert not ok[lam * service >= c].any()


@PROPERTIES
@given(st.floats(0.0, 0.999), st.floats(1e-3, 10.0))
def test_erlang_c_single_server_is_mm1(rho: float, service: float) -> None:
    # docs/serving.md#serving-checks: c = 1 gives P_wait = ρ and E[W_q] = ρ·s̄/(1 − ρ) (M/M/1).
    q = erlang_c(rho / service, service, 1)
    assert float(q.p_wait) == pytest.approx(rho, abs=1e-12)
    assert float(q.mean_wait_s) == pytest.approx(rho * service / (1 - rho), rel=1e-9, abs=1e-15)


def test_admission_queueing_on_the_fixed_point() -> None:
    # λ = 10 on the 70B replica: B* = 65.6 of B_max = 1061 slots, a = λ·E2E ≈ 65.8 Erlang: an arrival
    # essentially never waits. An overloaded fixed point stays overloaded.
    cb = continuous_batching(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), [10.0, 13.0], 1000, 500)
    q = admission_queueing(cb)
    assert float(q.offered_load[0]) == pytest.approx(10.0 * float(cb.e2e_mean_s[0]))
    assert float(q.servers[0]) == 1061.0
    assert float(q.p_wait[0]) < 1e-100
    assert float(q.wait_quantile_s[0]) == 0.0
    assert q.stable.tolist() == [True, False]
    assert float(q.p_wait[1]) == 1.0
    assert math.isinf(float(q.mean_wait_s[1]))
