"""SLO capacity ("goodput") and replica sizing (docs/serving.md#slo-capacity), with the spec's worked numbers.

A spec error found here, kept as a test: the docs/serving.md#slo-capacity prototype numbers (λ_max = 11.3 / 12.1 / 12.4
req/s at TPOT ≤ 20 / 50 / 100 ms; 8.6–8.9 with speculation) are reproduced exactly only when the prompt chunks that
ride along in a decode iteration are charged at MFU_dec (0.5). docs/roofline.md#forward-pass and
docs/roofline.md#prefill charge prefill at MFU_pre (0.45), and so does ``forward_time`` (the ``prefill_tokens`` of a
mixed pass run at ``mfu_prefill``). With the spec's own default efficiency the capacities are 10.81 / 11.57 / 11.82
req/s (hand-derived below), 4.5% lower. We keep docs/roofline.md#forward-pass rule: the same prompt token costs the same
whether it is prefilled alone (TTFT, docs/roofline.md#prefill) or in chunks, and the [DB] TTFT calibration (C7) that
sets MFU_pre applies to both.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from economics.hardware import Deployment, Efficiency
from economics.iteration import AnyScheme
from economics.model import ModelSpec
from economics.schemes import ARScheme, DiffusionScheme, SpeculativeScheme
from economics.serving import BINDING, continuous_batching, replicas_for_peak, slo_capacity
from tests.economics.configs import LLAMA_31_8B, LLAMA_31_70B, MIXTRAL_8X7B, SPEC_DEFAULTS, h100
from tests.strategies import PROPERTIES, deployments, efficiencies, models, speculative_schemes

T_IN, T_OUT = 1000.0, 500.0
TPOT_SLOS = [0.02, 0.05, 0.1]
EAGLE = SpeculativeScheme(verify_tokens=8, mean_accepted_tokens=3.0, draft_tokens=4)
SPEC_PROTOTYPE = SPEC_DEFAULTS.model_copy(
    update={"mfu_prefill": SPEC_DEFAULTS.mfu_decode}
)  # how docs/serving.md#slo-capacity
# numbers were made

# Hand derivation (see test_serving_continuous.hand): with TPOT ≤ H binding on the compute branch,
# t* = a_C/(1 − λ·k_C) = H gives λ_max = (1 − a_C/H)/k_C with a_C = 2.1 ms and
#   k_C = 17.561 (decode linear) + 39.026 (prompt linear at MFU_pre) + 10.943 (KV reads) + 15.292 (comm) ms
#       = 82.822 ms                 → λ_max = 10.806, 11.567, 11.821 req/s;
#   k_C = 17.561 + 35.123 (prompt at MFU_dec) + 10.943 + 15.292 = 78.919 ms
#                                   → λ_max = 11.341, 12.139, 12.405 req/s (the spec's 11.3, 12.1, 12.4).
# The memory branch stays below H (9.62/(1 − 11.8·0.02665) = 14 ms < 20 ms), so it does not bind.
A_C = 2.1e-3


def test_section_8_2_capacity_with_the_spec_defaults() -> None:
    cap = slo_capacity(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), T_IN, T_OUT, tpot_max_s=TPOT_SLOS)
    expected = (1 - A_C / np.array(TPOT_SLOS)) / 82.822e-3
    np.testing.assert_allclose(cap.max_arrival_rate_per_s, expected, rtol=2e-4)
    np.testing.assert_allclose(cap.max_arrival_rate_per_s, [10.81, 11.57, 11.82], atol=0.005)
    np.testing.assert_allclose(cap.tpot_s, TPOT_SLOS, rtol=1e-9)
    # B* = λ_max·T_out·TPOT_max = 108, 289, 591 sequences (within B_max(1250) = 1061)
    np.testing.assert_allclose(cap.batch, expected * T_OUT * np.array(TPOT_SLOS), rtol=2e-4)
    assert cap.binding.tolist() == ["tpot"] * 3
    assert cap.feasible.all()
    assert (cap.reason == "").all()


def test_section_8_2_capacity_reproduced_with_the_spec_prototype_convention() -> None:
    # docs/serving.md#slo-capacity: 11.3 req/s at TPOT ≤ 20 ms (B = 113), 12.1 at ≤ 50 ms (B = 304), 12.4 at ≤ 100 ms.
    cap = slo_capacity(LLAMA_31_70B, h100(8), SPEC_PROTOTYPE, ARScheme(), T_IN, T_OUT, tpot_max_s=TPOT_SLOS)
    np.testing.assert_allclose(cap.max_arrival_rate_per_s, [11.3, 12.1, 12.4], atol=0.05)
    np.testing.assert_allclose(cap.max_arrival_rate_per_s, (1 - A_C / np.array(TPOT_SLOS)) / 78.919e-3, rtol=2e-4)
    np.testing.assert_allclose(cap.batch[:2], [113, 304], rtol=0.01)


def test_section_8_2_speculation_costs_capacity() -> None:
    # docs/serving.md#slo-capacity: with EAGLE-like speculation (q = 8, τ = 3) the same replica reaches only 8.6–8.9
    # req/s.
    proto = slo_capacity(LLAMA_31_70B, h100(8), SPEC_PROTOTYPE, EAGLE, T_IN, T_OUT, tpot_max_s=TPOT_SLOS)
    np.testing.assert_allclose(proto.max_arrival_rate_per_s[:2], [8.6, 8.9], atol=0.06)
    assert 8.6 <= float(proto.max_arrival_rate_per_s[2]) <= 9.05
    ar = slo_capacity(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), T_IN, T_OUT, tpot_max_s=TPOT_SLOS)
    spec = slo_capacity(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, EAGLE, T_IN, T_OUT, tpot_max_s=TPOT_SLOS)
    assert (spec.max_arrival_rate_per_s < 0.8 * ar.max_arrival_rate_per_s).all()  # 8.35/10.81 = 0.77
    assert ((spec.max_arrival_rate_per_s > 8.2) & (spec.max_arrival_rate_per_s < 8.8)).all()


def test_ttft_and_deadline_slos() -> None:
    # TTFT ≥ the prompt's own prefill iteration: 51.7 ms for 1000 tokens (docs/roofline.md#prefill: 39.0 linear + 0.37
    # attention
    # + 11.8 comm + 0.5 ms), so a 30 ms TTFT SLO is out of reach at any load.
    short = slo_capacity(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), T_IN, T_OUT, ttft_max_s=0.03)
    assert float(short.max_arrival_rate_per_s) == 0.0
    assert "TTFT" in str(short.reason)
    # Looser SLOs bind at their edge: TTFT (or E2E) at λ_max equals the SLO, and the fixed point agrees.
    ttft = slo_capacity(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), T_IN, T_OUT, ttft_max_s=0.2)
    dead = slo_capacity(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), T_IN, T_OUT, deadline_s=10.0)
    assert str(ttft.binding) == "ttft"
    assert str(dead.binding) == "deadline"
    assert float(ttft.ttft_s) == pytest.approx(0.2, rel=1e-9)
    assert float(dead.e2e_mean_s) == pytest.approx(10.0, rel=1e-9)
    # at high load the prompt rides in the mean iteration: TTFT = 1.5·t*, so t* = 0.133 s and
    # λ_max = (1 − 2.1 ms/0.1333 s)/82.822 ms = 11.88 req/s (hand, compute branch)
    assert float(ttft.max_arrival_rate_per_s) == pytest.approx((1 - A_C / (0.2 / 1.5)) / 82.822e-3, rel=1e-3)
    for cap, slo in ((ttft, "ttft_s"), (dead, "e2e_mean_s")):
        lam = float(cap.max_arrival_rate_per_s)
        cb = continuous_batching(
            LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), [lam * (1 - 1e-7), lam * 1.001], T_IN, T_OUT
        )
        limit = 0.2 if slo == "ttft_s" else 10.0
        assert float(getattr(cb, slo)[0]) <= limit * (1 + 1e-9)
        assert float(getattr(cb, slo)[1]) > limit


def test_no_slo_is_bounded_by_memory_or_the_prompt_budget() -> None:
    # Without latency SLOs the capacity runs up to what the replica can hold: λ_max stays below the compute
    # ceiling 1/k_C = 12.07 req/s and the binding constraint is memory-side (prompt budget or KV).
    cap = slo_capacity(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), T_IN, T_OUT)
    assert 11.8 < float(cap.max_arrival_rate_per_s) < 12.08
    assert str(cap.binding) in {"prefill_budget", "kv_memory", "iteration_cap"}


def test_infeasible_cases_have_reasons() -> None:
    # batch → 0 already takes 9.62 ms per token, so a 5 ms TPOT SLO is out of reach; a 10 ms TTFT likewise
    # (the prompt alone takes 51.7 ms). The 70B model does not fit one 80 GB GPU at all.
    cap = slo_capacity(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), T_IN, T_OUT, tpot_max_s=[0.005, 0.05])
    assert cap.feasible.tolist() == [False, True]
    assert float(cap.max_arrival_rate_per_s[0]) == 0.0
    assert "TPOT" in str(cap.reason[0])
    assert str(cap.binding[0]) == ""
    assert np.isinf(cap.tpot_s[0])
    assert np.isinf(cap.batch[0])
    ttft = slo_capacity(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), T_IN, T_OUT, ttft_max_s=0.01)
    assert "TTFT" in str(ttft.reason)
    nofit = slo_capacity(LLAMA_31_70B, h100(1), SPEC_DEFAULTS, ARScheme(), T_IN, T_OUT, tpot_max_s=0.05)
    assert str(nofit.reason) == "model does not fit in memory"
    assert float(nofit.max_arrival_rate_per_s) == 0.0
    # one request of 1.4M tokens needs 459 GB of KV, more than the 434.9 GB free
    huge = slo_capacity(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, ARScheme(), 1_400_000, 500)
    assert "one request" in str(huge.reason)


def test_moe_capacity_uses_the_iteration() -> None:
    # No closed form for MoE: the same bisection in x runs on the roofline pass time. The answer must sit on
    # the TPOT boundary of the fixed point it implies.
    cap = slo_capacity(MIXTRAL_8X7B, h100(2), SPEC_DEFAULTS, ARScheme(), T_IN, T_OUT, tpot_max_s=0.03)
    lam = float(cap.max_arrival_rate_per_s)
    assert lam > 0
    assert str(cap.binding) == "tpot"
    cb = continuous_batching(
        MIXTRAL_8X7B, h100(2), SPEC_DEFAULTS, ARScheme(), [lam * (1 - 1e-6), lam * 1.001], T_IN, T_OUT
    )
    assert float(cb.tpot_s[0]) <= 0.03 < float(cb.tpot_s[1])


def test_closed_form_capacity_with_speculation_matches_the_bisection() -> None:
    # docs/serving.md#slo-capacity EAGLE case (70B, q = 8, τ = 3, TPOT ≤ 20/50/100 ms, plus TTFT and deadline SLOs): the
    # exact capacity of the affine pass equals the 60-step bisection on forward_time + draft_time.
    kwargs = {"tpot_max_s": [0.02, 0.05, 0.1], "ttft_max_s": [0.3, np.inf, 0.2], "deadline_s": [np.inf, 8.0, np.inf]}
    closed = slo_capacity(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, EAGLE, T_IN, T_OUT, method="closed_form", **kwargs)
    bisected = slo_capacity(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, EAGLE, T_IN, T_OUT, method="bisect", **kwargs)
    np.testing.assert_allclose(closed.max_arrival_rate_per_s, bisected.max_arrival_rate_per_s, rtol=1e-9)
    assert closed.binding.tolist() == bisected.binding.tolist()
    with pytest.raises(ValueError, match="closed form"):
        slo_capacity(MIXTRAL_8X7B, h100(2), SPEC_DEFAULTS, ARScheme(), T_IN, T_OUT, method="closed_form")


def test_bad_slo_is_rejected() -> None:
    with pytest.raises(ValueError, match="SLO"):
        slo_capacity(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, ARScheme(), T_IN, T_OUT, tpot_max_s=0.0)


# ---- replicas ---------------------------------------------------------------------------------------------------


def test_replicas_worked_example() -> None:
    # λ_max = 11.3, u_target = 0.8: one replica carries 9.04 req/s at peak. λ_peak = 9 → 1 replica (8 GPUs);
    # 9.05 → 2; 20 → ceil(20/9.04) = 3 (24 GPUs). Utilisation of paid hours at λ_avg = 4: 4/(R·11.3).
    plan = replicas_for_peak([9.0, 9.05, 20.0], 11.3, 8, average_arrival_rate_per_s=4.0)
    assert plan.replicas.tolist() == [1.0, 2.0, 3.0]
    assert plan.gpus.tolist() == [8.0, 16.0, 24.0]
    np.testing.assert_allclose(plan.utilization, [4 / 11.3, 4 / 22.6, 4 / 33.9])
    assert plan.feasible.all()
    # an exact multiple does not buy a spare: 0.3/(0.1·1.0) = 2.9999999999999996 in floating point → 3
    assert replicas_for_peak(0.3, 0.1, 1, target_utilization=1.0).replicas.tolist() == 3.0


def test_replicas_degenerate_cases() -> None:
    plan = replicas_for_peak([0.0, 5.0], [3.0, 0.0], 4)
    assert plan.replicas.tolist() == [1.0, np.inf]  # a dedicated deployment keeps one replica; none can serve
    assert plan.gpus.tolist() == [4.0, np.inf]
    assert plan.utilization.tolist() == [0.0, 0.0]
    assert plan.feasible.tolist() == [True, False]
    with pytest.raises(ValueError, match="target_utilization"):
        replicas_for_peak(1.0, 1.0, 1, target_utilization=0.0)


# ---- docs/serving.md#serving-checks properties -----------------------------------------------------------------------


@PROPERTIES
@given(models(), deployments(), efficiencies(), st.integers(1, 8000), st.integers(1, 4000))
def test_capacity_tightens_with_the_tpot_slo(
    model: ModelSpec, dep: Deployment, eff: Efficiency, t_in: int, t_out: int
) -> None:
    # docs/serving.md#serving-checks: λ_max is non-increasing as TPOT_max tightens; every answer is 0 (with a reason) or
    # positive.
    slos = np.geomspace(1.0, 1e-4, 25)
    cap = slo_capacity(model, dep, eff, ARScheme(), t_in, t_out, tpot_max_s=slos)
    lam = cap.max_arrival_rate_per_s
    assert (np.diff(lam) <= 1e-12 * lam[:-1]).all()
    assert ((lam > 0) == cap.feasible).all()
    assert ((cap.reason == "") == cap.feasible).all()
    assert set(cap.binding[cap.feasible].tolist()) <= set(BINDING)
    assert not np.isnan(lam).any()
    assert np.isfinite(lam).all()


@PROPERTIES
@given(models(), deployments(), efficiencies(), st.integers(1, 8000), st.integers(1, 4000), st.floats(1e-3, 1.0))
def test_capacity_is_the_edge_of_the_slo(
    model: ModelSpec, dep: Deployment, eff: Efficiency, t_in: int, t_out: int, tpot: float
) -> None:
    # Consistency with the fixed point: just below λ_max the replica is stable, KV-feasible and within the
    # TPOT SLO; just above, one of those fails (or the prompt budget overflows).
    cap = slo_capacity(model, dep, eff, ARScheme(), t_in, t_out, tpot_max_s=tpot)
    lam = float(cap.max_arrival_rate_per_s)
    if lam == 0.0:
        return
    below, above = lam * (1 - 1e-7), lam * (1 + 1e-4)
    cb = continuous_batching(model, dep, eff, ARScheme(), [below, above], t_in, t_out)
    assert bool(cb.feasible[0])
    assert float(cb.tpot_s[0]) <= tpot * (1 + 1e-9)
    assert not bool(cb.feasible[1]) or float(cb.tpot_s[1]) > tpot


DENSE_SCHEMES = st.one_of(
    st.sampled_from(
        [
            ARScheme(),
            DiffusionScheme(block_tokens=32, denoising_steps=8, refresh_passes=1),
            DiffusionScheme(block_tokens=64, denoising_steps=16, prefix_cache=False),
        ]
    ),
    speculative_schemes(),
)


@PROPERTIES
@given(
    models(moe=False),
    deployments(),
    efficiencies(),
    st.integers(1, 8000),
    st.integers(1, 4000),
    DENSE_SCHEMES,
    st.sampled_from([512.0, 8192.0, np.inf]),
    st.floats(1e-3, 0.2),
    st.floats(0.05, 20.0),
    st.floats(1.0, 3600.0),
)
def test_closed_form_capacity_equals_the_bisection(
    model: ModelSpec,
    dep: Deployment,
    eff: Efficiency,
    t_in: int,
    t_out: int,
    scheme: AnyScheme,
    chunk: float,
    tpot: float,
    ttft: float,
    deadline: float,
) -> None:
    # docs/serving.md#slo-capacity on dense models (AR, diffusion, speculation with and without a draft): TPOT, TTFT and
    # E2E are sums of maxima of affine functions of x = λ·t, so λ_max has a closed form; it must equal the 60-step
    # bisection on forward_time (+ draft_time) to 1e-6, for each SLO alone and for all of them at once (seeded
    # examples).
    slos = {
        "tpot_max_s": [tpot, np.inf, np.inf, np.inf, tpot],
        "ttft_max_s": [np.inf, ttft, np.inf, np.inf, ttft],
        "deadline_s": [np.inf, np.inf, deadline, np.inf, deadline],
    }
    args = (model, dep, eff, scheme, t_in, t_out)
    closed = slo_capacity(*args, prefill_chunk_tokens=chunk, method="closed_form", **slos)
    bisected = slo_capacity(*args, prefill_chunk_tokens=chunk, method="bisect", **slos)
    assert closed.reason.tolist() == bisected.reason.tolist()
    np.testing.assert_allclose(closed.max_arrival_rate_per_s, bisected.max_arrival_rate_per_s, rtol=1e-6)
    np.testing.assert_allclose(closed.tpot_s, bisected.tpot_s, rtol=1e-6)


@PROPERTIES
@given(st.lists(st.floats(0.0, 1e4), min_size=2, max_size=30), st.floats(1e-3, 1e3), st.integers(1, 16))
def test_replicas_monotone_in_peak(peaks: list[float], cap: float, n: int) -> None:
    # docs/serving.md#serving-checks: R non-decreasing in λ_peak and R ≥ 1; the peak always fits R replicas at u_target.
    peak = np.sort(np.asarray(peaks))
    plan = replicas_for_peak(peak, cap, n)
    assert (plan.replicas >= 1).all()
    assert (np.diff(plan.replicas) >= 0).all()
    assert (peak <= plan.replicas * 0.8 * cap * (1 + 1e-9)).all()
    np.testing.assert_array_equal(plan.gpus, plan.replicas * n)
