"""Comparing two snapshots lists changed prices, flipped routes and cost deltas (hand-made results)."""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path

import pandas as pd
import pytest

from economics.compare import (
    FLEET_DELTA_COLUMNS,
    PRICE_CHANGE_COLUMNS,
    WORKLOAD_DELTA_COLUMNS,
    Comparison,
    Snapshot,
    compare,
    compare_with_prices,
)
from economics.currency import DisplayRate
from economics.evaluate import evaluate
from economics.io.catalog import load_catalog
from economics.io.scenarios import default_scenario, load_preset
from economics.price_book import NegotiatedPrice, apply_negotiated, price_book
from economics.pricing import reprice
from economics.result import FlipThreshold, Result
from storage import reviews as store
from tests.reviews.factories import small_result, small_scenario
from ui.charts.reviews import price_change_chart


def _snapshot(label: str, chat_route: str = "frontier", discount: float = 0.0) -> Snapshot:
    scenario = small_scenario()
    if discount:
        scenario = apply_negotiated(
            scenario, [NegotiatedPrice(offer_id="frontier", item="api_discount", value=discount)]
        )
    return Snapshot(
        label=label, scenario=scenario, result=small_result(scenario, chat_route), prices=price_book(scenario)
    )


def test_identical_snapshots_have_no_changes() -> None:
    cmp = compare(_snapshot("a"), _snapshot("b"))
    assert cmp.prices.empty
    assert list(cmp.prices.columns) == list(PRICE_CHANGE_COLUMNS)
    assert list(cmp.workloads.columns) == list(WORKLOAD_DELTA_COLUMNS)
    assert list(cmp.fleet.columns) == list(FLEET_DELTA_COLUMNS)
    assert not cmp.workloads["flipped"].any()
    assert cmp.total_change_usd_per_month == 0.0


def test_a_discount_shows_as_price_changes_with_fractions() -> None:
    cmp = compare(_snapshot("list"), _snapshot("negotiated", discount=0.2))
    changed = cmp.prices.set_index("item")
    # frontier input 3 → 2.4, cached 0.3 → 0.24, output 15 → 12: each −20 %.
    assert set(changed.index) == {"api_input", "api_cached_input", "api_output"}
    assert changed.loc["api_output", "before"] == 15.0
    assert changed.loc["api_output", "after"] == pytest.approx(12.0)
    assert changed.loc["api_output", "change"] == pytest.approx(-3.0)
    assert changed["change_fraction"].tolist() == pytest.approx([-0.2, -0.2, -0.2])
    assert set(changed["status"]) == {"changed"}


def test_a_flipped_route_is_found() -> None:
    cmp = compare(_snapshot("Q2"), _snapshot("Q3", chat_route="ar-owned"))
    flipped = cmp.flipped
    assert flipped["workload_id"].tolist() == ["chat"]
    assert (flipped.loc[0, "route_before"], flipped.loc[0, "route_after"]) == ("frontier", "ar-owned")
    assert (flipped.loc[0, "label_before"], flipped.loc[0, "label_after"]) == ("frontier API", "owned AR")
    # $/Mtok of the chosen option: 0.0105 $/req ÷ 500 tok = 21 $/Mtok before; 0.002 ÷ 500 = 4 $/Mtok after.
    assert flipped.loc[0, "cost_per_mtok_before_usd"] == pytest.approx(21.0)
    assert flipped.loc[0, "cost_per_mtok_after_usd"] == pytest.approx(4.0)


def test_added_and_removed_prices_and_workloads() -> None:
    before = _snapshot("before")
    scenario = small_scenario(apis=before.scenario.apis[:1], workloads=before.scenario.workloads[:1])
    result = small_result(scenario)
    after = Snapshot(
        label="after",
        scenario=scenario,
        result=result.model_copy(update={"decisions": result.decisions[:1]}),
        prices=price_book(scenario),
    )
    cmp = compare(before, after)
    removed = cmp.prices[cmp.prices["status"] == "removed"]
    assert set(removed["offer_id"]) == {"hosted-70b"}
    assert removed["after"].isna().all()
    kyc = cmp.workloads.set_index("workload_id").loc["kyc"]
    assert kyc["status"] == "removed"
    assert not kyc["flipped"]
    assert math.isnan(kyc["monthly_cost_after_usd"])


def test_fleet_deltas_are_after_minus_before_and_none_becomes_nan() -> None:
    before = _snapshot("before")
    result = before.result
    cheaper = result.model_copy(
        update={"fleet": result.fleet.model_copy(update={"total_cost_usd_per_month": 30_000.0})}
    )
    after = Snapshot(label="after", scenario=before.scenario, result=cheaper, prices=before.prices)
    cmp = compare(before, after)
    assert cmp.total_change_usd_per_month == pytest.approx(30_000.0 - 38_711.9)
    all_api = cmp.fleet.set_index("metric").loc["all_api_cost_usd_per_month"]
    assert math.isnan(all_api["before"])
    assert math.isnan(all_api["change"])


# ---- with evaluate(): a price moved past its flip threshold flips the route ---------------------------------


def _ticket_flip(result: Result) -> FlipThreshold:
    decision = next(d for d in result.decisions if d.workload_id == "ticket-summaries")
    return next(f for f in decision.flips if f.driver == "api_output_price")


def test_compare_finds_the_flip_when_the_api_price_crosses_its_threshold() -> None:
    # The startup's nightly ticket summaries run on the frontier API; its flip threshold says at which output
    # price the plan moves them elsewhere. Negotiate the price 2 % past it: the comparison (each side a fresh
    # plan) must show that flip; 2 % short of it: no flip. (The bank's code completion, the old subject of this
    # test, now sits on the bank's sunk node and no API price moves it: issue 10.)
    startup = load_preset("startup-rented")
    before = Snapshot.evaluated(startup, "Q4")
    flip = _ticket_flip(before.result)
    assert flip.threshold is not None
    assert flip.direction == "above"
    api_id = next(d.chosen_option_id for d in before.result.decisions if d.workload_id == "ticket-summaries")
    assert api_id is not None

    def moved(factor: float) -> Snapshot:
        price = NegotiatedPrice(offer_id=api_id, item="api_output_price", value=flip.threshold * factor)
        return Snapshot.evaluated(apply_negotiated(startup, [price]), f"x{factor}")

    past = compare(before, moved(1.02))
    assert "ticket-summaries" in past.flipped["workload_id"].tolist()
    row = past.flipped.set_index("workload_id").loc["ticket-summaries"]
    assert (row["route_before"], row["route_after"]) == (api_id, flip.new_option_id)
    changed = past.prices.set_index(["offer_id", "item"]).loc[(api_id, "api_output")]
    assert changed["after"] == pytest.approx(flip.threshold * 1.02)

    short = compare(before, moved(0.98))
    assert "ticket-summaries" not in short.flipped["workload_id"].tolist()
    assert short.workloads.set_index("workload_id").loc["ticket-summaries", "monthly_cost_change_usd"] > 0


def test_compare_with_todays_prices_reverts_a_hand_edited_list_price(tmp_path: Path) -> None:
    # A review saved with a hand-edited list price (the offer still carries its catalog price id) compared
    # with the catalog's prices as of the review date shows that price going back to the catalog's.
    bank = default_scenario()
    frontier = next(a for a in bank.apis if a.tier == "frontier")
    edited = bank.model_copy(
        update={
            "apis": tuple(a.model_copy(update={"output_usd_per_mtok": 18.0}) if a is frontier else a for a in bank.apis)
        }
    )
    summary = store.save_review(edited, evaluate(edited), name="edited", path=tmp_path / "r.sqlite3")
    review = store.load_review(summary.id, path=tmp_path / "r.sqlite3")
    cmp = compare_with_prices(review, load_catalog(), bank.review_date)
    row = cmp.prices.set_index(["offer_id", "item"]).loc[(frontier.id, "api_output")]
    assert (row["before"], row["after"]) == (18.0, frontier.output_usd_per_mtok)
    assert cmp.after_label == f"prices as of {bank.review_date.isoformat()}"
    assert cmp.total_change_usd_per_month <= 0  # a cheaper API can only lower the chosen routes' cost


def test_negotiated_prices_survive_repricing() -> None:
    # A negotiated token price clears the catalog price id, so "today's prices" keep it; a discount stays.
    bank = default_scenario()
    frontier = next(a for a in bank.apis if a.tier == "frontier")
    negotiated = apply_negotiated(bank, [NegotiatedPrice(offer_id=frontier.id, item="api_output_price", value=11.0)])
    repriced = reprice(negotiated, load_catalog(), bank.review_date)
    assert next(a for a in repriced.apis if a.id == frontier.id).output_usd_per_mtok == 11.0


def test_the_price_change_chart_writes_money_and_discounts_in_words() -> None:
    # the bar's text read "3.64e+05 → 4.55e+05 SGD" for a node price and "0.2 → 0.3 fraction" for a discount
    rows = [
        ("node", "Owned node", "node_capex", "USD", 280_000.0, 350_000.0),
        ("api", "Frontier API", "api_discount", "fraction", 0.2, 0.3),
        ("api", "Frontier API", "api_output", "USD/Mtok", 15.0, 12.0),
    ]
    prices = pd.DataFrame(
        [
            {
                "offer_id": o,
                "offer_name": n,
                "item": i,
                "unit": u,
                "before": b,
                "after": a,
                "change": a - b,
                "change_fraction": (a - b) / b,
                "before_as_of": None,
                "after_as_of": None,
                "status": "changed",
            }
            for o, n, i, u, b, a in rows
        ]
    )
    day = dt.date(2026, 12, 1)
    empty = pd.DataFrame()
    cmp = Comparison("Q3", "Q4", day, day, prices, empty, empty)
    sgd = DisplayRate(code="SGD", units_per_usd=1.3, as_of=day, source="test")
    (bar,) = price_change_chart(cmp, sgd).data
    # $280,000 × 1.3 = S$364,000; $350,000 × 1.3 = S$455,000; $15 × 1.3 = S$19.50, $12 × 1.3 = S$15.60
    assert list(bar.text) == ["S$364,000 → S$455,000 per node", "20% → 30%", "S$19.50 → S$15.60 per million tokens"]
