"""Issue 14, item 4: the Overview's cards and tables and the Reviews page's sentences in the display currency.

The Singapore-bank preset shows SGD at 1.30 SGD per US dollar (data/prices/fx_rates.csv, 2026-12-01). Its one
workload with a bill, "Analyst research (frontier reasoning)", runs on the frontier API at USD 2,049.84 a month
in the cash lens (its card's share of the plan; the other four ride on nodes already bought, USD 0). By hand:
2,049.84 × 1.30 = 2,664.792 → the card reads S$2,665 (whole units above 1,000), the same figure as the headline.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from economics.currency import USD, DisplayRate
from economics.evaluate import evaluate
from economics.io.scenarios import encode, load_preset
from economics.result import Result
from economics.scenario import Scenario
from tests.ui.helpers import chart, metrics, run_page
from ui import format as fmt
from ui import tables
from ui.bands import route_accuracy_frame
from ui.charts.overview import fleet_figure, monthly_figure, option_cost_figure
from ui.widgets.reviews import flips_frame

SGD = DisplayRate("SGD", 1.3, None, "test")
ANALYST = "Analyst research (frontier reasoning)"
# a dollar amount not written in the display currency: "$12" or "\$12" not preceded by S
BARE_DOLLAR = re.compile(r"(?<![S\\])\\?\$\d|(?<!S)\\\$\d")


@pytest.fixture(scope="module")
def bank() -> tuple[Scenario, Result]:
    s = load_preset("singapore-bank")
    return s, evaluate(s)


def test_money_text_converts_every_dollar_amount() -> None:
    # 0.2 × 1.3 = 0.26; 3,984 × 1.3 = 5,179.2 → S$5,179; −15 × 1.3 = −19.5 → −S$19.50
    text = "J = $0.2/task; rises above $3,984/Mtok; saves −$15"
    assert fmt.money_text(text, "SGD", 1.3) == "J = S$0.26/task; rises above S$5,179/Mtok; saves −S$19.50"


def test_a_compared_pair_keeps_its_decimals_in_both_currencies(bank: tuple[Scenario, Result]) -> None:
    # 0.2 and 0.2906 USD a task: 0.26 and 0.37778 SGD; the first was shown "S$0.26" beside "S$0.3778"
    assert fmt.money_text("J = $0.2000/task; vs $0.2906", "SGD", 1.3) == "J = S$0.2600/task; vs S$0.3778"
    pair = re.compile(r"J = (?:S\$)?\$?(\d[\d,]*\.(\d+))/task on .*; vs (?:S\$)?\$?(\d[\d,]*\.(\d+)) on ")
    _s, r = bank
    compared = 0
    for d in r.decisions:
        for text in (d.reason, fmt.money_text(d.reason, "SGD", 1.3)):
            m = pair.search(text.replace("S$", "$"))
            if m is None:
                continue
            compared += 1
            if float(m.group(1).replace(",", "")) < 1 and float(m.group(3).replace(",", "")) < 1:
                assert len(m.group(2)) == len(m.group(4)), text
    assert compared >= 4


def test_a_costs_parts_share_its_decimals_in_another_currency() -> None:
    # the API-only preset's code-completion card read "S$0.00053 paid to run it, S$0.0042 expected cost of its
    # failed tasks": two precisions for two parts of one cost. 0.00041 × 1.3 = 0.000533, 0.00323 × 1.3 = 0.004199,
    # 0.00364 × 1.3 = 0.004732: five decimals each, rounded from the converted value (not "S$0.00470", zeros
    # padded onto a rounded figure)
    text = "J = $0.003640/task on X ($0.000410 paid to run it, $0.003230 expected cost of its failed tasks)"
    assert fmt.money_text(text, "SGD", 1.3) == (
        "J = S$0.00473/task on X (S$0.00053 paid to run it, S$0.00420 expected cost of its failed tasks)"
    )
    # an amount that rounds up to one unit is written as one, with its cents ("€1." once)
    assert fmt.money_text("$0.99999 vs $0.00011", "EUR", 1.0) == "€1.00 vs €0.00011"
    assert fmt.money(0.99999, "EUR") == "€1.00"
    assert fmt.money(0.5, "SGD", 1.0) == "S$0.50"


def test_fx_one_changes_nothing(bank: tuple[Scenario, Result]) -> None:
    s, r = bank
    for d in r.decisions:
        assert fmt.money_text(d.reason, "USD", 1.0) == d.reason
        for f in d.flips:
            assert fmt.money_text(f.text, "USD", 1.0) == f.text
    pd.testing.assert_frame_equal(tables.decisions_frame(r, s, USD), tables.decisions_frame(r, s))
    pd.testing.assert_frame_equal(tables.options_frame(r, s, USD), tables.options_frame(r, s))
    assert "Cost of route [USD/month]" in tables.decisions_frame(r, s).columns


def test_bank_routes_table_in_sgd(bank: tuple[Scenario, Result]) -> None:
    s, r = bank
    frame = tables.decisions_frame(r, s, SGD)
    row = frame[frame["Workload"] == ANALYST].iloc[0]
    assert row["Cost of route [SGD/month]"] == 2664.79  # 2,049.84 × 1.30 = 2,664.792, to the cent
    assert not any("USD" in str(c) for c in frame.columns)
    assert not any(BARE_DOLLAR.search(str(why)) for why in frame["Why"])


def test_bank_flip_threshold_in_sgd(bank: tuple[Scenario, Result]) -> None:
    _, r = bank
    frame = flips_frame(r, SGD)
    price = frame[(frame["Workload"] == ANALYST) & (frame["Unit"] == "SGD/Mtok")].iloc[0]
    assert price["Now"] == pytest.approx(19.5)  # Claude Sonnet 4.5 output at USD 15/Mtok × 1.30
    assert "(now S$19.50/Mtok)" in price["In words"]


def test_overview_cards_read_like_the_headline() -> None:
    at = run_page("1_overview")  # the default scenario is the Singapore bank, in SGD
    headline = metrics(at)["Recommended, SGD/month"]
    assert headline == "S$2,665"
    cards = [str(m.value) for m in at.markdown if "its share of the plan" in str(m.value)]
    assert f"**{headline}** per month, its share of the plan" in cards  # the analyst card: the whole bill
    # the one card that saves against an API carries the whole saving, in whole units like the headline: it read
    # "saves S$691.82/month" under "Savings vs baseline S$692"
    saving = metrics(at)["Savings vs baseline, SGD/month"]
    assert [str(c.value) for c in at.caption if str(c.value).startswith("saves")] == [
        f"saves {saving} a month vs its best API"
    ]
    texts = [str(x.value) for x in (*at.markdown, *at.caption, *at.warning)]
    assert not [t for t in texts if BARE_DOLLAR.search(t)]
    assert not any("cards and tables below are in USD" in t for t in texts)


def test_reviews_sentences_in_sgd() -> None:
    at = run_page("7_reviews")
    text = "\n".join(str(m.value) for m in at.markdown).replace("\\", "")
    assert "The monthly bill is unchanged at S$2,665." in text
    assert "(now S$19.50/Mtok)" in text
    assert metrics(at)["Recommended plan, SGD/month"] == "S$2,665"


def test_overview_charts_in_sgd(bank: tuple[Scenario, Result]) -> None:
    s, r = bank
    monthly = monthly_figure(r, SGD)
    bars = dict(zip(monthly.data[0].y, monthly.data[0].x, strict=True))
    assert bars[ANALYST] == pytest.approx(2664.792, abs=0.01)  # 2,049.84 × 1.30, as on the card
    assert monthly.layout.xaxis.tickprefix == "S$"
    assert "SGD" in monthly.layout.xaxis.title.text
    assert "SGD" in fleet_figure(r, SGD).layout.xaxis.title.text
    dots = option_cost_figure(r, s, SGD)
    usd = option_cost_figure(r, s)
    assert dots.data[0].x[0] == pytest.approx(1.3 * usd.data[0].x[0])
    assert "USD" in usd.layout.xaxis.title.text  # FX 1: unchanged
    assert dots.layout.xaxis.tickprefix == "S$"


def _money_figures(at: AppTest) -> dict[str, str]:
    """The page's key figures whose label or value is about money."""
    return {k: v for k, v in metrics(at).items() if "$" in v or "USD" in k or "SGD" in k or "cost" in k.lower()}


def test_bank_break_even_page_in_sgd() -> None:
    at = run_page("3_break_even")  # the default scenario is the Singapore bank, in SGD at 1.30
    at.selectbox(key="v_be_api").set_value("frontier-api").run()  # it opens on the cheapest API, Mercury 2
    figures = _money_figures(at)
    assert {"Owned, full cost [SGD/Mtok output]", "API [SGD/Mtok output]"} <= set(figures)
    # the KYC batch on the frontier API: $37.50 per Mtok output (tests/ui/test_pages.py) × 1.30 = S$48.75
    assert figures["API [SGD/Mtok output]"] == "S$48.75"
    assert not [k for k in figures if "USD" in k]
    assert not [v for v in figures.values() if BARE_DOLLAR.search(v) or "USD" in v]
    assert all("S$" in v for k, v in figures.items() if "SGD" in k)
    axis = chart(at, "Owned beats the API")["layout"]["xaxis"]
    assert "SGD per Mtok" in axis["title"]["text"]
    assert all(str(t).startswith("S$") for t in axis["ticktext"])  # every 1-2-5 log tick (ui.axes)


def test_bank_batching_page_in_sgd() -> None:
    at = run_page("4_batching")
    cost = metrics(at)["AR cost per Mtok while busy"]
    assert cost.startswith("S$")
    assert not [k for k, v in metrics(at).items() if "USD" in k or "USD" in v or BARE_DOLLAR.search(v)]
    axis = chart(at, "Cost per token while busy")["layout"]["yaxis"]
    assert "SGD per Mtok" in axis["title"]["text"]
    assert all(str(t).startswith("S$") for t in axis["ticktext"])  # every 1-2-5 log tick (ui.axes)


def test_bank_cost_per_token_replica_cost_in_sgd() -> None:
    at = run_page("2_cost_per_token")
    frames = [d.value for d in at.dataframe if any("Replica cost" in str(c) for c in d.value.columns)]
    assert len(frames) == 1
    assert "Replica cost at full load [SGD/h]" in frames[0].columns
    assert not [c for c in frames[0].columns if "USD" in str(c)]


def test_bank_route_accuracy_table_in_sgd(bank: tuple[Scenario, Result]) -> None:
    _, r = bank
    usd, sgd = route_accuracy_frame(r.options, r.decisions), route_accuracy_frame(r.options, r.decisions, SGD)
    assert not [c for c in sgd.columns if "USD" in c]
    owned = usd["Cost on its own [USD/Mtok output]"].notna()
    assert owned.any()  # the bank runs four workloads on its own nodes
    for kind in ("Cost on its own", "Likely low", "Likely high"):
        expected = 1.3 * usd.loc[owned, f"{kind} [USD/Mtok output]"].astype(float)  # USD × 1.30
        got = sgd.loc[owned, f"{kind} [SGD/Mtok output]"].astype(float)
        pd.testing.assert_series_equal(got, expected, check_names=False)


def test_bank_argument_page_in_sgd() -> None:
    at = run_page("8_argument")
    text = " ".join(str(m.value) for m in at.markdown)
    # the KYC claim's node at $17.5571/h × 1.30 = S$22.824, converted before it is rounded (the rounded $17.56
    # converted read S$22.83, a cent off the Cost per token page's S$22.82)
    assert "S$22.82/h" in text.replace("\\", "")
    assert not BARE_DOLLAR.search(text)


def test_bank_price_book_says_its_prices_are_in_us_dollars() -> None:
    # every other page showed S$ while the price book's $280,000 and $0.20 per kWh stood without a word on currency
    at = run_page("6_price_book")
    text = " ".join(str(c.value) for c in at.caption).replace("\\", "")
    assert "Prices here are in US dollars" in text
    assert "show money in SGD, at 1.3 SGD per US dollar" in text


def test_usd_price_book_has_no_currency_note() -> None:
    at = run_page("6_price_book", query={"s": encode(load_preset("startup-rented"))})
    assert not any("Prices here are in US dollars" in str(c.value) for c in at.caption)


def test_a_likely_range_is_written_with_one_precision_at_both_ends() -> None:
    # A decision card read "S$1,057 per million output tokens on its own, likely S$910.21–S$1,179": one end in
    # cents, the other whole, because amounts from 1,000 up are whole. Both ends now share a precision.
    assert fmt.usd_range(700.16, 907.2) == "$700.16–$907.20"
    assert fmt.usd_range(910.21, 1179.4) == "$910–$1,179"
    assert fmt.usd_range(13.6, 18.72) == "$13.60–$18.72"
    assert fmt.money_text("likely $700.16–$907.20 (basis)", "SGD", 1.3) == "likely S$910–S$1,179 (basis)"
    # two amounts that are not a range keep their own precision
    assert fmt.money_text("$700.16 here, $907.20 there", "SGD", 1.3) == "S$910.21 here, S$1,179 there"
    assert fmt.money_text("likely $7.16–$9.20", "SGD", 1.3) == "likely S$9.31–S$11.96"


def test_every_route_kind_has_words_and_the_cards_use_them() -> None:
    # Cards, tables and the pack read "owned AR (batch)", the engineer's label: each kind has finance words
    from typing import get_args

    from economics.result import RouteLabel

    labels = get_args(RouteLabel)
    assert set(fmt.ROUTE_WORDS) == set(labels)
    assert all("AR" not in fmt.route_words(label) for label in labels)
    at = run_page()
    labels = [str(m.value) for m in at.markdown if "-background[" in str(m.value)]  # a label that wraps
    assert ":small[:blue-background[owned GPUs, batched]]" in labels  # the bank's overnight KYC batch
    assert ":small[:blue-background[owned GPUs, one request at a time]]" in labels
    assert not [b for b in labels if "AR" in b]
