"""Charts of the Batching page: roofline, throughput and cost against batch, speed against concurrency."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from economics.units import GB, TFLOPS
from ui.analysis.batching import BatchingAnalysis
from ui.theme import KIND_COLOR, LIMIT_COLOR, TEMPLATE_NAME, base_figure, legend_margin, vline


def roofline_figure(a: BatchingAnalysis) -> go.Figure:
    """Arithmetic intensity against attained FLOP/s per GPU, with the peak and effective roofs."""
    fig = base_figure(
        "Roofline: where each forward pass sits (per GPU)",
        "arithmetic intensity [FLOP/byte] (log)",
        "attained compute [TFLOP/s per GPU] (log)",
        height=480,
        legend_rows=2,
    )
    intensities = [p.intensity_flop_per_byte for p in a.points] or [1.0]
    lo = min(0.3, 0.5 * min(intensities))
    hi = max(3000.0, 2 * max(intensities))
    x = np.geomspace(lo, hi, 200)
    for i, roof in enumerate(a.roofs):
        dash = ("solid", "dot")[i % 2]
        fig.add_trace(
            go.Scatter(
                x=x,
                y=np.minimum(roof.peak_flops_per_s, x * roof.bandwidth_bytes_per_s) / TFLOPS,
                mode="lines",
                line={"color": LIMIT_COLOR, "width": 2, "dash": dash},
                name=f"{roof.gpu_name} peak roof",
                hovertemplate="intensity %{x:.3g} FLOP/B<br>roof %{y:,.0f} TFLOP/s<extra>%{fullData.name}</extra>",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=np.minimum(roof.effective_flops_per_s, x * roof.effective_bandwidth_bytes_per_s) / TFLOPS,
                mode="lines",
                line={"color": "#999999", "width": 1.5, "dash": "dash"},
                name=f"{roof.gpu_name} achievable (MFU × peak, MBU × bandwidth)",
                hovertemplate="intensity %{x:.3g} FLOP/B<br>%{y:,.0f} TFLOP/s<extra>%{fullData.name}</extra>",
            )
        )
        vline(
            fig,
            roof.ridge_flop_per_byte,
            log_x=True,
            color="#888888",
            dash="dot",
            width=1,
            text=f"{roof.gpu_name} ridge point: {roof.ridge_flop_per_byte:,.0f} FLOP/B",
            position="bottom right",
        )
    labels = list(dict.fromkeys(p.label for p in a.points))
    for label in labels:
        pts = [p for p in a.points if p.label == label]
        kind = pts[0].kind
        fig.add_trace(
            go.Scatter(
                x=[p.intensity_flop_per_byte for p in pts],
                y=[p.attained_flops_per_s / TFLOPS for p in pts],
                mode="markers+text",
                marker={"color": KIND_COLOR[kind], "size": 12, "line": {"color": "white", "width": 1}},
                text=[f"B={p.batch}" for p in pts],
                textposition="top left",
                textfont={"color": KIND_COLOR[kind], "size": 12},
                name=label,
                customdata=[["compute-bound" if p.compute_bound else "memory-bound", p.batch] for p in pts],
                hovertemplate=(
                    "batch %{customdata[1]}<br>intensity %{x:.3g} FLOP/B<br>attained %{y:,.1f} TFLOP/s per GPU"
                    "<br>%{customdata[0]}<extra>%{fullData.name}</extra>"
                ),
            )
        )
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return fig


def _kv_caps(fig: go.Figure, a: BatchingAnalysis, row: int | None = None, col: int | None = None) -> None:
    for s in a.batch_series:
        if s.kind == "owned-ar-spec" or not math.isfinite(s.max_batch_kv) or s.max_batch_kv < 1:
            continue
        vline(
            fig,
            s.max_batch_kv,
            log_x=True,
            color=KIND_COLOR[s.kind],
            dash="dot",
            text=f"KV-memory cap {s.max_batch_kv:,.0f}",
            row=row,
            col=col,
        )


def batch_throughput_figure(a: BatchingAnalysis) -> go.Figure:
    """Tokens per second of one replica against batch size, up to the KV-memory cap."""
    fig = base_figure(
        "Throughput of one replica vs batch size",
        "batch size [concurrent sequences] (log)",
        "output throughput [tok/s per replica] (log)",
        legend_rows=len(a.batch_series),
    )
    for s in a.batch_series:
        fig.add_trace(
            go.Scatter(
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
        )
    _kv_caps(fig, a)
    vline(fig, a.selected_batch, log_x=True, width=1, text=f"batch {a.selected_batch}", position="bottom right")
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return fig


def batch_cost_figure(a: BatchingAnalysis) -> go.Figure:
    """Cost per million output tokens while the replica is busy, against batch size."""
    fig = base_figure(
        f"Cost per token while busy: ÷{a.cost_swing:,.0f} from batch 1 to batch {a.selected_batch}",
        "batch size [concurrent sequences] (log)",
        "cost while busy [USD per Mtok output] (log)",
        legend_rows=len(a.batch_series),
    )
    for s in a.batch_series:
        fig.add_trace(
            go.Scatter(
                x=s.batch,
                y=s.cost_usd_per_mtok,
                mode="lines",
                line={"color": KIND_COLOR[s.kind], "width": 3},
                name=s.label,
                hovertemplate="batch %{x:,.0f}<br>$%{y:,.3g} per Mtok<extra>%{fullData.name}</extra>",
            )
        )
    _kv_caps(fig, a)
    vline(fig, a.selected_batch, log_x=True, width=1, text=f"batch {a.selected_batch}", position="bottom right")
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log", tickprefix="$")
    return fig


def concurrency_figure(a: BatchingAnalysis) -> go.Figure:
    """Per-stream speed and aggregate throughput per GPU against closed-loop concurrency, crossover marked."""
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("Per-stream speed (what one user sees)", "Aggregate throughput per GPU (what you pay for)"),
        horizontal_spacing=0.09,
    )
    for s in a.concurrency_series:
        style = {"color": KIND_COLOR[s.kind], "width": 3}
        fig.add_trace(
            go.Scatter(
                x=s.concurrency,
                y=s.per_stream_tokens_per_s,
                mode="lines",
                line=style,
                name=s.label,
                legendgroup=s.label,
                hovertemplate="%{x:,.0f} clients<br>%{y:,.0f} tok/s per stream<extra>%{fullData.name}</extra>",
            ),
            row=1,
            col=1,
        )
        fig.add_trace(
            go.Scatter(
                x=s.concurrency,
                y=s.aggregate_tokens_per_s_per_gpu,
                mode="lines",
                line=style,
                name=s.label,
                legendgroup=s.label,
                showlegend=False,
                hovertemplate="%{x:,.0f} clients<br>%{y:,.0f} tok/s per GPU<extra>%{fullData.name}</extra>",
            ),
            row=1,
            col=2,
        )
    if math.isfinite(a.crossover_concurrency):
        for col in (1, 2):
            vline(
                fig,
                a.crossover_concurrency,
                log_x=True,
                text=f"AR overtakes diffusion at {a.crossover_concurrency:,.0f} clients" if col == 2 else "",
                row=1,
                col=col,
            )
    fig.update_layout(
        template=TEMPLATE_NAME,
        height=380 + legend_margin(1),
        margin={"b": legend_margin(1)},
        title={"text": "Speed against concurrency (closed loop)"},
    )
    fig.update_xaxes(type="log", title_text="concurrent clients per replica [count] (log)")
    fig.update_yaxes(type="log", title_text="output speed [tok/s per stream] (log)", row=1, col=1)
    fig.update_yaxes(type="log", title_text="aggregate throughput [tok/s per GPU] (log)", row=1, col=2)
    return fig


def memory_figure(a: BatchingAnalysis) -> go.Figure:
    """The AR replica's usable memory split into weights and the KV cache of the batch."""
    m = a.memory
    batch = min(float(a.selected_batch), m.max_batch)
    kv = batch * m.kv_bytes_per_sequence
    free = max(0.0, m.usable_bytes - m.weight_bytes - kv)
    fig = go.Figure()
    for name, value, color in (
        ("weights", m.weight_bytes, LIMIT_COLOR),
        (f"KV cache of batch {batch:,.0f}", kv, KIND_COLOR["owned-ar"]),
        ("free for more sequences", free, "#DDDDDD"),
    ):
        fig.add_trace(
            go.Bar(
                y=["memory"],
                x=[value / GB],
                orientation="h",
                name=name,
                marker_color=color,
                hovertemplate=f"{name}: %{{x:,.1f}} GB<extra></extra>",
            )
        )
    fig.update_layout(
        template=TEMPLATE_NAME,
        barmode="stack",
        height=130 + legend_margin(1),
        title={"text": f"Usable memory of the AR replica: {m.usable_bytes / GB:,.0f} GB"},
        xaxis_title="memory [GB, decimal]",
        yaxis={"visible": False},
        margin={"t": 50, "b": legend_margin(1)},
        legend={"traceorder": "normal"},
    )
    return fig
