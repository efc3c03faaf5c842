"""Price book: every price in use with its source and date, stale flags, and the organisation's negotiated prices."""

from __future__ import annotations

import streamlit as st

from ui import compute, state
from ui import format as fmt
from ui.energy import page_rate
from ui.widgets import price_book as pb

st.title("Price book")
st.caption(
    "Every price the scenario uses, where it comes from and how old it is. The routing decision is only as "
    "durable as these prices: a stale one is flagged. Enter negotiated prices below or import them from CSV."
)
pb.flash()

s = state.scenario()
s = pb.stale_policy(s, st.columns([1, 3])[0])
state.update(s)
r = compute.evaluate(s)

st.subheader(f"Prices in use · reviewed as of {s.review_date:%d %b %Y}")
rate = page_rate(s)[0]
if rate.code != "USD":  # the other pages show money in the display currency; prices are typed as invoiced
    st.caption(
        fmt.md_escape(
            "Prices here are in US dollars, as on the invoices and the providers' price lists. The other pages "
            f"show money in {rate.code}, at {rate.units_per_usd:g} {rate.code} per US dollar."
        )
    )
shown = pb.price_frame(s, r)
pb.summary(s, shown)
s = pb.price_table(s, shown)
if state.update(s):  # a typed list price: draw the table, its counts and flags again from the new prices
    st.rerun()

st.subheader("Negotiated prices")
tab_edit, tab_csv = st.tabs(["Enter on the page", "Import a CSV"])
with tab_edit:
    st.caption(
        "One row per negotiated price: a rented node's $/GPU-h or reserved discount, an owned node's CapEx or "
        "power price, an API discount or negotiated token prices. All rows apply together, or none."
    )
    pb.negotiated_editor(s)
with tab_csv:
    st.caption(
        "The file is checked as a whole: every bad row is listed with its line, column and reason, and nothing "
        "is applied until the file is clean."
    )
    pb.csv_import(s)
