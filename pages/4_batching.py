"""Batching and the memory wall: why AR decoding is cheap only when batched, and where diffusion fits."""

from __future__ import annotations

import streamlit as st

from ui import compute, state
from ui import format as fmt
from ui.charts import batching as charts
from ui.widgets.batching import batch_input, batching_inputs

st.title("Batching and the memory wall")
st.caption(
    "An autoregressive decode step streams every weight from GPU memory to produce one token per sequence, "
    "so at small batch the GPU waits on memory (about 1 FLOP per byte). Batching shares that read; text "
    "diffusion does real arithmetic on a whole block per pass, so it is efficient even at batch 1."
)

s = state.scenario()
inputs = batching_inputs(s)
if inputs is not None:
    a = compute.batching(s, inputs)
    st.caption(
        f"Request shape: {a.input_tokens:,} prompt tokens, {a.output_tokens:,} output tokens "
        f"(workload: {fmt.md_escape(a.workload_name)})."
    )

    @st.fragment
    def at_batch() -> None:
        """The batch size and what depends on it; a change reruns only this part of the page."""
        left, right = st.columns([1, 4], vertical_alignment="bottom")
        with left:
            p = compute.batch_point_at(s, inputs, batch_input())
        m = right.columns(4)
        m[0].metric(
            f"AR at batch {p.batch}",
            fmt.tok_per_s(p.tokens_per_s),
            help="Output tokens per second of one AR replica, steady decode.",
        )
        m[1].metric(
            "AR while busy",
            fmt.usd_per_mtok(p.cost_usd_per_mtok),
            help="Replica cost per hour ÷ throughput at this batch, at 100% utilization.",
        )
        m[2].metric(
            f"Cost swing, batch 1 → {p.batch}",
            f"÷{p.cost_swing:,.1f}",
            help="Cost per Mtok at batch 1 divided by cost per Mtok at this batch.",
        )
        m[3].metric(
            f"FLOP/B, {'compute' if p.compute_bound else 'memory'}-bound",
            f"{p.intensity_flop_per_byte:,.0f}",
            help="Arithmetic intensity of the AR decode pass; the GPU's ridge point is on the roofline.",
        )
        c1, c2 = st.columns(2)
        compute.chart(charts.batch_throughput_figure, a, p, key="chart_batch_tput", where=c1)
        compute.chart(charts.batch_cost_figure, a, p, key="chart_batch_cost", where=c2)
        compute.chart(charts.memory_figure, a, p, key="chart_memory")

    at_batch()
    st.metric(
        "KV-memory cap of the AR replica [sequences]",
        fmt.count(a.memory.max_batch),
        help="Largest batch whose KV cache fits next to the weights, at this request shape.",
    )
    compute.chart(charts.roofline_figure, a, key="chart_roofline")
    compute.chart(charts.concurrency_figure, a, key="chart_concurrency")
    st.caption(
        "Roofline limits: kernel-level effects (tile quantization, cache reuse, softmax traffic) are folded into "
        "MBU, MFU and the per-pass overhead. Diffusion speeds of closed models are vendor claims at low "
        "concurrency; the diffusion curves here come from the same roofline as AR."
    )
