"""A price field shows the price as entered: never rounded, never in float noise or exponent form."""

from __future__ import annotations

import pytest

from economics.price_text import parse_money
from ui.widgets.api_rates import money_text


@pytest.mark.parametrize(
    ("price", "shown"),
    [
        (0.125, "$0.125"),  # GPT-5's cached input read "$0.12" in its field
        (1.275, "$1.275"),
        (3.0, "$3.00"),
        (9.5, "$9.50"),
        (0.025, "$0.025"),
        (0.000053, "$0.000053"),
        (1234.5, "$1,234.50"),
        (280000.0, "$280,000"),
        (0.1 + 0.2, "$0.30"),
        (0.0, "$0.00"),
    ],
)
def test_a_price_field_shows_the_price_as_entered(price: float, shown: str) -> None:
    assert money_text(price) == shown


@pytest.mark.parametrize("price", [0.125, 1.275, 0.0225, 12.345678, 0.00000125, 1999.99, 2.5])
def test_the_shown_text_reads_back_as_the_same_price(price: float) -> None:
    assert parse_money(money_text(price), "price") == pytest.approx(price, rel=1e-12)
