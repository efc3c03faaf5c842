"""The price book lists every price with its date and staleness; negotiated prices apply only when all are valid."""

from __future__ import annotations

import datetime as dt

import pytest

from economics.offers import RentedNode
from economics.price_book import (
    PRICE_BOOK_COLUMNS,
    NegotiatedPrice,
    NegotiatedPriceError,
    apply_negotiated,
    check_negotiated,
    parse_as_of,
    price_book,
    price_book_frame,
)
from economics.scenario import Policy
from tests.reviews.factories import small_result, small_scenario


def _entry(scenario_entries: tuple, offer_id: str, item: str):  # type: ignore[no-untyped-def]
    return next(e for e in scenario_entries if e.offer_id == offer_id and e.item == item)


def test_every_price_is_listed_with_its_source_and_date() -> None:
    entries = price_book(small_scenario())
    keys = {(e.offer_id, e.item) for e in entries}
    assert keys == {
        ("h100-rented", "gpu_hour"),
        ("h100-owned", "node_capex"),
        ("h100-owned", "electricity"),
        ("h100-owned", "colocation"),
        ("frontier", "api_input"),
        ("frontier", "api_cached_input"),
        ("frontier", "api_output"),
        ("hosted-70b", "api_input"),
        ("hosted-70b", "api_output"),
    }
    rented = _entry(entries, "h100-rented", "gpu_hour")
    assert (rented.value, rented.unit, rented.source) == (2.5, "USD/GPU-h", "neocloud list price")
    assert rented.as_of == dt.date(2025, 8, 1)


def test_stale_is_relative_to_the_review_date_and_the_policy_age() -> None:
    # Review 2025-09-30. Rented price 2025-08-01: 60 days old. Owned inputs "2025-01" → 2025-01-01: 272 days.
    entries = price_book(small_scenario())
    assert _entry(entries, "h100-rented", "gpu_hour").age_days == 60
    assert not _entry(entries, "h100-rented", "gpu_hour").stale
    assert _entry(entries, "h100-owned", "node_capex").age_days == 272
    assert _entry(entries, "h100-owned", "node_capex").stale
    # Undated prices are stale: nobody can say how old they are.
    assert _entry(entries, "hosted-70b", "api_output").stale
    assert _entry(entries, "hosted-70b", "api_output").age_days is None
    # A 30-day policy makes the 60-day-old price stale; 60 days exactly is not "older than" 60.
    strict = price_book(small_scenario(policy=Policy(stale_after_days=30)))
    assert _entry(strict, "h100-rented", "gpu_hour").stale
    exact = price_book(small_scenario(policy=Policy(stale_after_days=60)))
    assert not _entry(exact, "h100-rented", "gpu_hour").stale


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2025-07-15", dt.date(2025, 7, 15)),
        ("2025-07", dt.date(2025, 7, 1)),
        (" 2025-07-15 ", dt.date(2025, 7, 15)),
        ("", None),
        ("2025", None),
        ("2025-13-01", None),
        ("2025-02-30", None),
        ("July 2025", None),
    ],
)
def test_as_of_dates_are_read_strictly(text: str, expected: dt.date | None) -> None:
    assert parse_as_of(text) == expected


def test_frame_has_the_documented_columns_and_marks_prices_of_chosen_routes() -> None:
    scenario = small_scenario()
    frame = price_book_frame(scenario, small_result(scenario))
    assert list(frame.columns) == list(PRICE_BOOK_COLUMNS)
    assert all(desc for desc in PRICE_BOOK_COLUMNS.values())
    used = set(frame.loc[frame["in_chosen_route"], "offer_id"])
    assert used == {"frontier", "h100-owned"}  # chat → frontier API, kyc → ar-owned on h100-owned
    assert str(frame["age_days"].dtype) == "Int64"


def test_api_discount_shows_list_discount_and_price_in_use() -> None:
    scenario = apply_negotiated(
        small_scenario(), [NegotiatedPrice(offer_id="frontier", item="api_discount", value=0.2)]
    )
    out = _entry(price_book(scenario), "frontier", "api_output")
    # 15 $/Mtok list, 20 % off → 12 $/Mtok.
    assert (out.list_value, out.discount_fraction, out.value, out.negotiated) == (15.0, 0.2, pytest.approx(12.0), True)
    assert out.as_of == scenario.review_date  # no as_of given: the agreement is dated the review date
    assert out.source.startswith("negotiated: 20% discount")


def test_negotiated_node_price_and_reserved_discount() -> None:
    base = small_scenario()
    priced = apply_negotiated(
        base,
        [
            NegotiatedPrice(
                offer_id="h100-rented", item="gpu_hour_price", value=1.9, as_of=dt.date(2025, 6, 1), source="MSA"
            )
        ],
    )
    node = priced.node("h100-rented")
    assert isinstance(node, RentedNode)
    assert (node.price_usd_per_gpu_hour, node.pricing_type, node.as_of) == (1.9, "negotiated", "2025-06-01")
    assert "MSA" in node.source
    reserved = apply_negotiated(base, [NegotiatedPrice(offer_id="h100-rented", item="reserved_discount", value=0.3)])
    node = reserved.node("h100-rented")
    assert isinstance(node, RentedNode)
    assert node.price_usd_per_gpu_hour == pytest.approx(2.5 * 0.7)  # 30 % off 2.50 $/GPU-h
    # A second reserved discount would compound: refused.
    with pytest.raises(NegotiatedPriceError, match="would compound"):
        apply_negotiated(reserved, [NegotiatedPrice(offer_id="h100-rented", item="reserved_discount", value=0.3)])


def test_negotiated_token_prices_replace_list_prices_and_clear_the_discount() -> None:
    base = apply_negotiated(small_scenario(), [NegotiatedPrice(offer_id="frontier", item="api_discount", value=0.1)])
    priced = apply_negotiated(
        base,
        [
            NegotiatedPrice(offer_id="frontier", item="api_input_price", value=2.0),
            NegotiatedPrice(offer_id="frontier", item="api_output_price", value=10.0),
        ],
    )
    api = next(a for a in priced.apis if a.id == "frontier")
    assert (api.input_usd_per_mtok, api.output_usd_per_mtok, api.negotiated_discount_fraction) == (2.0, 10.0, 0.0)


def test_nothing_is_applied_when_one_price_is_wrong() -> None:
    base = small_scenario()
    prices = [
        NegotiatedPrice(offer_id="frontier", item="api_discount", value=0.2),
        NegotiatedPrice(offer_id="frontier", item="gpu_hour_price", value=2.0),  # wrong kind of offer
        NegotiatedPrice(offer_id="nope", item="api_discount", value=0.2),
    ]
    with pytest.raises(NegotiatedPriceError) as info:
        apply_negotiated(base, prices)
    assert len(info.value.problems) == 2
    assert "gpu_hour_price does not apply to api offer 'frontier'" in info.value.problems[0]
    assert "unknown offer id 'nope'" in info.value.problems[1]


def test_checks_catch_range_duplicates_and_conflicts() -> None:
    problems = check_negotiated(
        small_scenario(),
        [
            NegotiatedPrice(offer_id="frontier", item="api_discount", value=1.0),
            NegotiatedPrice(offer_id="frontier", item="api_discount", value=0.1),
            NegotiatedPrice(offer_id="h100-rented", item="gpu_hour_price", value=2.0),
            NegotiatedPrice(offer_id="h100-rented", item="reserved_discount", value=0.2),
            NegotiatedPrice(offer_id="h100-owned", item="node_capex", value=0.0),
        ],
    )
    assert [(i, col) for i, col, _ in problems] == [(0, "value"), (1, "item"), (3, "item"), (4, "value")]
    reasons = [reason for *_, reason in problems]
    assert "must be at least 0 and less than 1 fraction (write 0.3 or 30% for 30 percent)" in reasons[0]
    assert "duplicate" in reasons[1]
    assert "gpu_hour_price and reserved_discount both given" in reasons[2]
    assert "must be more than 0 and at most 100,000,000 USD" in reasons[3]
