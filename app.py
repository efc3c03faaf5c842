"""LLM unit economics: the dashboard's entry point (``streamlit run app.py``).

Loads the shared scenario (from the link's ``s`` parameter, else the Singapore-bank default), registers the
pages with ``st.navigation``, draws the scenario panel in the sidebar and runs the selected page.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui import layout, live, memory, state, store_start
from ui.defaults import default_scenario
from ui.format import md_escape
from ui.widgets import changes, scenario_panel

HERE = Path(__file__).resolve().parent

st.set_page_config(
    page_title="LLM unit economics",
    page_icon=":material/paid:",
    layout="wide",
    initial_sidebar_state="expanded",
)
state.init(default_scenario)
layout.narrow_window_styles()
memory.freeze_startup_objects()  # once per process: later collections skip what start-up loaded
store_start.migrate_at_start()  # once per process: the review store's schema is brought up to date

decide = [
    st.Page("pages/1_overview.py", title="Overview", icon=":material/dashboard:", url_path="overview"),
    st.Page("pages/2_cost_per_token.py", title="Cost per token", icon=":material/payments:", url_path="cost_per_token"),
    st.Page("pages/3_break_even.py", title="Break-even", icon=":material/balance:", url_path="break_even"),
    st.Page("pages/4_batching.py", title="Batching and the memory wall", icon=":material/memory:", url_path="batching"),
    st.Page("pages/5_workloads.py", title="Workloads and routing", icon=":material/alt_route:", url_path="workloads"),
    st.Page("pages/8_accuracy.py", title="Accuracy", icon=":material/straighten:", url_path="accuracy"),
    st.Page("pages/8_horizon.py", title="Horizon", icon=":material/timeline:", url_path="horizon"),
    st.Page(
        "pages/8_argument.py",
        title="The argument, with your numbers",
        icon=":material/fact_check:",
        url_path="argument",
    ),
]
# "/" opens the Overview through a hidden default entry, so the visible Overview keeps its own path: a default
# page is served at "/" only, and a deep link to its url_path showed "Page not found" (issue 15).
decide.append(st.Page("pages/1_overview.py", title="Overview", url_path="home", default=True, visibility="hidden"))
reviews = [
    st.Page(f"pages/{file}", title=title, icon=icon, url_path=path)
    for file, title, icon, path in (
        ("6_price_book.py", "Price book", ":material/menu_book:", "price_book"),
        ("7_reviews.py", "Reviews", ":material/history:", "reviews"),
    )
    if (HERE / "pages" / file).is_file()
]
page = st.navigation({"Decide": decide, **({"Price reviews": reviews} if reviews else {})})

scenario_panel.render(default_scenario)
notice = state.notice()
if notice is not None:
    body = f"**{notice.title}**\n\n" + "\n".join(f"- {md_escape(line)}" for line in notice.lines)
    (st.error if notice.level == "error" else st.warning)(body, icon=":material/link_off:")
    st.button("Dismiss this message", key="dismiss_notice", on_click=state.dismiss_notice)
state.sync_url()
banner = st.container()  # filled after the page ran, so it reports the edit the page just applied


@st.fragment(key=live.BANNER)
def what_changed() -> None:
    """The what-changed banner; a live scenario edit reruns it after the page's fragments (ui.live)."""
    changes.banner(state.scenario(), st)


@st.fragment(key=live.STATUS)
def modified() -> None:
    """The sidebar's "modified from …" line, rerun with the banner."""
    scenario_panel.status(state.scenario())


page.run()
with banner:
    what_changed()
with scenario_panel.status_slot():
    modified()
state.sync_url()  # view settings the page changed; a fragment rerun leaves the URL to the next full run
