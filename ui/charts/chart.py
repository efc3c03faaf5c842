"""The house chart builder: a figure assembled as plain dicts and validated once by plotly at the end.

Every chart builder in ``ui/charts`` starts from :class:`Chart`, which applies the house template
(:mod:`ui.palette`) and sizes the margins from the tick labels (:mod:`ui.axes`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from ui.axes import (
    AXIS_NAME,
    LOG_AXIS,
    dollars_on_every_log_tick,
    left_margin,
    legend_margin,
    level_money_ticks,
    prefix_on_every_log_tick,
    sign_before_money_prefix,
    thousands_on_log_ticks,
    tick_labels,
)
from ui.palette import LIMIT_COLOR, TEMPLATE_JSON

__all__ = ["Chart"]


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

    def fit_legend(self) -> None:
        """Size the bottom margin (and grow the figure) for the legend the traces make: one row per named trace
        shown in the legend and one more per ``<br>`` in its name (the worst case, a narrow window, where
        plotly stacks the entries one per row)."""
        rows = sum(
            1 + str(t.get("name", "")).count("<br>")
            for t in self.data
            if t.get("name") and t.get("showlegend", True) is not False
        )
        margin = self.layout["margin"]
        assert isinstance(margin, dict)
        height = self.layout["height"]
        assert isinstance(height, int)
        self.layout["height"] = height - int(margin["b"]) + legend_margin(rows)
        margin["b"] = legend_margin(rows)

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
        layout = {**self.layout, **{k: v for k, v in (("shapes", self.shapes), ("annotations", self.annotations)) if v}}
        title, height = layout["title"], layout["height"]
        if isinstance(title, dict) and "y" not in title and isinstance(height, int | float):
            extra_lines = str(title.get("text", "")).count("<br>")
            if extra_lines:  # at the template's top position a two-line title's first line was drawn half
                # above the chart, under the element before it (seen in screenshots): start it lower
                # one line lower whatever the lines: plotly starts a taller title higher by itself (measured in
                # chromium: a three-line title moved down two lines sat on the top tick label)
                layout["title"] = {**title, "y": 0.98 - TITLE_LINE_PX / float(height)}
        y_axis, margin = layout["yaxis"], layout["margin"]
        assert isinstance(y_axis, dict)
        assert isinstance(margin, dict)
        if isinstance(title, dict) and isinstance(height, int | float):
            extra_lines = str(title.get("text", "")).count("<br>")
            if extra_lines and "t" not in margin:  # ... and its last line then sat on the top tick label (seen at
                # 1,024 px): the plot starts lower by the same lines, and the figure grows by them
                margin["t"] = TOP_MARGIN_PX + TITLE_LINE_PX * extra_lines
                layout["height"] = height + TITLE_LINE_PX * extra_lines
        if y_axis.setdefault("automargin", False) is False:
            labels = tick_labels([v for t in self.data if t.get("yaxis", "y") == "y" for v in _y_values(t)], y_axis)
            title = y_axis.get("title")
            margin.setdefault("l", left_margin(labels, has_title=isinstance(title, dict) and bool(title.get("text"))))
        for name, axis in layout.items():
            if AXIS_NAME.fullmatch(name) and isinstance(axis, dict):
                axis.setdefault("automargin", False)
                sign_before_money_prefix(axis, _axis_values(self.data, name))  # "−$1", not "$−1"
                level_money_ticks(name, axis)
                dollars_on_every_log_tick(axis)  # after tick_labels, which reads tickprefix
                prefix_on_every_log_tick(axis, _axis_values(self.data, name))  # S$, €: issue 14
                thousands_on_log_ticks(axis)  # after both: they read the plain "~g"
        # Not validated again here: plotly's validation of the assembled dicts was about half a rerun's chart cost
        # and changes nothing in them; tests/ui/test_chart_specs.py validates every chart every page draws.
        data = [inert(t) for t in self.data]
        layout = {k: v if k == "template" else inert(v) for k, v in layout.items()}
        return go.Figure(data=data, layout=layout, _validate=False)


#: The markup the house charts write themselves: line breaks, bold, a hover box's ``<extra>`` part and
#: a smaller subtitle. Plotly draws a few HTML tags in any text (names, hover text, categories, titles), links
#: among them, and a scenario's names are typed by whoever made its link: every other ``<`` and ``>`` is written
#: as an entity (``&lt;``), which plotly shows as the character itself.
_OWN_TAG = r'<(?:br|/?b|/?extra|/span|span style="font-size:\d+px")>'
_TAG_OR_BRACKET = re.compile(f"({_OWN_TAG})|[<>]", re.IGNORECASE)


def inert_text(text: str) -> str:
    """``text`` with every tag plotly would draw written as characters, except the house charts' own markup.

    >>> inert_text('<b>Q4</b> <a href="https://x.example">pay</a><br>next')
    '<b>Q4</b> &lt;a href="https://x.example"&gt;pay&lt;/a&gt;<br>next'
    """
    if "<" not in text and ">" not in text:
        return text
    return _TAG_OR_BRACKET.sub(lambda m: m.group(1) or ("&lt;" if m.group(0) == "<" else "&gt;"), text)


def inert(value: object) -> object:
    """``value`` (a trace, a layout part, a list of categories…) with :func:`inert_text` applied to every string
    in it; numbers and numeric arrays are returned as they are."""
    if isinstance(value, str):
        return inert_text(value)
    if isinstance(value, dict):
        return {k: inert(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(inert(v) for v in value)
    if isinstance(value, np.ndarray) and value.dtype.kind in "OU":
        flat = [inert(v) for v in value.ravel()]
        if any(a is not b and a != b for a, b in zip(flat, value.ravel(), strict=True)):
            return np.array(flat, dtype=object).reshape(value.shape)
    return value


#: The height of one more title line, which a multi-line title starts lower by [px].
TITLE_LINE_PX = 24
#: The house template's top margin (ui/palette.py), which holds a one-line title [px].
TOP_MARGIN_PX = int(TEMPLATE_JSON["layout"]["margin"]["t"])


def _axis_values(traces: Sequence[Mapping[str, object]], axis_name: str) -> list[object]:
    """Every value the traces put on the axis ``axis_name`` ("xaxis", "yaxis2", …)."""
    letter, number = axis_name[0], axis_name.removeprefix(f"{axis_name[0]}axis")
    out: list[object] = []
    for t in traces:
        if t.get(f"{letter}axis", letter) != letter + number:
            continue
        v = t.get(letter)
        if isinstance(v, np.ndarray):
            v = [float(x) for x in v.ravel()]
        if not isinstance(v, list | tuple):
            continue
        base = t.get("base")
        if base is None:
            out += list(v)
            continue
        # bars drawn from a base (the tornado): the axis spans each base and base + length, not the lengths
        bases = list(base) if isinstance(base, list | tuple | np.ndarray) else [base] * len(v)
        for b, x in zip(bases, v, strict=False):
            if isinstance(b, int | float) and isinstance(x, int | float):
                out += [float(b), float(b) + float(x)]
    return out


def _y_values(trace: Mapping[str, object]) -> list[object]:
    """The values a trace puts on its y axis (a horizontal bar's categories included)."""
    y = trace.get("y")
    if y is None:
        return []
    if isinstance(y, np.ndarray):
        return [float(v) for v in y.ravel()]
    return list(y) if isinstance(y, list | tuple) else []
