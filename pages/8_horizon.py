"""Horizon: re-plan every year for up to five years; per-year bills, NPV, and when owning stops paying."""

from __future__ import annotations

import streamlit as st

from economics.currency import currency_statement, display_rate
from economics.io.scenarios import ScenarioError
from ui import compute as ui_compute
from ui import format as fmt
from ui import horizon as view
from ui import state
from ui.charts import horizon as charts
from ui.widgets.table import number, table, whole_money

s = state.scenario()  # first: a deep link's very first run must not draw before app.py ran
st.title("Horizon: the next five years")
st.caption(
    "Each year is re-planned from scratch with that year's demand and prices. API and rental prices fall by "
    "the rates below (by default, the median of the price history in our catalog); an owned node is replaced "
    "at the end of its life at that year's price. Net present value discounts each year's bill at the cost "
    "of capital. Over years a node already bought is not free: each year's bill carries an owned node's full "
    "cost (its capital spread over its life, power, operations)"
    + (
        ", while the Overview's monthly figure, in the cash view, counts only the spending that changes, so the "
        "two do not compare line for line."
        if s.policy.lens == "cash" and any(n.kind == "owned" for n in s.nodes)
        else "."
    )
)
try:
    rate = display_rate(s)
except ScenarioError as e:
    st.error("\n\n".join(fmt.md_escape(fmt.file_problem(p, s.model_dump())) for p in e.problems))
    st.stop()
st.caption(fmt.md_escape(currency_statement(rate)))

planned = view.horizon_inputs(s)
try:
    h, sensitivity = view.compute(planned)
except ScenarioError as e:
    st.error("\n\n".join(fmt.md_escape(fmt.file_problem(p, s.model_dump())) for p in e.problems))
    st.stop()

(st.success if h.crossover_year is None else st.warning)(fmt.md_escape(h.crossover_text))
st.caption(
    fmt.md_escape(f"NPV at {h.discount_rate:.1%} a year ({h.discount_rate_basis}); bills counted at each year's end.")
)
npv = view.npv_frame(h, rate)
table(npv, key="horizon_npv", file_name="horizon_npv.csv", column_config=whole_money(npv.columns))  # whole units
if (alike := view.same_bills(h)) is not None:
    st.caption(fmt.md_escape(alike))
if h.books:
    left, right = st.columns(2)
    ui_compute.chart(charts.bills_figure, h, rate, key="chart_horizon_bills", where=left)
    ui_compute.chart(charts.sensitivity_figure, h, sensitivity, key="chart_horizon_sensitivity", where=right)
else:  # with no owned node the crossover chart was a flat line at "never" (API-only preset): the bills, full width
    ui_compute.chart(charts.bills_figure, h, rate, key="chart_horizon_bills")

if h.books:
    st.subheader("The owned node in the books and in the decision")
    st.caption(fmt.md_escape(h.decision_view))
    if state.update(view.books_inputs(s)):  # the edited node goes into the shared scenario; redraw with it
        st.rerun()
    books = view.books_frame(h, rate)
    table(
        books,
        key="horizon_books",
        file_name="horizon_books.csv",
        column_config={c: number() for c in books.columns if c != "Measure"},
    )
