"""AppTest of the Price book and Reviews pages: they run, react to their inputs and save/reopen reviews."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from economics.evaluate import evaluate
from economics.io.scenarios import default_scenario, load_preset
from storage import reviews as store
from tests.ui.helpers import chart, compare_reviews, metrics, plotly_specs, run_page
from ui.format import md_escape
from ui.widgets.price_book import _rows_to_prices


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own empty review store."""
    monkeypatch.setenv(store.DATA_DIR_ENV, str(tmp_path))
    return tmp_path


def _no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


# ---- Price book -------------------------------------------------------------------------------------------


def test_price_book_lists_every_price_and_flags_stale_ones() -> None:
    at = run_page("6_price_book")
    m = metrics(at)
    # The bank: owned node (CapEx, power, colocation, dated the review date) and 2 prices for each of 3 APIs,
    # plus the frontier API's cached-input, cache-write and long-context input/output prices
    # (data/prices/api_tiers.csv, issue 14), all APIs dated 276–699 days before the 2026-12-01 review: 10 stale of 13.
    assert (m["Prices in use"], m["Stale or undated"], m["Negotiated"]) == ("13", "10", "0")
    assert "older than 90 days" in at.warning[0].body
    table = at.dataframe[0].value
    assert set(table.loc[table["Status"].str.startswith("⚠"), "Offer"]) == {
        "Frontier API (Claude Sonnet 4.5)",
        "Hosted Llama-70B API (Together)",
        "Mercury 2 API (diffusion)",
    }


def test_a_longer_stale_threshold_clears_the_flags() -> None:
    at = run_page("6_price_book")
    at.number_input(key="pb_stale_days").set_value(1000).run()
    _no_exception(at)
    assert metrics(at)["Stale or undated"] == "0"
    assert not at.warning


def test_editor_rows_become_negotiated_prices_or_messages() -> None:
    rows = pd.DataFrame(
        [
            {
                "offer_id": "mercury-api",
                "item": "api_discount",
                "value": 0.2,
                "as_of": dt.date(2026, 11, 1),
                "source": "MSA",
            },
            {"offer_id": None, "item": None, "value": None, "as_of": None, "source": None},  # blank row: skipped
            {
                "offer_id": "hosted-70b-api",
                "item": "api_output_price",
                "value": 0.7,
                "as_of": pd.Timestamp("2026-10-01"),
                "source": "",
            },
            {"offer_id": "frontier-api", "item": "api_discount", "value": float("nan"), "as_of": None, "source": ""},
        ]
    )
    prices, problems = _rows_to_prices(rows)
    assert [(p.offer_id, p.value, p.as_of) for p in prices] == [
        ("mercury-api", 0.2, dt.date(2026, 11, 1)),
        ("hosted-70b-api", 0.7, dt.date(2026, 10, 1)),
    ]
    assert len(problems) == 1
    assert problems[0].startswith("row 4, value:")


# ---- Reviews ----------------------------------------------------------------------------------------------


def test_reviews_page_runs_on_the_current_scenario_with_every_section() -> None:
    at = run_page("7_reviews")
    m = metrics(at)
    assert m["Routes that flipped"] == "0 of 5"  # the bank against the catalog prices of today: unchanged
    titles = [str(s["layout"]["title"]["text"]) for s in plotly_specs(at)]
    assert any(t.startswith("Cost per workload") for t in titles)
    assert any(t.startswith("What moves the") for t in titles)  # the sensitivity (tornado) chart, in plain words
    assert any(t.startswith("Cost per million output tokens") for t in titles)
    text = "\n".join(md.value for md in at.markdown)
    for workload in default_scenario().workloads:
        assert md_escape(workload.name) in text  # one flip paragraph per workload
    assert "The route moves to" in text
    assert "No saved review yet" in at.info[0].body


def test_save_then_reopen_a_review_exactly_as_saved(data_dir: Path) -> None:
    at = run_page("7_reviews")
    at.text_input(key="rv_name").set_value("Q4 2026 review")
    at.text_area(key="rv_notes").set_value("Renegotiate the diffusion API")
    at.button(key="FormSubmitter:rv_save-Save review").click().run()
    _no_exception(at)
    assert "Saved review #1" in at.success[0].body
    assert "sqlite3" not in at.success[0].body  # no server path in what a finance reader reads
    (saved,) = store.list_reviews()
    assert (saved.name, saved.notes) == ("Q4 2026 review", "Renegotiate the diffusion API")
    assert (data_dir / "reviews.sqlite3").is_file()
    # The stored result carries the flip thresholds (the other pages' cached results leave them out).
    stored = store.load_review(saved.id).result
    assert [d.flips for d in stored.decisions] == [d.flips for d in evaluate(default_scenario()).decisions]
    # The page now shows the saved review, as stored.
    assert at.selectbox(key="rv_subject").value == saved.id
    assert any("shown exactly as saved" in c.value for c in at.caption)


def test_a_stored_review_is_shown_as_stored_not_recomputed() -> None:
    # Save a review whose stored result differs from what evaluate gives now (a doctored fleet total):
    # the page must show the stored number.
    bank = default_scenario()
    result = evaluate(bank)
    doctored = result.model_copy(update={"fleet": result.fleet.model_copy(update={"total_cost_usd_per_month": 1000.0})})
    summary = store.save_review(bank, doctored, name="as stored")
    at = run_page("7_reviews")
    at.selectbox(key="rv_subject").set_value(summary.id).run()
    _no_exception(at)
    # the bank is shown in SGD at its pinned 1.30: USD 1,000 × 1.30 = S$1,300
    assert metrics(at)["Recommended plan, SGD/month"] == "S$1,300"
    # "A recomputation with today's code" is the explicit way to see the difference.
    at.radio(key="rv_compare_how").set_value("a recomputation with today's code").run()
    _no_exception(at)
    # the bank's plan today is USD 2,049.84 a month: (2,049.84 − 1,000) × 1.30 = 1,364.79 → S$1,365
    assert metrics(at)["Monthly bill change, SGD/month"] == "S$1,365"


def test_compare_two_saved_reviews_shows_the_flip() -> None:
    # The startup's frontier API at $15/Mtok output instead of $10: the plan moves the in-app chat and the
    # nightly summaries to the mini API (their thresholds are $14.25 and $14/Mtok), the agent steps stay.
    startup = load_preset("startup-rented")
    frontier = next(a for a in startup.apis if a.id == "gpt-5")
    dear = startup.model_copy(
        update={
            "apis": tuple(
                a.model_copy(update={"output_usd_per_mtok": 15.0}) if a is frontier else a for a in startup.apis
            )
        }
    )
    first = store.save_review(startup, evaluate(startup), name="Q3")
    second = store.save_review(dear, evaluate(dear), name="Q4")
    at = compare_reviews(second.id, first.id)
    _no_exception(at)
    m = metrics(at)
    assert m["Routes that flipped"] == "2 of 3"
    assert m["Prices that changed"] == "1"


def test_open_and_delete_a_review() -> None:
    summary = store.save_review(default_scenario(), evaluate(default_scenario()), name="to delete")
    at = run_page("7_reviews")
    at.selectbox(key="rv_subject").set_value(summary.id).run()
    at.checkbox(key=f"rv_confirm_{summary.id}").check().run()
    at.button(key="rv_delete").click().run()
    _no_exception(at)
    assert store.list_reviews() == ()
    assert at.selectbox(key="rv_subject").value == 0


def test_the_meeting_pack_button_offers_both_downloads() -> None:
    at = run_page("7_reviews")
    at.button(key="rv_pack").click().run()
    _no_exception(at)
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Download the meeting pack [HTML]" in labels
    assert "Download every table [CSV bundle, zip]" in labels


def test_an_unreadable_store_is_a_message_not_a_crash(data_dir: Path) -> None:
    (data_dir / "reviews.sqlite3").write_bytes(b"not a database" * 100)
    at = run_page("7_reviews")
    assert "review store cannot be read" in at.error[0].body


def test_the_selected_review_is_kept_when_the_user_comes_back() -> None:
    s = default_scenario()
    saved = store.save_review(s, evaluate(s), name="Q3 review", notes="")
    at = run_page("7_reviews")
    at.selectbox(key="rv_subject").set_value(saved.id).run()
    _no_exception(at)
    at.switch_page("pages/1_overview.py").run()
    at.switch_page("pages/7_reviews.py").run()
    _no_exception(at)
    assert at.selectbox(key="rv_subject").value == saved.id
    # and so is the comparison chosen for it (it fell back to the catalog's prices)
    at.radio(key="rv_compare_how").set_value("the current scenario").run()
    at.switch_page("pages/1_overview.py").run()
    at.switch_page("pages/7_reviews.py").run()
    _no_exception(at)
    assert at.radio(key="rv_compare_how").value == "the current scenario"
    # the fleet total is reconciled with its line items in words
    assert any("The bill of" in str(c.value) and "plus API spend" in str(c.value) for c in at.caption)


def test_a_list_price_typed_in_the_price_book_applies_with_its_source_and_date_flag() -> None:
    at = run_page("6_price_book")
    frame = at.dataframe[0].value
    row = list(frame["Price"]).index("Output tokens, per million")
    assert frame["List price (type to change)"].iloc[row] == "$15.00"
    # AppTest cannot type into a data editor: the parsing is tested in tests/economics/test_price_text.py and
    # the stamping here
    s = default_scenario()
    from ui.widgets.price_book import _typed_price

    problems: list[str] = []
    later = _typed_price(s, "frontier-api", "output_usd_per_mtok", 9.5, dt.date(2027, 1, 5), problems)
    frontier = next(a for a in later.apis if a.id == "frontier-api")
    assert (frontier.output_usd_per_mtok, frontier.source, frontier.as_of, problems) == (
        9.5,
        "entered by the user on 2027-01-05",
        "2027-01-05",
        [],
    )
    # typed on 5 Jan 2027, after the 1 Dec 2026 review date: flagged in the price book
    from ui.widgets.price_book import price_frame

    shown = price_frame(later, evaluate(later))
    flagged = shown.loc[shown["Status"].str.startswith("⚠ dated after the review date"), "Offer"]
    assert set(flagged) == {"Frontier API (Claude Sonnet 4.5)"}


def test_with_no_saved_review_the_only_comparison_is_said_not_offered_as_a_choice() -> None:
    at = run_page("7_reviews")
    assert not [r for r in at.radio if r.key == "rv_compare_how"]  # one option: no radio button to click
    assert any("Compared with the catalog's prices as of a date" in str(c.value) for c in at.caption)
    assert at.date_input(key="rv_compare_date").value is not None  # the comparison itself is still there


def test_price_changes_read_as_money_in_the_chart_and_the_table() -> None:
    # The bank's node bought at $350,000 instead of $280,000: the chart's bar read "3.64e+05 → 4.55e+05 SGD"
    # and the table "364000 | 455000 | 91000". At the bank's 1.30 SGD per USD: S$364,000 → S$455,000.
    bank = default_scenario()
    node = bank.nodes[0]
    dear = bank.model_copy(update={"nodes": (node.model_copy(update={"capex_usd": 350_000.0}), *bank.nodes[1:])})
    first = store.save_review(bank, evaluate(bank), name="Q3")
    second = store.save_review(dear, evaluate(dear), name="Q4")
    at = compare_reviews(second.id, first.id)
    _no_exception(at)
    bar = chart(at, "Prices that changed")["data"][0]
    assert list(bar["text"]) == ["S$364,000 → S$455,000 per node"]
    prices = next(d for d in at.dataframe if "Change [%]" in d.value.columns)
    config = json.loads(prices.proto.columns)
    assert config["Before"]["type_config"]["format"] == "localized"
    assert config["Change [%]"]["type_config"]["format"] == "%+.1f%%"
