"""Display formatting: the one place where SI values become $/Mtok, ms, GB, % and thousands separators.

Every function takes the SI value the economics package returns (USD, seconds, bytes, fractions) and returns
a string. ``inf``, ``nan`` and ``None`` become an explicit word instead of a misleading number.
"""

from __future__ import annotations

import math
import re

from economics.units import GB, HOURS_PER_MONTH, MS, MTOK, TFLOPS

DASH = "—"


def _bad(x: float | None) -> bool:
    return x is None or not math.isfinite(x)


def _none(x: float | None, inf_text: str) -> str:
    if x is None or math.isnan(x):
        return DASH
    return inf_text


def usd(x: float | None, *, inf_text: str = "not reachable") -> str:
    """Money with a sensible number of digits: $1,234,567 · $15.23 · $0.0021."""
    if _bad(x):
        return _none(x, inf_text)
    assert x is not None
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
    if _bad(x):
        return _none(x, inf_text)
    assert x is not None
    return f"{usd(x)}/Mtok" if abs(x) >= 1 or x == 0 else f"${x:.3f}/Mtok"


def usd_per_month(x: float | None) -> str:
    """[USD/month], rounded to whole dollars."""
    if _bad(x):
        return _none(x, "unbounded")
    assert x is not None
    return f"{'−' if x < 0 else ''}${abs(x):,.0f}/month"


def usd_per_hour(x: float | None) -> str:
    """[USD/h] with cents."""
    if _bad(x):
        return _none(x, "unbounded")
    assert x is not None
    return f"${x:,.2f}/h"


def per_mtok(usd_per_token: float) -> float:
    """USD per token → USD per million tokens (numbers for axes, not strings)."""
    return usd_per_token * MTOK


def pct(x: float | None, digits: int = 0) -> str:
    """A fraction as a percentage: 0.263 → 26%."""
    if _bad(x):
        return _none(x, "never")
    assert x is not None
    return f"{100 * x:.{digits}f}%"


def ms(seconds: float | None) -> str:
    """Seconds as milliseconds (or seconds above 10 s)."""
    if _bad(seconds):
        return _none(seconds, "∞")
    assert seconds is not None
    if seconds >= 10:
        return f"{seconds:,.1f} s"
    return f"{seconds / MS:,.1f} ms" if seconds < 0.1 else f"{seconds / MS:,.0f} ms"


def tok_per_s(x: float | None) -> str:
    """Throughput [tok/s] with thousands separators."""
    if _bad(x):
        return _none(x, "∞")
    assert x is not None
    return f"{x:,.0f} tok/s" if x >= 10 else f"{x:.2g} tok/s"


def gb(bytes_: float) -> str:
    """Decimal gigabytes (1 GB = 1e9 B)."""
    return f"{bytes_ / GB:,.1f} GB"


def tflops(flops_per_s: float) -> str:
    """[TFLOP/s] (dense)."""
    return f"{flops_per_s / TFLOPS:,.0f} TFLOP/s"


def count(x: float | None, digits: int = 0) -> str:
    """A plain number with thousands separators; ∞ for inf."""
    if _bad(x):
        return _none(x, "∞")
    assert x is not None
    return f"{x:,.{digits}f}"


def req_per_s(x: float | None) -> str:
    """An arrival rate [req/s]."""
    if _bad(x):
        return _none(x, "∞")
    assert x is not None
    return f"{x:,.3g} req/s"


def monthly_from_hourly(usd_per_hour_value: float) -> float:
    """USD/h → USD/month with the 730 h month used by colocation quotes (numbers for tables)."""
    return usd_per_hour_value * HOURS_PER_MONTH


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def md_escape(text: str) -> str:
    """Text from a scenario (a name typed by someone else) made inert in Streamlit markdown: no links,
    images, HTML or formatting can be smuggled in through a shared link."""
    return _MD_SPECIAL.sub(r"\\\1", text.replace("\n", " "))
