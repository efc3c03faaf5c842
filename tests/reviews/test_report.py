"""The meeting pack: the HTML opens, is self-contained and names every workload; the CSV bundle and the CLI."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from cli.main import main
from economics.compare import Snapshot
from economics.io import scenarios
from economics.io.scenarios import default_scenario
from economics.price_book import NegotiatedPrice, apply_negotiated
from economics.scenario import Scenario
from reporting.meeting_pack import MeetingPack, build_pack, csv_bundle, render_html, write_pngs

ROOT = Path(__file__).resolve().parents[2]
BANK = default_scenario()
BANK_FILE = ROOT / "data" / "scenarios" / "singapore-bank.json"


class _Page(HTMLParser):
    """Collects what the tests look at: text, scripts, ids, links and external resources."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.scripts: list[str] = []
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.external: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(str(a["id"]))
        if tag == "script":
            self._in_script = True
            self.scripts.append("")
            if a.get("src"):
                self.external.append(str(a["src"]))
        if tag == "link" and a.get("href"):
            self.external.append(str(a["href"]))
        if tag == "a" and a.get("href"):
            self.links.append(str(a["href"]))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data
        else:
            self.text.append(data)


@pytest.fixture(scope="module")
def pack() -> MeetingPack:
    mercury = next(a for a in BANK.apis if a.tier == "diffusion")
    cheaper = apply_negotiated(BANK, [NegotiatedPrice(offer_id=mercury.id, item="api_discount", value=0.3)])
    return build_pack(
        cheaper,
        before=Snapshot.evaluated(BANK, "list prices"),
        notes="Q4 review <b>not bold</b>",
        draws=500,
        app_url="http://dash.example:8501/",
    )


@pytest.fixture(scope="module")
def page(pack: MeetingPack) -> _Page:
    parsed = _Page()
    parsed.feed(render_html(pack))
    parsed.close()
    return parsed


def test_the_report_names_every_workload_in_the_decisions_and_flip_sections(page: _Page) -> None:
    text = "\n".join(page.text)
    for workload in BANK.workloads:
        assert text.count(workload.name) >= 3, workload.name  # decisions table, flips heading, assumptions
    for section in ("decisions", "flips", "changes", "uncertainty", "prices", "assumptions", "scenario"):
        assert section in page.ids


def test_the_report_is_self_contained_with_plotly_inline_and_every_chart(page: _Page, pack: MeetingPack) -> None:
    assert page.external == []  # no script src, no stylesheet link: opens offline
    assert sum("Plotly" in s and len(s) > 1_000_000 for s in page.scripts) == 1  # plotly.js inline, once
    charts = {i for i in page.ids if i.startswith("chart-")}
    assert charts == {
        "chart-workload_costs",
        "chart-comparison",
        "chart-price_changes",
        "chart-tornado",
        "chart-tornado_cost",
        "chart-monte_carlo",
    }


def test_the_share_link_reopens_the_scenario(page: _Page, pack: MeetingPack) -> None:
    (link,) = [href for href in page.links if "?s=" in href]
    assert link.startswith("http://dash.example:8501/?s=v1.")
    decoded = scenarios.decode(link.split("?s=", 1)[1], BANK)
    assert decoded.status == "ok"
    assert decoded.scenario == pack.scenario


def test_text_from_the_scenario_is_escaped(page: _Page) -> None:
    assert "Q4 review <b>not bold</b>" in "".join(page.text)  # shown as text, not parsed as a tag


def test_the_scenario_json_in_the_report_reproduces_the_scenario(page: _Page, pack: MeetingPack) -> None:
    blob = next(t for t in page.text if t.lstrip().startswith('{\n  "apis"'))
    assert Scenario.model_validate(json.loads(blob)) == pack.scenario


def test_the_csv_bundle_has_every_table(pack: MeetingPack) -> None:
    with zipfile.ZipFile(io.BytesIO(csv_bundle(pack))) as zf:
        names = set(zf.namelist())
        decisions = pd.read_csv(zf.open("decisions.csv"))
        scenario = Scenario.model_validate_json(zf.read("scenario.json"))
        readme = zf.read("README.txt").decode()
    assert {
        "README.txt",
        "decisions.csv",
        "options.csv",
        "flip_thresholds.csv",
        "fleet.csv",
        "price_book.csv",
        "workloads.csv",
        "assumptions.csv",
        "changes_prices.csv",
        "changes_workloads.csv",
        "changes_fleet.csv",
        "tornado.csv",
        "monte_carlo_workloads.csv",
        "monte_carlo_options.csv",
        "scenario.json",
    } == names
    assert decisions["Workload id"].tolist() == [w.id for w in BANK.workloads]
    assert scenario == pack.scenario
    assert "decisions.csv" in readme


def test_the_workloads_file_and_page_use_the_apps_units(pack: MeetingPack, page: _Page) -> None:
    # the pack's workloads.csv read 28800 and 0.03 where the app reads 8 h and 30 ms per token (issue 12, item 1)
    with zipfile.ZipFile(io.BytesIO(csv_bundle(pack))) as zf:
        workloads = pd.read_csv(zf.open("workloads.csv")).set_index("Workload")
    kyc, onboarding = workloads.loc["Overnight KYC document batch"], workloads.loc["Real-time onboarding checks"]
    assert kyc["Done within [h]"] == 8
    assert onboarding["Time per token at most [ms]"] == pytest.approx(30)
    assert onboarding["First token within [s]"] == 1
    assert pd.isna(onboarding["Done within [h]"])  # no deadline: an empty cell, not 0
    assert not [c for c in workloads.columns if c.endswith("[s]") and c != "First token within [s]"]
    text = [t.strip() for t in page.text]
    assert {"8 h", "30 ms", "8 ms", "Time per token at most", "Done within"} <= set(text)
    assert not [t for t in text if t.endswith(("[h]", "[ms]"))]


def test_the_comparison_in_the_pack_shows_the_negotiated_discount(pack: MeetingPack) -> None:
    assert pack.comparison is not None
    changed = set(pack.comparison.prices["item"])
    assert changed == {"api_input", "api_output"}
    assert (pack.comparison.prices["change_fraction"].round(6) == -0.3).all()


# ---- the CLI ----------------------------------------------------------------------------------------------


def test_cli_writes_the_html_and_the_csv_bundle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, bundle = tmp_path / "out" / "pack.html", tmp_path / "pack.zip"
    status = main(["report", str(BANK_FILE), "--out", str(out), "--csv-zip", str(bundle), "--draws", "300"])
    assert status == 0
    assert capsys.readouterr().out.split() == [str(out), str(bundle)]
    parsed = _Page()
    parsed.feed(out.read_text(encoding="utf-8"))
    assert all(w.name in "".join(parsed.text) for w in BANK.workloads)
    assert zipfile.is_zipfile(bundle)


def test_cli_as_of_compares_with_the_prices_in_the_file(tmp_path: Path) -> None:
    out = tmp_path / "pack.html"
    assert main(["report", str(BANK_FILE), "--out", str(out), "--as-of", "2026-03-01", "--no-uncertainty"]) == 0
    html = out.read_text(encoding="utf-8")
    assert "What changed: prices in the file (2026-12-01)" in html
    assert "chart-tornado" not in html


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.json", "--out", "x.html"], "missing.json"),
        ([str(BANK_FILE), "--out", "x.txt"], "--out: expected an .html file"),
        ([str(BANK_FILE), "--out", "x.html", "--as-of", "2020-01-01"], "no API price"),
        ([str(BANK_FILE), "--out", "x.html", "--as-of", "yesterday"], "expected a date"),
        ([str(BANK_FILE), "--out", "x.html", "--draws", "0"], "between 1 and 1,000,000"),
        # Regressions (fuzzing): numpy's "expected non-negative integer" named no argument; a Latin-1 byte in
        # the notes ("caf\xe9" arrives as a surrogate) failed while writing and left an empty x.html behind.
        (
            [str(BANK_FILE), "--out", "x.html", "--seed", "-1"],
            "argument --seed: must be a whole number of 0 or more, got -1",
        ),
        (
            [str(BANK_FILE), "--out", "x.html", "--notes", "caf\udce9"],
            "argument --notes: is not UTF-8 text (byte 0xe9 at position 4); type it in a UTF-8 terminal",
        ),
    ],
)
def test_cli_bad_input_is_one_line_per_problem_and_status_2(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["report", *args]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
    assert not (tmp_path / "x.html").exists()


def test_cli_unwritable_output_is_an_error_not_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert main(["report", str(BANK_FILE), "--out", str(blocker / "pack.html"), "--no-uncertainty"]) == 2
    assert "cannot write the report" in capsys.readouterr().err


def test_a_failed_write_leaves_the_earlier_pack_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the HTML could be written, the CSV bundle could not (its folder is a file): nothing is replaced, and no
    # temporary file is left behind
    earlier = tmp_path / "pack.html"
    earlier.write_text("last quarter's pack", encoding="utf-8")
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    argv = ["report", str(BANK_FILE), "--out", str(earlier), "--csv-zip", str(blocker / "pack.zip")]
    assert main([*argv, "--no-uncertainty"]) == 2
    assert "cannot write the report" in capsys.readouterr().err
    assert earlier.read_text(encoding="utf-8") == "last quarter's pack"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "pack.html"]
    # and when it can be written, it replaces the earlier pack whole
    assert main(["report", str(BANK_FILE), "--out", str(earlier), "--no-uncertainty"]) == 0
    assert earlier.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "pack.html"]


def test_the_economics_cli_does_not_import_plotly_until_report_runs() -> None:
    code = (
        "import sys, economics, cli.main, cli.report; "
        "cli.main.build_parser(); "
        "assert 'plotly' not in sys.modules and 'streamlit' not in sys.modules, sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


# ---- PNG through kaleido and the system chromium ------------------------------------------------------------


def test_one_png_through_the_system_chromium(tmp_path: Path) -> None:
    small = build_pack(BANK, uncertainty=False)  # one chart: cost per workload
    (png,) = write_pngs(small, tmp_path)
    assert png.name == "workload_costs.png"
    data = png.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width = int.from_bytes(data[16:20], "big")
    assert width == 1200


def test_the_pack_announces_each_long_step() -> None:
    # a 5,000-workload report ran for a minute with nothing on the screen
    steps: list[str] = []
    s = default_scenario()
    build_pack(s, draws=200, progress=steps.append)
    assert steps == [
        "planning the fleet (5 workloads)",
        "the uncertain inputs (200 draws)",
        "the multi-year horizon (every year re-planned, at 7 API price declines)",
    ]
    steps.clear()
    build_pack(s, result=build_pack(s, uncertainty=False, finance=False).result, uncertainty=False, finance=False,
               progress=steps.append)  # fmt: skip
    assert steps == []  # nothing long left to do


def test_the_cli_report_shows_its_steps_in_a_terminal_only(tmp_path: Path) -> None:
    import os
    import pty

    argv = [sys.executable, "-m", "economics", "report", str(BANK_FILE), "--no-uncertainty"]
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run([*argv, "--out", str(tmp_path / "a.html")], stderr=follower, stdout=subprocess.PIPE,
                              timeout=300, check=True, cwd=ROOT)  # fmt: skip
        os.close(follower)
        seen = b""
        with contextlib.suppress(OSError):  # the terminal reads EIO once the writer is gone
            while chunk := os.read(leader, 4096):
                seen += chunk
    finally:
        os.close(leader)
    text = seen.decode()
    assert "report: planning the fleet (5 workloads)…" in text
    assert "report: the multi-year horizon" in text
    assert proc.stdout.decode().strip().endswith("a.html")
    piped = subprocess.run([*argv, "--out", str(tmp_path / "b.html")], capture_output=True, timeout=300, check=True,
                           cwd=ROOT)  # fmt: skip
    assert piped.stderr == b""  # a script's standard error stays quiet
