"""The command line: ``python -m economics throughput`` and ``catalog``, in process and as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import main

ROOT = Path(__file__).resolve().parents[2]
ACCEPTANCE = [
    "throughput", "--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--gpus", "8", "--precision", "bf16",
    "--input-tokens", "1000", "--output-tokens", "500", "--batch", "1", "--ideal", "--format", "json",
]  # fmt: skip
BASE = ["throughput", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--input-tokens", "1000",
        "--output-tokens", "200"]  # fmt: skip


def run_cli(args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "economics", *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120
    )


def test_acceptance_command_subprocess() -> None:
    # Issue #2: the ideal roofline for 70B on 8×H100 at batch 1 is ~190 tok/s (docs/roofline.md#worked-example-70b:
    # 26.8e12/141.1e9 = 189.9 for the weights alone). At context 1000 + 500/2 = 1250 the KV read and the all-reduce
    # bytes bring it to 189.01 (derivation in test_throughput.test_acceptance_70b_ideal_batch_1).
    proc = run_cli(ACCEPTANCE)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    data = json.loads(proc.stdout)
    assert data["output_tokens_per_s"] == pytest.approx(189.01, abs=0.01)
    assert data["output_tokens_per_s"] == pytest.approx(190, rel=0.01)
    assert data["output_tokens_per_s_per_gpu"] == pytest.approx(189.01 / 8, abs=0.01)
    assert data["batch"] == 1
    assert data["bound"] == "memory"
    assert data["feasible"] is True
    assert data["reason"] == ""
    for key in ("tpot_s", "ttft_s", "arithmetic_intensity_flop_per_byte", "max_batch_kv"):
        assert key in data


def test_acceptance_command_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(ACCEPTANCE) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["output_tokens_per_s"] == pytest.approx(189.01, abs=0.01)


@pytest.mark.parametrize(
    "extra",
    [
        ["--concurrency", "16"],
        ["--max"],
        ["--max", "--max-batch", "64", "--kv-policy", "reserve"],
        ["--batch", "8", "--spec-preset", "eagle3-tree"],
        ["--batch", "8", "--scheme", "speculative", "--acceptance-rate", "0.7", "--draft-tokens", "3"],
        ["--batch", "8", "--scheme", "speculative", "--mean-accepted-tokens", "2.5", "--verify-tokens", "8",
         "--draft-layers", "0"],
        ["--batch", "8", "--diffusion-preset", "fast-dllm-like"],
        ["--batch", "2", "--scheme", "diffusion", "--block-tokens", "64", "--denoising-steps", "64", "--refresh-passes",
         "0", "--no-prefix-cache"],
        ["--batch", "1", "--mbu", "0.8", "--step-overhead-ms", "0.3", "--mfu-decode", "0.6", "--mfu-prefill", "0.5"],
    ],
)  # fmt: skip
def test_regimes_and_schemes(extra: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*BASE, *extra, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["feasible"] is True
    assert data["output_tokens_per_s"] > 0
    assert data["output_tokens_per_s_per_gpu"] == data["output_tokens_per_s"]  # one GPU


def test_custom_chain_is_gamma_plus_one(capsys: pytest.CaptureFixture[str]) -> None:
    # --draft-tokens 3 with an acceptance rate is a chain: verify 3 + 1 = 4 tokens, τ = (1 − 0.7^4)/0.3 = 2.533.
    assert main([*BASE, "--batch", "1", "--acceptance-rate", "0.7", "--draft-tokens", "3", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scheme"] == "speculative"
    assert data["new_tokens_per_iteration"] == 4
    assert data["tokens_per_iteration"] == pytest.approx(2.533, abs=1e-3)


def test_diffusion_model_defaults_to_diffusion(capsys: pytest.CaptureFixture[str]) -> None:
    # No scheme option: a diffusion-family model decodes with the DiffusionScheme defaults (K 32, S 8, ρ 1).
    args = ["throughput", "--model", "llada-8b", "--gpu", "h100-sxm", "--input-tokens", "512",
            "--output-tokens", "256", "--batch", "1", "--format", "json"]  # fmt: skip
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scheme"] == "diffusion"
    assert data["new_tokens_per_iteration"] == 32
    assert data["tokens_per_iteration"] == pytest.approx(32 / 9)


def test_table_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*BASE, "--concurrency", "2000"]) == 0
    out = capsys.readouterr().out
    assert "output tokens/s (replica)" in out
    assert "TPOT" in out
    assert "clients queue" in out  # 2000 clients > the KV limit


DEFAULTS = {"--model": "llama-3.1-8b", "--gpu": "h100-sxm", "--input-tokens": "1000", "--output-tokens": "200"}
# (flags replacing DEFAULTS, extra arguments, the argument the message must name, the problem it must state)
BAD_INPUT: list[tuple[dict[str, str], list[str], str, str]] = [
    ({"--model": "nope"}, [], "--model", "unknown model 'nope'"),
    ({"--gpu": "tpu"}, [], "--gpu", "unknown GPU 'tpu'"),
    ({"--input-tokens": "0"}, [], "--input-tokens", "positive integer"),
    ({"--output-tokens": "-5"}, [], "--output-tokens", "positive integer"),
    ({}, ["--gpus", "0"], "--gpus", "positive integer"),
    ({}, ["--batch", "x"], "--batch", "integer"),
    ({}, ["--batch", "1", "--concurrency", "2"], "--concurrency", "not allowed with argument --batch"),
    ({"--model": "llama-3.1-405b"}, [], "--model", "does not fit"),
    ({}, ["--batch", "100000"], "--batch", "exceeds the KV-memory limit"),
    ({"--input-tokens": "2000000"}, [], "--input-tokens", "one sequence"),
    ({}, ["--ideal", "--mbu", "0.5"], "--ideal", "cannot be combined"),
    ({}, ["--mbu", "1.5"], "--mbu", "less than or equal to 1"),
    ({}, ["--mbu", "nan"], "--mbu", "finite"),
    ({}, ["--mfu-decode", "5e-324"], "--mfu-decode", "greater than or equal to 0.001"),  # was "ttft_s: ..."
    ({}, ["--scheme", "speculative"], "--scheme speculative", "--spec-preset"),
    ({}, ["--spec-preset", "nope"], "--spec-preset", "unknown speculative preset"),
    ({}, ["--acceptance-rate", "1.2"], "--acceptance-rate", "less than 1"),
    ({}, ["--acceptance-rate", "0.5", "--mean-accepted-tokens", "2"], "--acceptance-rate", "not both"),
    ({}, ["--spec-preset", "eagle3-tree", "--block-tokens", "8"], "--scheme", "cannot be combined"),
    ({}, ["--scheme", "ar", "--block-tokens", "8"], "--block-tokens", "needs --scheme diffusion"),
    ({}, ["--block-tokens", "8", "--denoising-steps", "16"], "--scheme diffusion", "cannot exceed block_tokens"),
    ({"--model": "llada-8b"}, ["--scheme", "ar"], "--scheme", "diffusion model"),
    ({}, ["--max-batch", "8"], "--max-batch", "only applies with --max"),
    ({}, ["--precision", "int3"], "--precision", "invalid choice"),
]


@pytest.mark.parametrize(("replace", "extra", "argument", "problem"), BAD_INPUT)
def test_bad_input_in_process(
    replace: dict[str, str], extra: list[str], argument: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Bad input → exit status 2, nothing on stdout, one line on stderr naming the argument and the problem.
    flags = {**DEFAULTS, **replace}
    regime = [] if {"--batch", "--concurrency", "--max"} & set(extra) else ["--batch", "1"]
    argv = ["throughput", *[x for kv in flags.items() for x in kv], *extra, *regime]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert argument in lines[0]
    assert problem in lines[0]
    assert "Traceback" not in captured.err


@pytest.mark.parametrize(
    "argv",
    [
        [*BASE, "--batch", "0"],
        [*BASE[:3], "--gpu", "nope", *BASE[5:], "--batch", "1"],
        ["throughput", "--model", "llama-3.1-405b", "--gpu", "h100-sxm", "--input-tokens", "1", "--output-tokens",
         "1", "--max"],
        ["frobnicate"],
    ],
)  # fmt: skip
def test_bad_input_subprocess(argv: list[str]) -> None:
    proc = run_cli(argv)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "error:" in proc.stderr


def test_catalog_lists_ids(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"gpus", "models", "speculative", "diffusion"}
    assert {"h100-sxm", "b200", "mi300x"} <= set(data["gpus"])
    assert {"llama-3.1-70b", "deepseek-v3", "llada-8b"} <= set(data["models"])
    assert main(["catalog", "--kind", "models"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("models (")
    assert "llama-3.1-8b" in out


def test_catalog_subprocess() -> None:
    proc = run_cli(["catalog"])
    assert proc.returncode == 0, proc.stderr
    assert "gpus (" in proc.stdout
    assert "diffusion (" in proc.stdout


def test_help_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["throughput", "--help"]) == 0
    assert "--spec-preset" in capsys.readouterr().out


def test_allreduce_half_length_flag(capsys: pytest.CaptureFixture[str]) -> None:
    # 70B on 8×H100 at batch 1: the GPU's 4 MB adds 160 × 2·(7/8)·4e6/450e9 s = 2.489 ms per step to the first
    # spec's all-reduce (--allreduce-half-mb 0), docs/departures.md#all-reduce-below-link-bandwidth
    args = ["throughput", "--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--gpus", "8", "--input-tokens", "1000",
            "--output-tokens", "3096", "--batch", "1", "--format", "json"]  # fmt: skip
    tpot = {}
    for half in ("", "0", "4"):
        assert main(args + (["--allreduce-half-mb", half] if half else [])) == 0
        tpot[half] = json.loads(capsys.readouterr().out)["tpot_s"]
    assert (tpot[""] - tpot["0"]) * 1e3 == pytest.approx(2.489, abs=0.001)
    assert tpot["4"] == tpot[""]
    assert main([*args, "--allreduce-half-mb", "-1"]) == 2
    assert "--allreduce-half-mb: Input should be greater than or equal to 0" in capsys.readouterr().err


def test_a_calibration_path_that_is_not_a_regular_file_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Regression (fuzzing): --calibration read the whole path, so a FIFO blocked forever and /dev/zero ran out
    # of memory (MemoryError traceback). Both are refused before they are opened for reading; the FIFO is tested
    # (a regression hangs until pytest's timeout instead of exhausting the machine's memory).
    fifo = tmp_path / "profile.json"
    os.mkfifo(fifo)
    assert main([*BASE, "--batch", "1", "--calibration", str(fifo)]) == 2
    assert capsys.readouterr().err == (
        f"python -m economics throughput: error: --calibration: {fifo} is a named pipe (FIFO), not a regular file; "
        "give a file\n"
    )
