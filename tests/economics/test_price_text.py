"""Price text as people type it: amounts, percentages and ISO dates, and a clear message for anything else."""

from __future__ import annotations

import datetime as dt

import pytest

from economics.price_text import PriceTextError, parse_date, parse_money, parse_percent


@pytest.mark.parametrize(
    ("text", "usd"),
    [
        ("$9.50", 9.5),
        ("9.50", 9.5),
        (" $ 9.5 ", 9.5),
        ("USD 1,250", 1250.0),
        ("$1,250.00", 1250.0),
        ("0", 0.0),
        # thousands, millions and billions as finance writes them; exact, not 0.29 × 1000 = 290.00000000000006
        ("$280k", 280_000.0),
        ("280K", 280_000.0),
        ("0.29k", 290.0),
        ("1.2M", 1_200_000.0),
        ("$1.2mm", 1_200_000.0),
        ("1.2 mn USD", 1_200_000.0),
        ("0.5bn", 500_000_000.0),
        ("1,200k", 1_200_000.0),
    ],
)
def test_amounts(text: str, usd: float) -> None:
    assert parse_money(text, "Output price") == usd


@pytest.mark.parametrize(("text", "fraction"), [("30%", 0.30), ("30 %", 0.30), ("12.5%", 0.125), ("30", 0.30)])
def test_percentages(text: str, fraction: float) -> None:
    assert parse_percent(text, "Discount") == pytest.approx(fraction)


def test_iso_date() -> None:
    assert parse_date("2026-11-01", "As of") == dt.date(2026, 11, 1)


@pytest.mark.parametrize(
    ("parse", "text", "words"),
    [
        (parse_money, "nine fifty", "is not an amount"),
        (parse_money, "-3", "cannot be negative"),
        (parse_money, "30%", "not a percentage"),
        (parse_money, "9,50", "comma in the wrong place"),
        (parse_money, "", "enter an amount"),
        (parse_money, "k", "is not an amount"),
        (parse_money, "12mb", "is not an amount"),
        (parse_money, "2bn", "above the largest accepted amount"),
        (parse_percent, "$3", "not an amount in dollars"),
        (parse_percent, "150%", "above 100%"),
        (parse_percent, "lots", "is not a percentage"),
        (parse_percent, "-5", "cannot be negative"),
        (parse_date, "01/11/2026", "year-month-day"),
        (parse_date, "20261101", "year-month-day"),  # date.fromisoformat takes it
        (parse_date, "2026-W48-1", "year-month-day"),  # ... and a week date
        (parse_date, "２０２６-１１-０１", "year-month-day"),
        (parse_date, "9999-12-31", "give a year from 2000 to 2099"),
        (parse_date, "0202-11-01", "give a year from 2000 to 2099"),
    ],
)
def test_bad_text_gets_a_message_naming_the_field(parse: object, text: str, words: str) -> None:
    with pytest.raises(PriceTextError) as info:
        parse(text, "The field")  # type: ignore[operator]
    assert str(info.value).startswith("The field: ")
    assert words in str(info.value)
