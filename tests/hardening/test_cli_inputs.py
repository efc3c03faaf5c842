"""Regression (issue 15): the CLI answers hostile input with one line on stderr and exit status 2, never a
traceback and never a hang. Each case runs the real ``python -m economics`` in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from economics.io.scenarios import PRESET_DIR

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 60


def cli(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "economics", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
        **kwargs,  # type: ignore[arg-type]
    )


def assert_one_line_error(proc: subprocess.CompletedProcess[str], *expected: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    for text in expected:
        assert text in lines[0], lines[0]


def test_deeply_nested_json_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"name": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert_one_line_error(cli("evaluate", str(path)), "nested too deeply")


def test_nested_just_under_the_parser_limit_is_still_one_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"name": "x", "workloads": ' + "[" * 900 + "]" * 900 + "}")
    proc = cli("evaluate", str(path))
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]


def test_dev_zero_is_refused_before_reading() -> None:
    assert_one_line_error(cli("evaluate", "/dev/zero"), "/dev/zero", "not a regular file")


def test_a_fifo_is_refused_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "scenario.json"
    os.mkfifo(fifo)
    assert_one_line_error(cli("evaluate", str(fifo)), "named pipe", "not a regular file")


def test_a_directory_and_a_missing_file_are_one_line(tmp_path: Path) -> None:
    assert_one_line_error(cli("evaluate", str(tmp_path)), "directory")
    assert_one_line_error(cli("evaluate", str(tmp_path / "nope.json")), "No such file")


def test_an_oversized_file_is_refused_by_size(tmp_path: Path) -> None:
    from economics.io.scenarios import MAX_SCENARIO_BYTES

    path = tmp_path / "big.json"
    with path.open("wb") as handle:
        handle.truncate(MAX_SCENARIO_BYTES + 1)  # sparse: no disk space used
    assert_one_line_error(cli("evaluate", str(path)), "the limit is")


def test_nan_is_reported_with_line_and_field(tmp_path: Path) -> None:
    text = (PRESET_DIR / "singapore-bank.json").read_text(encoding="utf-8")
    path = tmp_path / "nan.json"
    path.write_text(text.replace('"avg_requests_per_s": 0.46', '"avg_requests_per_s": NaN', 1))
    assert_one_line_error(cli("evaluate", str(path)), "line ", "workloads.0.avg_requests_per_s", "NaN")


def test_a_key_written_twice_is_one_line_with_the_key(tmp_path: Path) -> None:
    text = (PRESET_DIR / "singapore-bank.json").read_text(encoding="utf-8")
    path = tmp_path / "twice.json"
    twice = '"avg_requests_per_s": 0.46, "avg_requests_per_s": 9'
    path.write_text(text.replace('"avg_requests_per_s": 0.46', twice, 1))
    assert_one_line_error(cli("evaluate", str(path)), "line ", '"avg_requests_per_s" is written twice')


def test_a_node_busy_below_its_idle_draw_is_refused(tmp_path: Path) -> None:
    # it passed, and the bill came out negative (busy hours paid less power than idle ones): "total SGD -355.6/month"
    data = json.loads((PRESET_DIR / "single-workload.json").read_text(encoding="utf-8"))
    data["nodes"][0]["power_fraction_busy"] = 0.0
    path = tmp_path / "busy.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert_one_line_error(cli("evaluate", str(path)), "nodes.0.power_fraction_busy", "at least the power drawn")


def test_a_dollar_rate_other_than_one_is_refused(tmp_path: Path) -> None:
    # "USD at 5 USD per US dollar" multiplied every amount by 5 and still called it USD
    data = json.loads((PRESET_DIR / "single-workload.json").read_text(encoding="utf-8"))
    data["finance"] = {**(data.get("finance") or {}), "display_currency": "USD", "fx_units_per_usd": 5}
    path = tmp_path / "usd5.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert_one_line_error(cli("evaluate", str(path)), "finance.fx_units_per_usd", "needs a rate of 1")


def test_calibrate_names_the_flag_and_the_problem_not_a_link() -> None:
    # it printed "--model/--gpu/--gpus:     For further information visit https://errors.pydantic.dev/…"
    runs = str(ROOT / "tests" / "data" / "benchmarks" / "vllm_bench_serve.json")
    proc = cli("calibrate", runs, "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpus", "0")
    assert_one_line_error(proc, "--gpus:", "greater than or equal to 1")
    assert "errors.pydantic.dev" not in proc.stderr


def test_a_400_digit_number_in_a_benchmark_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text('{"completed": 1' + "0" * 400 + ', "total_input_tokens": 1, "total_output_tokens": 1, '
                    '"output_throughput": 1}', encoding="utf-8")  # fmt: skip
    proc = cli("calibrate", str(path), "--model", "llama-3.1-8b", "--gpu", "h100-sxm")
    assert_one_line_error(proc, "key 'completed'", "expected a finite number")


def test_control_characters_in_names_reach_the_terminal_as_escapes(tmp_path: Path) -> None:
    # a workload named "\x1b[31mRED\x1b[0m" recoloured the terminal; a NUL and a right-to-left override went out raw
    data = json.loads((PRESET_DIR / "single-workload.json").read_text(encoding="utf-8"))
    data["workloads"][0]["name"] = "\x1b[31mRED\x1b[0m"
    data["name"] = "a\x00b\u202ec"
    path = tmp_path / "ctrl.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    proc = cli("evaluate", str(path))
    assert proc.returncode == 0, proc.stderr
    assert not any(ch in proc.stdout for ch in ("\x1b", "\x00", "\u202e")), proc.stdout[:300]
    assert "\\x1b[31mRED\\x1b[0m" in proc.stdout  # shown as the escapes, so the reader sees what the file holds
    assert "a\\x00b\\u202ec" in proc.stdout


def test_a_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + (PRESET_DIR / "batch-shop.json").read_bytes())
    proc = cli("evaluate", str(path), "--format", "json")
    assert proc.returncode == 0, proc.stderr


def test_output_closed_early_is_one_line_not_a_traceback() -> None:
    # The reader goes away before anything is written (as `| head -c0` would): the first write hits EPIPE.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "economics", "schema"],
            cwd=ROOT,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
        )
    finally:
        os.close(write_end)
    assert_one_line_error(proc, "broken pipe")


def test_head_one_through_a_shell_pipe() -> None:
    # The user's own command; the schema (~40 kB) with a 4 kB pipe read leaves the writer blocked, then EPIPE.
    proc = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {sys.executable} -m economics schema | head -c 1 >/dev/null"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "Exception ignored" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 2), proc.returncode  # 0 when the whole schema fitted in the pipe buffer


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,<script>", "file:///etc/passwd", "//x"])
def test_report_refuses_non_http_app_urls(tmp_path: Path, url: str) -> None:
    proc = cli("report", str(PRESET_DIR / "batch-shop.json"), "--out", str(tmp_path / "r.html"), "--app-url", url)
    assert_one_line_error(proc, "--app-url", "http(s)")
    assert not (tmp_path / "r.html").exists()
