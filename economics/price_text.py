"""Prices as people type them: "$9.50", "9.50", "USD 1,250", "$280k", "30%", "2026-11-01".

Pure parsing with messages that name the field and the problem, for the dashboard's price fields and the
price book. Money is returned in USD, a percentage as a fraction [1], a date as :class:`datetime.date`.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from decimal import Decimal

__all__ = [
    "PRICE_DATE_YEARS",
    "PriceTextError",
    "date_range_problem",
    "parse_date",
    "parse_money",
    "parse_percent",
    "typed_source",
]

#: Years a price's date may fall in [year]: a wider date is a typing slip (9999, 0202), not a quote.
PRICE_DATE_YEARS = (2000, 2099)
_ISO_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")

_MONEY = re.compile(
    r"^(?:US\$|USD|\$)?\s*(?P<num>[0-9][0-9,]*(?:\.[0-9]*)?|\.[0-9]+)\s*(?P<scale>k|m|mm|mn|bn)?\s*(?:USD|\$)?$",
    re.IGNORECASE,
)
#: The shorthand finance writes amounts in: "$280k", "1.2M", "1.2mm", "0.5bn" [1].
_SCALE = {
    "": Decimal(1),
    "k": Decimal(10**3),
    "m": Decimal(10**6),
    "mm": Decimal(10**6),
    "mn": Decimal(10**6),
    "bn": Decimal(10**9),
}
_PERCENT = re.compile(r"^(?P<num>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*%$")
_THOUSANDS = re.compile(r"^[0-9]{1,3}(?:,[0-9]{3})*(?:\.[0-9]*)?$")


class PriceTextError(ValueError):
    """Text that is not a valid price, percentage or date; the message names the field and says why."""


def _clean(text: str) -> str:
    return text.strip().replace("\u00a0", " ").replace(" ", "")


def parse_money(text: str, field: str, *, maximum: float = 1e9) -> float:
    """A non-negative amount of money [USD] from text such as "$9.50", "9.50", "USD 1,250" or "$1,250.00", or in
    thousands, millions or billions as finance writes them ("$280k", "1.2M", "1.2mm", "0.5bn").

    Thousands separators must sit every three digits ("1,250", not "12,50": a decimal comma is refused
    rather than guessed). Raises :class:`PriceTextError` naming ``field``.

    >>> parse_money("$9.50", "Output price")
    9.5
    >>> parse_money("1,250", "Purchase price")
    1250.0
    >>> parse_money("$280k", "Purchase price"), parse_money("1.2M", "Purchase price")
    (280000.0, 1200000.0)
    """
    cleaned = _clean(text)
    if not cleaned:
        raise PriceTextError(f"{field}: enter an amount, e.g. $9.50")
    m = _MONEY.match(cleaned)
    if m is None:
        if cleaned.startswith("-") or cleaned.startswith("−"):
            raise PriceTextError(f"{field}: a price cannot be negative (got “{text.strip()}”)")
        if cleaned.endswith("%"):
            raise PriceTextError(f"{field}: this is an amount in dollars, not a percentage (got “{text.strip()}”)")
        raise PriceTextError(f"{field}: “{text.strip()}” is not an amount; type it like $9.50, 9.50 or $280k")
    num = m.group("num")
    if "," in num and not _THOUSANDS.match(num):
        raise PriceTextError(
            f"{field}: “{text.strip()}” has a comma in the wrong place; use a point for cents (9.50) and commas "
            "only between thousands (1,250)"
        )
    # in decimal, then once to float: "0.29k" is 290.0, not 0.29 × 1000 = 290.00000000000006
    value = float(Decimal(num.replace(",", "")) * _SCALE[(m.group("scale") or "").lower()])
    if not math.isfinite(value) or value > maximum:
        raise PriceTextError(f"{field}: {value:,.2f} is above the largest accepted amount ({maximum:,.0f})")
    return value


def parse_percent(text: str, field: str, *, maximum: float = 100.0) -> float:
    """A percentage as a fraction [1] from text such as "30%", "30 %" or "12.5%"; a bare number is read as
    percent too ("30" → 0.30), since the field says [%].

    >>> parse_percent("30%", "Discount")
    0.3
    >>> parse_percent("12.5", "Discount")
    0.125
    """
    cleaned = _clean(text)
    if not cleaned:
        raise PriceTextError(f"{field}: enter a percentage, e.g. 30%")
    m = _PERCENT.match(cleaned if cleaned.endswith("%") else cleaned + "%")
    if m is None:
        if cleaned.startswith("$"):
            raise PriceTextError(f"{field}: this is a percentage, not an amount in dollars (got “{text.strip()}”)")
        if cleaned.startswith(("-", "−")):
            raise PriceTextError(f"{field}: a percentage here cannot be negative (got “{text.strip()}”)")
        raise PriceTextError(f"{field}: “{text.strip()}” is not a percentage; type it like 30%")
    value = float(m.group("num"))
    if value > maximum:
        raise PriceTextError(f"{field}: {value:g}% is above {maximum:g}%")
    return value / 100.0


def date_range_problem(date: dt.date) -> str | None:
    """Why a price's date cannot be right (its year outside :data:`PRICE_DATE_YEARS`), or None.

    >>> date_range_problem(dt.date(9999, 12, 31))
    '9999-12-31 is not a plausible date for a price; give a year from 2000 to 2099'
    """
    first, last = PRICE_DATE_YEARS
    if first <= date.year <= last:
        return None
    return f"{date.isoformat()} is not a plausible date for a price; give a year from {first} to {last}"


def parse_date(text: str, field: str) -> dt.date:
    """An ISO date (2026-11-01) [-]; other spellings are refused rather than guessed (is 01/11 January or
    November?), and so are compact (20261101) and week dates, digits other than 0-9, and years outside
    :data:`PRICE_DATE_YEARS`.

    >>> parse_date("2026-11-01", "As of")
    datetime.date(2026, 11, 1)
    """
    cleaned = text.strip()
    try:
        if not _ISO_DATE.match(cleaned):
            raise ValueError(cleaned)
        date = dt.date.fromisoformat(cleaned)
    except ValueError:
        raise PriceTextError(
            f"{field}: “{cleaned}” is not a date; type it as year-month-day, e.g. 2026-11-01"
        ) from None
    if (problem := date_range_problem(date)) is not None:
        raise PriceTextError(f"{field}: {problem}")
    return date


def typed_source(today: dt.date) -> str:
    """The source of a price a user typed on the page, as the price book shows it.

    >>> typed_source(dt.date(2026, 12, 3))
    'entered by the user on 2026-12-03'
    """
    return f"entered by the user on {today.isoformat()}"
