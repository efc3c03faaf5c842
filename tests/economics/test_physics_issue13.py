"""Golden values for the issue-13 physics: MLA attention, sliding windows, grouped-GEMM efficiency, expert
all-to-all, low-precision efficiency and engines. Expected values are derived by hand in the comments."""

from __future__ import annotations

import numpy as np
import pytest

from economics.engines import engine_id_for, load_engines
from economics.hardware import Deployment, Efficiency
from economics.io.catalog import load_catalog
from economics.roofline import expert_all_to_all_s, forward_time, grouped_gemm_efficiency, moe_expert_overhead_flops


def test_mla_attention_flops_and_latent_kv_bytes() -> None:
    # DeepSeek-V3 (config.json): 61 layers, 128 heads, kv_lora_rank 512, qk_rope_head_dim 64.
    # Absorbed MLA per layer per cached key: 2·128·(512+64) (scores) + 2·128·512 (values) = 147456 + 131072
    # = 278528 FLOP; over 61 layers 16,990,208 FLOP. The GQA-equivalent shape would give 4·61·128·101 =
    # 3,154,432 (5.4× less). Latent KV: 61·(512+64) = 35136 elements, 35136 B in FP8.
    m = load_catalog().models["deepseek-v3"]
    assert m.attention_flops_per_pair_per_layer == 278528.0
    assert float(m.attended_layer_keys(1.0)) * m.attention_flops_per_pair_per_layer == 16_990_208.0
    assert m.at_precision("fp8").kv_bytes_per_token == 35136.0


def test_sliding_window_layers_cap_attended_keys() -> None:
    # gpt-oss-120b: 36 layers, 18 of them with a 128-token window. At 10,000 cached tokens a query attends to
    # 18·10000 + 18·128 = 182,304 keys over all layers (not 36·10000 = 360,000); at 100 tokens, 36·100 = 3600.
    m = load_catalog().models["gpt-oss-120b"]
    assert float(m.attended_layer_keys(10_000.0)) == 182_304.0
    assert float(m.attended_layer_keys(100.0)) == 3600.0
    # windowed layers' cache: 18·2·8·64·1 B·128 tokens = 2,359,296 B per sequence (FP8), whatever the context
    assert float(m.at_precision("fp8").sliding_kv_bytes(50_000.0)) == 2_359_296.0


def test_grouped_gemm_efficiency_limits() -> None:
    # η(t) = t/(t+t½): half at t½, → 1 for t ≫ t½, ≈ t/t½ for t ≪ t½, and 1 everywhere for the ideal t½ = 0.
    eta = grouped_gemm_efficiency([256.0, 1e12, 1.0], 256.0)
    assert eta[0] == 0.5
    assert eta[1] == pytest.approx(1.0, abs=1e-9)
    assert eta[2] == pytest.approx(1.0 / 257.0)
    assert grouped_gemm_efficiency([3.0], 0.0).tolist() == [1.0]


def test_expert_overhead_is_the_grouped_gemm_efficiency_when_all_experts_are_touched() -> None:
    # Mixtral 8x7B: E = 8, k = 2. With 1e6 tokens every expert is touched (U = 8), t = 2·1e6/8 = 250,000 tokens
    # per expert; routed FLOPs 2·32·P_e·k·n, waste 2·32·P_e·t½·8, i.e. routed·t½/t = routed·256/250000.
    c = load_catalog()
    m = c.models["mixtral-8x7b"]
    dep = Deployment(gpu=c.gpus["h100-sxm"], n_gpus=1)
    eff = Efficiency(moe_gemm_half_tokens=256.0)
    n = 1e6
    routed = 2 * 32 * m.params_per_expert * 2 * n
    extra = float(moe_expert_overhead_flops(m, dep, eff, n))
    assert extra == pytest.approx(routed * 256 / 250_000, rel=1e-9)
    # dense models pay nothing
    assert float(moe_expert_overhead_flops(c.models["llama-3.1-8b"], dep, eff, n)) == 0.0


def test_expert_parallel_all_to_all_by_hand() -> None:
    # DeepSeek-V3 in FP8 (BF16 activations), DEP8 on H200 (450 GB/s per GPU, one direction), 1024 tokens:
    # 2·58·8·7168·2 B·1024·(7/8) / (8·450e9) = 11.92e9 B / 3.6e12 B/s = 3.31e-3 s.
    c = load_catalog()
    dep = Deployment(gpu=c.gpus["h200-sxm"], n_gpus=8, precision="fp8", expert_parallel=True)
    m = c.models["deepseek-v3"].at_precision("fp8")
    expected = 2 * 58 * 8 * 7168 * 2 * 1024 * 7 / 8 / (8 * 450e9)
    assert float(expert_all_to_all_s(m, dep, 1024)) == pytest.approx(expected, rel=1e-9)
    assert float(expert_all_to_all_s(m, dep.model_copy(update={"expert_parallel": False}), 1024)) == 0.0


def test_fp8_compute_runs_at_its_efficiency() -> None:
    # A compute-bound prefill of 8192 tokens of Llama-3.1-8B in FP8 on an H100: the linear time is
    # flops / (1979e12 · mfu_prefill · fp8_eff). Halving fp8_compute_efficiency doubles it.
    c = load_catalog()
    m = c.models["llama-3.1-8b"].at_precision("fp8")
    dep = Deployment(gpu=c.gpus["h100-sxm"], precision="fp8")
    a = forward_time(m, dep, Efficiency(fp8_compute_efficiency=0.8), 1, 8192, prefill=True)
    b = forward_time(m, dep, Efficiency(fp8_compute_efficiency=0.4), 1, 8192, prefill=True)
    assert bool(a.linear_compute_bound)
    assert float(b.linear_s) == pytest.approx(2 * float(a.linear_s), rel=1e-9)
    expected = 8192 * m.flops_linear_per_token / (1979e12 * 0.45 * 0.8)
    assert float(a.linear_s) == pytest.approx(expected, rel=1e-9)


def test_engines_are_data_with_sources() -> None:
    engines = load_engines()
    assert {"tensorrt-llm", "vllm", "sglang", "llama.cpp"} <= set(engines)
    assert all(e.source and e.as_of for e in engines.values())
    # llama.cpp (engines.csv, changed on purpose with the bandwidth cap): 32 layers · 0.05 ms = 1.6 ms per token on
    # top of τ0 = 0.5 ms, and MBU 0.85 where the 1.1 TB/s cap is not binding (no GPU given, or an RTX 4090).
    eff = engines["llama.cpp"].efficiency(Efficiency(), 32)
    assert (eff.mbu, round(eff.step_overhead_s, 6)) == (0.85, 0.0021)
    assert engines["llama.cpp"].efficiency(Efficiency(), 32, 1.008e12).mbu == 0.85
    # On an A100 SXM (2.039 TB/s) the kernels reach 1.1 TB/s at most: MBU = 1.1/2.039 = 0.5395.
    assert engines["llama.cpp"].efficiency(Efficiency(), 32, 2.039e12).mbu == pytest.approx(0.5395, abs=1e-4)
    # TensorRT-LLM's compiled kernels: MFU 0.55 in decode and prefill (default Efficiency 0.50 / 0.45).
    trt = engines["tensorrt-llm"].efficiency(Efficiency(), 80)
    assert (trt.mfu_decode, trt.mfu_prefill, trt.mbu) == (0.55, 0.55, 0.70)
    # A serving engine without those columns keeps the Efficiency it is given.
    assert engines["vllm"].efficiency(Efficiency(), 80) == Efficiency()
    assert engine_id_for("SGLang v0.5.8") == "sglang"


def test_new_fields_do_not_change_old_dumps() -> None:
    # Scenario files and share links written before these fields keep their bytes (fields at default dropped).
    assert "moe_gemm_half_tokens" not in Efficiency().model_dump()
    assert Efficiency(moe_gemm_half_tokens=10.0).model_dump()["moe_gemm_half_tokens"] == 10.0
    assert np.isclose(Efficiency.model_validate(Efficiency().model_dump()).moe_gemm_half_tokens, 256.0)


def test_rows_of_unstated_basis_are_excluded_with_the_fold() -> None:
    # measured_throughput_2026-12.csv row 84: DeepSeek-R1 on 8×H200, 3200 in / 800 out, "Basis NOT stated (output vs
    # total tokens)". Output-only and output + input readings differ by (3200 + 800)/800 = 5.
    import csv

    from economics.calibration import Exclusion
    from economics.calibration_report import DATA
    from economics.calibration_rows import map_measured_row

    with (DATA / "measured_throughput_2026-12.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    out = map_measured_row(84, rows[84])
    assert isinstance(out, Exclusion)
    assert "basis not stated" in out.reason
    assert "5-fold" in out.reason


def test_attention_runs_in_bf16_whatever_the_weights() -> None:
    # A 16k-token prefill of Llama-3.1-8B on one B200 is attention-compute-bound. FP8 and FP4 deployments both keep
    # an FP8 KV cache (same bytes), and attention multiplies activations by that cache in BF16, so the attention
    # term is the same for both; only the linear layers speed up with FP4.
    c = load_catalog()
    m8, m4 = (c.models["llama-3.1-8b"].at_precision(p) for p in ("fp8", "fp4"))
    d8, d4 = (Deployment(gpu=c.gpus["b200"], n_gpus=1, precision=p) for p in ("fp8", "fp4"))
    p8 = forward_time(m8, d8, Efficiency(), 1, 16384, 0, prefill=True)
    p4 = forward_time(m4, d4, Efficiency(), 1, 16384, 0, prefill=True)
    assert float(p4.attention_s) == pytest.approx(float(p8.attention_s), rel=1e-12)
    assert float(p4.linear_s) < float(p8.linear_s)
    # By hand: 32 layers · 16384·16385/2 causal pairs · 4·32·128 FLOP = 7.0369e13 FLOP at 0.45 · 2250e12 · 0.78/0.80
    # = 0.98719e15 FLOP/s -> 0.071283 s.
    assert float(p8.attention_s) == pytest.approx(0.071283, rel=1e-3)


def test_a_pass_takes_at_least_the_layer_floor() -> None:
    # Qwen3-235B-A22B in BF16 on 8×B200, batch 1: each GPU reads ~5.5 GB of weights per step (~1 ms), less than the
    # 94 layers' chain of dependent kernels, 94 · 0.04 ms = 3.76 ms. By hand, the step is that floor plus the
    # 2·94 all-reduces of 10 µs + 2·(7/8)·(4096·2 B + n½ 4e6 B) / 900e9 B/s = 17.794 µs (3.345 ms) plus τ0 = 0.5 ms:
    # 7.605 ms. (Measured: 145 tok/s = 6.9 ms, SGLang cookbook; without the floor the model said 3.38 ms, and
    # without n½ 6.143 ms.)
    c = load_catalog()
    dep = Deployment(gpu=c.gpus["b200"], n_gpus=8, precision="bf16")
    p = forward_time(c.models["qwen3-235b-a22b"].at_precision("bf16"), dep, Efficiency(), 1, 1, 1536)
    assert float(p.linear_s + p.attention_s) < 94 * 0.04e-3
    assert float(p.time_s) == pytest.approx(7.605e-3, rel=1e-3)
    # The ideal roofline has no floor, and a large dense step is far above it (8B, 32 layers: 1.28 ms floor).
    assert Efficiency.ideal().layer_floor_s == 0.0
    big = forward_time(c.models["llama-3.1-8b"], Deployment(gpu=c.gpus["h100-sxm"]), Efficiency(), 1, 1, 0)
    assert float(big.linear_s) > 32 * 0.04e-3


def test_a_burst_runs_in_waves() -> None:
    # 320 requests sent at once to an engine that runs at most 256: one wave of 256, then one of 64, each taking
    # w·T_out/X(w) with X the closed-loop throughput at w clients (economics.throughput, not under test here).
    from economics.calibration import CalibrationCase, burst_throughput, replica
    from economics.schemes import ARScheme
    from economics.throughput import closed_loop

    c = load_catalog()
    case = CalibrationCase(row=0, label="x", model_id="llama-3.1-8b", gpu_id="h100-sxm", gpus=1, layer_split=False,
                           precision="fp8", weight_file_bytes=None, regime="concurrency", input_tokens=230,
                           output_tokens=200, reserve_output=False, framework="vLLM", measured_tokens_per_s=1.0,
                           concurrency=320.0, max_batch=256, burst=True)  # fmt: skip
    model, dep = replica(case, c.gpus, c.models)
    eff = Efficiency()
    x = closed_loop(model, dep, eff, ARScheme(), np.array([256.0, 64.0]), 230, 200).output_tokens_per_s
    expected = 320 * 200 / (256 * 200 / x[0] + 64 * 200 / x[1])
    assert burst_throughput(model, dep, eff, case) == pytest.approx(expected, rel=1e-9)
    assert burst_throughput(model, dep, eff, case) < x[0]  # below the closed loop held at 256
    # A burst that fits in one wave is that wave.
    small = case.model_copy(update={"concurrency": 100.0})
    one = closed_loop(model, dep, eff, ARScheme(), 100.0, 230, 200).output_tokens_per_s
    assert burst_throughput(model, dep, eff, small) == pytest.approx(float(one), rel=1e-9)


def test_rocm_engines_carry_their_layer_floor() -> None:
    # engines.csv: ATOM 0.16 ms and SGLang + AITER 0.2 ms per layer, read from the ROCm blog's concurrency-2 rows
    # (ATOM: (11.3 − 1.22 − 0.5) ms / 61 layers = 0.157 ms). Other engines keep the Efficiency's 0.04 ms.
    engines = load_engines()
    assert engine_id_for("ATOM (AITER kernels), rocm/atom-dev") == "atom"
    assert engine_id_for("SGLang + AITER") == "sglang-rocm"
    assert engines["atom"].efficiency(Efficiency(), 61).layer_floor_s == pytest.approx(0.16e-3)
    assert engines["sglang-rocm"].efficiency(Efficiency(), 61).layer_floor_s == pytest.approx(0.2e-3)
    assert engines["sglang"].efficiency(Efficiency(), 61).layer_floor_s == pytest.approx(0.04e-3)


def test_a_variable_length_burst_pays_for_its_tail() -> None:
    # By hand: requests of 100 and 300 tokens, both running (b = 2), 20 ms per iteration at batch 2 and 18 ms at
    # batch 1, no prefill: 100 steps × 20 ms + 200 steps × 18 ms = 5.6 s; with a 5 ms prefill per admitted request
    # (both at the start) 5.61 s. A third request queued behind a cap of 1: 100 + 300 + 200 tokens one after the
    # other at 18 ms = 10.8 s.
    from economics.calibration import burst_makespan_s, exponential_lengths

    step = np.array([0.018, 0.020])
    assert burst_makespan_s(np.array([100.0, 300.0]), 2, step, 0.0) == pytest.approx(5.6)
    assert burst_makespan_s(np.array([100.0, 300.0]), 2, step, 0.005) == pytest.approx(5.61)
    assert burst_makespan_s(np.array([100.0, 300.0, 200.0]), 1, step, 0.0) == pytest.approx(10.8)
    # Exponential spread: mean kept, longest = m·ln(2n)·(m/mean before rescale) ≫ m, the cut applies.
    x = exponential_lengths(200.0, 320, 1e9)
    assert float(x.mean()) == pytest.approx(200.0)
    assert float(x.max()) > 5 * 200.0  # −200·ln(1/640) = 1293 tokens before the ~1% rescale
    assert float(exponential_lengths(200.0, 320, 1818.0).max()) <= 1818.0 * 1.01


def test_a_sharegpt_burst_is_slower_than_equal_lengths() -> None:
    # The same 320-request burst: variable lengths leave a tail of long requests decoding at small batch, so the
    # rate is below the equal-length waves (economics.calibration.burst_throughput).
    from economics.calibration import CalibrationCase, burst_throughput, replica, variable_burst_throughput

    c = load_catalog()
    case = CalibrationCase(row=0, label="x", model_id="llama-3.1-8b", gpu_id="h100-sxm", gpus=1, layer_split=False,
                           precision="fp8", weight_file_bytes=None, regime="concurrency", input_tokens=230,
                           output_tokens=200, reserve_output=False, framework="vLLM", measured_tokens_per_s=1.0,
                           concurrency=320.0, max_batch=256, burst=True, variable_lengths=True)  # fmt: skip
    model, dep = replica(case, c.gpus, c.models)
    eff = Efficiency()
    equal, variable = burst_throughput(model, dep, eff, case), variable_burst_throughput(model, dep, eff, case)
    assert 0.4 * equal < variable < equal


def test_the_split_by_source_check_partitions_the_rows() -> None:
    # Every predicted row is either held out (its source set no parameter) or not; the source groups cover all rows.
    from economics.calibration_report import PARAMETER_SOURCES, calibration_report, held_out_split

    table = calibration_report().table
    split = held_out_split(table)
    totals = split[split["dimension"] == "all"].set_index("split")["n"]
    assert int(totals["held out"]) + int(totals["informed a parameter"]) == len(table)
    assert int(split[split["dimension"] == "source_group"]["n"].sum()) == len(table)
    used = table["source"].apply(lambda s: any(p in s for p in PARAMETER_SOURCES))
    assert int(totals["held out"]) == int((~used).sum()) > 0


@pytest.mark.parametrize(("gpu", "precision"), [("h100-sxm", "fp8"), ("mi300x", "fp8"), ("b200", "fp4")])
def test_the_closed_form_capacity_uses_the_roofline_compute_rate(gpu: str, precision: str) -> None:
    # The serving layer's closed form (economics.serving.affine.forward_term) once priced the matmuls at raw peak
    # × MFU, ignoring the GPU's best-GEMM share (MI300X 0.51 vs H100's 0.80 reference) and the FP8/FP4 factors
    # (0.89/0.60) that forward_time applies: its capacity was 7% (H100 FP8), 41% (MI300X FP8) and 27% (B200 FP4)
    # above the bisection on forward_time. One compute-rate function now serves both, so they agree exactly.
    from economics.schemes import ARScheme
    from economics.serving import slo_capacity

    c = load_catalog()
    dep = Deployment(gpu=c.gpus[gpu], n_gpus=8, precision=precision)
    model = c.models["llama-3.1-70b"].at_precision(precision)
    args = (model, dep, Efficiency(), ARScheme(), 2000, 500)
    closed = slo_capacity(*args, method="closed_form", tpot_max_s=0.05, ttft_max_s=2.0)
    bisected = slo_capacity(*args, method="bisect", tpot_max_s=0.05, ttft_max_s=2.0)
    assert float(closed.max_arrival_rate_per_s) == pytest.approx(float(bisected.max_arrival_rate_per_s), rel=1e-6)


def test_linear_flops_per_s_by_hand() -> None:
    # MI300X FP8: 2614.9e12 FLOP/s dense FP8 peak (gpus.csv) · (MAMF 0.51 / 0.80) · 0.89 · MFU 0.5 per GPU.
    from economics.roofline import linear_flops_per_s

    gpu = load_catalog().gpus["mi300x"]
    expected = gpu.peak_flops_fp8_per_s * gpu.max_matmul_fraction / 0.80 * 0.89 * 0.5
    dep = Deployment(gpu=gpu, n_gpus=1, precision="fp8")
    assert linear_flops_per_s(dep, Efficiency(), 0.5) == pytest.approx(expected, rel=1e-12)


def test_fp8_matmuls_scale_by_the_measured_fp8_best_gemm() -> None:
    # stas00 MAMF: H100 SXM 1402.6 of 1979 FP8 TFLOP/s (0.709, the reference), B200 3432.5 of 4500 (0.763).
    # B200 FP8 attainable = 4500e12 · 0.763/0.709 = 4842.7e12 FLOP/s per GPU (was 4500e12 · 0.78/0.80 = 4387.5e12 from
    # the BF16 fraction); the H100 is unchanged at its FP8 peak; an MI300X (no FP8 measurement) keeps 0.51/0.80.
    c = load_catalog()
    b200 = Deployment(gpu=c.gpus["b200"], n_gpus=1, precision="fp8")
    assert b200.attainable_flops_per_s == pytest.approx(4842.7e12, rel=1e-4)
    h100 = Deployment(gpu=c.gpus["h100-sxm"], n_gpus=1, precision="fp8")
    assert h100.attainable_flops_per_s == pytest.approx(1979e12, rel=1e-3)
    mi300x = Deployment(gpu=c.gpus["mi300x"], n_gpus=1, precision="fp8")
    assert mi300x.attainable_flops_per_s == pytest.approx(2614.9e12 * 0.51 / 0.80, rel=1e-6)
    # BF16 and FP4 keep the BF16 fraction.
    assert Deployment(gpu=c.gpus["b200"], n_gpus=1, precision="bf16").attainable_flops_per_s == pytest.approx(
        2250e12 * 0.78 / 0.80, rel=1e-6
    )


def test_fp4_matmuls_run_at_the_fused_quantisation_gemm_rate() -> None:
    # docs/calibration.md#fp4-gemm-efficiency: vLLM PR #20646 on B200, NVFP4 GEMM without the activation quantisation
    # 3904 of 9000 TFLOP/s = 0.4338 of peak; BF16 1421 of 2250 = 0.6316 (its best) -> 0.4338/0.6316 = 0.687 -> 0.69.
    # By hand at MFU 0.5: B200 9000e12 · (0.78/0.80) · 0.69 · 0.5 = 3.02737e15 FLOP/s; MI355X (no measured best GEMM,
    # so 0.80/0.80) 10066.3e12 · 0.69 · 0.5 = 3.47287e15 FLOP/s.
    from economics.roofline import linear_flops_per_s

    c = load_catalog()
    assert Efficiency().fp4_compute_efficiency == pytest.approx(3904.0 / 9000.0 / (1421.0 / 2250.0), abs=0.005)
    b200 = Deployment(gpu=c.gpus["b200"], n_gpus=1, precision="fp4")
    mi355x = Deployment(gpu=c.gpus["mi355x"], n_gpus=1, precision="fp4")
    assert linear_flops_per_s(b200, Efficiency(), 0.5) == pytest.approx(3.02737e15, rel=1e-5)
    assert linear_flops_per_s(mi355x, Efficiency(), 0.5) == pytest.approx(3.47287e15, rel=1e-5)
    # A GPU without FP4 units (H100) computes FP4 weights in FP8: the FP4 factor does not apply there.
    h100 = Deployment(gpu=c.gpus["h100-sxm"], n_gpus=1, precision="fp4")
    assert linear_flops_per_s(h100, Efficiency(), 0.5) == pytest.approx(1979e12 * 0.89 * 0.5, rel=1e-9)


def test_weights_narrower_than_the_compute_format_slow_the_gemm() -> None:
    # docs/calibration.md#mixed-input-gemm-efficiency. By hand, one H100 in BF16 at MFU 0.5: BF16 weights
    # 989.4e12 · (0.80/0.80) · 0.5 = 494.7e12 FLOP/s; 4-bit weights widened in the GEMM (0.5 B < 2 B) get 0.60 of it,
    # 296.82e12 FLOP/s. FP8 weights on FP8 compute are not mixed-input; FP4 weights on an H100 (FP8 compute) are.
    from economics.roofline import linear_flops_per_s

    c = load_catalog()
    bf16 = Deployment(gpu=c.gpus["h100-sxm"], n_gpus=1, precision="bf16")
    assert linear_flops_per_s(bf16, Efficiency(), 0.5, 2.0) == pytest.approx(494.7e12, rel=1e-9)
    assert linear_flops_per_s(bf16, Efficiency(), 0.5, 0.5) == pytest.approx(296.82e12, rel=1e-9)
    fp8 = Deployment(gpu=c.gpus["h100-sxm"], n_gpus=1, precision="fp8")
    assert linear_flops_per_s(fp8, Efficiency(), 0.5, 1.0) == pytest.approx(1979e12 * 0.89 * 0.5, rel=1e-9)
    fp4_on_h100 = Deployment(gpu=c.gpus["h100-sxm"], n_gpus=1, precision="fp4")
    assert linear_flops_per_s(fp4_on_h100, Efficiency(), 0.5, 0.5) == pytest.approx(
        1979e12 * 0.89 * 0.60 * 0.5, rel=1e-9
    )
    # The ideal roofline has no such loss, and a memory-bound decode step does not change: batch 1 of Llama-3.1-8B
    # at 4 bits reads 4.0e9 B of weights, whatever the compute rate.
    assert Efficiency.ideal().mixed_input_gemm_efficiency == 1.0
    m4 = c.models["llama-3.1-8b"].at_precision("bf16").model_copy(update={"bytes_per_weight": 0.5})
    slow = forward_time(m4, bf16, Efficiency(), 1, 1, 100)
    fast = forward_time(m4, bf16, Efficiency(mixed_input_gemm_efficiency=1.0), 1, 1, 100)
    assert float(slow.time_s) == pytest.approx(float(fast.time_s), rel=1e-12)
    # ... while a 4096-token prefill (compute-bound) takes longer by the linear layers' 1/0.6.
    p_slow = forward_time(m4, bf16, Efficiency(), 1, 4096, 0, prefill=True)
    p_fast = forward_time(m4, bf16, Efficiency(mixed_input_gemm_efficiency=1.0), 1, 4096, 0, prefill=True)
    assert float(p_slow.linear_s) == pytest.approx(float(p_fast.linear_s) / 0.6, rel=1e-9)


def test_mla_prefill_runs_the_decompressed_attention() -> None:
    # docs/calibration.md#mla-prefill-attention. DeepSeek-V3 (config.json: 128 heads, kv_lora_rank 512,
    # qk_rope_head_dim 64, qk_nope_head_dim 128, v_head_dim 128): decode 2·128·(512+64) + 2·128·512 = 278,528 FLOP
    # per pair per layer, prefill 2·128·(128+64) + 2·128·128 = 81,920. GQA models keep one figure for both.
    c = load_catalog()
    ds = c.models["deepseek-v3"]
    assert ds.attention_flops_per_pair_per_layer == 278_528.0
    assert ds.prefill_attention_flops_per_pair_per_layer == 81_920.0
    llama = c.models["llama-3.1-8b"]
    assert llama.prefill_attention_flops_per_pair_per_layer == llama.attention_flops_per_pair_per_layer == 4 * 32 * 128
    # A 4096-token prompt on 8×H200: 4096·4097/2 causal pairs · 61 layers · 81,920 FLOP = 4.1928e13 FLOP at
    # 8 · 989.4e12 · (0.80/0.80) · 0.45 = 3.5618e15 FLOP/s -> 11.771 ms of attention compute.
    dep = Deployment(gpu=c.gpus["h200-sxm"], n_gpus=8, precision="fp8")
    p = forward_time(ds.at_precision("fp8"), dep, Efficiency(), 1, 4096, 0, prefill=True)
    assert float(p.attention_s) == pytest.approx(4096 * 4097 / 2 * 61 * 81_920 / (8 * 989.4e12 * 0.45), rel=1e-9)
    assert float(p.attention_s) == pytest.approx(0.011771, rel=1e-3)
    # Decode keeps the absorbed form: one token over 4096 cached keys costs 61 · 4096 · 278,528 FLOP (plus itself).
    d = forward_time(ds.at_precision("fp8"), dep, Efficiency(), 1, 1, 4096)
    assert float(d.flops) > 61 * 4096 * 278_528
