"""The routing quadrant chart: decision regions as a categorical map, every workload as a labelled point."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from economics.views.quadrant import Quadrant
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


def _label_positions(q: Quadrant) -> list[str]:
    """Alternate label sides for points that sit close together, so names do not print over each other."""
    cycle = ("top center", "bottom center", "middle right", "middle left")
    order = sorted(
        range(len(q.points)), key=lambda i: (q.points[i].value_usd_per_output_token, q.points[i].batchability)
    )
    positions = [""] * len(q.points)
    for rank, i in enumerate(order):
        positions[i] = cycle[rank % len(cycle)]
    return positions


def _half_cell(values: np.ndarray) -> float:
    """The factor half a cell spans on a geometric grid."""
    return float(np.sqrt(values[1] / values[0])) if len(values) > 1 else 1.0


def quadrant_figure(q: Quadrant) -> go.Figure:
    """x: batchability β (log), y: value at risk per 1,000 output tokens (log); regions of one workload."""
    c = Chart(
        f"Routing quadrant: regions computed for “{q.region_workload_name}”",
        "batchability: requests in flight at once at peak [count] (log)",
        "value at risk [USD per 1,000 output tokens] (log)",
        height=560,
        legend_rows=2,
    )
    # both axes hold log10 values on linear axes labelled like log axes (log10_axis): the region map then
    # draws as one pixel per cell, not one rectangle per cell
    xs, ys = q.batchability, PER_1K * q.value_usd_per_output_token
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
    value = [max(PER_1K * p.value_usd_per_output_token, y_lo) for p in q.points]
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
        textposition=_label_positions(q),
        textfont={"size": 13, "color": "#111111"},
        customdata=[
            [p.route_label, p.margin_usd_per_request if math.isfinite(p.margin_usd_per_request) else None, b, v]
            for p, b, v in zip(q.points, beta, value, strict=True)
        ],
        hovertemplate=(
            "<b>%{text}</b><br>route: %{customdata[0]}<br>batchability %{customdata[2]:.3g}, "
            "$%{customdata[3]:,.3g} per 1k tokens"
            "<br>margin over runner-up $%{customdata[1]:,.4f}/task<extra></extra>"
        ),
        name="workloads (color: their route)",
    )
    c.vline(0.0, log_x=False, width=1, text="1 in flight: batches can form", position="bottom right")  # log10(1)
    half_x, half_y = _half_cell(xs), _half_cell(ys)  # the heat map's outer cells end half a cell out
    c.axis("xaxis", **log10_axis(float(xs[0]) / half_x, float(xs[-1]) * half_x))
    c.axis("yaxis", **log10_axis(float(ys[0]) / half_y, float(ys[-1]) * half_y, prefix="$"))
    return c.figure()
