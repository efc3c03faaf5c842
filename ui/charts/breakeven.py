"""Charts of the Break-even page: U* against API price, λ* against node cost, and the two-axis map.

Money is computed in USD and drawn in the display currency of ``rate`` (issue 14): API prices and node costs are
multiplied by its rate here, at the display edge, and the axes and hovers carry its code and prefix.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from economics.currency import USD, DisplayRate
from economics.views.breakeven import AXIS_LABEL, AXIS_NAME, BreakEvenAnalysis
from ui.format import currency_prefix
from ui.theme import API_WINS_COLOR, LIMIT_COLOR, OWNED_WINS_COLOR, Chart

_LOG_AXES = {"api_price", "node_price", "demand"}
_MONEY_AXES = {"api_price", "node_price"}  # in USD/Mtok and USD/h: converted to the display currency
MAP_CELLS = 40  # cells per axis of the break-even map at most: what the eye needs for two smooth regions


def _today(c: Chart, x: float, y: float, name: str, hover: str) -> None:
    c.add(
        x=[x],
        y=[y],
        mode="markers+text",
        marker={"color": "#111111", "size": 13, "symbol": "diamond", "line": {"color": "white", "width": 2}},
        text=["today"],
        textposition="top right",
        name=name,
        hovertemplate=hover,
    )


def utilization_curve_figure(a: BreakEvenAnalysis, rate: DisplayRate = USD) -> go.Figure:
    """Break-even utilization against the API price (in ``rate``'s currency), with the highest utilization
    peak sizing allows."""
    k, cur = rate.units_per_usd, currency_prefix(rate.code)
    c = Chart(
        f"{a.side} beats the API above this utilization",
        f"API price [{rate.code} per Mtok output, input included] (log)",
        "break-even utilization [%]",
        height=420,
        legend_rows=2,
        x_log=True,
    )
    c.add(
        x=k * a.curve_api_usd_per_mtok,
        y=100 * np.minimum(a.curve_break_even_utilization, 1.5),
        mode="lines",
        line={"color": OWNED_WINS_COLOR, "width": 3},
        fill="tozeroy",
        fillcolor="rgba(213,94,0,0.10)",
        name="break-even utilization (the API is cheaper in the shaded area)",
        hovertemplate=f"API {cur}%{{x:,.3g}}/Mtok<br>owned cheaper above %{{y:.1f}}% utilization<extra></extra>",
    )
    c.add(
        x=[k * a.curve_api_usd_per_mtok[0], k * a.curve_api_usd_per_mtok[-1]],
        y=[100 * a.max_utilization] * 2,
        mode="lines",
        line={"color": LIMIT_COLOR, "width": 2, "dash": "dash"},
        name=f"capacity limit: {100 * a.max_utilization:.0f}% (headroom for the peak)",
        hovertemplate="highest average utilization a replica sized for the peak reaches: %{y:.0f}%<extra></extra>",
    )
    _today(
        c,
        k * a.api_usd_per_mtok,
        100 * a.utilization,
        "today: API price and utilization",
        f"today: API {cur}%{{x:,.3g}}/Mtok, utilization %{{y:.1f}}%<extra></extra>",
    )
    c.axis("xaxis", tickprefix=cur)
    c.axis("yaxis", range=[0, 110], ticksuffix="%")
    return c.figure()


def demand_curve_figure(a: BreakEvenAnalysis, rate: DisplayRate = USD) -> go.Figure:
    """Break-even demand of one replica against the node's cost per hour (in ``rate``'s currency), with one
    replica's limit."""
    k, cur = rate.units_per_usd, currency_prefix(rate.code)
    c = Chart(
        f"{a.side} beats the API above this demand (one replica)",
        f"node cost [{rate.code} per node-hour] (log)",
        "break-even demand [requests/s] (log)",
        height=420,
        legend_rows=2,
        x_log=True,
        y_log=True,
    )
    c.add(
        x=k * a.curve_node_usd_per_hour,
        y=np.where(np.isfinite(a.curve_break_even_demand), a.curve_break_even_demand, np.nan),
        mode="lines",
        line={"color": OWNED_WINS_COLOR, "width": 3},
        name="break-even demand (missing: never within one replica)",
        hovertemplate=f"node {cur}%{{x:,.2f}}/h<br>owned cheaper above %{{y:,.3g}} req/s<extra></extra>",
    )
    if math.isfinite(a.replica_demand_limit) and a.replica_demand_limit > 0:
        c.hline(a.replica_demand_limit, log_y=True, text=f"one replica's limit {a.replica_demand_limit:,.3g} req/s")
    _today(
        c,
        k * a.node_usd_per_hour,
        a.demand_requests_per_s,
        "today: node cost and demand",
        f"today: {cur}%{{x:,.2f}}/h, %{{y:,.3g}} req/s<extra></extra>",
    )
    c.axis("xaxis", tickprefix=cur)
    return c.figure()


def break_even_map_figure(a: BreakEvenAnalysis, rate: DisplayRate = USD) -> go.Figure:
    """Owned cost over API cost on two axes: blue where owned is cheaper, vermillion where the API is; the
    break-even contour (ratio 1) drawn, and the region beyond the capacity limit shaded, not hidden. A money
    axis (API price, node cost) is drawn in ``rate``'s currency; the ratio has no unit."""
    x_log, y_log = a.x in _LOG_AXES, a.y in _LOG_AXES
    kx, ky = (rate.units_per_usd if axis in _MONEY_AXES else 1.0 for axis in (a.x, a.y))
    cur = currency_prefix(rate.code)
    hx, hy = (
        f"{cur}%{{{v}:,.3g}}" if axis in _MONEY_AXES else f"%{{{v}:,.3g}}" for axis, v in ((a.x, "x"), (a.y, "y"))
    )
    c = Chart(
        f"Where {a.side.lower()} beats the API: {AXIS_NAME[a.y]} × {AXIS_NAME[a.x]}",
        AXIS_LABEL[a.x].replace("USD", rate.code),
        AXIS_LABEL[a.y].replace("USD", rate.code),
        height=520,
        legend_rows=1,
        x_log=x_log,
        y_log=y_log,
    )
    # at most MAP_CELLS × MAP_CELLS cells in float32, one hover number per cell: the map was ~245 KB of
    # JSON (61 × 61 cells, three float64 hover values each), most of every redraw of this page; the owned
    # and API costs themselves are on the metrics and curves
    sx = slice(None, None, math.ceil(len(a.x_values) / MAP_CELLS))
    sy = slice(None, None, math.ceil(len(a.y_values) / MAP_CELLS))
    xs, ys, ratio = kx * a.x_values[sx], ky * a.y_values[sy], a.owned_over_api[sy, sx]
    z = np.log2(np.clip(ratio, 1 / 64, 64)).astype(np.float32)
    c.add(
        "heatmap",
        x=xs,
        y=ys,
        z=z,
        zmin=-4,
        zmax=4,
        colorscale=[[0.0, OWNED_WINS_COLOR], [0.5, "#F7F7F7"], [1.0, API_WINS_COLOR]],
        colorbar={
            "title": {"text": "owned ÷ API cost", "side": "right"},
            "tickvals": [-4, -2, 0, 2, 4],
            "ticktext": ["÷16 (owned cheaper)", "÷4", "equal", "×4", "×16 (API cheaper)"],
        },
        customdata=ratio.astype(np.float32),
        hovertemplate=f"x {hx}<br>y {hy}<br>owned ÷ API %{{customdata:,.2f}}<extra></extra>",
        name="owned ÷ API cost",
    )
    c.add(
        "contour",
        x=xs,
        y=ys,
        z=z,
        contours={"start": 0, "end": 0, "size": 1, "coloring": "none"},
        line={"color": "#111111", "width": 3},
        showscale=False,
        name="break-even (equal cost)",
        showlegend=True,
        hoverinfo="skip",
    )
    _today(c, kx * a.x_now, ky * a.y_now, "today", "today<extra></extra>")
    for axis_name, axis in (("xaxis", a.x), ("yaxis", a.y)):
        if axis in _MONEY_AXES:
            c.axis(axis_name, tickprefix=cur)
        elif axis == "utilization":
            c.axis(axis_name, ticksuffix="%")
    for axis, is_x in ((a.x, True), (a.y, False)):
        if axis == "utilization":
            limit, text, hi = 100 * a.max_utilization, f"capacity limit {100 * a.max_utilization:.0f}%", 100.0
        elif axis == "demand" and math.isfinite(a.owned_capacity_requests_per_s):
            values = a.x_values if is_x else a.y_values
            limit, text, hi = a.owned_capacity_requests_per_s, "owned nodes full beyond", float(values[-1])
        else:
            continue
        if limit >= hi:
            continue
        shade = {"type": "rect", "fillcolor": "rgba(60,60,60,0.22)", "line": {"width": 0}, "layer": "above"}
        if is_x:
            c.shapes.append({**shade, "x0": limit, "x1": hi, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain"})
            c.vline(limit, log_x=x_log, color=LIMIT_COLOR, width=2.5, text=text, position="top right")
        else:
            c.shapes.append({**shade, "y0": limit, "y1": hi, "yref": "y", "x0": 0, "x1": 1, "xref": "x domain"})
            c.hline(limit, log_y=y_log, color=LIMIT_COLOR, width=2.5, text=text)
    return c.figure()
