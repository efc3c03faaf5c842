"""The price book lists the tier, cache-write and upfront prices a scenario uses, with their sources."""

from __future__ import annotations

from economics.finance.terms import RentalTerms
from economics.io.scenarios import load_preset
from economics.price_book import price_book
from economics.scenario import Scenario


def test_bank_frontier_api_tiers_are_in_the_price_book() -> None:
    book = {(e.offer_id, e.item): e for e in price_book(load_preset("singapore-bank"))}
    # Claude Sonnet 4.5: cache write 1.25 × $3 = $3.75; above 200k tokens $6 in / $22.5 out
    assert book[("frontier-api", "api_cache_write")].value == 3.75
    assert book[("frontier-api", "api_long_context_input")].value == 6.0
    assert book[("frontier-api", "api_long_context_output")].value == 22.5
    assert book[("frontier-api", "api_cached_input")].value == 0.3
    assert ("hosted-70b-api", "api_cache_write") not in book  # not priced by that provider


def test_reserved_upfront_is_a_price_of_its_own() -> None:
    data = load_preset("startup-rented").model_dump()
    data["nodes"][0].update(pricing_type="reserved-3y", billing=RentalTerms(upfront_usd_per_gpu=13_140.0).model_dump())
    book = {(e.offer_id, e.item): e for e in price_book(Scenario.model_validate(data))}
    upfront = book[("runpod", "reserved_upfront")]
    assert (upfront.value, upfront.unit, upfront.pricing_type) == (13_140.0, "USD/GPU", "reserved-3y")
