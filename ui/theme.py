"""One look for every chart: one color per option kind, on every page, and a template readable on a projector.

Colors are the Okabe–Ito palette (distinguishable with the common color-vision deficiencies). Owned options
are blues and green, APIs are warm colors, so "owned vs API" reads at a glance. When two options share a kind
(two owned AR options), the second takes another shade of the kind's family and differs by dash and marker too.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from economics.scenario import Scenario
from economics.views.kinds import KIND_ORDER, DisplayKind, option_kinds

KIND_COLOR: dict[DisplayKind, str] = {
    "owned-ar": "#0072B2",  # blue
    "owned-ar-spec": "#56B4E9",  # sky blue
    "owned-diffusion": "#009E73",  # bluish green
    "api-frontier": "#D55E00",  # vermillion
    "api-hosted-open": "#E69F00",  # orange
    "api-diffusion": "#CC79A7",  # reddish purple
}
#: Further colors for a second, third … option of the same kind (two owned AR + speculation options must not
#: both be sky blue): darker or shifted shades from Paul Tol's muted palette, still within the kind's family.
KIND_SHADES: dict[DisplayKind, tuple[str, ...]] = {
    "owned-ar": (KIND_COLOR["owned-ar"], "#332288", "#6699CC"),  # blue, indigo, light steel blue
    "owned-ar-spec": (KIND_COLOR["owned-ar-spec"], "#1A4E7A", "#88CCEE"),  # sky blue, dark navy, cyan
    "owned-diffusion": (KIND_COLOR["owned-diffusion"], "#117733", "#44AA99"),  # greens and teal
    "api-frontier": (KIND_COLOR["api-frontier"], "#882255", "#AA4466"),  # vermillion, wine, rose
    "api-hosted-open": (KIND_COLOR["api-hosted-open"], "#997700", "#DDAA33"),  # orange, ochre, sand
    "api-diffusion": (KIND_COLOR["api-diffusion"], "#AA4499", "#EE99AA"),  # purples and pink
}
KIND_LABEL: dict[DisplayKind, str] = {
    "owned-ar": "owned AR",
    "owned-ar-spec": "owned AR + speculation",
    "owned-diffusion": "owned diffusion",
    "api-frontier": "frontier API",
    "api-hosted-open": "hosted open-model API",
    "api-diffusion": "diffusion API",
}
#: Neutral ink for limits and reference marks (capacity limit, break-even, ridge point).
LIMIT_COLOR = "#444444"
GRID_COLOR = "#E5E5E5"
#: Distinguishes options of the same kind.
DASHES = ("solid", "dash", "dot", "dashdot", "longdash")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x")
#: Discrete decision-region fills for heat maps: owned wins / API wins / infeasible.
OWNED_WINS_COLOR = KIND_COLOR["owned-ar"]
API_WINS_COLOR = KIND_COLOR["api-frontier"]
INFEASIBLE_COLOR = "#BBBBBB"

FONT_FAMILY = '"Source Sans 3", "Source Sans Pro", sans-serif'  # Streamlit's own font: already loaded, cheap to measure
TEMPLATE_NAME = "llm_economics"


def option_styles(scenario: Scenario) -> dict[str, tuple[str, str, str]]:
    """Option id → (color, dash, marker symbol): color from the kind, dash and symbol by rank within it."""
    seen: dict[DisplayKind, int] = {}
    styles: dict[str, tuple[str, str, str]] = {}
    for option_id, kind in option_kinds(scenario).items():
        rank = seen.get(kind, 0)
        seen[kind] = rank + 1
        shades = KIND_SHADES[kind]
        styles[option_id] = (shades[rank % len(shades)], DASHES[rank % len(DASHES)], SYMBOLS[rank % len(SYMBOLS)])
    return styles


def _template() -> go.layout.Template:
    axis = {
        "showgrid": True,
        "gridcolor": GRID_COLOR,
        "zeroline": False,
        "linecolor": "#888888",
        "ticks": "outside",
        "title": {"font": {"size": 15}},
        "automargin": True,
    }
    return go.layout.Template(
        layout={
            "font": {"family": FONT_FAMILY, "size": 14, "color": "#222222"},
            "title": {"font": {"size": 17}, "x": 0, "xanchor": "left", "y": 0.98, "yanchor": "top"},
            "paper_bgcolor": "white",
            "plot_bgcolor": "white",
            "colorway": [KIND_COLOR[k] for k in KIND_ORDER],
            "xaxis": axis,
            "yaxis": axis,
            "legend": {
                "orientation": "h",
                "yref": "container",
                "yanchor": "bottom",
                "y": 0,
                "xanchor": "left",
                "x": 0,
                "font": {"size": 13},
                "bgcolor": "rgba(255,255,255,0)",
            },
            "hoverlabel": {"font": {"size": 13, "family": FONT_FAMILY}, "namelength": -1},
            "hovermode": "closest",
            "margin": {"l": 70, "r": 30, "t": 60, "b": 60},
        }
    )


pio.templates[TEMPLATE_NAME] = _template()


TEMPLATE_JSON = pio.templates[TEMPLATE_NAME].to_plotly_json()
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


def log10_axis(lo: float, hi: float, *, prefix: str = "") -> dict[str, object]:
    """A linear axis over log10 values that reads like :data:`LOG_AXIS`: ticks at 1, 2 and 5 of each decade
    (at the powers of ten only beyond four decades) labelled with the value itself, range ``lo``..``hi``.

    For heat maps: plotly draws a heat map on linear axes as one pixel per cell, scaled by the browser
    (``image-rendering: pixelated``), but on log axes as one filled rectangle per cell on a canvas the size
    of the plot, then encoded to PNG, the slowest part of redrawing the routing quadrant. Plot
    ``np.log10(values)`` on this axis.
    """
    # over more than four decades, 1-2-5 labels crowd a projector
    ticks = log_ticks(lo, hi, (1, 2, 5) if math.log10(hi / lo) <= 4 else (1,))
    return {
        "type": "linear",
        "range": [math.log10(lo), math.log10(hi)],
        "tickvals": [math.log10(t) for t in ticks],
        "ticktext": [f"{prefix}{t:,.10g}" for t in ticks],
    }


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
    magnitude = 10 ** math.floor(math.log10(raw))
    return next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)


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
    given = axis.get("range")
    if isinstance(given, list | tuple) and len(given) == 2 and all(isinstance(g, int | float) for g in given):
        lo, hi = sorted(float(g) for g in given)
        if log:
            lo, hi = 10**lo, 10**hi
    elif numbers:
        lo, hi = min(numbers), max(numbers)
        if log:  # plotly pads an autorange; a label just outside the data may show
            lo, hi = lo / 1.5, hi * 1.5
    else:
        return []
    if log:
        ticks = log_ticks(lo, hi) or [lo, hi]
        return [f"{prefix}{t:g}{suffix}".replace("e+0", "e+").replace("e-0", "e-") for t in ticks]
    if hi == lo:
        return [f"{prefix}{lo:,.6g}{suffix}"]
    step = _nice_step(hi - lo)
    ticks = [k * step for k in range(math.ceil(lo / step), math.floor(hi / step) + 1)]
    return [f"{prefix}{round(t, 12):,.6g}{suffix}" for t in ticks]


def left_margin(labels: Sequence[str], *, has_title: bool) -> int:
    """Left margin that fits the y tick labels and the y-axis title [px]."""
    widest = max((len(t) for t in labels), default=0)
    return max(MIN_LEFT_MARGIN_PX, round(TICK_PAD_PX + TICK_CHAR_PX * widest + (Y_TITLE_PX if has_title else 0)))


def legend_margin(rows: int) -> int:
    """Bottom margin that fits the x-axis title and a legend of ``rows`` rows under the plot [px]."""
    return 78 + 22 * rows


class Chart:
    """A figure assembled as plain dicts and validated once by plotly at the end.

    Building a figure trace by trace (``add_trace``, ``update_layout``, ``add_vline``) re-validates the
    whole figure at every step and costs 3–4× more than constructing it in one go; on a page with five
    charts that is the difference between a fast and a slow rerun.
    """

    def __init__(
        self,
        title: str,
        x_title: str,
        y_title: str,
        *,
        height: int = 440,
        legend_rows: int = 1,
        x_log: bool = False,
        y_log: bool = False,
    ) -> None:
        self.data: list[dict[str, object]] = []
        self.shapes: list[dict[str, object]] = []
        self.annotations: list[dict[str, object]] = []
        self.layout: dict[str, object] = {
            "template": TEMPLATE_JSON,
            "title": {"text": title},
            "height": height + legend_margin(legend_rows) - 60,
            "margin": {"b": legend_margin(legend_rows)},
            "xaxis": {"title": {"text": x_title}, **(LOG_AXIS if x_log else {})},
            "yaxis": {"title": {"text": y_title}, **(LOG_AXIS if y_log else {})},
        }

    def add(self, trace_type: str = "scatter", **trace: object) -> None:
        """Append a trace given as keyword arguments (``x``, ``y``, ``mode``, ``line``, ``name``…)."""
        self.data.append({"type": trace_type, **trace})

    def axis(self, name: str, **props: object) -> None:
        """Merge properties into ``layout[name]`` (e.g. ``"xaxis"``, ``"yaxis2"``)."""
        current = self.layout.setdefault(name, {})
        assert isinstance(current, dict)
        current.update(props)

    def vline(
        self,
        x: float,
        *,
        log_x: bool,
        color: str = LIMIT_COLOR,
        dash: str = "dash",
        width: float = 1.5,
        text: str = "",
        position: str = "top left",
        xref: str = "x",
        yref: str = "y",
    ) -> None:
        """A vertical marker at data value ``x`` with a label. Plotly places shapes in data units but
        annotations in log10 units on a log axis, so the label is converted here."""
        self.shapes.append(
            {
                "type": "line",
                "x0": x,
                "x1": x,
                "xref": xref,
                "y0": 0,
                "y1": 1,
                "yref": f"{yref} domain",
                "line": {"color": color, "width": width, "dash": dash},
            }
        )
        if text:
            top = position.startswith("top")
            self.annotations.append(
                {
                    "x": math.log10(x) if log_x else x,
                    "xref": xref,
                    "y": 1 if top else 0,
                    "yref": f"{yref} domain",
                    "yanchor": "top" if top else "bottom",
                    "xanchor": "right" if position.endswith("left") else "left",
                    "text": text,
                    "showarrow": False,
                    "font": {"color": color, "size": 12},
                    "bgcolor": "rgba(255,255,255,0.8)",
                }
            )

    def hline(
        self,
        y: float,
        *,
        log_y: bool,
        color: str = LIMIT_COLOR,
        dash: str = "dash",
        width: float = 1.5,
        text: str = "",
    ) -> None:
        """A horizontal marker at data value ``y`` with a label at its right end."""
        self.shapes.append(
            {
                "type": "line",
                "x0": 0,
                "x1": 1,
                "xref": "x domain",
                "y0": y,
                "y1": y,
                "yref": "y",
                "line": {"color": color, "width": width, "dash": dash},
            }
        )
        if text:
            self.annotations.append(
                {
                    "x": 1,
                    "xref": "x domain",
                    "xanchor": "right",
                    "yanchor": "bottom",
                    "y": math.log10(y) if log_y else y,
                    "yref": "y",
                    "text": text,
                    "showarrow": False,
                    "font": {"color": color, "size": 12},
                    "bgcolor": "rgba(255,255,255,0.8)",
                }
            )

    def figure(self) -> go.Figure:
        """The validated figure, with margins sized here rather than by plotly's ``automargin``.

        ``automargin`` makes plotly draw a chart, measure its labels and draw it again, on every update: it
        was the largest part of an input's in-browser latency (the quadrant redrew in ~2× the time of a
        trivial chart with it, ~1.3× without). The left margin is sized from the tick labels this figure
        will show (:func:`tick_labels`); the bottom one already holds the x title and the legend.
        """
        layout = {**self.layout, "shapes": self.shapes, "annotations": self.annotations}
        y_axis, margin = layout["yaxis"], layout["margin"]
        assert isinstance(y_axis, dict)
        assert isinstance(margin, dict)
        if y_axis.setdefault("automargin", False) is False:
            labels = tick_labels([v for t in self.data if t.get("yaxis", "y") == "y" for v in _y_values(t)], y_axis)
            title = y_axis.get("title")
            margin.setdefault("l", left_margin(labels, has_title=isinstance(title, dict) and bool(title.get("text"))))
        for name, axis in layout.items():
            if AXIS_NAME.fullmatch(name) and isinstance(axis, dict):
                axis.setdefault("automargin", False)
                _dollars_on_every_log_tick(axis)  # after tick_labels, which reads tickprefix
        return go.Figure(data=self.data, layout=layout)


def _dollars_on_every_log_tick(axis: dict[str, object]) -> None:
    """plotly leaves ``tickprefix`` off the 2s and 5s of a "D2" log axis ("$100, 50, 20, $10"); d3's
    currency flag (``$,~g``) puts "$" on every label, with thousands separators."""
    wanted = {"tickformat": "~g", "tickprefix": "$"}
    if all(axis.get(k) == v for k, v in wanted.items()):
        axis.pop("tickprefix")
        axis["tickformat"] = "$,~g"  # ",": $1,000 not $1000


AXIS_NAME = re.compile(r"[xy]axis\d*")


def _y_values(trace: Mapping[str, object]) -> list[object]:
    """The values a trace puts on its y axis (a horizontal bar's categories included)."""
    y = trace.get("y")
    if y is None:
        return []
    if isinstance(y, np.ndarray):
        return [float(v) for v in y.ravel()]
    return list(y) if isinstance(y, list | tuple) else []
