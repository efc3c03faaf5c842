"""Workloads and routing: edit the workloads, see each one's route, reason and margin on the quadrant."""

from __future__ import annotations

import streamlit as st

from ui import compute, live, state, tables
from ui import format as fmt
from ui.charts import quadrant as charts
from ui.energy import page_rate
from ui.widgets.common import view_select
from ui.widgets.table import routes_columns, table
from ui.widgets.workloads import workloads_editor

s = state.scenario()  # first: a deep link's very first run must not draw before app.py ran
rate, _ = page_rate(s)
st.title("Workloads and routing")
st.caption(
    "Each workload goes where its expected cost per task is lowest: inference cost plus the cost of failures. "
    "Two things decide it: whether requests arrive fast enough to batch (batchability) and how much a wrong "
    "answer costs per token (value). Sovereign data never leaves owned hardware."
)

st.subheader("Workloads")
st.caption(
    "Edit cells in place; add a workload with the form below the table, remove one by name, and undo any "
    "change. Changes apply when every row is valid."
    + (
        # the table's "Failure cost [USD/task]" beside pages in S$ read as a slip: inputs are kept in US dollars
        " Failure costs are typed in US dollars, the currency the model computes in; the pages show "
        f"{rate.code} at {rate.units_per_usd:,.4g} per US dollar."
        if not rate.is_identity
        else ""
    )
)
#: A cell edit reruns the editor, then the quadrant and the routes table, then the banner and the sidebar status
#: (ui.live): not the whole app.
LIVE = ("wl_editor", "wl_quadrant", "wl_routes")


@st.fragment(key=LIVE[0])
def editor() -> None:
    """The workloads table; an edited cell reruns only the live parts of the page."""
    state.update(workloads_editor(state.scenario(), on_change=live.rerun(*LIVE)))


editor()
s = state.scenario()

st.subheader("Routing quadrant")


@st.fragment(key=LIVE[1])
def routing_quadrant() -> None:
    """The region workload and the quadrant it draws; a change of region reruns only this part of the page,
    a workloads edit reruns it with the table."""
    s = state.scenario()
    r = compute.evaluate(s)
    names = {w.id: w.name + (" (sovereign: APIs not allowed)" if w.sovereign else "") for w in s.workloads}
    region = view_select(
        "Decision regions computed for",
        "rt_workload",
        [w.id for w in sorted(s.workloads, key=lambda w: w.sovereign)],
        names.__getitem__,
        help_text="Regions depend on a workload's request shape, SLOs and sovereignty: they are computed live for "
        "this one by sweeping its demand (β) and failure cost (value), with the rest of the fleet plan held "
        "fixed: spare capacity the plan already pays for is free, extra replicas and nodes are not. Every "
        "workload is placed at its own β and value.",
    )
    rate = page_rate(s)[0]  # value at risk in the display currency (issue 14)
    compute.chart(charts.quadrant_figure, compute.quadrant(s, r, region), rate, key="chart_quadrant")


if s.owned_options:
    routing_quadrant()
else:  # batchability β is measured against owned hardware; with none, every point would sit at β = 0
    st.info(
        "This scenario has no owned or rented option, so batchability (how well requests fill an owned "
        "node) is not defined and there is no quadrant to draw: every workload runs on its best API.",
        icon=":material/cloud:",
    )

st.subheader("Route, reason and margin")


@st.fragment(key=LIVE[2])
def routes() -> None:
    """Every workload's route, reason and margin."""
    s = state.scenario()
    rate = page_rate(s)[0]  # the display currency, like the Overview (issue 14)
    table(
        tables.decisions_frame(compute.evaluate(s), s, rate),
        key="routes",
        file_name="routes.csv",
        column_config=routes_columns(rate.code),
    )


routes()

with st.expander("Glossary: the words and symbols used here"):
    st.markdown(fmt.GLOSSARY)
