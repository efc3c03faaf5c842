"""Cost per token: node price, throughput and utilization give the effective $/Mtok of every owned option."""

from __future__ import annotations

import streamlit as st

from economics.currency import currency_statement
from economics.energy import grid_factor
from ui import bands, compute, live, state, tables
from ui import format as fmt
from ui.charts import cost as charts
from ui.defaults import default_scenario
from ui.energy import carbon_line, energy_frame, page_rate
from ui.theme import kind_labels
from ui.widgets.api_rates import api_rate_inputs, source_caption
from ui.widgets.cost import cost_inputs, throughput_inputs, utilization_slider, workload_select
from ui.widgets.nodes import node_inputs, typed
from ui.widgets.table import money_in, number, table

s = state.scenario()  # first: a deep link's very first run must not draw before app.py ran
st.title("Cost per token")
st.caption(
    "Effective cost per token = node cost per hour ÷ (throughput × utilization). An API charges per token "
    "whatever the load; an owned or rented node charges per hour whether it works or not."
)

st.subheader("1 · Node price and API rates")
defaults = {n.id: n for n in default_scenario().nodes}
if not s.nodes:  # an API-only scenario: no node to price, the curves below show the APIs alone
    st.info(
        "This scenario has no owned or rented node, so there is no hourly cost to spread over tokens: every "
        "workload runs on an API. Add a node (scenario panel, or a preset with owned hardware) to compare.",
        icon=":material/cloud:",
    )
#: A price edit reruns its own fragment, then these (ui.live): the effective-cost curves and table, the energy
#: table; then the banner and the sidebar status. A node price and an API rate have fragments of their own, so
#: an API rate does not redraw the node inputs and chart it does not change.
FOLLOW = ("cost_curves", "cost_energy")


@st.fragment(key="cost_nodes")
def node_prices() -> None:
    """Each node's price inputs and cost chart."""
    s = state.scenario()
    tabs = st.tabs([fmt.md_escape(n.name) for n in s.nodes]) if len(s.nodes) > 1 else [st.container()][: len(s.nodes)]
    edited_nodes = []
    for tab, node in zip(tabs, s.nodes, strict=True):
        with tab:
            edited = typed(node, node_inputs(node, defaults.get(node.id), on_change=live.rerun("cost_nodes", *FOLLOW)))
            s = state.with_item(s, "nodes", edited) if edited != node else s
            edited_nodes.append((edited.id, st.container()))
            st.caption(source_caption(edited.source, edited.as_of, s.review_date))
    state.update(s)
    rate = page_rate(s)[0]  # typed prices are USD, as on the invoice; the charts show the display currency
    for node_cost in compute.node_costs(s):
        where = dict(edited_nodes)[node_cost.node_id]
        compute.chart(charts.node_cost_figure, node_cost, rate, key=f"chart_node_{node_cost.node_id}", where=where)


@st.fragment(key="cost_apis")
def api_prices() -> None:
    """Every API's rates, typed as on the invoice."""
    st.markdown("**API rates** — type them as on the invoice: $9.50, 9.50 or 30%")
    # an edit is applied in its callback and reruns FOLLOW only, not these fields (ui.widgets.api_rates)
    state.update(api_rate_inputs(state.scenario(), live_keys=("cost_apis", *FOLLOW)))


node_prices()
if s.apis:
    api_prices()
s = state.scenario()
st.subheader("2 · Throughput")
workload_id = workload_select(s)
s = throughput_inputs(s, workload_id)
state.update(s)
st.subheader("3 · Utilization → effective cost")


@st.fragment(key=FOLLOW[0])
def effective_cost(workload_id: str) -> None:
    """The cost-per-token curves, the costs read off at the marked utilization and the table."""
    s = state.scenario()
    a = compute.cost(s, cost_inputs(workload_id))
    likely = bands.throughput_ratios(compute.evaluate(s).options, workload_id)  # issue 13: the model's accuracy
    rate = page_rate(s)[0]  # money in the display currency (issue 14), converted by the chart and table builders
    compute.chart(
        charts.cost_curve_figure,
        a,
        tables.you_are_here(compute.evaluate(s), workload_id),
        likely,
        rate,
        key="chart_cost_curve",
    )

    @st.fragment
    def at_utilization() -> None:
        """The utilization marker and the costs read off at it; moving it reruns only this part of the page."""
        at = compute.cost_at_utilization(a, utilization_slider())
        compute.chart(charts.cost_at_utilization_figure, at, rate, key="chart_cost_at_u")

    at_utilization()
    if a.sovereign:
        st.info(
            "This workload's data is sovereign: APIs are not allowed. Their prices are drawn dotted to show "
            "what sovereignty costs.",
            icon=":material/lock:",
        )
    curves = tables.cost_curves_frame(a, likely, rate, kind_labels(s))
    if curves.empty:  # an API-only scenario: the chart shows the APIs; an empty grid said "empty"
        return
    table(
        curves,
        key="cost_curves",
        file_name="cost_per_token.csv",
        column_config={
            "Capacity [output tok/s per replica]": number(),
            f"Replica cost at full load [{rate.code}/h]": money_in(rate.code),
            "Break-even utilization vs cheapest API [%]": number(fmt="%.1f"),
        },
    )


effective_cost(workload_id)

# ---- energy, carbon and the display currency (issue 14) -------------------------------------------------------
st.subheader("Energy and carbon per million tokens")


@st.fragment(key=FOLLOW[1])
def energy(workload_id: str) -> None:
    """Energy and emissions per million tokens; follows a price edit (electricity) without a full rerun."""
    s = state.scenario()
    rate, rate_problem = page_rate(s)
    if rate_problem:
        st.warning(fmt.md_escape(rate_problem))
    factor = grid_factor(s.finance, s.review_date)
    st.caption(
        fmt.md_escape(
            "Energy from each node's power model and the serving time, idle hours included, as in the money figures. "
            + (
                f"Emissions at {factor.kg_co2e_per_kwh:g} kg CO2e/kWh ({factor.region}, {factor.year or 'entered'}; "
                f"{factor.source}). "
                if factor is not None
                else "Set a grid region in the scenario's finance settings to see emissions. "
            )
            + currency_statement(rate)
            + " "
            + carbon_line(s, compute.evaluate(s), rate)
        )
    )
    frame = energy_frame(s, compute.evaluate(s), workload_id, rate)
    if frame.empty:
        st.caption("No owned or rented option serves this workload: there is no energy of our own to show.")
    else:
        table(frame, key="energy_carbon", file_name="energy_carbon.csv")


energy(workload_id)
with st.expander("Glossary: the words and symbols used here"):
    st.markdown(fmt.GLOSSARY)
