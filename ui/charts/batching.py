"""Charts of the Batching page: roofline, throughput and cost against batch, speed against concurrency."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from economics.currency import USD, DisplayRate
from economics.units import GB, TFLOPS
from economics.views.batching import BatchingAnalysis, BatchPoint
from ui.format import currency_prefix
from ui.theme import KIND_COLOR, LIMIT_COLOR, LOG_AXIS, Chart, left_margin, tick_labels


def roofline_figure(a: BatchingAnalysis) -> go.Figure:
    """Arithmetic intensity against attained FLOP/s per GPU, with the peak and effective roofs."""
    c = Chart(
        "Roofline: where each forward pass sits (per GPU)",
        "arithmetic intensity [FLOP/byte] (log)",
        "attained compute [TFLOP/s per GPU] (log)",
        height=480,
        # plotly puts each of these long entries on its own row: one row per roof line and per scheme
        legend_rows=2 * len(a.roofs) + len(dict.fromkeys(p.label for p in a.points)),
        x_log=True,
        y_log=True,
    )
    intensities = [p.intensity_flop_per_byte for p in a.points] or [1.0]
    x = np.geomspace(min(0.3, 0.5 * min(intensities)), max(3000.0, 2 * max(intensities)), 120)
    _fixed_log_ranges(c, a, x)
    for i, roof in enumerate(a.roofs):
        c.add(
            x=x,
            y=np.minimum(roof.peak_flops_per_s, x * roof.bandwidth_bytes_per_s) / TFLOPS,
            mode="lines",
            line={"color": LIMIT_COLOR, "width": 2, "dash": ("solid", "dot")[i % 2]},
            name=f"{roof.gpu_name} peak roof",
            hovertemplate="intensity %{x:.3g} FLOP/B<br>roof %{y:,.0f} TFLOP/s<extra>%{fullData.name}</extra>",
        )
        c.add(
            x=x,
            y=np.minimum(roof.effective_flops_per_s, x * roof.effective_bandwidth_bytes_per_s) / TFLOPS,
            mode="lines",
            line={"color": "#999999", "width": 1.5, "dash": "dash"},
            name=f"{roof.gpu_name} achievable (after compute and memory efficiency)",
            hovertemplate="intensity %{x:.3g} FLOP/B<br>%{y:,.0f} TFLOP/s<extra>%{fullData.name}</extra>",
        )
        c.vline(
            roof.ridge_flop_per_byte,
            log_x=True,
            color="#888888",
            dash="dot",
            width=1,
            # left of the line: to its right the label ran past the chart's edge at both widths (screenshots)
            text=f"{roof.gpu_name} ridge point: {roof.ridge_flop_per_byte:,.0f} FLOP/byte",
            position="bottom left",
        )
    # each series labels its points on its own side, so AR, AR + speculation and diffusion at similar
    # intensities do not write over each other
    sides = ("top left", "bottom right", "top right", "bottom left")
    for rank, label in enumerate(dict.fromkeys(p.label for p in a.points)):
        pts = [p for p in a.points if p.label == label]
        color = KIND_COLOR[pts[0].kind]
        c.add(
            x=[p.intensity_flop_per_byte for p in pts],
            y=[p.attained_flops_per_s / TFLOPS for p in pts],
            mode="markers+text",
            marker={"color": color, "size": 12, "line": {"color": "white", "width": 1}},
            text=[f"batch {p.batch}" if i in (0, len(pts) - 1) else "" for i, p in enumerate(pts)],
            textposition=sides[rank % len(sides)],
            textfont={"color": color, "size": 12},
            name=label,
            customdata=[["compute-bound" if p.compute_bound else "memory-bound", p.batch] for p in pts],
            hovertemplate=(
                "batch %{customdata[1]}<br>intensity %{x:.3g} FLOP/B<br>attained %{y:,.1f} TFLOP/s per GPU"
                "<br>%{customdata[0]}<extra>%{fullData.name}</extra>"
            ),
        )
    return c.figure()


def _fixed_log_ranges(c: Chart, a: BatchingAnalysis, x: np.ndarray) -> None:
    """Both roofline axes over the drawn lines and points: plotly's autorange pads a log axis for the points' text
    labels, and in a 1,024 px window that padding ran the intensity axis out to 10 million FLOP/byte (its labels
    printed over each other)."""
    ys = [p.attained_flops_per_s / TFLOPS for p in a.points]
    for roof in a.roofs:
        ys += [roof.peak_flops_per_s / TFLOPS, float(x[0]) * roof.effective_bandwidth_bytes_per_s / TFLOPS]
    positive = [y for y in ys if y > 0] or [1.0]
    # powers of ten only: at 1,024 px the 1-2-5 labels over four decades ("1,000" "2,000") touched
    c.axis("xaxis", range=[math.log10(float(x[0])), math.log10(float(x[-1]))], dtick=1)
    c.axis("yaxis", range=[math.log10(0.7 * min(positive)), math.log10(1.5 * max(positive))])


def _kv_caps(c: Chart, a: BatchingAnalysis) -> None:
    """One dotted line per scheme at its KV-memory cap, labels stacked so they do not overlap."""
    caps = [s for s in a.batch_series if s.kind != "owned-ar-spec" and math.isfinite(s.max_batch_kv)]
    for rank, s in enumerate(cap for cap in caps if cap.max_batch_kv >= 1):
        c.vline(s.max_batch_kv, log_x=True, color=KIND_COLOR[s.kind], dash="dot")
        c.annotations.append(
            {
                "x": math.log10(s.max_batch_kv),
                "xref": "x",
                "y": 1 - 0.08 * rank,
                "yref": "y domain",
                "xanchor": "right",
                "yanchor": "top",
                "text": f"KV-memory cap {s.max_batch_kv:,.0f}",
                "showarrow": False,
                "font": {"color": KIND_COLOR[s.kind], "size": 12},
                "bgcolor": "rgba(255,255,255,0.8)",
            }
        )


def batch_throughput_figure(a: BatchingAnalysis) -> go.Figure:
    """Tokens per second of one replica against batch size, up to the KV-memory cap."""
    c = Chart(
        "Throughput of one replica vs batch size",
        "batch size [concurrent sequences] (log)",
        "output throughput [tok/s per replica] (log)",
        legend_rows=len(a.batch_series),
        x_log=True,
        y_log=True,
    )
    for s in a.batch_series:
        c.add(
            x=s.batch,
            y=s.tokens_per_s,
            mode="lines",
            line={"color": KIND_COLOR[s.kind], "width": 3},
            name=s.label,
            customdata=s.tokens_per_s_per_stream,
            hovertemplate=(
                "batch %{x:,.0f}<br>%{y:,.0f} tok/s per replica<br>%{customdata:,.0f} tok/s per stream"
                "<extra>%{fullData.name}</extra>"
            ),
        )
    _kv_caps(c, a)
    return c.figure()


def batch_cost_figure(a: BatchingAnalysis, p: BatchPoint, rate: DisplayRate = USD) -> go.Figure:
    """Cost per million output tokens while the replica is busy, against batch size; computed in USD, drawn in
    ``rate``'s currency (issue 14: converted here, at the display edge)."""
    cur = currency_prefix(rate.code)
    c = Chart(
        # two lines: on one the title ran past a half-width chart's edge at 1,440 px
        f'Cost per token while busy<br><span style="font-size:12px">{p.cost_swing:,.1f}× lower at batch {p.batch} '
        "than at batch 1</span>",
        "batch size [concurrent sequences] (log)",
        f"cost while busy [{rate.code} per Mtok output] (log)",
        legend_rows=len(a.batch_series),
        x_log=True,
        y_log=True,
    )
    for s in a.batch_series:
        c.add(
            x=s.batch,
            y=rate.units_per_usd * s.cost_usd_per_mtok,
            mode="lines",
            line={"color": KIND_COLOR[s.kind], "width": 3},
            name=s.label,
            hovertemplate=f"batch %{{x:,.0f}}<br>{cur}%{{y:,.3g}} per Mtok<extra>%{{fullData.name}}</extra>",
        )
    _kv_caps(c, a)
    c.vline(p.batch, log_x=True, width=1, text=f"batch {p.batch}", position="bottom right")
    c.axis("yaxis", tickprefix=cur)
    return c.figure()


#: The concurrency chart's two panels, stacked (top, then bottom) as fractions of the plot height [1].
_TOP_PANEL, _BOTTOM_PANEL = (0.58, 1.0), (0.0, 0.42)


def concurrency_figure(a: BatchingAnalysis) -> go.Figure:
    """Per-stream speed (top) and aggregate throughput per GPU (bottom) against closed-loop concurrency, on one
    concurrency axis, crossover marked. Stacked, not side by side: at 1,024 px two panels of a half-width column
    each printed their axis titles over the other's and over the tick labels (screenshots)."""
    c = Chart(
        "Speed against concurrency (closed loop)",
        "concurrent clients per replica [count] (log)",
        "per stream [tok/s] (log)",
        height=620,
        legend_rows=len(a.concurrency_series),  # long names: one per row in a narrow window
        x_log=True,
        y_log=True,
    )
    lo = min(float(s.concurrency[0]) for s in a.concurrency_series)
    hi = max(float(s.concurrency[-1]) for s in a.concurrency_series)
    c.axis("xaxis", range=[math.log10(lo), math.log10(hi)], anchor="y2")
    c.axis("yaxis", domain=list(_TOP_PANEL), anchor="x")
    c.axis("yaxis2", domain=list(_BOTTOM_PANEL), anchor="x", title={"text": "per GPU [tok/s] (log)"}, **LOG_AXIS)
    for s in a.concurrency_series:
        style = {"color": KIND_COLOR[s.kind], "width": 3}
        c.add(
            x=s.concurrency,
            y=s.per_stream_tokens_per_s,
            mode="lines",
            line=style,
            name=s.label,
            legendgroup=s.label,
            hovertemplate="%{x:,.0f} clients<br>%{y:,.0f} tok/s per stream<extra>%{fullData.name}</extra>",
        )
        c.add(
            x=s.concurrency,
            y=s.aggregate_tokens_per_s_per_gpu,
            yaxis="y2",
            mode="lines",
            line=style,
            name=s.label,
            legendgroup=s.label,
            showlegend=False,
            hovertemplate="%{x:,.0f} clients<br>%{y:,.0f} tok/s per GPU<extra>%{fullData.name}</extra>",
        )
    for text, (_, top) in (
        ("Per-stream speed (what one user sees)", _TOP_PANEL),
        ("Aggregate throughput per GPU", _BOTTOM_PANEL),
    ):
        c.annotations.append(
            {
                "text": text,
                "x": 0,
                "xref": "paper",
                "xanchor": "left",
                "y": top,
                "yref": "paper",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 14},
            }
        )
    # both panels' tick labels (the house Chart sizes the margin from the first y axis only)
    speeds = [
        float(v) for s in a.concurrency_series for v in (*s.per_stream_tokens_per_s, *s.aggregate_tokens_per_s_per_gpu)
    ]
    c.axis("margin", l=left_margin(tick_labels(speeds, LOG_AXIS), has_title=True))
    if math.isfinite(a.crossover_concurrency):
        c.vline(a.crossover_concurrency, log_x=True)
        c.vline(
            a.crossover_concurrency,
            log_x=True,
            text=f"AR catches up at {a.crossover_concurrency:,.0f} clients",
            position="bottom right",
            yref="y2",
        )
    return c.figure()


def memory_figure(a: BatchingAnalysis) -> go.Figure:
    """The AR replica's usable memory: the weights, and the room left for KV caches (the memory wall)."""
    m = a.memory
    room = max(0.0, m.usable_bytes - m.weight_bytes)
    c = Chart(
        f'AR replica memory<br><span style="font-size:12px">{m.usable_bytes / GB:,.0f} GB usable, '
        f"{m.kv_bytes_per_sequence / GB:,.2f} GB KV per sequence</span>",
        "memory [GB, decimal]",
        "",
        height=190,
    )
    for name, value, color in (
        ("weights", m.weight_bytes, LIMIT_COLOR),
        (f"room for KV caches: {m.max_batch:,.0f} sequences", room, KIND_COLOR["owned-ar"]),
    ):
        c.add(
            "bar",
            y=["memory"],
            x=[value / GB],
            orientation="h",
            name=name,
            marker={"color": color},
            hovertemplate=f"{name}: %{{x:,.1f}} GB<extra></extra>",
            text=[f"{value / GB:,.0f} GB"],
            textposition="inside",
        )
    c.layout.update(barmode="stack", legend={"traceorder": "normal"})
    c.axis("yaxis", visible=False)
    c.axis("margin", t=50)
    return c.figure()
