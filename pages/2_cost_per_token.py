"""Cost per token: node price, throughput and utilization give the effective $/Mtok of every owned option."""

from __future__ import annotations

import streamlit as st

from economics import by_id
from economics.currency import currency_statement
from economics.energy import grid_factor
from ui import bands, compute, state, tables
from ui import format as fmt
from ui.charts import cost as charts
from ui.defaults import default_scenario
from ui.energy import carbon_line, energy_frame, page_rate
from ui.theme import kind_labels
from ui.widgets.add_gpus import gpu_button
from ui.widgets.api_rates import api_rate_inputs, source_caption
from ui.widgets.common import ADD_GPUS_HINT
from ui.widgets.cost import cost_inputs, throughput_inputs, utilization_slider, workload_select
from ui.widgets.nodes import live_node_edit, node_cost_line, node_inputs, start_drawing, typed
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
        f"workload runs on an API. {ADD_GPUS_HINT}",
        icon=":material/cloud:",
    )
#: The two views of the effective cost (section 3), drawn one at a time, and the fragment drawing each.
VIEWS = ("At one utilization", "Across all utilizations")
VIEW_FRAGMENTS = {VIEWS[0]: "cost_at_u", VIEWS[1]: "cost_curve"}
#: A price edit is applied in its callback and reruns what it changes (ui.live), not the inputs it was typed in:
#: a node's cost line, then the chosen view's chart (the other is drawn, current, when it is chosen), the
#: table and the energy table; then the banner and the sidebar status. So an edit redraws one chart.
FOLLOW = (VIEW_FRAGMENTS.get(st.session_state.get("cost_view", VIEWS[0]), "cost_at_u"), "cost_table", "cost_energy")
NODE_FOLLOW = ("cost_node_costs", *FOLLOW)


@st.fragment(key="cost_nodes")
def node_prices() -> None:
    """Each node's price inputs (redrawn by an edit only to show or clear a message)."""
    s = state.scenario()
    start_drawing()
    tabs = st.tabs([fmt.md_escape(n.name) for n in s.nodes]) if len(s.nodes) > 1 else [st.container()][: len(s.nodes)]
    for tab, node in zip(tabs, s.nodes, strict=True):
        with tab:
            on_change = live_node_edit(node.id, "cost_nodes", *NODE_FOLLOW)
            edited = typed(node, node_inputs(node, defaults.get(node.id), on_change=on_change))
            s = state.with_item(s, "nodes", edited) if edited != node else s
    state.update(s)


@st.fragment(key=NODE_FOLLOW[0])
def node_costs() -> None:
    """What a node-hour of each node costs, by part, and where its prices come from."""
    s = state.scenario()
    rate = page_rate(s)[0]  # typed prices are USD, as on the invoice; the costs show the display currency
    nodes = {n.id: n for n in s.nodes}
    with st.container(key="cost_node_lines"):
        for node_cost in compute.node_costs(s):
            node = nodes[node_cost.node_id]
            st.markdown(node_cost_line(node_cost, rate))
            st.caption(source_caption(node.source, node.as_of, s.review_date))


@st.fragment(key="cost_apis")
def api_prices() -> None:
    """Every API's rates, typed as on the invoice."""
    # "30%" in a rate field is refused (a rate is an amount): say where a percentage goes
    st.markdown(
        "**API rates** — type them as on the invoice: \\$9.50 or 9.50 per million tokens; the batch tier's "
        "discount as 30%. A negotiated discount off the list price goes in the Price book."
    )
    # an edit is applied in its callback and reruns FOLLOW only, not these fields (ui.widgets.api_rates)
    state.update(api_rate_inputs(state.scenario(), live_keys=("cost_apis", *FOLLOW)))


node_prices()
if s.nodes:
    node_costs()
gpu_button()
if s.apis:
    api_prices()
s = state.scenario()
st.subheader("2 · Throughput")
workload_id = workload_select(s)
s = throughput_inputs(s, workload_id)
state.update(s)
st.subheader("3 · Utilization → effective cost")


@st.fragment(key=VIEW_FRAGMENTS[VIEWS[0]])
def at_utilization(workload_id: str) -> None:
    """The utilization marker and the costs read off at it; moving it reruns only this fragment."""
    s = state.scenario()
    a = compute.cost(s, cost_inputs(workload_id))
    at = compute.cost_at_utilization(a, utilization_slider())
    compute.chart(charts.cost_at_utilization_figure, at, page_rate(s)[0], key="chart_cost_at_u")


@st.fragment(key=VIEW_FRAGMENTS[VIEWS[1]])
def cost_curves(workload_id: str) -> None:
    """Effective cost per token against utilization, with likely ranges and where the workload runs today."""
    s = state.scenario()
    a = compute.cost(s, cost_inputs(workload_id))
    likely = bands.throughput_ratios(compute.evaluate(s).options, workload_id)  # issue 13: the model's accuracy
    here = tables.you_are_here(compute.evaluate(s), workload_id)
    compute.chart(charts.cost_curve_figure, a, here, likely, page_rate(s)[0], key="chart_cost_curve")


@st.fragment(key="cost_table")
def cost_table(workload_id: str) -> None:
    """Every option's capacity, likely range, replica cost and break-even utilization."""
    s = state.scenario()
    a = compute.cost(s, cost_inputs(workload_id))
    rate = page_rate(s)[0]  # money in the display currency (issue 14), converted by the table builder
    likely = bands.throughput_ratios(compute.evaluate(s).options, workload_id)
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


if by_id(s.workloads, workload_id, "workload").sovereign:  # not a price: outside the fragments a price edit reruns
    st.info(
        "This workload's data is sovereign: APIs are not allowed. Their prices are still shown (hatched bars, "
        "dotted lines) to show what sovereignty costs.",
        icon=":material/lock:",
    )
# a choice, not tabs: a fragment inside st.tabs redrew the tabs too (the slider measured 1.73-1.85x the trivial
# page in a tab, 1.56x outside); switching views reruns the page, and only the chosen view's fragment is drawn
view = st.radio("Show the effective cost", VIEWS, horizontal=True, key="cost_view", label_visibility="collapsed")
(at_utilization if view == VIEWS[0] else cost_curves)(workload_id)
cost_table(workload_id)

# ---- energy, carbon and the display currency (issue 14) -------------------------------------------------------
st.subheader("Energy and carbon per million tokens")


@st.fragment(key="cost_energy")
def energy(workload_id: str) -> None:
    """Energy and emissions per million tokens; follows a price edit (electricity) without a full rerun."""
    s = state.scenario()
    rate, rate_problem = page_rate(s)
    if rate_problem:
        st.warning(fmt.md_escape(rate_problem))
    factor = grid_factor(s.finance, s.review_date)
    st.caption(
        fmt.md_escape(
            "Energy from each node's power model and the serving time, idle hours included, as in the money figures; "
            "every figure in this table is at the load this workload puts on each option, not at the utilization "
            "marked above. "
            + (
                f"Emissions at {factor.kg_co2e_per_kwh:g} kg CO2e/kWh ({factor.label}, {factor.year or 'entered'}; "
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
