"""One look for every chart: one color per option kind, on every page, and a template readable on a projector.

Colors are the Okabe–Ito palette (distinguishable with the common color-vision deficiencies). Owned options
are blues and green, APIs are warm colors, so "owned vs API" reads at a glance. When two options share a kind
(two frontier APIs), they share the color and differ by dash and marker.
"""

from __future__ import annotations

import math

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
        styles[option_id] = (KIND_COLOR[kind], DASHES[rank % len(DASHES)], SYMBOLS[rank % len(SYMBOLS)])
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
        """The validated figure."""
        layout = {**self.layout, "shapes": self.shapes, "annotations": self.annotations}
        return go.Figure(data=self.data, layout=layout)
