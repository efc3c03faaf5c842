"""A reference, not a floor: the trivial page's chart inside the chrome of a multi-page app like ours.

``benchmarks/browser_latency.py`` compares every input with the trivial page (one script, no sidebar, no
navigation). Our app is a multi-page app: ``st.navigation`` with eleven pages in two sections, the wide
layout, a sidebar with a scenario panel, and scenario inputs that rerun only the fragments they feed (a
callback asking for a keyed rerun, ``ui.live``). This page has all of that chrome and nothing else: a text
input (key ``text``) in one fragment whose ``on_change`` reruns the chart's fragment, and the trivial page's
chart (key ``chart``, title ``text = <t>``). Its ratio to the trivial page is what the chrome and the
mechanism cost before any content of ours; a page's ratio over this one's is what its content adds.

The sidebar holds the kinds of widgets our scenario panel draws, in the same numbers (two select boxes, a
file uploader, three buttons, two lines of text), so the browser has about as much chrome to re-render.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

#: Page titles (the navigation draws one link each, as ours does).
TITLES = (
    "Overview",
    "Cost per token",
    "Break-even",
    "Batching",
    "Workloads",
    "Accuracy",
    "Horizon",
    "Argument",
    "Price book",
    "Reviews",
)


def main() -> None:
    """The measured page: a text input in its own fragment, whose callback reruns the chart's fragment."""

    @st.fragment(key="inputs")
    def inputs() -> None:
        st.text_input("Text", value="1", key="text", on_change=lambda: st.rerun(["chart_fragment"]))

    @st.fragment(key="chart_fragment")
    def chart() -> None:
        text = st.session_state.get("text", "1")
        fig = go.Figure(go.Scatter(x=[0, 1, 2], y=[0, 1, 2], mode="lines+markers"))
        fig.update_layout(title=f"text = {text}")
        st.plotly_chart(fig, key="chart")

    inputs()
    chart()


def other() -> None:
    st.write("Another page.")


st.set_page_config(page_title="Multi-page reference", layout="wide", initial_sidebar_state="expanded")
pages = [st.Page(main, title=TITLES[0], url_path="main", default=True)]
pages += [st.Page(other, title=title, url_path=f"page_{i}") for i, title in enumerate(TITLES[1:])]
page = st.navigation({"Decide": pages[:8], "Price reviews": pages[8:]})
with st.sidebar:
    st.markdown("**Scenario**: the default")
    st.selectbox("Start from a preset", ["Default", "Other"], key="preset")
    st.selectbox("Display currency", ["USD", "SGD"], key="currency")
    st.file_uploader("Load a scenario file", key="upload")
    st.button("Share a link", key="share")
    st.button("Save a review", key="save")
    st.button("Reset", key="reset")
    st.caption("Modified from the preset")
page.run()
