"""``python -m economics calibrate`` and ``throughput --engine/--calibration`` end to end (real subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "data" / "benchmarks"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "economics", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip


def test_calibrate_json_profile_feeds_throughput(tmp_path: Path) -> None:
    out = _cli("calibrate", str(FIXTURES / "plain_runs.csv"), "--format", "json")
    assert out.returncode == 0, out.stderr
    profile = json.loads(out.stdout)["profile"]
    assert profile["n_points"] == 3
    assert [r["source"].split()[-1] for r in profile["residuals"]] == ["2", "3", "4"]
    path = tmp_path / "profile.json"
    path.write_text(out.stdout, encoding="utf-8")
    thr = _cli("throughput", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--precision", "fp8",
               "--input-tokens", "1000", "--output-tokens", "1000", "--concurrency", "16",
               "--calibration", str(path), "--format", "json")  # fmt: skip
    assert thr.returncode == 0, thr.stderr
    data = json.loads(thr.stdout)
    assert data["band"]["low"] < data["output_tokens_per_s"] < data["band"]["high"]
    assert "your 3 benchmark points" in data["band"]["basis"]


def test_calibrate_rejects_a_malformed_file_naming_it(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"completed": 3, "total_input_tokens": 30, "total_output_tokens": 30}', encoding="utf-8")
    out = _cli("calibrate", str(bad), "--model", "llama-3.1-8b", "--gpu", "h100-sxm")
    assert out.returncode == 2
    assert "bad.json: key 'output_throughput': missing" in out.stderr
    assert "Traceback" not in out.stderr


def test_throughput_engine_changes_the_answer() -> None:
    base = ["throughput", "--model", "llama-3.1-8b", "--gpu", "h100-pcie", "--input-tokens", "1",
            "--output-tokens", "1024", "--batch", "1", "--format", "json"]  # fmt: skip
    plain = json.loads(_cli(*base).stdout)["output_tokens_per_s"]
    llama_cpp = json.loads(_cli(*base, "--engine", "llama.cpp").stdout)["output_tokens_per_s"]
    # llama.cpp pays 32 layers × 0.12 ms per token and reaches MBU 0.75 (engines.csv): slower than the default
    assert llama_cpp < plain
    unknown = _cli(*base, "--engine", "nope")
    assert unknown.returncode == 2
    assert "unknown engine 'nope'" in unknown.stderr


def test_calibrate_refuses_a_file_that_ran_another_model() -> None:
    # the vLLM result names meta-llama/Llama-3.1-8B-Instruct: fitted as the 70B it would calibrate the wrong model
    out = _cli("calibrate", str(FIXTURES / "vllm_bench_serve.json"), "--model", "llama-3.1-70b", "--gpu", "h100-sxm")
    assert out.returncode == 2
    assert "--model" in out.stderr
    assert "the file ran meta-llama/Llama-3.1-8B-Instruct (Llama 3.1 8B in the catalog)" in out.stderr
    assert "Traceback" not in out.stderr
    same = _cli("calibrate", str(FIXTURES / "vllm_bench_serve.json"), "--model", "llama-3.1-8b", "--gpu", "h100-sxm")
    assert same.returncode == 0, same.stderr


def _three_runs(tmp_path: Path, models: tuple[str, str, str], gpus: tuple[str, str, str]) -> tuple[Path, dict]:
    """A plain CSV of three Llama 3.1 8B FP8 runs (concurrency 1, 16, 128) with the model and GPU written as given,
    and the profile ``calibrate --format json`` fits to it."""
    runs = tmp_path / "runs.csv"
    shapes = ("1,fp8,1024,256,1,110", "1,fp8,1024,256,16,1400", "1,fp8,1024,256,128,9000")
    lines = [f"{m},{g},{shape}\n" for m, g, shape in zip(models, gpus, shapes, strict=True)]
    header = "model,gpu,gpu_count,precision,input_tokens,output_tokens,concurrency,output_tokens_per_s\n"
    runs.write_text(header + "".join(lines), encoding="utf-8")
    out = _cli("calibrate", str(runs), "--format", "json")
    assert out.returncode == 0, out.stderr
    return runs, json.loads(out.stdout)["profile"]


def test_a_plain_csv_may_name_models_as_teams_write_them(tmp_path: Path) -> None:
    models = ("meta-llama/Llama-3.1-8B-Instruct", "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic", "llama-3.1-8b")
    runs, profile = _three_runs(tmp_path, models, ("h100-sxm",) * 3)
    assert profile["model_ids"] == ["llama-3.1-8b"]
    runs.write_text(runs.read_text(encoding="utf-8").replace("llama-3.1-8b,", "my-finetune,"), encoding="utf-8")
    unknown = _cli("calibrate", str(runs))
    assert unknown.returncode == 2
    assert "model 'my-finetune' is not in the catalog (its ids: llama-3.1-8b, llama-3.1-70b" in unknown.stderr


def test_gpu_names_in_a_csv_and_in_gpu(tmp_path: Path) -> None:
    # a team's CSV writes the GPU as nvidia-smi does; --gpu takes a name that fits one catalog GPU
    runs, profile = _three_runs(tmp_path, ("llama-3.1-8b",) * 3, ("NVIDIA H100 SXM5 80GB", "H100 SXM", "h100-sxm"))
    assert profile["gpu_ids"] == ["h100-sxm"]
    runs.write_text(runs.read_text(encoding="utf-8").replace("H100 SXM,", "H100,"), encoding="utf-8")
    ambiguous = _cli("calibrate", str(runs))
    assert ambiguous.returncode == 2
    assert "line 3: GPU 'H100' could be h100-sxm, h100-pcie, h100-nvl" in ambiguous.stderr
    assert "Traceback" not in ambiguous.stderr
    vllm = str(FIXTURES / "vllm_bench_serve.json")
    assert _cli("calibrate", vllm, "--model", "llama-3.1-8b", "--gpu", "H100 SXM").returncode == 0
    wrong = _cli("calibrate", vllm, "--model", "llama-3.1-8b", "--gpu", "H100")
    assert wrong.returncode == 2
    assert "--gpu" in wrong.stderr
    assert "'H100' could be h100-sxm, h100-pcie, h100-nvl" in wrong.stderr


def test_calibrate_refuses_a_fifo_unread(tmp_path: Path) -> None:
    # Regression (fuzzing): FILE was read whole, so a FIFO blocked forever and /dev/zero ran out of memory
    # (MemoryError traceback); now only a regular file is read, at most MAX_FILE_BYTES of it.
    fifo = tmp_path / "runs.json"
    os.mkfifo(fifo)
    out = _cli("calibrate", str(fifo), "--model", "llama-3.1-8b", "--gpu", "h100-sxm")
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == (
        f"python -m economics calibrate: error: FILE: {fifo} is a named pipe (FIFO), not a regular file; give a file\n"
    )


def _runs(tmp_path: Path, tok_s: tuple[float, float]) -> Path:
    csv = tmp_path / "runs.csv"
    rows = [f"llama-3.1-8b,h100-sxm,1,fp8,1000,200,{c},{t}" for c, t in zip((1, 16), tok_s, strict=True)]
    header = "model,gpu,gpu_count,precision,input_tokens,output_tokens,concurrency,output_tokens_per_s"
    csv.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return csv


def test_a_fit_on_its_bound_is_a_warning_not_a_certainty(tmp_path: Path) -> None:
    # one million tokens per second from an 8B model on one H100 at batch 1: no efficiency ≤ 1 reaches it. It
    # printed "MBU 1.000 (±0% one s.d.)" and "(-100.0%)", exit 0, nothing else
    out = _cli("calibrate", str(_runs(tmp_path, (1e6, 9e6))), "--format", "json")
    assert out.returncode == 0, out.stderr
    profile = json.loads(out.stdout)["profile"]
    assert ["mbu", "upper"] in profile["at_bound"]
    assert profile["covariance_log"][0][0] == 0.3**2  # the prior's, not the pinned curvature's 0
    assert "warning: Memory-bandwidth utilisation (MBU) sits at its upper bound 1" in out.stderr
    assert "misses the runs by a factor of" in out.stderr
    text = _cli("calibrate", str(_runs(tmp_path, (1e-300, 1e-299))))
    assert "sits at its lower bound 0.05" in text.stderr
    assert len(max(text.stdout.splitlines(), key=len)) < 150  # "+2031316…(300 digits)…%" was one line
    assert "× the measurement" in text.stdout


def test_a_factor_the_runs_do_not_depend_on_is_said_so_without_a_warning() -> None:
    # the three plain runs are memory-bound: MFU drifts to 1.0 at no cost, which is no sign of a wrong file
    out = _cli("calibrate", str(FIXTURES / "plain_runs.csv"))
    assert out.returncode == 0, out.stderr
    assert "warning" not in out.stderr
    assert "compute utilisation (MFU, decode)   1.000  (not set by these runs: none depends on it)" in out.stdout
