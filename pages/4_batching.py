"""Batching and the memory wall: why AR decoding is cheap only when batched, and where diffusion fits."""

from __future__ import annotations

import streamlit as st

from economics.currency import currency_statement
from economics.views.batching import catch_up_words
from ui import bands, compute, state
from ui import format as fmt
from ui.charts import batching as charts
from ui.energy import page_rate
from ui.widgets.batching import batch_input, batching_inputs
from ui.widgets.key_figures import key_figures

s = state.scenario()  # first: a deep link's very first run must not draw before app.py ran
st.title("Batching and the memory wall")
st.caption(
    "An autoregressive decode step streams every weight from GPU memory to produce one token per sequence, "
    "so at small batch the GPU waits on memory (about 1 FLOP per byte). Batching shares that read; text "
    "diffusion does real arithmetic on a whole block per pass, so it is efficient even at batch 1."
)

inputs = batching_inputs(s)
rate, rate_problem = page_rate(s)  # money is converted here, at the display edge (issue 14)
if rate_problem:
    st.warning(fmt.md_escape(rate_problem))
if inputs is not None:
    chosen = inputs  # the fragment below keeps this narrowed (not None) type
    a = compute.batching(s, inputs)
    st.caption(
        f"Request shape: {a.input_tokens:,} prompt tokens, {a.output_tokens:,} output tokens "
        f"(workload: {fmt.md_escape(a.workload_name)}). KV cap: the caches of at most "
        f"{fmt.count(a.memory.max_batch)} sequences of this shape fit next to the weights."
    )

    @st.fragment
    def at_batch() -> None:
        """The batch size and what depends on it; a change reruns only this part of the page."""
        p = compute.batch_point_at(s, chosen, batch_input())
        key_figures(
            [
                (f"AR tok/s at batch {p.batch}", fmt.count(p.tokens_per_s)),
                ("AR cost per Mtok while busy", fmt.money(p.cost_usd_per_mtok, rate.code, rate.units_per_usd)),
                (f"Cost per token falls, batch 1 → {p.batch}", f"{p.cost_swing:,.1f}×"),
                (
                    f"FLOP per byte read ({'compute' if p.compute_bound else 'memory'}-bound)",
                    f"{p.intensity_flop_per_byte:,.0f}",
                ),
                (f"KV cache, batch {p.batch}", fmt.gb(p.kv_bytes)),
                ("Likely AR tok/s", bands.batch_range(s, chosen.ar_option_id, p.batch, p.tokens_per_s)),
            ],
            title=f"Autoregressive replica at batch {p.batch}",
            help_text="Tokens per second: output tokens of one AR replica in steady decode. Cost per Mtok while "
            "busy: the replica's cost per hour ÷ that throughput, at 100% utilization. Cost per token "
            "falls: cost per Mtok at batch 1 ÷ cost per Mtok at this batch. FLOP/B: arithmetic "
            "intensity of the AR decode pass (the GPU's ridge point is on the roofline). KV cache: the "
            "caches of the whole batch. Likely range: the 10–90% band of the model's error on measured "
            "benchmarks like this one (or of your calibration, when one is in use). " + currency_statement(rate),
        )
        compute.chart(charts.batch_cost_figure, a, p, rate, key="chart_batch_cost")

    left, right = st.columns(2)
    with left:
        at_batch()
    with right:
        compute.chart(charts.batch_throughput_figure, a, key="chart_batch_tput")
        compute.chart(charts.memory_figure, a, key="chart_memory")
    compute.chart(charts.roofline_figure, a, key="chart_roofline")
    compute.chart(charts.concurrency_figure, a, key="chart_concurrency")
    if chosen.diffusion_option_id is not None:
        st.caption(f"{catch_up_words(a.crossover_concurrency)} (output per GPU, these requests).")
    st.caption(
        "Roofline limits: kernel-level effects (tile quantization, cache reuse, softmax traffic) are folded into "
        "MBU, MFU and the per-pass overhead. Diffusion speeds of closed models are vendor claims at low "
        "concurrency; the diffusion curves here come from the same roofline as AR."
    )

with st.expander("Glossary: the words and symbols used here"):
    st.markdown(fmt.GLOSSARY)
