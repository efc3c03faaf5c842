"""The argument, with your numbers: each claim of the essay in one line, recomputed from the current scenario."""

from __future__ import annotations

import streamlit as st

from ui import compute, state
from ui import format as fmt
from ui.energy import page_rate

s = state.scenario()  # first: a deep link's very first run must not draw before app.py ran
st.title("The argument, with your numbers")
st.caption(
    "Each claim of “The tokens you can't wait for”, recomputed from the scenario as it is now. A claim that "
    "does not hold under these numbers says so; follow the link to the page that shows it."
)
PAGES = {
    "overview": ("Overview", "pages/1_overview.py"),
    "cost_per_token": ("Cost per token", "pages/2_cost_per_token.py"),
    "batching": ("Batching", "pages/4_batching.py"),
    "workloads": ("Workloads", "pages/5_workloads.py"),
}
VERDICT: dict[bool | None, tuple[str, str]] = {
    True: ("holds", ":material/check_circle:"),
    False: ("does not hold here", ":material/cancel:"),
}
rate = page_rate(s)[0]  # economics computes in USD; amounts are written in the display currency (issue 14)
for claim in compute.argument(s, rate.code, rate.units_per_usd):
    with st.container(border=True):
        words, icon = VERDICT.get(claim.holds, ("cannot be tested with this scenario", ":material/help:"))
        left, right = st.columns([3, 1], vertical_alignment="center")
        left.markdown(f"**{fmt.md_escape(claim.claim)}**  \n{fmt.md_escape(claim.figure)}")
        right.markdown(f"{icon} **{words}**")
        label, path = PAGES[claim.page]
        right.page_link(path, label=label, icon=":material/arrow_forward:", help="The page that shows it")
with st.expander("Glossary: the words and symbols used here"):
    st.markdown(fmt.GLOSSARY)
