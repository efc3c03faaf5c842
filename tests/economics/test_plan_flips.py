"""Flip thresholds on the fleet plan (issue 10): the API price in use, the target-utilization flip."""

from __future__ import annotations

import pytest

from economics.evaluate import evaluate
from economics.price_book import NegotiatedPrice, apply_negotiated
from economics.result import FlipThreshold, Result
from economics.scenarios import default_scenario


def _flip(result: Result, workload_id: str, driver: str) -> FlipThreshold:
    d = next(x for x in result.decisions if x.workload_id == workload_id)
    return next(f for f in d.flips if f.driver == driver)


def test_the_api_price_flip_reads_the_negotiated_price_in_use() -> None:
    # The bank's analyst workload runs on the frontier API at a list output price of $15/Mtok (no batch
    # tier: it is latency-bound). With a negotiated 20% discount the price paid is 15 × 0.8 = $12/Mtok.
    # A negotiated output rate of $12 replaces the list price alone; J depends on the price paid, so the price
    # paid at which the plan moves the workload is the same as without it. The discount also cuts the input
    # price, which moves the threshold up a little (the input saving over T_out), never to the list-price
    # figure threshold/0.8 (25% higher) that the old list-price reading gave.
    bank = default_scenario()
    base = _flip(evaluate(bank), "analyst-research", "api_output_price")
    discount = apply_negotiated(bank, [NegotiatedPrice(offer_id="frontier-api", item="api_discount", value=0.2)])
    rate = apply_negotiated(bank, [NegotiatedPrice(offer_id="frontier-api", item="api_output_price", value=12.0)])
    with_discount = _flip(evaluate(discount), "analyst-research", "api_output_price")
    with_rate = _flip(evaluate(rate), "analyst-research", "api_output_price")
    assert base.current == pytest.approx(15.0)
    assert with_discount.current == pytest.approx(12.0)
    assert with_rate.current == pytest.approx(12.0)
    assert base.threshold is not None
    assert with_discount.threshold is not None
    assert base.threshold <= with_discount.threshold < 1.01 * base.threshold
    assert with_rate.threshold == pytest.approx(base.threshold, rel=1e-9)
    assert "$12/Mtok" in with_discount.text
