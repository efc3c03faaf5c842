"""Break-even: where owned beats an API, as curves and as a map over two axes you pick."""

from __future__ import annotations

import streamlit as st

from economics.currency import currency_statement
from ui import bands, compute, state
from ui import format as fmt
from ui.charts import breakeven as charts
from ui.energy import page_rate
from ui.widgets.breakeven import break_even_inputs, map_axes, verdict
from ui.widgets.common import view_tabs
from ui.widgets.key_figures import key_figures

#: The page's three views of one comparison; only the open tab's chart is built and drawn.
CHARTS = ("utilization", "demand", "map")
CHART_LABEL = {
    "utilization": "Against utilization",
    "demand": "Against demand",
    "map": "Map over two inputs",
}

s = state.scenario()  # first: a deep link's very first run must not draw before app.py ran
_VERB = {"owned": "owning", "rented": "renting", "owned or rented": "owning or renting"}
st.title(f"Break-even: when {_VERB[s.gpu_side()]} beats the API")
st.caption(
    "Owned capacity costs the same every hour; the API costs the same every token. Owned wins once enough of "
    "its paid hours do useful work. Capacity is sized for the peak with headroom, so the average utilization "
    "can never exceed peak-to-average × target utilization: that limit is drawn on every chart. The comparison "
    "is of inference cost alone; the quality of the answers and the cost of a failed task are left out here "
    "(the Workloads page counts them: expected cost per task)."
)


@st.fragment
def break_even_view() -> None:
    """Inputs, metrics and the open tab's chart; a change of any input reruns only this part of the page (the
    scenario is the one of the last full run: no input here changes it)."""
    inputs = break_even_inputs(s)
    rate, rate_problem = page_rate(s)  # money is converted here, at the display edge (issue 14)
    if rate_problem:
        st.warning(fmt.md_escape(rate_problem))

    def in_display(x_usd: float) -> str:
        """A cost computed in USD, in the display currency."""
        return fmt.money(x_usd, rate.code, rate.units_per_usd)

    if inputs is not None:
        a = compute.break_even(s, inputs)
        if not a.feasible:
            st.warning(fmt.md_escape(fmt.plain(a.reason)))
        else:
            if not a.api_allowed:
                st.info(
                    "Sovereign data: this API is not allowed for this workload; the comparison shows what "
                    "sovereignty costs.",
                    icon=":material/lock:",
                )
            key_figures(
                [
                    (
                        f"{a.side}, {'rental' if a.rented else 'full cost'} [{rate.code}/Mtok output]",
                        in_display(a.owned_usd_per_mtok),
                    ),
                    (
                        f"{a.side}, likely range",  # issue 13: the throughput model's accuracy
                        fmt.money_text(
                            bands.cost_range_from(
                                compute.evaluate(s).options,
                                inputs.workload_id,
                                inputs.option_id,
                                a.owned_usd_per_mtok,
                                inputs.option_id in measured,
                            ),
                            rate.code,
                            rate.units_per_usd,
                        ),
                    ),
                    (f"API [{rate.code}/Mtok output]", in_display(a.api_usd_per_mtok)),
                    ("This workload's utilization", fmt.pct(a.utilization, 1)),
                    (
                        "Break-even utilization",
                        fmt.pct(a.break_even_utilization, 1) if a.break_even_utilization <= 1 else "never",
                    ),
                ],
                help_text=(
                    "Rental: the price of the hours paid for, whether or not they do work. "
                    if a.rented
                    else "Full cost: capital recovery, power and fixed costs of the hours paid for, whether or not "
                    "the node is already bought. "
                )
                + "This workload's utilization: its average load over the capacity of the "
                "replicas it would need on its own (not the fleet's, which the Overview shows). "
                f"{a.side} is cheaper above the break-even utilization. "
                f"The capacity limit is {fmt.pct(a.max_utilization)}. "
                "Likely range: the 10–90% band of the throughput model's error on measured benchmarks like this "
                "one (or of your calibration); cost per token moves inversely with throughput. "
                + currency_statement(rate),
            )
            st.markdown("**Verdict:** " + fmt.md_escape(verdict(a, in_display)))
            shown, tab = view_tabs("be_chart", CHARTS, CHART_LABEL.__getitem__)
            with tab:
                if shown == "utilization":
                    compute.chart(charts.utilization_curve_figure, a, rate, key="chart_be_utilization")
                elif shown == "demand":
                    compute.chart(charts.demand_curve_figure, a, rate, key="chart_be_demand")
                else:
                    mapped = compute.break_even(s, map_axes(inputs))
                    compute.chart(charts.break_even_map_figure, mapped, rate, key="chart_be_map")


measured = {o.id for o in s.owned_options if o.measured is not None}
break_even_view()

with st.expander("Glossary: the words and symbols used here"):
    st.markdown(fmt.GLOSSARY)
