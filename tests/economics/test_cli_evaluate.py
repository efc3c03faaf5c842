"""`python -m economics evaluate` and `schema`: output on the presets, and bad input → exit 2, one line per problem."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import main
from economics.io.scenarios import PRESET_DIR

ROOT = Path(__file__).resolve().parents[2]
BANK = PRESET_DIR / "singapore-bank.json"


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def bank() -> dict:  # type: ignore[type-arg]
    return json.loads(BANK.read_text(encoding="utf-8"))


def write(tmp_path: Path, data: object) -> str:
    path = tmp_path / "scenario.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_bank_table_shows_route_reason_every_option_and_idle_cost(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_cli(capsys, "evaluate", str(BANK))
    assert status == 0, err
    data = bank()
    for w in data["workloads"]:
        assert f"[{w['id']}]" in out
    assert out.count("  route: ") == len(data["workloads"])
    assert out.count("  why:   ") == len(data["workloads"])
    options = [o["id"] for o in data["owned_options"]] + [a["id"] for a in data["apis"]]
    for option_id in options:
        assert out.count(f" {option_id} ") >= len(data["workloads"])
    assert "idle owned capacity: SGD " in out  # the bank is shown in Singapore dollars (issue 14)


def test_json_format_is_the_typed_result(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "evaluate", str(BANK), "--format", "json")
    assert status == 0
    result = json.loads(out)
    assert {d["workload_id"] for d in result["decisions"]} == {w["id"] for w in bank()["workloads"]}
    # the bank's plan: code completion fills the idle sunk node, so the cash lens sees no idle spending
    assert result["plan"]["solver_status"] == "optimal"
    assert result["fleet"]["idle_cost_usd_per_month"] == 0.0


def _strict(text: str) -> object:
    """Parse as strict JSON: Python's reader takes Infinity and NaN, jq and JavaScript do not."""

    def refuse(constant: str) -> object:
        raise AssertionError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_json_output_is_strict_json_with_null_where_an_option_has_no_cost(capsys: pytest.CaptureFixture[str]) -> None:
    # the single-workload preset's data is sovereign: its three APIs are not allowed and have no cost (was Infinity)
    status, out, _ = run_cli(capsys, "evaluate", str(PRESET_DIR / "single-workload.json"), "--format", "json")
    assert status == 0
    barred = [o for o in _strict(out)["options"] if o["kind"] == "api"]  # type: ignore[index]
    assert len(barred) == 3
    for o in barred:
        assert o["allowed"] is False
        assert o["cost_usd_per_mtok_output"] is None
        assert o["capacity_requests_per_s"] is None
    for argv in (("horizon", str(BANK), "--years", "3"), ("evaluate", str(BANK))):
        status, out, _ = run_cli(capsys, *argv, "--format", "json")
        assert status == 0
        _strict(out)


def test_as_of_reprices_and_reports_the_date(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "evaluate", str(BANK), "--as-of", "2026-10-01", "--format", "json")
    assert status == 0
    assert json.loads(out)["review_date"] == "2026-10-01"


def test_schema_is_the_scenario_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "schema")
    assert status == 0
    schema = json.loads(out)
    assert schema["title"] == "Scenario"
    assert {"workloads", "owned_options", "apis", "nodes", "schema_version"} <= set(schema["properties"])


# ---- bad input --------------------------------------------------------------------------------------------------


def assert_problems(err: str, expected: list[str]) -> None:
    lines = err.strip().splitlines()
    assert "Traceback" not in err
    assert len(lines) == len(expected), err
    for line, fragment in zip(sorted(lines), sorted(expected), strict=True):
        assert fragment in line, (line, fragment)


def test_out_of_range_values_one_line_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = bank()
    d["workloads"][2]["avg_requests_per_s"] = -1
    d["apis"][0]["output_usd_per_mtok"] = 5000
    status, out, err = run_cli(capsys, "evaluate", write(tmp_path, d))
    assert status == 2
    assert out == ""
    assert_problems(
        err,
        [
            "workloads.2.avg_requests_per_s: Input should be greater than 0",
            "apis.0.output_usd_per_mtok: Input should be less than or equal to 1000",
        ],
    )


def test_a_near_zero_target_utilization_is_one_line_not_a_nan_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Regression (fuzzing): 5e-324 passed "> 0" and evaluate died with "cannot convert float NaN to integer".
    d = bank()
    d["policy"]["target_utilization"] = 5e-324
    status, out, err = run_cli(capsys, "evaluate", write(tmp_path, d))
    assert (status, out) == (2, "")
    assert err == (
        "python -m economics evaluate: error: policy.target_utilization: "
        "Input should be greater than or equal to 0.01\n"
    )


def test_unknown_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = bank()
    d["owned_options"][0]["model_id"] = "gpt-9"
    d["nodes"][0]["gpu_id"] = "tpu-v9"
    status, _, err = run_cli(capsys, "evaluate", write(tmp_path, d))
    assert status == 2
    assert_problems(err, ["nodes.0.gpu_id: unknown GPU 'tpu-v9'", "owned_options.0.model_id: unknown model 'gpt-9'"])


def test_unknown_price_id_with_as_of(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = bank()
    d["apis"][1]["price_id"] = "no-such-price"
    status, _, err = run_cli(capsys, "evaluate", write(tmp_path, d), "--as-of", "2026-11-01")
    assert status == 2
    assert_problems(err, ["apis.1.price_id: unknown API price id 'no-such-price'"])


def test_malformed_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli(capsys, "evaluate", write(tmp_path, '{"name": "x", }'))
    assert status == 2
    assert_problems(err, ["(json): line 1 column 15: "])


def test_missing_file_and_bad_date(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli(capsys, "evaluate", str(tmp_path / "missing.json"))
    assert status == 2
    assert_problems(err, ["(file): cannot read "])
    status, _, err = run_cli(capsys, "evaluate", str(BANK), "--as-of", "last tuesday")
    assert status == 2
    assert_problems(err, ["argument --as-of: expected a date as YYYY-MM-DD"])


def test_real_entry_point_never_prints_a_traceback(tmp_path: Path) -> None:
    d = bank()
    d["workloads"][0]["output_tokens"] = "many"
    proc = subprocess.run(
        [sys.executable, "-m", "economics", "evaluate", write(tmp_path, d)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "python -m economics evaluate: error: workloads.0.output_tokens: "
        "Input should be a valid integer, unable to parse string as an integer"
    ]


def test_deeply_nested_json_and_a_closed_pipe_are_one_line_or_nothing(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    out = subprocess.run(
        [sys.executable, "-m", "economics", "evaluate", str(deep)], capture_output=True, text=True, check=False
    )
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0
    assert "nested too deeply" in out.stderr
    # `| head -1`: the reader goes away after one line; no traceback on stderr
    bank = str(Path(__file__).resolve().parents[2] / "data" / "scenarios" / "singapore-bank.json")
    with subprocess.Popen(
        [sys.executable, "-m", "economics", "evaluate", bank], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as proc:
        assert proc.stdout is not None
        assert proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read().decode()
    assert "Traceback" not in err


@pytest.mark.parametrize("preset", ["startup-rented", "singapore-bank", "batch-shop"])
def test_the_table_counts_in_words(capsys: pytest.CaptureFixture[str], preset: str) -> None:
    # the plan lines read "0 instance(s) used" and "needs 1 more node(s)"
    status, out, err = run_cli(capsys, "evaluate", str(PRESET_DIR / f"{preset}.json"))
    assert status == 0, err
    assert "(s)" not in out
    node_lines = [line for line in out.splitlines() if line.startswith("  node ")]
    assert node_lines
    for line in node_lines:
        used = line.split(": ", 1)[1].split(" used", 1)[0]
        n, unit = used.split(" ", 1)
        assert unit in ({"node", "instance", "GPU"} if n == "1" else {"nodes", "instances", "GPUs"}), line


def test_cli_counts_words() -> None:
    from economics.words import plural

    assert [plural(1, "node"), plural(0, "instance"), plural(2, "gpu"), plural(1_200, "point")] == [
        "1 node",
        "0 instances",
        "2 GPUs",
        "1,200 points",
    ]


def test_a_name_with_line_breaks_prints_on_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a name from a file split the table and forged a row: "KYC\n  W9  fake row  $0"
    d = bank()
    d["workloads"][0]["name"] = "KYC\n  W9  fake row  $0"
    d["owned_options"][0]["name"] = "Owned\r\nFAKE"
    status, out, err = run_cli(capsys, "evaluate", write(tmp_path, d))
    assert status == 0, err
    assert not [line for line in out.splitlines() if line.startswith(("  W9", "FAKE"))]
    assert "KYC   W9  fake row  $0 [kyc-overnight]" in out
    assert "Owned FAKE" in out


def test_reasons_and_flips_are_in_the_display_currency(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # an SGD table read "its share of the plan SGD 47,146/month" above "why: … J = $0.09000/task": every amount
    # the model wrote in dollars is now re-stated, as the app and the meeting pack do
    data = json.loads((PRESET_DIR / "api-only.json").read_text(encoding="utf-8"))
    assert (data["finance"]["display_currency"], data["finance"]["fx_units_per_usd"]) == ("SGD", 1.3)
    status, sgd, err = run_cli(capsys, "evaluate", str(PRESET_DIR / "api-only.json"))
    assert status == 0, err
    data["finance"].update(display_currency="USD", fx_units_per_usd=1.0)
    status, usd, err = run_cli(capsys, "evaluate", write(tmp_path, data))
    assert status == 0, err
    assert "$" not in sgd
    whys = [(u, s) for u, s in zip(usd.splitlines(), sgd.splitlines(), strict=True) if u.startswith("  why:")]
    flips = [(u, s) for u, s in zip(usd.splitlines(), sgd.splitlines(), strict=True) if u.startswith("  flips:")]
    assert len(whys) == len(data["workloads"])
    assert flips
    for u, s in whys + flips:
        dollars = [float(x.replace(",", "")) for x in re.findall(r"\$(\d[\d,]*(?:\.\d+)?)", u)]
        sing = [float(x.replace(",", "")) for x in re.findall(r"SGD (\d[\d,]*(?:\.\d+)?)", s)]
        assert dollars, u
        assert len(sing) == len(dollars), (u, s)
        for a, b in zip(dollars, sing, strict=True):  # the preset's 1.3 SGD per USD
            assert b == pytest.approx(1.3 * a, rel=2e-3, abs=6e-5), (u, s)
