"""The routing quadrant chart: decision regions as a categorical map, every workload as a labelled point."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from economics.currency import USD, DisplayRate
from economics.views.quadrant import Quadrant
from ui.charts.chart import TITLE_LINE_PX
from ui.format import currency_prefix, route_words
from ui.labels import Label, place_labels
from ui.theme import INFEASIBLE_COLOR, KIND_COLOR, KIND_SHADES, Chart, log10_axis

#: Region colors by route label: owned diffusion green, owned AR blue, APIs warm, none gray; the same routes on
#: rented nodes in a darker shade of their family, so a plan with both reads as two regions.
ROUTE_COLOR: dict[str, str] = {
    "owned diffusion": KIND_COLOR["owned-diffusion"],
    "owned AR (batch)": KIND_COLOR["owned-ar"],
    "owned AR": KIND_COLOR["owned-ar-spec"],
    "frontier API": KIND_COLOR["api-frontier"],
    "API": KIND_COLOR["api-hosted-open"],
    "none feasible": INFEASIBLE_COLOR,
    "rented diffusion": KIND_SHADES["owned-diffusion"][1],
    "rented AR (batch)": KIND_SHADES["owned-ar"][1],
    "rented AR": KIND_SHADES["owned-ar-spec"][1],
}
PER_1K = 1000.0  # value is shown per 1,000 output tokens, like the reasons on the Overview


#: The narrowest plot area the page allows [px]: at a 1,024 px window the quadrant's plot measured 422 × 420 in
#: chromium, taken a little smaller so the estimate errs towards more room.
_PLOT_PX = (400.0, 400.0)
#: Marker radius of the region's own workload and of the others [px] (marker sizes 18 and 13, plus the outline).
_MARKER_PX = (11.0, 8.5)
#: The "1 at a time" line's label: its width [px] at the foot of the line, right of it.
_VLINE_LABEL_PX = (205.0, 22.0)


def label_positions(
    xy: list[tuple[float, float]],
    names: list[str],
    span: tuple[float, float],
    origin: tuple[float, float] = (0.0, 0.0),
    *,
    big: list[bool] | None = None,
) -> list[Label]:
    """A :class:`ui.labels.Label` for each name, off the other names and points and inside the plot, placed in
    pixels of the narrowest plot the page allows (:func:`ui.labels.place_labels`); ``xy`` are the points in axis
    units (log10), ``span`` the axes' ranges and ``origin`` their lower ends in the same units, ``big`` marks
    the larger markers. The "1 at a time" line's label at the foot of x = 0 is kept clear.

    >>> [(round(lb.dx_px), lb.dy_px > 0) for lb in label_positions([(2.0, 2.0), (2.05, 2.0)], ["Alpha", "Beta"],
    ...                                                            (4.0, 4.0))]
    [(0, True), (0, False)]
    """
    sx, sy = _PLOT_PX[0] / span[0], _PLOT_PX[1] / span[1]
    px = [((x - origin[0]) * sx, (y - origin[1]) * sy) for x, y in xy]
    radii = [_MARKER_PX[0] if b else _MARKER_PX[1] for b in (big or [False] * len(xy))]
    line_x = -origin[0] * sx  # x = log10(1) = 0
    vline_label = (line_x, 0.0, line_x + _VLINE_LABEL_PX[0], _VLINE_LABEL_PX[1])
    return place_labels(px, names, _PLOT_PX, radii, obstacles=[vline_label])


def _name_annotation(x: float, y: float, label: Label) -> dict[str, object]:
    """A workload's name at its label's offset from its point (x, y) in axis units, with a leader line if away."""
    common = {"x": x, "y": y, "xref": "x", "yref": "y", "text": label.text, "xanchor": "center", "yanchor": "middle"}
    font = {"size": 13, "color": "#111111"}
    if label.leader:
        return {**common, "font": font, "showarrow": True, "ax": label.dx_px, "ay": -label.dy_px,
                "arrowhead": 0, "arrowwidth": 1, "arrowcolor": "#555555", "standoff": 6}  # fmt: skip
    return {**common, "font": font, "showarrow": False, "xshift": label.dx_px, "yshift": label.dy_px}


def _half_cell(values: np.ndarray) -> float:
    """The factor half a cell spans on a geometric grid."""
    return float(np.sqrt(values[1] / values[0])) if len(values) > 1 else 1.0


def quadrant_figure(q: Quadrant, rate: DisplayRate = USD) -> go.Figure:
    """x: batchability β (log), y: cost of a failed answer per 1,000 output tokens, the essay's value at risk v
    (log, in ``rate``'s currency: converted here, at the display edge); regions of one workload."""
    k, cur = rate.units_per_usd, currency_prefix(rate.code)
    # both axes hold log10 values on linear axes labelled like log axes (log10_axis): the region map then
    # draws as one pixel per cell, not one rectangle per cell
    xs, ys = q.batchability, k * PER_1K * q.value_usd_per_output_token
    n = len(q.label_names)
    present = sorted({int(v) for v in np.unique(q.labels) if 0 <= int(v) < n})
    # a discrete colorscale over the label indices present, so each region has exactly its route's color
    scale: list[list[float | str]] = []
    for rank, idx in enumerate(present):
        color = ROUTE_COLOR.get(q.label_names[idx], INFEASIBLE_COLOR)
        scale += [[rank / len(present), color], [(rank + 1) / len(present), color]]
    c = Chart(
        # two lines: the workload's name made one line too wide for a 1,024 px window
        # a reader found another workload's API dot inside an "owned" region: the regions are one workload's only
        f'Routing quadrant<br><span style="font-size:12px">regions computed for “{q.region_workload_name}” (the '
        'large dot)</span><br><span style="font-size:12px">faded dots: other workloads, whose regions differ</span>',
        "batchability: requests at a time at peak, on average [count] (log)",
        f"cost of a failed answer [{rate.code} per 1,000 output tokens] (log)",
        height=560,
        legend_rows=len(present) + 1,  # a row per region and the workloads: 2 squeezed the x title
    )
    index_of = {idx: rank for rank, idx in enumerate(present)}
    z = np.array([[index_of.get(int(v), np.nan) for v in row] for row in q.labels], dtype=np.float32)
    c.add(
        "heatmap",
        x=np.log10(xs),
        y=np.log10(ys),
        z=z,
        zmin=-0.5,
        zmax=len(present) - 0.5,
        colorscale=scale or [[0, INFEASIBLE_COLOR], [1, INFEASIBLE_COLOR]],
        opacity=0.35,
        showscale=False,
        # no per-cell hover text (it was ~65 KB of JSON per figure, the bulk of every redraw): the legend
        # names the regions, and the workload points keep their own hover
        hoverinfo="skip",
        name="decision regions",
    )
    for idx in present:  # legend entries for the regions
        label = q.label_names[idx]
        c.add(
            x=[None],
            y=[None],
            mode="markers",
            marker={"symbol": "square", "size": 14, "color": ROUTE_COLOR.get(label, INFEASIBLE_COLOR)},
            name=f"region: {route_words(label)}",
            opacity=0.5,
        )
    x_lo, y_lo = float(xs[0]), float(ys[0])
    beta = [max(p.batchability, x_lo) for p in q.points]
    value = [max(k * PER_1K * p.value_usd_per_output_token, y_lo) for p in q.points]
    xy = [(math.log10(b), math.log10(v)) for b, v in zip(beta, value, strict=True)]  # axis units (log10)
    c.add(
        x=[x for x, _ in xy],
        y=[y for _, y in xy],
        mode="markers",
        marker={
            "size": [18 if p.workload_id == q.region_workload_id else 13 for p in q.points],
            "opacity": [1.0 if p.workload_id == q.region_workload_id else 0.45 for p in q.points],
            "color": [ROUTE_COLOR.get(p.route_label, INFEASIBLE_COLOR) for p in q.points],
            "line": {"color": "#111111", "width": 2},
        },
        text=[p.name for p in q.points],
        customdata=[
            [
                route_words(p.route_label),
                k * p.margin_usd_per_request if math.isfinite(p.margin_usd_per_request) else None,
                b,
                v,
            ]
            for p, b, v in zip(q.points, beta, value, strict=True)
        ],
        hovertemplate=(
            "<b>%{text}</b><br>route: %{customdata[0]}<br>batchability %{customdata[2]:.3g}, "
            f"a failed answer costs {cur}%{{customdata[3]:,.3g}} per 1,000 output tokens"
            f"<br>margin over runner-up {cur}%{{customdata[1]:,.4f}}/task<extra></extra>"
        ),
        name="workloads (color: their route; faded: regions not drawn for them)",
    )
    labels = label_positions(
        xy,
        [p.name for p in q.points],
        (
            math.log10(float(xs[-1]) / float(xs[0])) + 2 * math.log10(_half_cell(xs)),
            math.log10(float(ys[-1]) / float(ys[0])) + 2 * math.log10(_half_cell(ys)),
        ),
        (math.log10(float(xs[0]) / _half_cell(xs)), math.log10(float(ys[0]) / _half_cell(ys))),
        big=[p.workload_id == q.region_workload_id for p in q.points],
    )
    # each name an annotation a fixed number of pixels from its point (a leader line when it had to move away):
    # as scatter text it could only sit touching its point, and at 1,024 px one name covered another's point
    c.annotations.extend(_name_annotation(x, y, label) for (x, y), label in zip(xy, labels, strict=True))
    c.vline(0.0, log_x=False, width=1, text="1 at a time: batches can form", position="bottom right")  # log10(1)
    half_x, half_y = _half_cell(xs), _half_cell(ys)  # the heat map's outer cells end half a cell out
    c.axis("margin", t=80 + 2 * TITLE_LINE_PX)  # the title's third line, and room for the long y title
    x_start, x_end = float(xs[0]) / half_x, float(xs[-1]) * half_x
    # over more than two decades, labels at the powers of ten only and level: at 1,024 px the 1-2-5 labels of
    # 0.01…100 stood on end over the axis title
    wide = math.log10(x_end / x_start) > 2
    c.axis("xaxis", tickangle=0, **log10_axis(x_start, x_end, labelled=(1,) if wide else (1, 2, 5)))
    c.axis("yaxis", **log10_axis(float(ys[0]) / half_y, float(ys[-1]) * half_y, prefix=cur))
    return c.figure()
