"""Batching and the memory wall: why AR decoding is cheap only when batched, and where diffusion fits."""

from __future__ import annotations

import streamlit as st

from ui import compute, state
from ui import format as fmt
from ui.charts import batching as charts
from ui.widgets.batching import batching_inputs

st.title("Batching and the memory wall")
st.caption(
    "An autoregressive decode step streams every weight from GPU memory to produce one token per sequence, "
    "so at small batch the GPU waits on memory (about 1 FLOP per byte). Batching shares that read; text "
    "diffusion does real arithmetic on a whole block per pass, so it is efficient even at batch 1."
)

inputs = batching_inputs(state.scenario())
if inputs is not None:
    a = compute.batching(state.scenario(), inputs)
    st.caption(
        f"Request shape: {a.input_tokens:,} prompt tokens, {a.output_tokens:,} output tokens "
        f"(workload: {fmt.md_escape(a.workload_name)})."
    )
    m = st.columns(5)
    bound = "compute" if a.ar_compute_bound_at_batch else "memory"
    m[0].metric(
        f"AR at batch {a.selected_batch}",
        fmt.tok_per_s(a.ar_tokens_per_s_at_batch),
        help="Output tokens per second of one AR replica, steady decode.",
    )
    m[1].metric(
        "AR while busy",
        fmt.usd_per_mtok(a.ar_cost_usd_per_mtok_at_batch),
        help="Replica cost per hour ÷ throughput at this batch, at 100% utilization.",
    )
    m[2].metric(
        f"Cost swing, batch 1 → {a.selected_batch}",
        f"÷{a.cost_swing:,.1f}",
        help="Cost per Mtok at batch 1 divided by cost per Mtok at this batch.",
    )
    m[3].metric(
        f"FLOP/B, {bound}-bound",
        f"{a.ar_intensity_at_batch:,.0f}",
        help="Arithmetic intensity of the AR decode pass; the GPU's ridge point is on the roofline.",
    )
    m[4].metric(
        "KV cap [sequences]",
        fmt.count(a.memory.max_batch),
        help="Largest batch whose KV cache fits next to the weights, at this request shape.",
    )

    compute.chart(charts.roofline_figure, a, key="chart_roofline")
    left, right = st.columns(2)
    compute.chart(charts.batch_throughput_figure, a, key="chart_batch_tput", where=left)
    compute.chart(charts.batch_cost_figure, a, key="chart_batch_cost", where=right)
    compute.chart(charts.concurrency_figure, a, key="chart_concurrency")
    compute.chart(charts.memory_figure, a, key="chart_memory")
    st.caption(
        "Roofline limits: kernel-level effects (tile quantization, cache reuse, softmax traffic) are folded into "
        "MBU, MFU and the per-pass overhead. Diffusion speeds of closed models are vendor claims at low "
        "concurrency; the diffusion curves here come from the same roofline as AR."
    )
