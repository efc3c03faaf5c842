"""Axes a projector can read: log axes labelled at 1-2-5 per decade, tick labels estimated to size margins.

Plotly's ``automargin`` draws a chart, measures its labels and draws it again on every update; the house
:class:`~ui.charts.chart.Chart` sizes margins from :func:`tick_labels` instead.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Mapping, Sequence

#: A log axis labelled at 1, 2 and 5 of each decade only (plotly's default labels every digit when the
#: range is short, which a projector turns into noise). ``~g`` writes every label in full (0.5, 0.2, 0.1,
#: 0.05); without it plotly prints the 2s and 5s as bare digits, so "5" could mean 0.5 or 0.05.
LOG_AXIS: dict[str, object] = {"type": "log", "dtick": "D2", "tickformat": "~g"}


def log_ticks(lo: float, hi: float, mantissas: tuple[int, ...] = (1, 2, 5)) -> list[float]:
    """The values ``m × 10^e`` (``m`` in ``mantissas``) from ``lo`` to ``hi``, ends included: the ticks of a
    "D2" log axis."""
    tol = 1 + 1e-9  # 0.1 × 10 is not exactly 1
    return [
        m * 10.0**e
        for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
        for m in mantissas
        if lo <= m * 10.0**e * tol and m * 10.0**e <= hi * tol
    ]


def log10_axis(lo: float, hi: float, *, prefix: str = "", labelled: tuple[int, ...] = (1, 2, 5)) -> dict[str, object]:
    """A linear axis over log10 values that reads like :data:`LOG_AXIS`: ticks at 1, 2 and 5 of each decade
    (at the powers of ten only beyond four decades) labelled with the value itself, range ``lo``..``hi``.

    For heat maps: plotly draws a heat map on linear axes as one pixel per cell, scaled by the browser
    (``image-rendering: pixelated``), but on log axes as one filled rectangle per cell on a canvas the size
    of the plot, then encoded to PNG, the slowest part of redrawing the routing quadrant. Plot
    ``np.log10(values)`` on this axis. Only ticks whose mantissa is in ``labelled`` carry a label (the others
    keep their grid line): on a narrow plot plotly turns crowded labels on end, over the axis title.
    """
    # over more than four decades, 1-2-5 labels crowd a projector
    ticks = log_ticks(lo, hi, (1, 2, 5) if math.log10(hi / lo) <= 4 else (1,))
    return {
        "type": "linear",
        "range": [math.log10(lo), math.log10(hi)],
        "tickvals": [math.log10(t) for t in ticks],
        "ticktext": [f"{prefix}{t:,.10g}" if _mantissa(t) in labelled else "" for t in ticks],
    }


def _mantissa(value: float) -> int:
    """The leading digit of ``value`` (a 1-2-5 tick): 5 for 0.05, 2 for 200."""
    return round(value / 10.0 ** math.floor(math.log10(value) + 1e-9))


#: Width of one tick-label character at the template's 14 px font [px]: Source Sans digits are ~0.5 em and
#: capitals ~0.6 em; 0.58 em errs on the wide side, so a label is never cut.
TICK_CHAR_PX = 8.1
#: Space the y-axis title takes left of the tick labels, its gap included [px] (15 px font, rotated).
Y_TITLE_PX = 30
#: Tick mark length and the gaps either side of the labels [px].
TICK_PAD_PX = 16
MIN_LEFT_MARGIN_PX = 48


def _nice_step(span: float, target_ticks: int = 6) -> float:
    """A 1-2-5 step giving about ``target_ticks`` ticks over ``span`` (what plotly's auto ticks do)."""
    raw = span / target_ticks
    magnitude = 10.0 ** math.floor(math.log10(raw))
    return next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)


def _extent(axis: Mapping[str, object], numbers: Sequence[float], *, log: bool) -> tuple[float, float] | None:
    """The values an axis spans: its ``range`` when set (powers of ten on a log axis), else its data's (on a
    log axis padded 1.5× either side, as plotly's autorange: a label just outside the data may show); None
    with neither."""
    given = axis.get("range")
    if isinstance(given, list | tuple) and len(given) == 2 and all(isinstance(g, int | float) for g in given):
        lo, hi = sorted(float(g) for g in given)
        return (10.0**lo, 10.0**hi) if log else (lo, hi)
    if not numbers:
        return None
    lo, hi = min(numbers), max(numbers)
    return (lo / 1.5, hi * 1.5) if log else (lo, hi)


def tick_labels(values: Sequence[object], axis: Mapping[str, object]) -> list[str]:
    """The tick labels plotly will draw on an axis over ``values``, near enough to size a margin.

    Categories are their own labels. Numbers get the ticks of a log axis (1-2-5 per decade, ``~g``) or of a
    linear one (a 1-2-5 step), over the axis' ``range`` when it has one, with its prefix and suffix. Digit
    grouping is assumed, so a label is estimated at its widest.
    """
    prefix, suffix = str(axis.get("tickprefix", "")), str(axis.get("ticksuffix", ""))
    if "ticktext" in axis:
        return [f"{prefix}{t}{suffix}" for t in axis["ticktext"]]  # type: ignore[attr-defined]
    if any(isinstance(v, str) for v in values):
        return [str(v) for v in values if v is not None]
    log = axis.get("type") == "log"
    numbers = [float(v) for v in values if isinstance(v, int | float) and math.isfinite(v) and (v > 0 or not log)]
    span = _extent(axis, numbers, log=log)
    if span is None:
        return []
    lo, hi = span
    if log:
        ticks = log_ticks(lo, hi) or [lo, hi]
        return [f"{prefix}{t:,g}{suffix}".replace("e+0", "e+").replace("e-0", "e-") for t in ticks]
    if hi == lo:
        return [f"{prefix}{lo:,.6g}{suffix}"]
    step = _nice_step(hi - lo)
    ticks = [k * step for k in range(math.ceil(lo / step), math.floor(hi / step) + 1)]
    return [f"{prefix}{round(t, 12):,.6g}{suffix}" for t in ticks]


#: How far a bar axis reaches past its longest bar, for that bar's amount written outside it [× the bar].
OUTSIDE_TEXT_ROOM = 1.3


def bar_range_with_amounts(values: Sequence[float]) -> list[float]:
    """The range of a bar chart's value axis that starts at 0 and leaves room right of the longest bar for its
    amount (plotly's autorange does not widen for text outside a bar); non-finite values are left out.

    >>> bar_range_with_amounts([0.0, 100.0, float("nan")]), bar_range_with_amounts([0.0])
    ([0.0, 130.0], [0.0, 1.0])
    """
    top = max([v for v in values if math.isfinite(v)] + [0.0])
    return [0.0, OUTSIDE_TEXT_ROOM * top if top > 0 else 1.0]


def wrap_label(label: str, chars: int) -> str:
    """``label`` on lines of at most ``chars`` characters, broken between words with plotly's ``<br>`` (a word
    longer than ``chars`` keeps its line).

    >>> wrap_label("Analyst research (frontier quality, batch overnight)", 24)
    'Analyst research<br>(frontier quality, batch<br>overnight)'
    """
    return "<br>".join(textwrap.wrap(label, chars, break_long_words=False, break_on_hyphens=False)) or label


def left_margin(labels: Sequence[str], *, has_title: bool) -> int:
    """Left margin that fits the y tick labels and the y-axis title [px]."""
    widest = max((len(line) for t in labels for line in t.split("<br>")), default=0)  # a label may wrap
    return max(MIN_LEFT_MARGIN_PX, round(TICK_PAD_PX + TICK_CHAR_PX * widest + (Y_TITLE_PX if has_title else 0)))


def legend_margin(rows: int) -> int:
    """Bottom margin that fits the x-axis title and a legend of ``rows`` rows under the plot [px]."""
    return 78 + 22 * rows


#: Longest legend line a full-width chart shows whole at 1,024 px [characters]: a rented option's name with its
#: offer ran past the chart's edge on one line.
LEGEND_LINE_CHARS = 64


def row_px(labels: Sequence[str]) -> int:
    """Height of one category row that holds the tallest of ``labels`` (``<br>`` between lines) [px]: plotly
    spaces categories evenly, so every row is as tall as the tallest label."""
    return 14 + 16 * max((label.count("<br>") + 1 for label in labels), default=1)


#: Most ticks on a linear money axis along x: beside long row names the plot can be ~250 px wide at 1,024 px,
#: where plotly's own choice ("S$10,000" every 10,000) put the labels on a slant, over each other and the title.
MONEY_X_TICKS = 4


def level_money_ticks(name: str, axis: dict[str, object]) -> None:
    """A linear x axis with a money prefix gets at most :data:`MONEY_X_TICKS` ticks, level, unless its ticks are
    set otherwise."""
    if not name.startswith("xaxis") or axis.get("type") == "log" or not axis.get("tickprefix"):
        return
    if any(k in axis for k in ("tickvals", "dtick", "nticks")):
        return
    axis.setdefault("tickangle", 0)
    axis["nticks"] = MONEY_X_TICKS


def sign_before_money_prefix(axis: dict[str, object], values: Sequence[object]) -> None:
    """A linear money axis over negative amounts is labelled "−$1", not plotly's "$−1": plotly writes
    ``tickprefix`` before the sign (seen on the Reviews tornado of savings). Such an axis gets its ticks listed,
    a 1-2-5 step over its range (or its data), with the sign before the prefix."""
    prefix, suffix = str(axis.get("tickprefix", "")), str(axis.get("ticksuffix", ""))
    if not prefix or axis.get("type") in ("log", "category", "date") or "tickvals" in axis:
        return
    numbers = [float(v) for v in values if isinstance(v, int | float) and math.isfinite(v)]
    span = _extent(axis, numbers, log=False)
    if span is None:
        return
    lo, hi = span
    if lo == hi == 0.0:  # every amount zero: plotly's autorange is −1 to 1
        lo, hi = -1.0, 1.0
    if lo >= 0:
        return
    hi = max(hi, 0.0)  # bars start at zero
    step = _nice_step(hi - lo, MONEY_X_TICKS)
    ticks = [round(k * step, 12) for k in range(math.floor(lo / step), math.ceil(hi / step) + 1)]
    decimals = max(0, -math.floor(math.log10(step)))
    axis.pop("tickprefix")
    axis.pop("nticks", None)
    axis.update(
        tickmode="array",
        tickvals=ticks,
        ticktext=[f"{'−' if t < 0 else ''}{prefix}{_amount(abs(t), decimals)}{suffix}" for t in ticks],
    )


def _amount(x: float, decimals: int) -> str:
    """``x`` with thousands separators and at most ``decimals`` decimals, trailing zeros dropped: 2,000,000,
    0.5, 0.01."""
    text = f"{x:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def dollars_on_every_log_tick(axis: dict[str, object]) -> None:
    """plotly leaves ``tickprefix`` off the 2s and 5s of a "D2" log axis ("$100, 50, 20, $10"); d3's
    currency flag (``$~g``) puts "$" on every label."""
    wanted = {"tickformat": "~g", "tickprefix": "$"}
    if all(axis.get(k) == v for k, v in wanted.items()):
        axis.pop("tickprefix")
        axis["tickformat"] = "$,~g"  # ",": $1,000 not $1000


def thousands_on_log_ticks(axis: dict[str, object]) -> None:
    """A log axis still labelled by plotly's ``~g`` (no money prefix, or one on every label already) groups its
    thousands: "1,000" and "S$1,000", not "1000" (read on the Overview's and the Batching page's axes)."""
    if axis.get("type") == "log" and axis.get("tickformat") == "~g":
        axis["tickformat"] = ",~g"


def prefix_on_every_log_tick(axis: dict[str, object], values: Sequence[object]) -> None:
    """:func:`dollars_on_every_log_tick` for another currency prefix (S$, €, "CHF "): d3's currency flag writes
    only "$", so the 1-2-5 ticks over the axis' range (or its data, padded like plotly's autorange) are listed
    with their labels, the prefix on every one (plotly leaves it off the 2s and 5s)."""
    prefix, suffix = str(axis.get("tickprefix", "")), str(axis.get("ticksuffix", ""))
    if axis.get("dtick") != "D2" or axis.get("tickformat") != "~g" or prefix in ("", "$") or "tickvals" in axis:
        return  # a log axis labelled at the powers of ten only (dtick 1) has the prefix on every label already
    numbers = [float(v) for v in values if isinstance(v, int | float) and math.isfinite(v) and v > 0]
    span = _extent(axis, numbers, log=True)
    if span is None:
        return
    lo, hi = span
    ticks = log_ticks(lo, hi, (1, 2, 5) if math.log10(hi / lo) <= 4 else (1,)) or [lo, hi]
    axis.pop("tickprefix")
    axis.pop("dtick", None)
    axis.update(
        tickmode="array",
        tickvals=ticks,
        ticktext=[f"{prefix}{t:,.10g}{suffix}".replace("e+0", "e+").replace("e-0", "e-") for t in ticks],
    )


AXIS_NAME = re.compile(r"[xy]axis\d*")
