"""The routing quadrant chart: decision regions as a categorical map, every workload as a labelled point."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from economics.currency import USD, DisplayRate
from economics.views.quadrant import Quadrant
from ui.format import currency_prefix
from ui.theme import INFEASIBLE_COLOR, KIND_COLOR, Chart, log10_axis

#: Region colors by route label: owned diffusion green, owned AR blue, APIs warm, none gray.
ROUTE_COLOR: dict[str, str] = {
    "owned diffusion": KIND_COLOR["owned-diffusion"],
    "owned AR (batch)": KIND_COLOR["owned-ar"],
    "owned AR": KIND_COLOR["owned-ar-spec"],
    "frontier API": KIND_COLOR["api-frontier"],
    "API": KIND_COLOR["api-hosted-open"],
    "none feasible": INFEASIBLE_COLOR,
}
PER_1K = 1000.0  # value is shown per 1,000 output tokens, like the reasons on the Overview


#: Where a name may go around its point, in order of preference, as plotly positions and the direction the
#: text box extends in: (position, dx, dy) with dx, dy in {-1, 0, 1} (right, up positive).
_PLACES = (
    ("top center", 0, 1),
    ("bottom center", 0, -1),
    ("middle right", 1, 0),
    ("middle left", -1, 0),
    ("top right", 1, 1),
    ("top left", -1, 1),
    ("bottom right", 1, -1),
    ("bottom left", -1, -1),
)
#: Label geometry for the placement [px]: the narrowest plot area the page allows (1,024 px window: a
#: 460 px chart minus its margins), the quadrant's plot height, a 13 px font's mean character width and line
#: height, the marker's radius.
_PLOT_PX = (380.0, 400.0)
_CHAR_PX, _LINE_PX, _MARKER_PX = 7.0, 16.0, 9.0

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 [px]


def _box(x: float, y: float, text: str, dx: int, dy: int) -> Box:
    """The text box of a label placed at (dx, dy) around a point at pixel (x, y)."""
    w, h = _CHAR_PX * len(text), _LINE_PX
    cx = x + dx * (_MARKER_PX + w / 2)
    cy = y + dy * (_MARKER_PX + h / 2)
    return cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def label_positions(
    xy: list[tuple[float, float]],
    names: list[str],
    span: tuple[float, float],
    origin: tuple[float, float] = (0.0, 0.0),
) -> list[str]:
    """A position for each name that keeps it off the other names and points and inside the plot, chosen in
    turn (busiest points first) in pixels of the narrowest plot the page allows; ``xy`` are the points in axis
    units (log10), ``span`` the axes' ranges and ``origin`` their lower ends in the same units. When every
    place collides the least crowded wins.

    >>> label_positions([(2.0, 2.0), (2.05, 2.0)], ["Alpha", "Beta"], (4.0, 4.0))
    ['top center', 'bottom center']
    >>> label_positions([(3.9, 2.0)], ["A long name near the right edge"], (4.0, 4.0))
    ['middle left']
    """
    px = [((x - origin[0]) * _PLOT_PX[0] / span[0], (y - origin[1]) * _PLOT_PX[1] / span[1]) for x, y in xy]
    markers = [(x - _MARKER_PX, y - _MARKER_PX, x + _MARKER_PX, y + _MARKER_PX) for x, y in px]
    taken: list[Box] = []
    out = [""] * len(px)
    crowd = [sum(abs(x - u) < 150 and abs(y - v) < 40 for u, v in px) for x, y in px]
    for i in sorted(range(len(px)), key=lambda i: (-crowd[i], i)):
        scored = []
        for rank, (place, dx, dy) in enumerate(_PLACES):
            box = _box(*px[i], names[i], dx, dy)
            hits = sum(_overlap(box, b) for b in taken) + sum(_overlap(box, m) for j, m in enumerate(markers) if j != i)
            hits += 2 * (box[0] < 0 or box[1] < 0 or box[2] > _PLOT_PX[0] or box[3] > _PLOT_PX[1])  # cut off
            scored.append((hits, rank, place, box))
        hits, _, place, box = min(scored)
        out[i] = place
        taken.append(box)
    return out


def _half_cell(values: np.ndarray) -> float:
    """The factor half a cell spans on a geometric grid."""
    return float(np.sqrt(values[1] / values[0])) if len(values) > 1 else 1.0


def quadrant_figure(q: Quadrant, rate: DisplayRate = USD) -> go.Figure:
    """x: batchability β (log), y: value at risk per 1,000 output tokens (log, in ``rate``'s currency: converted
    here, at the display edge); regions of one workload."""
    k, cur = rate.units_per_usd, currency_prefix(rate.code)
    c = Chart(
        # two lines: the workload's name made one line too wide for a 1,024 px window
        f'Routing quadrant<br><span style="font-size:12px">regions computed for “{q.region_workload_name}”</span>',
        "batchability: requests in flight at once at peak [count] (log)",
        f"value at risk [{rate.code} per 1,000 output tokens] (log)",
        height=560,
        legend_rows=2,
    )
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
            name=f"region: {label}",
            opacity=0.5,
        )
    x_lo, y_lo = float(xs[0]), float(ys[0])
    beta = [max(p.batchability, x_lo) for p in q.points]
    value = [max(k * PER_1K * p.value_usd_per_output_token, y_lo) for p in q.points]
    c.add(
        x=[math.log10(b) for b in beta],
        y=[math.log10(v) for v in value],
        mode="markers+text",
        marker={
            "size": [18 if p.workload_id == q.region_workload_id else 13 for p in q.points],
            "color": [ROUTE_COLOR.get(p.route_label, INFEASIBLE_COLOR) for p in q.points],
            "line": {"color": "#111111", "width": 2},
        },
        text=[p.name for p in q.points],
        textposition=label_positions(
            [(math.log10(b), math.log10(v)) for b, v in zip(beta, value, strict=True)],
            [p.name for p in q.points],
            (
                math.log10(float(xs[-1]) / float(xs[0])) + 2 * math.log10(_half_cell(xs)),
                math.log10(float(ys[-1]) / float(ys[0])) + 2 * math.log10(_half_cell(ys)),
            ),
            (math.log10(float(xs[0]) / _half_cell(xs)), math.log10(float(ys[0]) / _half_cell(ys))),
        ),
        textfont={"size": 13, "color": "#111111"},
        customdata=[
            [p.route_label, k * p.margin_usd_per_request if math.isfinite(p.margin_usd_per_request) else None, b, v]
            for p, b, v in zip(q.points, beta, value, strict=True)
        ],
        hovertemplate=(
            "<b>%{text}</b><br>route: %{customdata[0]}<br>batchability %{customdata[2]:.3g}, "
            f"{cur}%{{customdata[3]:,.3g}} per 1k tokens"
            f"<br>margin over runner-up {cur}%{{customdata[1]:,.4f}}/task<extra></extra>"
        ),
        name="workloads (color: their route)",
    )
    c.vline(0.0, log_x=False, width=1, text="1 in flight: batches can form", position="bottom right")  # log10(1)
    half_x, half_y = _half_cell(xs), _half_cell(ys)  # the heat map's outer cells end half a cell out
    c.axis("margin", t=80)
    c.axis("xaxis", **log10_axis(float(xs[0]) / half_x, float(xs[-1]) * half_x))
    c.axis("yaxis", **log10_axis(float(ys[0]) / half_y, float(ys[-1]) * half_y, prefix=cur))
    return c.figure()
