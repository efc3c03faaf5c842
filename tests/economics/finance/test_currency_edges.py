"""The display currency at every edge: the CLI's table and JSON state it, a rate of 1 changes nothing, a saved
review keeps the rate it was shown at. Amounts stay computed in USD; the edge multiplies by the rate."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from cli.main import main
from economics.evaluate import evaluate
from economics.finance.settings import FinanceSettings
from economics.io.scenarios import PRESET_DIR, load_preset, preset_json
from economics.scenario import Scenario
from reporting.meeting_pack import build_pack, render_html
from storage import reviews as store

BANK = PRESET_DIR / "singapore-bank.json"


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def _write(tmp_path: Path, scenario: object, name: str = "s.json") -> str:
    path = tmp_path / name
    path.write_text(preset_json(scenario), encoding="utf-8")  # type: ignore[arg-type]
    return str(path)


def test_cli_table_states_the_currency_and_converts_the_totals(capsys: pytest.CaptureFixture[str]) -> None:
    out = _cli(capsys, "evaluate", str(BANK))
    assert "Money is shown in SGD at 1.3 SGD per US dollar (rate of 2026-12-01" in out
    total_usd = evaluate(load_preset("singapore-bank")).fleet.total_cost_usd_per_month
    # the bank's SGD 1.30 per USD: the total line shows round(total · 1.3) whole Singapore dollars
    assert f"total SGD {total_usd * 1.3:,.0f}/month" in out
    assert "SGD/req" in out
    assert "Owned nodes: 6,776 kWh" in out  # 10.2 kW · 0.7 · 1.3 · 730 h = 6,775.86 kWh for the one node


def test_cli_json_states_the_currency_rate_and_date(capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(_cli(capsys, "evaluate", str(BANK), "--format", "json"))
    cur = doc["currency"]
    assert (cur["code"], cur["units_per_usd"], cur["as_of"]) == ("SGD", 1.3, "2026-12-01")
    assert cur["total_cost_per_month"] == pytest.approx(doc["fleet"]["total_cost_usd_per_month"] * 1.3)
    assert doc["carbon"]["grid_kg_co2e_per_kwh"] == 0.42
    assert doc["carbon"]["owned_kwh_per_month"] == pytest.approx(6775.86)


def test_a_rate_of_one_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    startup = load_preset("startup-rented")
    at_one = startup.model_copy(update={"finance": FinanceSettings(display_currency="USD", fx_units_per_usd=1.0)})
    plain = _cli(capsys, "evaluate", _write(tmp_path, startup, "a.json"))
    one = _cli(capsys, "evaluate", _write(tmp_path, at_one, "b.json"))
    assert one == plain
    assert "Money is shown in US dollars." in plain
    a = json.loads(_cli(capsys, "evaluate", _write(tmp_path, startup, "a.json"), "--format", "json"))
    b = json.loads(_cli(capsys, "evaluate", _write(tmp_path, at_one, "b.json"), "--format", "json"))
    for doc in (a, b):
        doc.pop("scenario_name", None)
        doc["plan"].pop("solve_time_s")
    assert a["fleet"] == b["fleet"]
    assert a["currency"] == b["currency"]
    assert a["currency"]["units_per_usd"] == 1.0


def test_a_saved_review_keeps_the_rate_it_was_shown_at(tmp_path: Path) -> None:
    # SGD without a rate in the scenario: the catalog's rate of the review date (1.3, 2026-12-01) is used for the
    # display and written into the saved scenario, so re-reading the review shows the same money.
    startup = load_preset("startup-rented")
    sgd = startup.model_copy(update={"finance": FinanceSettings(display_currency="SGD")})
    db = tmp_path / "reviews.sqlite3"
    saved = store.save_review(sgd, evaluate(sgd), name="SGD review", path=db)
    back = store.load_review(saved.id, path=db).scenario
    assert back.finance is not None
    assert back.finance.fx_units_per_usd == 1.3
    assert back.finance.fx_as_of == dt.date(2026, 12, 1)


def test_pack_names_a_missing_rate_instead_of_failing() -> None:
    # CHF has no rate in the catalog: the pack still renders, its finance section names the field
    startup = load_preset("startup-rented")
    chf = startup.model_copy(update={"finance": FinanceSettings(display_currency="CHF")})
    html = render_html(build_pack(chf, uncertainty=False))
    assert "finance.fx_units_per_usd: no CHF rate" in html
    assert 'id="currency"' not in html


def test_pack_escapes_names_in_the_finance_section() -> None:
    # the energy table names each workload: autoescaped like every other value in the pack
    data = load_preset("singapore-bank").model_dump(mode="json")
    data["workloads"][0]["name"] = "<script>alert(1)</script>"
    html = render_html(build_pack(Scenario.model_validate(data), uncertainty=False))
    finance = html[html.index('id="finance"') : html.index('id="prices"')]
    assert "<script>" not in finance
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in finance
