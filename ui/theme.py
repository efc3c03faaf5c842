"""One look for every chart: one color per option kind, on every page, and a template readable on a projector.

Colors are the Okabe–Ito palette (distinguishable with the common color-vision deficiencies). Owned options
are blues and green, APIs are warm colors, so "owned vs API" reads at a glance. When two options share a kind
(two frontier APIs), they share the color and differ by dash and marker.
"""

from __future__ import annotations

import math
from typing import Literal

import plotly.graph_objects as go
import plotly.io as pio

from economics.offers import ApiOffer
from economics.scenario import OwnedOption, Scenario

DisplayKind = Literal[
    "owned-ar", "owned-ar-spec", "owned-diffusion", "api-frontier", "api-hosted-open", "api-diffusion"
]

KIND_ORDER: tuple[DisplayKind, ...] = (
    "owned-ar",
    "owned-ar-spec",
    "owned-diffusion",
    "api-frontier",
    "api-hosted-open",
    "api-diffusion",
)
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

FONT_FAMILY = "Inter, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"
TEMPLATE_NAME = "llm_economics"


def owned_kind(option: OwnedOption) -> DisplayKind:
    """Display kind of an owned option: AR, AR with speculation, or diffusion."""
    if option.scheme.kind == "diffusion":
        return "owned-diffusion"
    return "owned-ar-spec" if option.speculation is not None else "owned-ar"


def api_kind(api: ApiOffer) -> DisplayKind:
    """Display kind of an API: diffusion and hosted-open tiers have their own color; every other tier
    (frontier, reasoning, mid, small) is a proprietary "frontier API"."""
    if api.tier == "diffusion":
        return "api-diffusion"
    if api.tier == "hosted-open":
        return "api-hosted-open"
    return "api-frontier"


def option_kinds(scenario: Scenario) -> dict[str, DisplayKind]:
    """Option id → display kind for every owned option and API of the scenario."""
    kinds: dict[str, DisplayKind] = {o.id: owned_kind(o) for o in scenario.owned_options}
    kinds.update({a.id: api_kind(a) for a in scenario.apis})
    return kinds


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


def legend_margin(rows: int) -> int:
    """Bottom margin that fits the x-axis title and a legend of ``rows`` rows under the plot [px]."""
    return 78 + 22 * rows


def base_figure(title: str, x_title: str, y_title: str, *, height: int = 440, legend_rows: int = 1) -> go.Figure:
    """An empty figure in the house template with a title, unit-bearing axis titles and room for the legend
    under the plot (``legend_rows`` rows)."""
    fig = go.Figure()
    fig.update_layout(
        template=TEMPLATE_NAME,
        title={"text": title},
        xaxis_title=x_title,
        yaxis_title=y_title,
        height=height + legend_margin(legend_rows) - 60,
        margin={"b": legend_margin(legend_rows)},
    )
    return fig


def vline(
    fig: go.Figure,
    x: float,
    *,
    log_x: bool,
    color: str = LIMIT_COLOR,
    dash: str = "dash",
    width: float = 1.5,
    text: str = "",
    position: str = "top left",
    row: int | None = None,
    col: int | None = None,
) -> None:
    """A vertical marker at data value ``x`` with a label.

    Plotly places shapes in data units but annotations in log10 units on a log axis, so ``add_vline``'s
    built-in label lands far off (and stretches the axis); the label is added separately here.
    """
    fig.add_shape(
        type="line",
        x0=x,
        x1=x,
        y0=0,
        y1=1,
        yref="y domain",
        line={"color": color, "width": width, "dash": dash},
        row=row,
        col=col,
    )
    if text:
        top = position.startswith("top")
        fig.add_annotation(
            x=math.log10(x) if log_x else x,
            y=1 if top else 0,
            yref="y domain",
            yanchor="top" if top else "bottom",
            xanchor="right" if position.endswith("left") else "left",
            text=text,
            showarrow=False,
            font={"color": color, "size": 12},
            bgcolor="rgba(255,255,255,0.8)",
            row=row,
            col=col,
        )


def hline(
    fig: go.Figure,
    y: float,
    *,
    log_y: bool,
    color: str = LIMIT_COLOR,
    dash: str = "dash",
    width: float = 1.5,
    text: str = "",
) -> None:
    """A horizontal marker at data value ``y`` with a label at the right end (log10 units for the label)."""
    fig.add_shape(
        type="line",
        x0=0,
        x1=1,
        xref="x domain",
        y0=y,
        y1=y,
        line={"color": color, "width": width, "dash": dash},
    )
    if text:
        fig.add_annotation(
            x=1,
            xref="x domain",
            xanchor="right",
            yanchor="bottom",
            y=math.log10(y) if log_y else y,
            text=text,
            showarrow=False,
            font={"color": color, "size": 12},
            bgcolor="rgba(255,255,255,0.8)",
        )
