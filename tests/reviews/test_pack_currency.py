"""The meeting pack in the display currency (issue 14): every money figure of the bank's pack (narrative, key
figures, tables, CSVs, charts) is in SGD at the rate the pack states once; a USD scenario's pack is in dollars.

The bank's plan bills S$2,664.79 a month: the analyst-research workload on the frontier API, US$2,049.84 a
month (``evaluate`` of the preset, the figure the Overview shows), × 1.30 SGD per USD (the preset's rate of
2026-12-01) = 2,664.792 → S$2,664.79 to the cent, S$2,665/month in whole dollars.
"""

from __future__ import annotations

import html
import io
import json
import re
import zipfile
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest

from economics.compare import Snapshot
from economics.evaluate import evaluate
from economics.io.scenarios import load_preset
from economics.price_book import price_book
from reporting.meeting_pack import MeetingPack, build_pack, csv_bundle, figures, render_html
from storage import reviews as store
from ui.format import plain

#: "$" before a digit not preceded by "S" (S$) : a dollar figure left in US dollars
_BARE_DOLLAR = re.compile(r"(?<![S\w])\$\s?\d")


def _strings(value: Any) -> Iterator[str]:
    """Every text of the scenario (names, notes, sources): quoted as the user or the source wrote them."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _computed_text(pack: MeetingPack, page: str) -> str:
    """The page's visible text without scripts (charts, scenario JSON) and without the scenario's own texts."""
    text = html.unescape(re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S))
    text = re.sub(r"<[^>]+>", "\n", text)
    quoted = set(_strings(pack.scenario.model_dump(mode="json")))
    quoted |= {plain(q) for q in quoted}  # the price book's sources, quoted with field names in words
    for s in sorted(quoted, key=len, reverse=True):
        if len(s) > 3:
            text = text.replace(s, " ")
    return text


@pytest.fixture(scope="module")
def bank_pack() -> MeetingPack:
    bank = load_preset("singapore-bank")
    # a comparison side (the same scenario and prices) so the "what changed" tables and charts are in the pack
    before = Snapshot(label="last quarter", scenario=bank, result=evaluate(bank), prices=price_book(bank))
    return build_pack(bank, before=before, draws=300)


def test_the_bank_pack_shows_its_bill_in_sgd_in_html_and_csv(bank_pack: MeetingPack) -> None:
    page = render_html(bank_pack)
    assert "S$2,665/month" in page  # 2,049.84 × 1.30 = 2,664.79, whole dollars in the narrative and key figures
    with zipfile.ZipFile(io.BytesIO(csv_bundle(bank_pack))) as zf:
        decisions = pd.read_csv(zf.open("decisions.csv"))
        fleet = pd.read_csv(zf.open("fleet.csv"))
        readme = zf.read("README.txt").decode()
    assert decisions["Cost of route [SGD/month]"].sum() == pytest.approx(2664.79, abs=0.005)
    assert fleet["Recommended plan [SGD/month]"].iloc[0] == pytest.approx(2664.79, abs=0.005)
    assert not [c for c in decisions.columns if "USD" in c]
    assert "1.3 SGD per US dollar (rate of 2026-12-01" in readme


def test_the_bank_pack_states_the_rate_once_and_leaves_no_dollar_figure(bank_pack: MeetingPack) -> None:
    page = render_html(bank_pack)
    assert page.count("Money is shown in SGD at 1.3 SGD per US dollar (rate of 2026-12-01") == 1
    text = _computed_text(bank_pack, page)
    assert not [text[max(0, m.start() - 60) : m.end() + 20] for m in _BARE_DOLLAR.finditer(text)]
    assert "[USD" not in text
    assert "S$" in text


def test_the_bank_pack_csvs_carry_no_us_dollar_column(bank_pack: MeetingPack) -> None:
    with zipfile.ZipFile(io.BytesIO(csv_bundle(bank_pack))) as zf:
        for name in zf.namelist():
            if name.endswith(".csv"):
                frame = pd.read_csv(zf.open(name))
                assert not [c for c in frame.columns if "usd" in c.lower()], name
                if "unit" in frame.columns:
                    assert not frame["unit"].astype(str).str.startswith("USD").any(), name
                if "Unit" in frame.columns:
                    assert not frame["Unit"].astype(str).str.startswith("USD").any(), name


def test_the_bank_pack_charts_are_drawn_in_sgd(bank_pack: MeetingPack) -> None:
    figs = figures(bank_pack)
    costs = figs["workload_costs"]
    assert "SGD" in costs.layout.xaxis.title.text
    # the analyst-research bar: 2,049.84 × 1.30 = 2,664.792
    assert max(costs.data[0].x) == pytest.approx(2664.792, abs=0.01)
    for name, fig in figs.items():
        spec = json.dumps(fig.to_plotly_json()["layout"], default=str)
        assert "USD" not in spec, name


def test_a_pack_from_a_saved_review_uses_the_rate_the_review_stored(tmp_path: Any) -> None:
    # the review pinned 1.3 SGD per USD; the scenario, reopened, still says so whatever the catalog says later
    bank = load_preset("singapore-bank")
    saved = store.save_review(bank, evaluate(bank), name="Q4", path=tmp_path / "r.sqlite3")
    review = store.load_review(saved.id, path=tmp_path / "r.sqlite3")
    pack = build_pack(review.scenario, result=review.result, uncertainty=False, finance=False)
    assert pack.rate.units_per_usd == 1.3
    assert "S$2,665/month" in render_html(pack)


def test_a_usd_scenario_pack_stays_in_dollars() -> None:
    # the startup preset is in US dollars: figures keep their $ and the [USD/…] headers
    startup = load_preset("startup-rented")
    pack = build_pack(startup, uncertainty=False, finance=False)
    page = render_html(pack)
    total = evaluate(startup).fleet.total_cost_usd_per_month
    assert f"${total:,.0f}/month" in page
    assert "S$" not in _computed_text(pack, page)
    with zipfile.ZipFile(io.BytesIO(csv_bundle(pack))) as zf:
        fleet = pd.read_csv(zf.open("fleet.csv"))
        decisions = pd.read_csv(zf.open("decisions.csv"))
    assert "Recommended plan [USD/month]" in fleet.columns
    assert "Cost of route [USD/month]" in decisions.columns


def test_the_bank_pack_shows_the_overviews_idle_gpu_figure(bank_pack: MeetingPack) -> None:
    # The pack's key figure read the cash lens's idle cost ($0: the bank's node is sunk) where the Overview's
    # "Idle GPUs" card shows the full cost of the idle hours; one owned node: full cost × (1 − utilization) × 1.30.
    plan = bank_pack.result.plan
    assert plan is not None
    (node,) = [n for n in plan.nodes if n.kind == "owned"]
    idle_sgd = node.full_cost_usd_per_month * (1.0 - node.utilization) * 1.30
    text = html.unescape(re.sub(r"<[^>]+>", " ", render_html(bank_pack)))
    assert "Idle owned GPUs, full cost" in text
    assert f"S${idle_sgd:,.0f}" in text, idle_sgd
