"""Benchmark-file importers (tests/data/benchmarks fixtures), the calibration fit and the error bands."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from economics.bands import throughput_band
from economics.calibration import CalibrationCase, predict_case
from economics.calibration_fit import fit_profile
from economics.hardware import Efficiency
from economics.io import MAX_FILE_BYTES, BenchmarkFormatError, BenchmarkPoint, RunContext, read_benchmark
from economics.io.benchmarks import catalog_gpus_for, catalog_model_for, check_named_model, match_catalog_models
from economics.io.catalog import load_catalog

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "benchmarks"
CTX = RunContext(model_id="llama-3.1-8b", gpu_id="h100-sxm", gpus=1, precision="fp8", engine="vllm")


def _read(name: str, ctx: RunContext | None = CTX) -> list[BenchmarkPoint]:
    return read_benchmark(name, (FIXTURES / name).read_bytes(), ctx)


def test_vllm_result_json() -> None:
    # completed 640, 655360 input and 163840 output tokens: 1024 in / 256 out per request; output_throughput.
    (p,) = _read("vllm_bench_serve.json")
    assert (p.input_tokens, p.output_tokens, p.concurrency, p.output_tokens_per_s) == (1024, 256, 64, 2677.1)
    assert (p.model_id, p.gpu_id, p.precision) == ("llama-3.1-8b", "h100-sxm", "fp8")


def test_sglang_jsonl_with_infinity_request_rate() -> None:
    (p,) = _read("sglang_bench_serving.jsonl")
    assert (p.input_tokens, p.output_tokens, p.concurrency, p.output_tokens_per_s) == (1024, 256, 16, 1342.9)
    assert "line 1" in p.source


def test_genai_perf_json_and_csv_agree() -> None:
    (j,) = _read("genai_perf_profile_export.json")
    (c,) = _read("genai_perf_profile_export.csv")
    assert (j.input_tokens, j.output_tokens, j.output_tokens_per_s, j.concurrency) == (2048, 256, 1817.6, 32)
    assert (c.input_tokens, c.output_tokens, c.output_tokens_per_s) == (2048, 256, 1817.6)
    # the CSV does not record the client count: requests in flight by Little's law, 7.10 req/s × 4.5072 s
    assert c.concurrency == pytest.approx(32.0, abs=0.01)


def test_aiperf_json_and_csv_from_the_documented_export() -> None:
    (j,) = _read("aiperf_profile_export.json")
    # no input_sequence_length block: total_isl 110000 over request_count 200; loadgen.concurrency 100
    assert (j.input_tokens, j.output_tokens, j.output_tokens_per_s, j.concurrency) == (550, 96.85, 1274.63, 100)
    (c,) = _read("aiperf_profile_export.csv")
    assert (c.input_tokens, c.output_tokens, c.output_tokens_per_s) == (550, 96.85, 1274.63)
    assert c.concurrency == pytest.approx(13.16 * 6.55036)  # Little's law: the telemetry section is not read


def test_aiperf_0_1_export_with_its_metrics_under_records() -> None:
    # the real file (tests/data/benchmarks/README.md): "records" → input_sequence_length avg 550,
    # output_sequence_length avg 242.97…, output_token_throughput avg 2320.72…; input_config.loadgen.concurrency
    # 100. It was refused with "key 'output_token_throughput': missing".
    (p,) = _read("aiperf_0.1_profile_export_aiperf.json")
    assert p.input_tokens == 550
    assert p.output_tokens == pytest.approx(242.97, abs=0.01)
    assert p.output_tokens_per_s == pytest.approx(2320.72, abs=0.01)
    assert p.concurrency == 100
    assert p.file_model == "openai/gpt-oss-20b"


def test_a_request_rate_run_is_read_at_its_requests_in_flight() -> None:
    # 4 req/s Poisson, no max_concurrency: 3.9 req/s completed × (80 ms + 255 × 20 ms) = 20.2 requests in flight
    (p,) = _read("vllm_bench_serve_rate.json")
    assert p.concurrency == pytest.approx(3.9 * 5.18)
    rec = json.loads((FIXTURES / "vllm_bench_serve_rate.json").read_text())
    rec["mean_e2el_ms"] = 5000.0  # vLLM writes it when e2el is among --percentile-metrics; it wins
    (q,) = read_benchmark("r.json", json.dumps(rec).encode(), CTX)
    assert q.concurrency == pytest.approx(3.9 * 5.0)
    # with --max-concurrency too, the rate still set the load (19.5 in flight) unless the limit bound first
    for limit, expected in ((64, 3.9 * 5.0), (8, 8)):
        (c,) = read_benchmark("r.json", json.dumps({**rec, "max_concurrency": limit}).encode(), CTX)
        assert c.concurrency == pytest.approx(expected)
    for key in ("mean_ttft_ms", "mean_e2el_ms"):
        rec.pop(key)
    with pytest.raises(BenchmarkFormatError, match=r"r.json: key 'request_rate': a run at 4 requests per second .*"
                       r"Little's law"):  # fmt: skip
        read_benchmark("r.json", json.dumps(rec).encode(), CTX)
    rec["request_rate"] = "inf"  # every request at once: the engine's own batch limit
    (s,) = read_benchmark("r.json", json.dumps(rec).encode(), CTX)
    assert s.concurrency is None


def test_llmperf_summary() -> None:
    (p,) = _read("llmperf_summary.json")
    assert (p.input_tokens, p.output_tokens, p.concurrency, p.output_tokens_per_s) == (550, 150, 5, 351.4)


def test_the_model_a_file_names_is_kept_and_matched_to_the_catalog() -> None:
    named = {n: _read(n)[0].file_model for n in ("vllm_bench_serve.json", "genai_perf_profile_export.json",
                                                  "aiperf_profile_export.json", "llmperf_summary.json",
                                                  "genai_perf_profile_export.csv")}  # fmt: skip
    assert named == {
        "vllm_bench_serve.json": "meta-llama/Llama-3.1-8B-Instruct",
        "genai_perf_profile_export.json": "meta-llama/Llama-3.1-8B-Instruct",  # input_config.model, a list
        "aiperf_profile_export.json": "openai/gpt-oss-20b",  # input_config.endpoint.model_names
        "llmperf_summary.json": "meta-llama/Llama-3.1-8B-Instruct",
        "genai_perf_profile_export.csv": "",  # the CSV export does not say
    }
    models = load_catalog().models
    # Hugging Face names as teams write them (organisation, tuning, format and version suffixes) → catalog ids
    cases = {
        "meta-llama/Meta-Llama-3.1-70B-Instruct": "llama-3.1-70b",
        "meta-llama/Llama-3.3-70B-Instruct": "llama-3.1-70b",  # the catalog's "also Llama 3.3 70B"
        "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic": "llama-3.1-8b",
        "mistralai/Mixtral-8x7B-Instruct-v0.1": "mixtral-8x7b",
        "meta-llama/Llama-2-70b-chat-hf": "llama-2-70b",
        "Qwen/Qwen3-235B-A22B-FP8": "qwen3-235b-a22b",
        "my-team/support-bot-v3": None,
        "": None,
    }
    assert {n: catalog_model_for(n, models) for n in cases} == cases
    (p,) = _read("aiperf_profile_export.json")  # read as Llama 3.1 8B, but the run was gpt-oss-20b
    with pytest.raises(BenchmarkFormatError, match=r"a.json: model: the file ran openai/gpt-oss-20b \(gpt-oss-20b in "
                       r"the catalog\), not Llama 3.1 8B: choose the file's model"):  # fmt: skip
        check_named_model("a.json", [p], models)
    check_named_model("v.json", _read("vllm_bench_serve.json"), models)  # the 8B it names: accepted
    unknown = p.model_copy(update={"file_model": "my-team/support-bot-v3"})
    check_named_model("u.json", [unknown], models)  # a name the catalog does not know is the reader's call


def test_gpu_names_as_people_and_nvidia_smi_write_them() -> None:
    gpus = load_catalog().gpus
    cases = {
        "h100-sxm": ["h100-sxm"],
        "H100 SXM": ["h100-sxm"],
        "NVIDIA H100 SXM5 80GB": ["h100-sxm"],
        "NVIDIA A100-SXM4-80GB": ["a100-sxm-80gb"],  # nvidia-smi
        "NVIDIA A100-SXM4-40GB": ["a100-sxm-40gb"],
        "A100 80 GB PCIe": ["a100-pcie-80gb"],
        "AMD Instinct MI300X": ["mi300x"],
        "NVIDIA GeForce RTX 4090": ["rtx-4090"],
        "B200": ["b200"],  # not GB200
        "L4": ["l4"],  # not L40S
        "H100": ["h100-sxm", "h100-pcie", "h100-nvl"],  # three cards
        "NVIDIA H100 80GB HBM3": ["h100-sxm", "h100-pcie"],  # nvidia-smi's SXM name fits both 80 GB cards
        "TPU v5e": [],
        "NVIDIA": [],
    }
    assert {n: catalog_gpus_for(n, gpus) for n in cases} == cases
    header = b"model,gpu,gpu_count,precision,input_tokens,output_tokens,concurrency,output_tokens_per_s\n"
    models = load_catalog().models
    rows = read_benchmark("p.csv", header + b"llama-3.1-8b,NVIDIA H100 SXM5 80GB,1,fp8,100,100,1,150\n", None)
    assert [p.gpu_id for p in match_catalog_models("p.csv", rows, models, gpus)] == ["h100-sxm"]
    for gpu, message in (
        ("H100", r"p.csv: line 2: GPU 'H100' could be h100-sxm, h100-pcie, h100-nvl: write one"),
        ("TPU v5e", r"p.csv: line 2: GPU 'TPU v5e' is not in the catalog \(its ids: h100-sxm, "),
    ):
        rows = read_benchmark("p.csv", header + f"llama-3.1-8b,{gpu},1,fp8,100,100,1,150\n".encode(), None)
        with pytest.raises(BenchmarkFormatError, match=message):
            match_catalog_models("p.csv", rows, models, gpus)


def test_vllm_results_across_versions() -> None:
    # vllm bench serve --save-detailed (2025): 32 prompts × 512 in / 64 out = 16384 / 2048 tokens, 2048 / 3.2 s;
    # the per-request arrays (ttfts, itls, input_lens, …), percentiles and peak keys are not in the way
    (d,) = _read("vllm_bench_serve_detailed.json")
    assert (d.input_tokens, d.output_tokens, d.concurrency, d.output_tokens_per_s) == (512, 64, 8, 640)
    # benchmark_serving.py v0.4 at --request-rate 8: no max_concurrency and no e2el, so 1.6 req/s × (40 ms +
    # 99 × 10 ms) in flight; 1000 / 400 tokens over 4 requests
    (o,) = _read("vllm_benchmark_serving_v0.4_rate.json")
    assert (o.input_tokens, o.output_tokens, o.output_tokens_per_s) == (250, 100, 160)
    assert o.concurrency == pytest.approx(1.6 * 1.030)
    # --append-result: one JSON object per run, one per line, in the .json file vLLM names: a point per run
    data = (FIXTURES / "vllm_bench_serve_append.jsonl").read_bytes()
    runs = read_benchmark("vllm-infqps-Qwen3-8B.json", data, CTX)
    assert [(r.concurrency, r.output_tokens_per_s) for r in runs] == [(1, 25600 / 40.1), (16, 25600 / 8.2)]
    assert [r.source for r in runs] == ["vllm-infqps-Qwen3-8B.json line 1", "vllm-infqps-Qwen3-8B.json line 2"]


def test_a_max_concurrency_above_the_prompt_count_is_read_at_the_prompt_count() -> None:
    rec = json.loads((FIXTURES / "vllm_bench_serve.json").read_text())
    (p,) = read_benchmark("v.json", json.dumps({**rec, "num_prompts": 16, "completed": 16}).encode(), CTX)
    assert p.concurrency == 16  # --max-concurrency 64 with 16 prompts never had more than 16 in flight
    # a burst is read at its mean in flight: 4 requests per second × 2.5 s = 10 of the 16 prompts
    burst = {**rec, "num_prompts": 16, "completed": 16, "request_throughput": 4.0, "mean_e2el_ms": 2500.0}
    (q,) = read_benchmark("v.json", json.dumps(burst).encode(), CTX)
    assert q.concurrency == pytest.approx(10.0)
    # as many prompts as the limit: a burst too (64 requests per second × 0.5 s = 32 of 64)
    (r,) = read_benchmark("v.json", json.dumps({**burst, "num_prompts": 64, "completed": 64, "request_throughput": 64.0,
                                                 "mean_e2el_ms": 500.0}).encode(), CTX)  # fmt: skip
    assert r.concurrency == pytest.approx(32.0)
    # one prompt more than the limit: the limit bound, the run is read at it
    (t,) = read_benchmark("v.json", json.dumps({**burst, "num_prompts": 65, "completed": 65}).encode(), CTX)
    assert t.concurrency == 64


def test_sglang_0_5_lines_a_burst_and_the_model_in_server_info() -> None:
    # 200 prompts at max_concurrency 200 (SGLang writes no num_prompts: the completed ones): 200 / 8 s = 25 req/s
    # × 2.7 s = 67.5 in flight, not 200; 640 prompts at 32: the limit held, 32; 100 prompts at 128: 100 / 10 s ×
    # 9 s = 90, not 128 (nor 100)
    burst, steady, few = _read("sglang_bench_serving_v0.5.jsonl")
    assert (burst.input_tokens, burst.output_tokens, burst.output_tokens_per_s) == (320, 215, 215 * 200 / 8)
    assert burst.concurrency == pytest.approx(67.5)
    assert (steady.concurrency, steady.output_tokens_per_s) == (32, 128 * 640 / 40)
    assert few.concurrency == pytest.approx(90.0)
    # the model is named only in server_info.internal_states[0].model_path
    assert {p.file_model for p in (burst, steady, few)} == {"Qwen/Qwen2.5-3B-Instruct"}


def test_vllm_bench_sweep_summary_gives_a_point_per_run() -> None:
    # a list of two run summaries, 64 prompts × 512 in / 128 out each: at max_concurrency 8 (the limit bound),
    # 64 × 128 / 8 s; then 64 prompts at 64, a burst: 32 req/s × 1.5 s = 48 in flight
    one, two = _read("vllm_bench_sweep_summary.json")
    assert (one.input_tokens, one.output_tokens, one.concurrency, one.output_tokens_per_s) == (512, 128, 8, 1024)
    assert (two.concurrency, two.output_tokens_per_s) == (pytest.approx(48.0), 4096)
    assert [p.source for p in (one, two)] == [f"vllm_bench_sweep_summary.json run {i}" for i in (1, 2)]
    assert one.file_model == "meta-llama/Llama-3.1-8B-Instruct"
    with pytest.raises(BenchmarkFormatError, match=r"^s.json: run 2: expected a JSON object"):
        read_benchmark("s.json", b'[{"completed": 1, "total_input_tokens": 1, "total_output_tokens": 1, '
                       b'"output_throughput": 1}, 7]', CTX)  # fmt: skip


def test_llmperf_summaries_gathered_by_client_count() -> None:
    one, eight = _read("llmperf_by_concurrency_results.json")
    assert (one.input_tokens, one.output_tokens, one.concurrency, one.output_tokens_per_s) == (603, 174.5, 1, 30.5)
    assert (eight.concurrency, eight.output_tokens_per_s) == (8, 187.5)
    assert eight.source == "llmperf_by_concurrency_results.json key '8'"


def test_sglang_2024_lines_without_request_throughput() -> None:
    # the 2024 bench_serving wrote no request_throughput: 200 completed / 50 s = 4 req/s × 6.0 s mean e2e = 24
    rate, burst = _read("sglang_bench_serving_2024.jsonl")
    assert (rate.input_tokens, rate.output_tokens, rate.output_tokens_per_s) == (1024, 256, 1024)
    assert rate.concurrency == pytest.approx(24.0)
    assert (burst.concurrency, burst.output_tokens_per_s) == (None, 2560)  # request_rate Infinity: all at once


def test_genai_perf_2024_csv_in_nanoseconds_and_current_exports() -> None:
    # early GenAI-Perf: latencies in ns, "Num Output Token" rows, "(per sec)" throughputs, thousands separators:
    # 1.62 req/s × 2,468,158,071 ns = 1.62 × 2.468158071 s in flight (read as ms, it would be 10⁶ times more)
    (old,) = _read("genai_perf_2024_profile_export.csv")
    assert (old.input_tokens, old.output_tokens, old.output_tokens_per_s) == (200, 132, 213.84)
    assert old.concurrency == pytest.approx(1.62 * 2.468158071)
    # GenAI-Perf ≥ 0.0.11 (its config file, 2025): input_config.model_names and perf_analyzer.stimulus; the
    # CSV with p1…p99 columns and CRLF rows
    (j,) = _read("genai_perf_2025_profile_export_genai_perf.json")
    assert (j.input_tokens, j.output_tokens, j.output_tokens_per_s, j.concurrency) == (1999.6, 253.4, 876.96, 16)
    assert j.file_model == "meta-llama/Llama-3.1-70B-Instruct"
    (c,) = _read("genai_perf_2025_profile_export_genai_perf.csv")
    assert (c.input_tokens, c.output_tokens, c.output_tokens_per_s) == (1999.6, 253.4, 876.96)
    assert c.concurrency == pytest.approx(3.46 * 4.6123)


def test_export_units_are_read_not_assumed() -> None:
    rec = json.loads((FIXTURES / "genai_perf_profile_export.json").read_text())
    rec["input_config"] = {}  # no concurrency: read by Little's law from the latency, in its unit
    rec["request_latency"] = {"unit": "ns", "avg": 4507.2e6}
    (p,) = read_benchmark("g.json", json.dumps(rec).encode(), CTX)
    assert p.concurrency == pytest.approx(7.1 * 4.5072)
    for key, block, message in (
        ("request_latency", {"unit": "fortnights", "avg": 1.0}, "g.json: key 'request_latency': unknown time unit"),
        (
            "output_token_throughput",
            {"unit": "requests/sec", "avg": 7.1},
            "g.json: key 'output_token_throughput': unit 'requests/sec' is not output tokens per second",
        ),
    ):
        with pytest.raises(BenchmarkFormatError) as info:
            read_benchmark("g.json", json.dumps({**rec, key: block}).encode(), CTX)
        assert str(info.value).startswith(message)
    csv_text = (FIXTURES / "genai_perf_profile_export.csv").read_text()
    bad = csv_text.replace("Output Token Throughput (tokens/sec)", "Output Token Throughput (requests/sec)")
    with pytest.raises(BenchmarkFormatError, match=r"g.csv: line 9: unit 'requests/sec' is not output tokens"):
        read_benchmark("g.csv", bad.encode(), CTX)
    secs = csv_text.replace("Request Latency (ms),4507.20", "Request Latency (sec),4.5072")
    (s,) = read_benchmark("g.csv", secs.encode(), CTX)
    assert s.concurrency == pytest.approx(7.1 * 4.5072)


def test_aiperf_request_rate_with_a_concurrency_cap() -> None:
    # AIPerf --request-rate 10 --concurrency N: the rate sets the load, the concurrency only caps it; in flight
    # 13.16 req/s × 6.55036 s = 86.2
    rec = json.loads((FIXTURES / "aiperf_profile_export.json").read_text())
    for cap, expected in ((100, 13.16 * 6.55036), (50, 50)):
        rec["input_config"]["loadgen"] = {"concurrency": cap, "request_rate": 10.0, "request_rate_mode": "poisson"}
        (p,) = read_benchmark("a.json", json.dumps(rec).encode(), CTX)
        assert p.concurrency == pytest.approx(expected)


def test_guidellm_report_gives_one_point_per_benchmark() -> None:
    # GuideLLM 0.3 sweep, the successful requests' means: synchronous is one request at a time; throughput (no
    # max_concurrency) and constant 10 req/s are read at their requests in flight, requests_per_second ×
    # request_latency (in s): 19.44 × 6.58 and 9.93 × 2.47 (GuideLLM's own request_concurrency: 127.9, 24.5)
    sync, burst, rate = points = _read("guidellm_benchmarks.json")
    assert (sync.input_tokens, sync.output_tokens, sync.concurrency, sync.output_tokens_per_s) == (512.4, 127.8, 1,
                                                                                                   98.6)  # fmt: skip
    assert (burst.input_tokens, burst.output_tokens, burst.output_tokens_per_s) == (512.2, 127.9, 2486.4)
    assert burst.concurrency == pytest.approx(19.44 * 6.58)
    assert (rate.input_tokens, rate.output_tokens, rate.output_tokens_per_s) == (512.3, 127.7, 1268.9)
    assert rate.concurrency == pytest.approx(9.93 * 2.47)
    assert [p.source for p in points] == [f"guidellm_benchmarks.json benchmark {i}" for i in (1, 2, 3)]
    assert {p.file_model for p in points} == {"meta-llama/Llama-3.1-8B-Instruct"}  # worker.backend_model
    # a max_concurrency caps the rate run only when it binds (24.5 in flight)
    rec = json.loads((FIXTURES / "guidellm_benchmarks.json").read_text())
    for cap, expected in ((16, 16), (64, 9.93 * 2.47)):
        rec["benchmarks"][2]["args"]["strategy"]["max_concurrency"] = cap
        third = read_benchmark("g.json", json.dumps(rec).encode(), CTX)[2]
        assert third.concurrency == pytest.approx(expected)
    # pretty-printed (jq .) rather than GuideLLM's one line: still a GuideLLM report
    assert len(read_benchmark("g.json", json.dumps(rec, indent=2).encode(), CTX)) == 3


def test_guidellm_0_7_report() -> None:
    # report schema version 2: strategy in config.strategy, counts in metrics.request_totals, the model in
    # config.backend.model; a concurrent profile at 4 and 16 streams
    four, sixteen = _read("guidellm_0.7_benchmarks.json")
    assert (four.input_tokens, four.output_tokens, four.concurrency, four.output_tokens_per_s) == (1024.6, 256, 4,
                                                                                                   341.2)  # fmt: skip
    assert (sixteen.input_tokens, sixteen.output_tokens, sixteen.concurrency, sixteen.output_tokens_per_s) == (
        1024.5, 255.8, 16, 1044.7)  # fmt: skip
    assert (four.file_model, sixteen.source) == ("Qwen/Qwen3-8B", "guidellm_0.7_benchmarks.json benchmark 2")
    rec = json.loads((FIXTURES / "guidellm_0.7_benchmarks.json").read_text())
    rec["benchmarks"][1]["config"]["strategy"] = {"type_": "poisson", "worker_count": None, "max_concurrency": None,
                                                  "rate": 4.0, "random_seed": 42}  # fmt: skip
    del rec["benchmarks"][1]["config"]["backend"]  # the model then from the report's config.spec.backend
    poisson = read_benchmark("g.json", json.dumps(rec).encode(), CTX)[1]
    assert poisson.concurrency == pytest.approx(4.08 * 3.9)
    assert poisson.file_model == "Qwen/Qwen3-8B"


def test_llmperf_reads_the_measured_token_counts() -> None:
    # asked for 256 ± 50 in / 100 ± 20 out (mean_input_tokens, mean_output_tokens); measured 259.78 / 99.44
    (p,) = _read("llmperf_tinyllama_256_100_summary.json")
    assert (p.input_tokens, p.output_tokens, p.concurrency) == (259.78, 99.44, 5)
    assert p.output_tokens_per_s == 335.40081105324157
    rec = json.loads((FIXTURES / "llmperf_tinyllama_256_100_summary.json").read_text())
    del rec["num_concurrent_requests"]  # not "all at once": in flight 202.37 req/min / 60 × 1.184 s
    (q,) = read_benchmark("l.json", json.dumps(rec).encode(), CTX)
    assert q.concurrency == pytest.approx(202.3737797988183 / 60 * 1.1840654935201018)


#: Files the tools really write that give no single operating point to fit (or are not a run's summary),
#: refused with the file to give instead.
NO_OPERATING_POINT = [
    ("r.json", b'{"completed": 10, "total_input_tokens": 100, "total_output_tokens": 50, "output_throughput": 5,'
     b' "request_rate": "inf", "ramp_up_strategy": "linear", "ramp_up_start_rps": 1, "ramp_up_end_rps": 20}',
     "r.json: key 'ramp_up_strategy': a linear ramp-up run (from 1 to 20 requests per second) has no single"),
    ("s.json", b'{"completed": 10, "total_input_tokens": 100, "total_output_tokens": 50, "output_throughput": 5,'
     b' "request_rate": "4"}', "s.json: key 'request_rate': expected a positive number or \"inf\", got '4'"),
    ("e.json", b'{"duration": 3.1, "completed": 100, "total_input_tokens": 51200, "total_input_sequences": 100, '
     b'"request_throughput": 32.2, "input_sequence_throughput": 32.2, "total_token_throughput": 16516.1}',
     "e.json: key 'output_throughput': missing: a pooling/embedding run generates no output tokens"),
    ("t.json", b'{"elapsed_time": 41.2, "num_requests": 1000, "total_num_tokens": 1280000, '
     b'"requests_per_second": 24.27, "tokens_per_second": 31067.9}',
     "t.json: key 'tokens_per_second': an offline benchmark_throughput result"),
    ("profile_export.jsonl", b'{"metadata": {"session_num": 0, "benchmark_phase": "profiling"}, "metrics": '
     b'{"request_latency": {"value": 297.5, "unit": "ms"}}, "error": null}\n',
     "profile_export.jsonl: line 1: AIPerf per-request records (profile_export.jsonl), not the run's summary"),
    ("profile_export.json", b'{"experiments": [{"experiment": {"mode": "concurrency", "value": 8}, "requests": '
     b'[]}], "version": "2.45.0", "service_kind": "openai", "endpoint": "v1/chat/completions"}',
     "profile_export.json: key 'experiments': perf_analyzer's raw per-request export"),
    ("x_individual_responses.json", b'[{"error_code": null, "error_msg": "", "ttft_s": 0.16, '
     b'"number_output_tokens": 97, "number_input_tokens": 270}]',
     "x_individual_responses.json: file: a JSON list of per-request records"),
    # vLLM's nightly results table: throughputs per test, no token counts per request
    ("benchmark_results.json", b'[{"Test name": "tp8_pp1_qps_01", "GPU": "H100", "# of req.": 200, "Tput (req/s)": '
     b'0.97, "Output Tput (tok/s)": 208.2, "Mean TTFT (ms)": 65.3}]',
     "benchmark_results.json: file: a table of vLLM benchmark results"),
    # a JSON object of no tool read here (per-client summaries of a wrapper script): not "key 'completed' missing"
    ("summary.json", b'{"1": {"concurrency": 1, "input_token_length": 750, "throughput_token_per_s": 30.4}}',
     "summary.json: file: unknown format"),
    ("old.csv", b"Metric,avg\nOutput Token Throughput (per sec),10\nNum Output Token,5\n"
     b"Request Throughput (per sec),1\nRequest Latency (fortnights),3\n",
     "old.csv: line 5: unknown time unit 'fortnights'"),
]  # fmt: skip


def test_plain_csv_needs_no_context() -> None:
    points = _read("plain_runs.csv", None)
    assert [p.concurrency for p in points] == [1, 16, 128]
    assert points[2].output_tokens_per_s == 9800.0
    assert points[2].source.endswith("line 4")


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("a.json", b'{"completed": 10, "total_input_tokens": 100, "total_output_tokens": 50}',
         "a.json: key 'output_throughput': missing"),
        ("b.json", b'{"completed": 10, "total_input_tokens": 100, "total_output_tokens": 50, '
         b'"output_throughput": "fast"}', "b.json: key 'output_throughput': expected a finite number"),
        ("c.json", b'{"completed": 10, "total_input_tokens": 1, "total_output_tokens": 5, "output_throughput": NaN}',
         "c.json: key 'output_throughput': missing"),
        ("d.jsonl", b'{"completed": 1, "total_input_tokens": 1, "total_output_tokens": 5, "output_throughput": 2}\n'
         b'{"completed": 1, "total_input_tokens": 1\n', "d.jsonl: line 2: not valid JSON"),
        ("e.csv", b"model,gpu,gpu_count,precision,input_tokens,output_tokens,concurrency,output_tokens_per_s\n"
         b"llama-3.1-8b,h100-sxm,1,fp8,100,100,1,abc\n", "e.csv: line 2 column 'output_tokens_per_s': not a number"),
        ("f.csv", b"model,gpu,output_tokens_per_s\nx,y,1\n", "f.csv: line 1: missing column(s) gpu_count"),
        ("g.csv", b"model,gpu,gpu_count,precision,input_tokens,output_tokens,concurrency,output_tokens_per_s\n"
         b"llama-3.1-8b,h100-sxm,1,int3,100,100,1,5\n", "g.csv: line 2 column 'precision': expected bf16"),
        ("h.txt", b"hello", "h.txt: file: unknown format"),
        ("nj.json", b"{not json", "nj.json: file: not valid JSON"),  # broken JSON is named so, not "unknown"
        ("q.csv", b"model,gpu,gpu_count,precision,input_tokens,output_tokens,concurrency,output_tokens_per_s\n"
         b'llama-3.1-8b,h100-sxm,1,fp8,100,100,1,"50\nllama-3.1-8b,h100-sxm,1,fp8,100,100,2,80\n',
         'q.csv: line 2: a quote (") opened here is never closed'),  # it swallowed line 3 into one cell
        ("r.csv", b'Metric,avg\nRequest Latency (ms),"12\nOutput Token Throughput (tokens/sec),1\n',
         'r.csv: line 2: a quote (") opened here is never closed'),
        ("j.csv", b"Metric,avg\nRequest Latency (ms),12\nOutput Token Throughput (tokens/sec),1\r2\n",
         "j.csv: line 3: not a CSV row"),
        ("k.csv", b"model,gpu,gpu_count,precision,input_tokens,output_tokens,concurrency,output_tokens_per_s\n"
         b"llama-3.1-8b,h100-sxm,1,fp8,1,1,1,1\r5\n", "k.csv: line 2: not a CSV row"),
        ("l.json", b'{"output_token_throughput": {"avg": 10}, "output_sequence_length": {"avg": 5}, '
         b'"input_config": {"perf_analyzer": {"stimulus": {"request_rate": 2}}}}',
         "l.json: key 'input_config': no concurrency in the run's configuration, and no request throughput"),
        ("m.json", b'{"output_token_throughput": {"avg": 10}, "total_osl": {"avg": 500}}',
         "m.json: key 'request_count': needed to read 'total_osl' per request"),
        ("i.json", b"\xff\xfe{", "i.json: byte 0: not UTF-8"),
        ("n.json", b'{"output_token_throughput": {"avg": 10}, "output_sequence_length": {"avg": 5}, '
         b'"input_config": {"concurrency": true}}',
         "n.json: input_config key 'concurrency': expected a finite number, got True"),
        ("gl0.json", b'{"benchmarks": []}', "gl0.json: key 'benchmarks': no benchmarks in the report"),
        ("gl1.json", b'{"benchmarks": [{"type_": "generative_benchmark", "args": {"strategy": {"type_": '
         b'"synchronous"}}, "metrics": {}, "request_totals": {"successful": 0, "errored": 12, "incomplete": 0, '
         b'"total": 12}}]}',
         "gl1.json: benchmark 1 key 'request_totals': no successful requests (12 errored)"),
        ("gl2.json", b'{"benchmarks": [{"benchmarks": [{"mode": "synchronous", "rate": null, "results": [], "errors": '
         b'[], "concurrencies": []}], "args": {}}]}',
         "gl2.json: benchmark 1 key 'metrics': missing: per-request results only (a GuideLLM 0.1 report"),
        ("gl3.json", b'{"benchmarks": [{"type_": "generative_benchmark", "args": {"strategy": {"type_": "constant", '
         b'"rate": 4.0}}, "metrics": {"output_tokens_per_second": {"successful": {"mean": 90.0}}, '
         b'"prompt_token_count": {"successful": {"mean": 100.0}}, "output_token_count": {"successful": '
         b'{"mean": 50.0}}}}]}',
         "gl3.json: benchmark 1 key 'args.strategy': a constant run sets no concurrency, and no request"),
        ("gl4.json", b'{"benchmarks": [{"type_": "generative_benchmark", "config": {"strategy": {"type_": '
         b'"concurrent", "streams": 8}}, "metrics": {"output_tokens_per_second": {"successful": {"mean": null}}}}]}',
         "gl4.json: benchmark 1 key 'metrics.output_tokens_per_second.successful.mean': missing"),
        ("benchmarks.csv", b"Type,Run Id,Id,Name,Start Time,End Time,Duration,Successful Requests\n"
         b"generative_benchmark,r,i,synchronous,x,y,30.0,46\n", "benchmarks.csv: file: a GuideLLM CSV or YAML export"),
        ("benchmarks.yaml", b"benchmarks:\n- args:\n    max_duration: 30.0\n  type_: generative_benchmark\n",
         "benchmarks.yaml: file: a GuideLLM CSV or YAML export"),
        # a 400-digit integer overflowed float() with a traceback; it is refused like any other bad number
        ("big.json", b'{"completed": 1' + b"0" * 400 + b', "total_input_tokens": 1, "total_output_tokens": 1, '
         b'"output_throughput": 1}', "big.json: key 'completed': expected a finite number, got 1000"),
        ("bigrate.json", b'{"completed": 1, "total_input_tokens": 1, "total_output_tokens": 1, "output_throughput": 1,'
         b' "request_rate": 1' + b"0" * 400 + b"}", "bigrate.json: key 'request_rate': expected a positive number"),
        # -5 or 0 clients was read as "every request at once" and fitted silently
        ("neg.csv", b"model,gpu,gpu_count,precision,input_tokens,output_tokens,concurrency,output_tokens_per_s\n"
         b"llama-3.1-8b,h100-sxm,1,fp8,100,100,-5,190\n", "neg.csv: line 2: concurrency -5 must be more than 0"),
        ("zero.json", b'{"completed": 10, "total_input_tokens": 10, "total_output_tokens": 10, "output_throughput": 5,'
         b' "max_concurrency": 0}', "zero.json: file: concurrency 0 must be more than 0"),
        *NO_OPERATING_POINT,
    ],
)  # fmt: skip
def test_malformed_files_are_rejected_whole_with_the_reason(name: str, data: bytes, message: str) -> None:
    with pytest.raises(BenchmarkFormatError) as info:
        read_benchmark(name, data, CTX)
    assert str(info.value).startswith(message)


def test_size_cap_and_missing_context() -> None:
    with pytest.raises(BenchmarkFormatError, match=r"limit; a run.s summary is a few KB.*save-detailed"):
        read_benchmark("big.json", b" " * (MAX_FILE_BYTES + 1), CTX)
    with pytest.raises(BenchmarkFormatError, match="does not say which GPU it ran on"):
        read_benchmark("v.json", (FIXTURES / "vllm_bench_serve.json").read_bytes(), None)


def _synthetic(mbu: float, mfu: float, n: int, seed: int, noise: float) -> list[BenchmarkPoint]:
    """Points generated with known factors by the model itself, multiplied by seeded log-normal noise."""
    c = load_catalog()
    rng = np.random.default_rng(seed)
    eff = Efficiency(mbu=mbu, mfu_decode=mfu, mfu_prefill=mfu * 0.9)
    out = []
    concurrencies = np.geomspace(1, 512, n)
    for i, conc in enumerate(concurrencies):
        case = CalibrationCase(row=i, label=f"s{i}", model_id="llama-3.1-8b", gpu_id="h100-sxm", gpus=1,
                               layer_split=False, precision="fp8", weight_file_bytes=None, regime="concurrency",
                               input_tokens=1000, output_tokens=500, reserve_output=False, framework="vllm",
                               engine="vllm", concurrency=float(round(conc)), measured_tokens_per_s=1.0)  # fmt: skip
        tok_s = predict_case(case, c.gpus, c.models, eff) * float(np.exp(rng.normal(0.0, noise)))
        out.append(BenchmarkPoint(model_id="llama-3.1-8b", gpu_id="h100-sxm", gpus=1, precision="fp8",
                                  engine="vllm", input_tokens=1000, output_tokens=500,
                                  concurrency=float(round(conc)), output_tokens_per_s=tok_s,
                                  source=f"s{i}"))  # fmt: skip
    return out


def test_fit_recovers_known_factors_from_synthetic_runs() -> None:
    c = load_catalog()
    profile = fit_profile(_synthetic(0.62, 0.38, 12, seed=7, noise=0.03), c.gpus, c.models)
    assert profile.mbu == pytest.approx(0.62, rel=0.08)
    assert profile.mfu_decode == pytest.approx(0.38, rel=0.15)
    assert len(profile.residuals) == 12
    assert all(abs(r.residual_pct) < 15 for r in profile.residuals)
    assert 0.0 < profile.residual_sd_log < 0.06
    json.loads(profile.model_dump_json())  # the profile serialises (scenarios, share links)


def test_band_narrows_with_more_points() -> None:
    c = load_catalog()
    few = fit_profile(_synthetic(0.62, 0.38, 4, seed=3, noise=0.05), c.gpus, c.models)
    many = fit_profile(_synthetic(0.62, 0.38, 24, seed=3, noise=0.05), c.gpus, c.models)
    b_few = throughput_band(1000.0, profile=few)
    b_many = throughput_band(1000.0, profile=many)
    assert b_many.high - b_many.low < b_few.high - b_few.low
    assert b_many.low < 1000.0 < b_many.high
    # two factors fitted to two runs leave no residual to measure the spread with: it is the assumed 30%
    two = fit_profile(_synthetic(0.62, 0.38, 2, seed=3, noise=0.05), c.gpus, c.models)
    assert not two.spread_measured
    assert two.residual_sd_log == 0.3
    assert few.spread_measured


def test_uncalibrated_band_comes_from_the_nearest_regime() -> None:
    b = throughput_band(1000.0, regime="saturation", moe=True, precision="fp8")
    assert b.low < 1000.0 < b.high
    assert "saturation" in b.basis
    inv = b.inverse()
    assert inv.low == pytest.approx(1 / b.high)
    assert inv.high == pytest.approx(1 / b.low)


def test_a_route_inside_the_runner_ups_band_is_too_close_to_call() -> None:
    # owned $/Mtok 1.00 with a throughput band of ±20% → cost band 1/1.2 … 1/0.8 = 0.83 … 1.25
    from economics.bands import Band

    owned = Band(value=1000.0, low=800.0, high=1200.0, basis="test").inverse().scaled(1000.0)
    assert owned.low == pytest.approx(1000 / 1200)
    assert owned.high == pytest.approx(1.25)
    api_close = Band(value=1.2, low=1.2, high=1.2, basis="price")
    api_far = Band(value=1.4, low=1.4, high=1.4, basis="price")
    assert owned.overlaps(api_close)
    assert not owned.overlaps(api_far)


def test_sglang_bench_one_batch_lines() -> None:
    # python -m sglang.bench_one_batch --batch-size 1 32 --input-len 1024 --output-len 256 --result-filename …:
    # one static batch per line, read at its batch size; output tokens over the whole run, prefill included:
    # 256 × 1 / 1.8522 s = 138.21 tok/s and 256 × 32 / 3.6197 s = 2,263.2 tok/s (not the decode-only 140.8 and
    # 2,711.9, nor the overall 691.1 and 11,315.9 that count prompt tokens)
    one, many = _read("sglang_bench_one_batch.jsonl")
    assert (one.input_tokens, one.output_tokens, one.concurrency) == (1024, 256, 1)
    assert one.output_tokens_per_s == pytest.approx(138.21, abs=0.01)
    assert (many.concurrency, many.output_tokens_per_s) == (32, pytest.approx(2263.17, abs=0.01))
    assert "line 2" in many.source


def test_a_bench_one_batch_line_without_its_latency_is_named() -> None:
    line = {"run_name": "default", "batch_size": 8, "input_len": 512, "output_len": 1}
    with pytest.raises(BenchmarkFormatError, match=r"total_latency.*missing"):
        read_benchmark("one.jsonl", (json.dumps(line) + "\n" + json.dumps(line) + "\n").encode(), CTX)
    with pytest.raises(BenchmarkFormatError, match=r"batch_size.*whole number"):
        read_benchmark("one.json", json.dumps({**line, "batch_size": 2.5, "total_latency": 1.0}).encode(), CTX)


def test_sglang_bench_one_batch_server_lines() -> None:
    # the batch sent to a running server at once: its wall time is `latency` [s]; output tokens over all of it,
    # prefill included: 64 × 256 / 12.8 s = 1,280 tok/s (not its decode-only 1,575.38), and 8,192 × 100 / 70 s =
    # 11,702.9 tok/s for the 2024 line, whose output_throughput (2,103,963) no run of that size can give
    now, then = _read("sglang_bench_one_batch_server.jsonl")
    assert (now.input_tokens, now.output_tokens, now.concurrency, now.output_tokens_per_s) == (1024, 256, 64, 1280)
    assert (then.input_tokens, then.output_tokens, then.concurrency) == (32, 100, 8192)
    assert then.output_tokens_per_s == pytest.approx(11702.857, abs=0.001)


def test_sglang_bench_offline_throughput_line() -> None:
    # python -m sglang.bench_offline_throughput --num-prompts 1000 --random-input-len 1024 --random-output-len 256
    # --result-filename …: every prompt handed to the engine at once; 256,000 tokens over 61.42 s = 4,168.0 tok/s
    (p,) = _read("sglang_bench_offline_throughput.jsonl")
    assert (p.input_tokens, p.output_tokens, p.concurrency, p.output_tokens_per_s) == (1024, 256, None, 4168.0)
    with pytest.raises(BenchmarkFormatError, match=r"successful_requests.*no successful requests"):
        read_benchmark("o.json", json.dumps({"successful_requests": 0, "output_throughput": 1.0}).encode(), CTX)


def test_a_run_that_lost_requests_says_so_in_its_run_line() -> None:
    # A run with failed requests is still read (its throughput is what the server delivered), but the point's
    # "Run" line, which the Accuracy page shows, says how many failed: older vLLM wrote no `failed` key, so
    # 640 prompts with 600 completed is 40 failed; newer vLLM and SGLang count them in `failed`.
    base = json.loads((FIXTURES / "vllm_bench_serve.json").read_text())
    (clean,) = read_benchmark("r.json", json.dumps(base).encode(), CTX)
    assert clean.source == "r.json"
    # 600 completed: the token totals are per completed request, so scale them to keep the same shape
    old = {**base, "completed": 600, "total_input_tokens": 600 * 1024, "total_output_tokens": 600 * 256}
    (p,) = read_benchmark("r.json", json.dumps(old).encode(), CTX)
    assert p.source == "r.json (40 of 640 requests failed)"
    assert (p.input_tokens, p.output_tokens) == (1024, 256)
    new = {**old, "failed": 40}
    assert read_benchmark("r.json", json.dumps(new).encode(), CTX)[0].source == p.source
    none_failed = {**base, "failed": 0}
    assert read_benchmark("r.json", json.dumps(none_failed).encode(), CTX)[0].source == "r.json"
    sglang = (FIXTURES / "sglang_bench_serving.jsonl").read_text().splitlines()[0]
    rec = {**json.loads(sglang.replace("Infinity", "null")), "failed": 3}
    rec.pop("num_prompts", None)
    (s,) = read_benchmark("s.jsonl", json.dumps(rec).encode(), CTX)
    assert s.source == f"s.jsonl line 1 (3 of {rec['completed'] + 3} requests failed)"
    summary = json.loads((FIXTURES / "llmperf_tinyllama_256_100_summary.json").read_text())
    lost = {**summary, "results_number_errors": 5, "results_num_requests_started": 55}
    (q,) = read_benchmark("l.json", json.dumps(lost).encode(), CTX)
    assert q.source == "l.json (5 of 55 requests failed)"
    assert read_benchmark("l.json", json.dumps(summary).encode(), CTX)[0].source == "l.json"
