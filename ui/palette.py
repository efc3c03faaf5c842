"""One look for every chart: one color per option kind, on every page, and a template readable on a projector.

Colors are the Okabe–Ito palette (distinguishable with the common color-vision deficiencies). Owned options
are blues and green, APIs are warm colors, so "owned vs API" reads at a glance. When two options share a kind
(two frontier APIs), they share the color and differ by dash and marker. Importing this module registers the
plotly template ``llm_economics``.
"""

from __future__ import annotations

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
#: Eight markers, so up to eight options of one kind each get their own: with five, the sixth owned option of the
#: rented preset was a cyan circle beside the first one's sky-blue circle, which read as one option.
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star", "hexagon", "triangle-down")
#: Discrete decision-region fills for heat maps: owned wins / API wins / infeasible.
OWNED_WINS_COLOR = KIND_COLOR["owned-ar"]
API_WINS_COLOR = KIND_COLOR["api-frontier"]
INFEASIBLE_COLOR = "#BBBBBB"

FONT_FAMILY = '"Source Sans 3", "Source Sans Pro", sans-serif'  # Streamlit's own font: already loaded, cheap to measure
TEMPLATE_NAME = "llm_economics"


def kind_labels(scenario: Scenario) -> dict[str, str]:
    """Option id → its kind's label for legends and tables. The kinds say "owned" for any option run on our
    own nodes; one on a rented node says "rented" ("rented AR + speculation"), so a legend entry never reads
    "8 GPUs, rented, AWS on demand (owned AR + speculation)"."""
    labels = {option_id: KIND_LABEL[kind] for option_id, kind in option_kinds(scenario).items()}
    rented = {n.id for n in scenario.nodes if n.kind == "rented"}
    for o in scenario.owned_options:
        if o.node_id in rented:
            labels[o.id] = labels[o.id].replace("owned", "rented", 1)
    return labels


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
