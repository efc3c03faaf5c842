"""The scheme layer (iteration.py) and the three throughput regimes with their typed result (throughput.py)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from economics.hardware import Deployment, Efficiency
from economics.iteration import iteration_time, new_tokens_per_iteration, passes_to_first_token, resident_tokens
from economics.model import ModelSpec
from economics.roofline import forward_time
from economics.schemes import ARScheme, DiffusionScheme, SpeculativeScheme
from economics.specdec import speculative_speedup
from economics.throughput import (
    ThroughputResult,
    closed_loop,
    offline_saturation,
    steady_decode,
    throughput,
    tokens_per_iteration,
)
from tests.economics.configs import IDEAL, LLADA_8B, LLAMA_31_8B, LLAMA_31_70B, SPEC_DEFAULTS, h100
from tests.strategies import PROPERTIES, deployments, efficiencies, models

AR = ARScheme()
TREE16 = SpeculativeScheme(mean_accepted_tokens=4.0, verify_tokens=16)
FAST = DiffusionScheme(block_tokens=32, denoising_steps=8, refresh_passes=1)
VANILLA = DiffusionScheme(block_tokens=32, denoising_steps=32, refresh_passes=0, prefix_cache=False)

ISSUE_KEYS = {
    "output_tokens_per_s",
    "output_tokens_per_s_per_gpu",
    "tpot_s",
    "ttft_s",
    "batch",
    "bound",
    "arithmetic_intensity_flop_per_byte",
    "max_batch_kv",
    "feasible",
    "reason",
}


# ---- the scheme layer ---------------------------------------------------------------------------------


def test_scheme_table() -> None:
    # docs/serving.md#serving-and-queues: AR (q 1, e 1); speculative (q_verify, τ); diffusion (K, K/(S+ρ)); no cache:
    # (canvas, K/S).
    assert (float(new_tokens_per_iteration(AR)), tokens_per_iteration(AR)) == (1.0, 1.0)
    assert (float(new_tokens_per_iteration(TREE16)), tokens_per_iteration(TREE16)) == (16.0, 4.0)
    assert (float(new_tokens_per_iteration(FAST)), tokens_per_iteration(FAST)) == (32.0, 32 / 9)
    assert float(new_tokens_per_iteration(VANILLA, 1500)) == 1500.0
    assert tokens_per_iteration(VANILLA) == 1.0
    # First token: AR and speculative sample it from the prefill's logits (0 passes), block diffusion after
    # the S = 8 denoising passes of its first block (see test_acceptance_70b_ideal_batch_1 on docs/roofline.md#prefill).
    assert [passes_to_first_token(s) for s in (AR, TREE16, FAST, VANILLA)] == [0, 0, 8, 32]
    # KV held per sequence: paged T_in + T_out/2, reserved T_in + T_out, + the block for cached diffusion.
    assert float(resident_tokens(AR, 1000, 500)) == 1250.0
    assert float(resident_tokens(AR, 1000, 500, reserve_output=True)) == 1500.0
    assert float(resident_tokens(FAST, 1000, 500)) == 1282.0
    assert float(resident_tokens(VANILLA, 1000, 500)) == 1500.0


def test_speculative_iteration_is_verify_plus_draft() -> None:
    it = iteration_time(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, TREE16, 64, 2048)
    ref = speculative_speedup(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, TREE16, 64, 2048)
    assert float(it.time_s) == pytest.approx(float(ref.spec_s), rel=1e-12)
    assert float(it.time_per_output_token_s) == pytest.approx(float(ref.spec_s) / 4.0, rel=1e-12)


# ---- steady decode (--batch) ---------------------------------------------------------------------------


def test_acceptance_70b_ideal_batch_1() -> None:
    """Issue #2 acceptance numbers, and TTFT without a decode step.

    The first spec (docs/departures.md#departures) writes ``TTFT = W_queue + t_prefill + TPOT`` ("first token comes
    after one decode step"). Serving engines (vLLM, SGLang, TensorRT-LLM) sample the first token from the logits of the
    last prefill chunk; the decode step that follows produces the second token. The serving model
    (docs/serving.md#continuous-batching, ``economics.serving``) always counted it that way, and the throughput regimes
    now agree with it, so the TTFT here is the prefill alone: 5.29 ms (one TPOT) less than the first spec's formula
    gives.
    """
    # Issue #2 acceptance: 70B BF16 on 8×H100, ideal, 1000 in / 500 out, batch 1 at context 1000 + 500/2 = 1250.
    # Bytes: W 141.1048e9 + activations 4·80·8192·2 = 5.243e6 + KV 1251·327680 = 409.93e6 → 141.5200e9 B over
    # 26.8e12 B/s = 5.28060 ms; all-reduce bandwidth 160 · 2·(7/8)·16384 B / 450e9 B/s = 10.19 µs → 5.29079 ms
    # → 189.01 tok/s (docs/roofline.md#worked-example-70b 190 counts the weights alone: 26.8e12/141.1e9 = 189.9).
    r = throughput(LLAMA_31_70B, h100(8), IDEAL, AR, 1000, 500, batch=1)
    assert r.output_tokens_per_s == pytest.approx(189.01, abs=0.01)
    assert r.output_tokens_per_s_per_gpu == pytest.approx(189.01 / 8, abs=0.01)
    assert r.tpot_s * 1e3 == pytest.approx(5.2908, abs=1e-4)
    assert r.bound == "memory"
    assert r.feasible
    assert r.arithmetic_intensity_flop_per_byte == pytest.approx(1.0, abs=0.01)
    # TTFT = ideal prefill of 1000 tokens, the first token sampled from its logits (no decode step;
    # docs/roofline.md#prefill extra TPOT would give 27.92 + 5.29 = 33.21 ms). Prefill: linear compute 1000·2·69.50e9
    # FLOP / 7.915e15 = 17.56 ms (> its 5.27 ms of weight reads); attention 80·64·128·2·1000·1001 FLOP / 7.915e15 =
    # 0.166 ms; all-reduces 160·2·(7/8)·16.384e6 B / 450e9 = 10.19 ms → 27.92 ms.
    assert r.ttft_s * 1e3 == pytest.approx(27.92, abs=0.01)
    # KV capacity with mem_util 1: (640 − 141.10) GB / 327680 B / 1250 tokens = 1218 sequences.
    assert r.max_batch_kv == 1218


def test_ttft_agrees_with_the_serving_model() -> None:
    # The first token costs no decode step in either layer. At zero load the serving model's TTFT is the
    # residual wait t*/2 plus the iteration that carries the 1000-token prompt (B* → 0, C = T_in): the same
    # pass as steady_decode's batch-1 prefill (same FLOPs at MFU_pre, same KV writes, same all-reduces).
    from economics.serving import continuous_batching

    for model, dep in ((LLAMA_31_70B, h100(8)), (LLAMA_31_8B, h100(1))):
        cb = continuous_batching(model, dep, SPEC_DEFAULTS, AR, 0.0, 1000, 500)
        sd = steady_decode(model, dep, SPEC_DEFAULTS, AR, 1, 1000, 500)
        assert float(cb.ttft_s - cb.queue_wait_s) == pytest.approx(float(sd.ttft_s), rel=1e-12)


def test_steady_decode_matches_section_3_3() -> None:
    # docs/roofline.md#worked-example-70b at 4096 context: 1000 in / 6192 out → 1000 + 3096 = 4096; B = 64 → 14.87 ms,
    # 4,303 tok/s.
    r = steady_decode(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, AR, 64, 1000, 6192)
    assert float(r.tpot_s) * 1e3 == pytest.approx(14.87, abs=0.006)
    assert float(r.output_tokens_per_s) == pytest.approx(4303, rel=0.002)


def test_batch_over_kv_limit_is_infeasible() -> None:
    # 70B on 8×H100 (defaults) holds 1061 sequences of 1250 tokens (434.9e9/327680/1250 = 1061.7).
    r = throughput(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, AR, 1000, 500, batch=2000)
    assert r.max_batch_kv == 1061
    assert not r.feasible
    assert "exceeds the KV-memory limit of 1061" in r.reason
    assert r.output_tokens_per_s == 0.0


def test_model_that_does_not_fit() -> None:
    # 70B in BF16 (141.1 GB) on one 80 GB GPU: feasible=False, batch 0, no negative numbers, latencies inf.
    for kwargs in ({"batch": 1}, {"concurrency": 4}, {"saturate": True}):
        r = throughput(LLAMA_31_70B, h100(1), SPEC_DEFAULTS, AR, 1000, 500, **kwargs)
        assert not r.feasible
        assert "does not fit" in r.reason
        assert r.max_batch_kv == 0
        assert r.output_tokens_per_s == 0.0
        assert math.isinf(r.tpot_s)
        assert r.batch >= 0


def test_one_sequence_does_not_fit() -> None:
    # 8B BF16 on one H100: (72 − 16.06) GB / 131072 B = 426.8k tokens; a 500k-token prompt does not fit.
    r = throughput(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, AR, 500_000, 100, saturate=True)
    assert not r.feasible
    assert "one sequence" in r.reason


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        throughput(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, AR, 100, 100, batch=1, concurrency=2)
    with pytest.raises(ValueError, match="exactly one"):
        throughput(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, AR, 100, 100)
    with pytest.raises(ValueError, match="batch must be a positive integer"):
        throughput(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, AR, 100, 100, batch=0)
    with pytest.raises(ValueError, match="input_tokens"):
        throughput(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, AR, 0, 100, batch=1)


def test_result_has_the_issue_keys() -> None:
    r = throughput(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, TREE16, 1000, 200, concurrency=8)
    data = json.loads(r.model_dump_json())
    assert set(data) >= ISSUE_KEYS
    assert data["scheme"] == "speculative"
    assert ThroughputResult.model_validate(data) == r


# ---- closed loop (--concurrency) and offline (--max) ------------------------------------------------------------


def test_single_client_pays_prefill_then_decodes() -> None:
    # One client: a cycle is one prefill iteration (the whole 1000-token prompt) + 500 decode steps, as
    # t_prefill + T_out·t_dec (docs/roofline.md#prefill); the decode batch is 500/501 of a sequence, so ±0.2%.
    r = closed_loop(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, AR, 1, 1000, 500)
    prefill = float(forward_time(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, 0, 1, 1250, prefill_tokens=1000,
                                 prefill_context_tokens=500.5).time_s)  # fmt: skip
    decode = float(forward_time(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, 1, 1, 1250).time_s)
    assert float(r.output_tokens_per_s) == pytest.approx(500 / (prefill + 500 * decode), rel=2e-3)
    assert float(r.output_tokens_per_s) == pytest.approx(102.5, abs=0.5)  # vs 103 for decode alone
    # (docs/roofline.md#worked-example-70b)


def test_closed_loop_little_law_and_kv_cap() -> None:
    # X·cycle = B_run·T_out with cycle = (1 + T_out/e)·t_mean; beyond the KV limit the extra clients only queue.
    r = closed_loop(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, TREE16, np.array([8.0, 64.0]), 1000, 500)
    n = 1 + 500 / 4.0
    np.testing.assert_allclose(r.output_tokens_per_s * n * r.iteration_s, r.batch * 500, rtol=1e-12)
    cap = closed_loop(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, AR, np.array([1061.0, 5000.0]), 1000, 500)
    assert cap.batch.tolist() == [1061.0, 1061.0]
    assert cap.output_tokens_per_s[0] == cap.output_tokens_per_s[1]
    assert cap.queue_wait_s[0] == 0.0
    assert cap.queue_wait_s[1] > 0.0
    assert cap.ttft_s[1] > cap.ttft_s[0]


def test_offline_is_closed_loop_at_the_memory_limit() -> None:
    off = offline_saturation(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, AR, 1000, 500)
    loop = closed_loop(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, AR, 1061, 1000, 500)
    assert float(off.batch) == 1061.0
    assert float(off.output_tokens_per_s) == float(loop.output_tokens_per_s)
    capped = offline_saturation(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, AR, 1000, 500, max_batch=100)
    assert float(capped.batch) == 100.0
    reserved = offline_saturation(LLAMA_31_70B, h100(8), SPEC_DEFAULTS, AR, 1000, 500, reserve_output=True)
    assert float(reserved.batch) == 884.0  # 434.9e9 / 327680 / 1500 = 884.8


def test_offline_prefill_lowers_throughput_below_decode_only() -> None:
    # Prefill is charged: the offline throughput sits below steady decode at the same batch.
    off = offline_saturation(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, AR, 2048, 128)
    dec = steady_decode(LLAMA_31_8B, h100(1), SPEC_DEFAULTS, AR, off.batch, 2048, 128)
    assert float(off.output_tokens_per_s) < 0.5 * float(dec.output_tokens_per_s)


def test_diffusion_without_cache_has_no_prefill() -> None:
    # Vanilla diffusion recomputes the prompt every pass: no prefill iteration; TTFT = S passes (one block).
    r = closed_loop(LLADA_8B, h100(1), SPEC_DEFAULTS, VANILLA, 1, 512, 256)
    assert float(r.ttft_s) == pytest.approx(32 * float(r.iteration_s), rel=1e-12)
    assert float(r.output_tokens_per_s) == pytest.approx(256 / (256 * float(r.iteration_s)), rel=1e-12)


@PROPERTIES
@given(efficiencies(), st.integers(1, 256), st.integers(1, 4096), st.integers(1, 4096))
def test_closed_loop_monotone_in_clients(eff: Efficiency, clients: int, t_in: int, t_out: int) -> None:
    # More clients never lower the replica's throughput nor speed up a stream.
    r = closed_loop(LLAMA_31_8B, h100(1), eff, AR, np.array([clients, clients + 1.0]), t_in, t_out)
    assert r.output_tokens_per_s[1] >= r.output_tokens_per_s[0] * (1 - 1e-9)
    assert r.tpot_s[1] >= r.tpot_s[0] * (1 - 1e-9)


@PROPERTIES
@given(
    models(),
    deployments(),
    efficiencies(),
    st.sampled_from([AR, TREE16, FAST, VANILLA]),
    st.integers(1, 32_768),
    st.integers(1, 8192),
    st.sampled_from(["batch", "concurrency", "max"]),
    st.integers(1, 2048),
)
def test_results_are_finite_or_explicitly_infeasible(
    model: ModelSpec,
    dep: Deployment,
    eff: Efficiency,
    scheme: ARScheme | SpeculativeScheme | DiffusionScheme,
    t_in: int,
    t_out: int,
    regime: str,
    count: int,
) -> None:
    # docs/README.md#how-the-model-is-tested: outputs are finite and non-negative, or the result is feasible=False with
    # a reason; never NaN.
    kwargs = {"batch": {"batch": count}, "concurrency": {"concurrency": count}, "max": {"saturate": True}}[regime]
    r = throughput(model, dep, eff, scheme, t_in, t_out, **kwargs)
    values = [r.output_tokens_per_s, r.tpot_s, r.ttft_s, r.batch, r.arithmetic_intensity_flop_per_byte]
    assert not any(math.isnan(v) for v in values)
    assert all(v >= 0 for v in values)
    assert r.max_batch_kv >= 0
    if r.feasible:
        assert r.reason == ""
        assert all(math.isfinite(v) for v in values)
        assert r.output_tokens_per_s > 0
    else:
        assert r.reason
        assert r.output_tokens_per_s == 0.0
