"""Overview: per workload the recommended route and why, its cost on every option, and the owned fleet."""

from __future__ import annotations

import streamlit as st

from ui import compute, state, tables
from ui import format as fmt
from ui.charts import overview as charts
from ui.widgets.decisions import decision_cards
from ui.widgets.table import money, number, table

s = state.scenario()  # first: a deep link's very first run must not draw before app.py ran
r = compute.evaluate(s)
f = r.fleet

st.title("Where each workload should run, and what it really costs")
st.caption(f"{fmt.md_escape(s.name)} · prices as of {s.review_date:%d %b %Y}")

m = st.columns(5)
m[0].metric(
    "Recommended, $/month",
    fmt.usd(f.total_cost_usd_per_month),
    help="Owned fleet (bought and needed nodes), rented nodes and API spend of the recommended routes.",
)
m[1].metric(
    "API baseline, $/month",
    fmt.usd(f.all_api_cost_usd_per_month),
    help="Every workload that may leave on the API the router would pick for it; sovereign work stays on its "
    "best owned option, and owned nodes already bought are paid either way.",
)
m[2].metric(
    "Savings vs baseline, $/month",
    fmt.usd(tables.fleet_savings(f)),
    help="API baseline minus the recommended routes; 0 means the owned fleet carries only what may not leave.",
)
m[3].metric(
    "Fleet utilization",
    fmt.pct(f.owned_utilization),
    help=f"Busy GPU-hours over paid GPU-hours of the {f.owned_gpus} owned GPUs ({f.owned_nodes} nodes).",
)
m[4].metric(
    "Idle GPUs, $/month",
    fmt.usd(f.idle_cost_usd_per_month),
    help="The owned fleet's cost times its idle share: the essay's 'GPU hangover'.",
)
if r.warnings:
    with st.expander(f"{fmt.plural(len(r.warnings), 'point')} to check", icon=":material/warning:"):
        st.markdown("\n".join(f"- {fmt.md_escape(fmt.plain(w))}" for w in r.warnings))

st.subheader("What to do")
st.caption(
    "Each card prices its workload stand-alone, as the routing compares it: on its own dedicated replicas. "
    "The headline above is the bill actually paid: workloads routed to the same owned option share its "
    "replicas, so the cards can add up to more than the headline."
)
decision_cards(r, s)
with st.expander("Routes as a table"):
    table(
        tables.decisions_frame(r, s),
        key="decisions",
        file_name="routes.csv",
        column_config={
            "Why": st.column_config.TextColumn(width="large"),
            "Margin vs runner-up [USD/task]": number(fmt="$%.4f"),
            "Cost of route [USD/month]": money(),
            "On its best API [USD/month]": money(),
            "Savings vs API [USD/month]": money(),
        },
    )

compute.chart(charts.option_cost_figure, r, s, key="chart_option_costs")
left, right = st.columns([3, 2])
compute.chart(charts.monthly_figure, r, key="chart_monthly", where=left)
compute.chart(charts.fleet_figure, r, key="chart_fleet", where=right)

with st.expander("Every option for every workload"):
    table(tables.options_frame(r, s), key="options", file_name="options.csv")
