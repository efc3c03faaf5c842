"""Display formatting: the one place where SI values become $/Mtok, ms, GB, % and thousands separators.

Every function takes the SI value the economics package returns (USD, seconds, bytes, fractions) and returns
a string. ``inf``, ``nan`` and ``None`` become an explicit word instead of a misleading number.
"""

from __future__ import annotations

import math
import re

from economics.units import GB

DASH = "—"


def _none(x: float | None, inf_text: str) -> str:
    if x is None or math.isnan(x):
        return DASH
    return inf_text


def usd(x: float | None, *, inf_text: str = "not reachable") -> str:
    """Money with a sensible number of digits: $1,234,567 · $15.23 · $0.0021."""
    if x is None or not math.isfinite(x):
        return _none(x, inf_text)
    a = abs(x)
    if a >= 1000:
        text = f"${a:,.0f}"
    elif a >= 1:
        text = f"${a:,.2f}"
    elif a == 0:
        text = "$0"
    else:
        text = f"${a:.2g}" if a < 0.001 else f"${a:.4f}".rstrip("0")
    return f"−{text}" if x < 0 else text


def usd_per_mtok(x: float | None, *, inf_text: str = "not feasible") -> str:
    """A cost per million tokens [USD/Mtok]: $0.87/Mtok, $12.40/Mtok."""
    if x is None or not math.isfinite(x):
        return _none(x, inf_text)
    return f"{usd(x)}/Mtok" if abs(x) >= 1 or x == 0 else f"${x:.3f}/Mtok"


def usd_per_month(x: float | None) -> str:
    """[USD/month], rounded to whole dollars."""
    if x is None or not math.isfinite(x):
        return _none(x, "unbounded")
    return f"{'−' if x < 0 else ''}${abs(x):,.0f}/month"


def pct(x: float | None, digits: int = 0) -> str:
    """A fraction as a percentage: 0.263 → 26%."""
    if x is None or not math.isfinite(x):
        return _none(x, "never")
    return f"{100 * x:.{digits}f}%"


def gb(bytes_: float) -> str:
    """Decimal gigabytes (1 GB = 1e9 B)."""
    return f"{bytes_ / GB:,.1f} GB"


def count(x: float | None, digits: int = 0) -> str:
    """A plain number with thousands separators; ∞ for inf."""
    if x is None or not math.isfinite(x):
        return _none(x, "∞")
    return f"{x:,.{digits}f}"


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def md_escape(text: str) -> str:
    """Text from a scenario (a name typed by someone else) made inert in Streamlit markdown: no links,
    images, HTML or formatting can be smuggled in through a shared link."""
    return _MD_SPECIAL.sub(r"\\\1", text.replace("\n", " "))


#: How a display currency is written before an amount; others get their ISO code and a space.
CURRENCY_PREFIX = {"USD": "$", "SGD": "S$", "EUR": "€", "GBP": "£", "JPY": "¥"}


def money(
    x_usd: float | None, code: str = "USD", units_per_usd: float = 1.0, *, inf_text: str = "not reachable"
) -> str:
    """An amount computed in USD, shown in the display currency at ``units_per_usd``: S$1,300 · $15.23.

    The conversion happens here, at the display edge, and nowhere else. A rate of 1 in USD is :func:`usd`.
    """
    if x_usd is None or not math.isfinite(x_usd):
        return usd(x_usd, inf_text=inf_text)
    text = usd(x_usd * units_per_usd, inf_text=inf_text)
    return text.replace("$", CURRENCY_PREFIX.get(code, f"{code} "), 1) if code != "USD" else text
