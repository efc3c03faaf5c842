"""Fuzzed scenario files (dashboard upload and CLI), CLI arguments and negotiated-price CSVs: all or nothing,
a message naming what is wrong, never a traceback or a hang."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from cli.main import main
from economics.io import BenchmarkFormatError, RunContext, read_benchmark, scenarios
from economics.io.price_csv import read_negotiated_csv, template_csv
from economics.io.scenarios import PRESET_DIR, ScenarioError, load_preset, load_scenario
from economics.scenario import Scenario
from tests.fuzz.counts import record
from tests.strategies import HOSTILE_TEXT, fuzz_settings, hostile_text, json_values, mutated_json, nested

BANK = load_preset("singapore-bank")
BANK_TEXT = (PRESET_DIR / "singapore-bank.json").read_text(encoding="utf-8")
BANK_DICT = json.loads(BANK_TEXT)
TMP = Path(tempfile.mkdtemp(prefix="llmecon-fuzz-"))


def _upload_ok(raw: bytes) -> tuple[bool, bool]:
    """(property holds, the upload was lost): parse_json is all or nothing and always explains a refusal."""
    parsed, messages = scenarios.parse_json(raw)
    if parsed is None:
        return bool(messages) and all(isinstance(m, str) and m for m in messages), False
    return isinstance(parsed, Scenario) and messages == (), False


def _mutated_bytes(doc: Any, bom: bool, indent: bool) -> bytes:
    text = json.dumps(doc, allow_nan=True, indent=2 if indent else None, ensure_ascii=False)
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode()


@fuzz_settings(200)
@given(mutated_json(BANK_DICT), st.booleans(), st.booleans())
def test_uploaded_scenario_json_is_all_or_nothing(doc: Any, bom: bool, indent: bool) -> None:
    raw = _mutated_bytes(doc, bom, indent)
    try:
        ok, lost = _upload_ok(raw)
    except Exception:
        record("upload: scenario JSON", failed=True)
        raise
    record("upload: scenario JSON", failed=not ok, lost=lost)
    assert ok


@fuzz_settings(100)
@given(
    st.one_of(
        st.binary(max_size=300),
        json_values(20).map(lambda v: json.dumps(v, allow_nan=True).encode()),
        st.integers(1, 50_000).map(lambda n: nested(n).encode()),
        st.just(b""),
        st.just(b"\xef\xbb\xbf"),
    )
)
def test_uploaded_garbage_is_refused_with_a_message(raw: bytes) -> None:
    try:
        ok, _ = _upload_ok(raw)
    except Exception:
        record("upload: garbage", failed=True)
        raise
    record("upload: garbage", failed=not ok)
    assert ok


def test_a_valid_upload_with_a_bom_and_hostile_text_is_never_lost() -> None:
    for payload in HOSTILE_TEXT:
        doc = {**BANK_DICT, "name": payload[:200] or "x", "description": payload}
        raw = b"\xef\xbb\xbf" + json.dumps(doc).encode()
        parsed, messages = scenarios.parse_json(raw)
        # kept, on one line: a line break or tab becomes a space (economics._base), every other character stays
        lost = (
            parsed is None
            or parsed.name.split() != str(doc["name"]).split()
            or len(parsed.name.splitlines()) > 1
            or parsed.description != doc["description"]
        )
        record("upload: scenario JSON", lost=lost, failed=lost)
        assert not lost, messages


@fuzz_settings(120)
@given(st.one_of(mutated_json(BANK_DICT).map(lambda d: _mutated_bytes(d, False, True)), st.binary(max_size=200)))
def test_scenario_files_read_by_the_cli_loader(raw: bytes) -> None:
    path = TMP / "scenario.json"
    path.write_bytes(raw)
    try:
        load_scenario(path)
        ok = True
    except ScenarioError as exc:
        ok = bool(exc.problems) and all(
            p.startswith(("(", *BANK_DICT.keys(), "schema_version")) or ":" in p for p in exc.problems
        )
    except Exception:
        record("file: CLI scenario loader", failed=True)
        raise
    record("file: CLI scenario loader", failed=not ok)
    assert ok


_SUBCOMMANDS = ("throughput", "catalog", "evaluate", "schema", "report", "nope", "")
_FLAGS = (
    "--model",
    "--gpu",
    "--gpus",
    "--precision",
    "--input-tokens",
    "--output-tokens",
    "--batch",
    "--format",
    "--as-of",
    "--out",
    "--app-url",
    "--draws",
    "--seed",
    "--title",
    "--ideal",
    "--no-uncertainty",
    "--help",
)
_VALUES = (
    "llama-3.1-70b",
    "h100-sxm",
    "8",
    "0",
    "-1",
    "1e309",
    "nan",
    "json",
    "table",
    "2026-13-45",
    str(PRESET_DIR / "batch-shop.json"),
    "/dev/zero",
    "/nonexistent",
    "javascript:alert(1)",
    "http://x/",
)


@fuzz_settings(120)
@given(
    st.sampled_from(_SUBCOMMANDS),
    st.lists(st.one_of(st.sampled_from(_FLAGS), st.sampled_from(_VALUES), hostile_text()), max_size=8),
)
def test_cli_arguments_give_status_0_or_a_one_line_error(command: str, args: list[str]) -> None:
    argv = [command, *args] if command else args
    if "--out" in argv:  # write inside the fuzz folder only
        i = argv.index("--out")
        argv[i + 1 : i + 2] = [str(TMP / "pack.html")]
    if "--draws" in argv:
        argv += ["--no-uncertainty"]
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    except SystemExit as exc:  # only --help may exit this way, with status 0
        status = int(exc.code or 0)
        ok = status == 0 and "--help" in argv
        record("CLI: arguments", failed=not ok)
        assert ok, (argv, err.getvalue())
        return
    except Exception:
        record("CLI: arguments", failed=True)
        raise
    errors = err.getvalue()
    ok = status in (0, 2) and "Traceback" not in errors and (status == 0 or bool(errors.strip()))
    record("CLI: arguments", failed=not ok)
    assert ok, (argv, status, errors)


TEMPLATE = template_csv(BANK)


@st.composite
def csv_files(draw: st.DrawFn) -> bytes:
    lines = TEMPLATE.splitlines()
    for _ in range(draw(st.integers(0, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        cells = lines[i].split(",")
        j = draw(st.integers(0, len(cells) - 1))
        cells[j] = draw(
            st.one_of(hostile_text(), st.sampled_from(["", "abc", "-1", "1e999", "NaN", "150%", '"', "5%"]))
        )
        lines[i] = ",".join(cells)
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.text(max_size=40)))
    text = "\n".join(lines)
    prefix = draw(st.sampled_from([b"", b"\xef\xbb\xbf", b"\xff\xfe"]))
    return prefix + text.encode()


@fuzz_settings(200)
@given(st.one_of(csv_files(), st.binary(max_size=200), st.just(b"")))
def test_negotiated_price_csv_is_all_or_nothing(raw: bytes) -> None:
    try:
        result = read_negotiated_csv(raw, BANK)
        if result.ok:
            result.applied_to(BANK)
    except Exception:
        record("upload: price CSV", failed=True)
        raise
    ok = (result.ok and len(result.prices) == result.rows_read) or (
        not result.ok and result.prices == () and all(p.line >= 1 and p.reason for p in result.problems)
    )
    record("upload: price CSV", failed=not ok)
    assert ok, result.problems


def test_the_unchanged_template_is_never_lost() -> None:
    result = read_negotiated_csv(TEMPLATE.encode(), BANK)
    record("upload: price CSV", lost=not result.ok)
    assert result.ok, result.problems


BENCH_DIR = Path(__file__).resolve().parents[1] / "data" / "benchmarks"
BENCH_FILES = sorted(p for p in BENCH_DIR.iterdir() if p.suffix in (".json", ".jsonl", ".csv"))
BENCH_CTX = RunContext(model_id="llama-3.1-8b", gpu_id="h100-sxm", gpus=1, precision="fp8", engine="vllm")


@st.composite
def benchmark_files(draw: st.DrawFn) -> tuple[str, bytes]:
    """A fixture of every benchmark format with values replaced or keys dropped (JSON), or bytes flipped,
    inserted or cut (any format): carriage returns, NULs, quotes, braces."""
    path = draw(st.sampled_from(BENCH_FILES))
    data = path.read_bytes()
    if path.suffix == ".json" and draw(st.booleans()):
        data = json.dumps(draw(mutated_json(json.loads(data))), allow_nan=True).encode()
    else:
        raw = bytearray(data)
        for _ in range(draw(st.integers(1, 4))):
            at = draw(st.integers(0, len(raw) - 1))
            byte = draw(st.sampled_from([0, 10, 13, 34, 44, 123, 125, 255]) | st.integers(0, 255))
            how = draw(st.sampled_from(["set", "insert", "cut", "carriage return"]))
            if how == "carriage return":  # a bare CR inside a field (a file edited on an old Mac, a pasted cell)
                raw.insert(at, 13)
            elif how == "set":
                raw[at] = byte
            elif how == "insert":
                raw.insert(at, byte)
            else:
                del raw[at:]
                break
        data = bytes(raw)
    return path.name, data


@fuzz_settings(300)
@given(benchmark_files())
def test_benchmark_files_give_points_or_one_named_reason(file: tuple[str, bytes]) -> None:
    name, data = file
    refused: BenchmarkFormatError | None = None
    points = []
    try:
        points = read_benchmark(name, data, BENCH_CTX)
    except BenchmarkFormatError as exc:
        refused = exc
    except Exception:
        record("upload: benchmark file", failed=True)
        raise
    # a refusal names this file, where and why; otherwise every point is a usable measurement
    ok = (
        bool(refused.file == name and refused.where and refused.reason)
        if refused
        else bool(points) and all(p.output_tokens_per_s > 0 and p.output_tokens >= 1 for p in points)
    )
    record("upload: benchmark file", failed=not ok)
    assert ok, refused or points
