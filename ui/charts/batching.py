"""Charts of the Batching page: roofline, throughput and cost against batch, speed against concurrency."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from economics.currency import USD, DisplayRate
from economics.units import GB, TFLOPS
from economics.views.batching import BatchingAnalysis, BatchPoint
from ui.format import currency_prefix
from ui.theme import KIND_COLOR, LIMIT_COLOR, LOG_AXIS, Chart


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
            text=f"{roof.gpu_name} ridge point: {roof.ridge_flop_per_byte:,.0f} FLOP/B",
            position="bottom right",
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
            text=[f"B={p.batch}" if i in (0, len(pts) - 1) else "" for i, p in enumerate(pts)],
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
        f"Cost per token while busy: ÷{p.cost_swing:,.0f} from batch 1 to batch {p.batch}",
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


def concurrency_figure(a: BatchingAnalysis) -> go.Figure:
    """Per-stream speed and aggregate throughput per GPU against closed-loop concurrency, crossover marked."""
    c = Chart(
        "Speed against concurrency (closed loop)",
        "concurrent clients per replica [count] (log)",
        "output speed [tok/s per stream] (log)",
        height=420,
        x_log=True,
        y_log=True,
    )
    lo = min(float(s.concurrency[0]) for s in a.concurrency_series)
    hi = max(float(s.concurrency[-1]) for s in a.concurrency_series)
    c.axis("xaxis", domain=[0, 0.44], range=[math.log10(lo), math.log10(hi)])
    c.axis("xaxis2", domain=[0.56, 1], anchor="y2", title={"text": "concurrent clients per replica [count] (log)"})
    c.axis("xaxis2", range=[math.log10(lo), math.log10(hi)], **LOG_AXIS)
    c.axis("yaxis2", anchor="x2", title={"text": "aggregate throughput [tok/s per GPU] (log)"}, **LOG_AXIS)
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
            xaxis="x2",
            yaxis="y2",
            mode="lines",
            line=style,
            name=s.label,
            legendgroup=s.label,
            showlegend=False,
            hovertemplate="%{x:,.0f} clients<br>%{y:,.0f} tok/s per GPU<extra>%{fullData.name}</extra>",
        )
    for text, xref in (("Per-stream speed (what one user sees)", "x"), ("Aggregate throughput per GPU", "x2")):
        c.annotations.append(
            {
                "text": text,
                "x": 0.5,
                "xref": f"{xref} domain",
                "y": 1.02,
                "yref": "y domain",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 14},
            }
        )
    if math.isfinite(a.crossover_concurrency):
        c.vline(a.crossover_concurrency, log_x=True)
        c.vline(
            a.crossover_concurrency,
            log_x=True,
            text=f"AR overtakes diffusion at {a.crossover_concurrency:,.0f} clients",
            position="bottom right",
            xref="x2",
            yref="y2",
        )
    return c.figure()


def memory_figure(a: BatchingAnalysis) -> go.Figure:
    """The AR replica's usable memory: the weights, and the room left for KV caches (the memory wall)."""
    m = a.memory
    room = max(0.0, m.usable_bytes - m.weight_bytes)
    c = Chart(
        f"AR replica memory: {m.usable_bytes / GB:,.0f} GB usable, "
        f"{m.kv_bytes_per_sequence / GB:,.2f} GB KV per sequence",
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
