"""Page chrome for narrow windows: a fixed style sheet (no user data in it) that app.py adds once per run.

At 1,024 px Streamlit's columns stay side by side and shrink until a KPI reads "$25,…" and a chart is a
sliver. Below 1,280 px the rules let a row of columns wrap: KPIs two per row, charts at least 460 px wide,
number inputs at least 190 px; a KPI value is never cut with an ellipsis.
"""

from __future__ import annotations

import streamlit as st

NARROW_CSS = """
<style>
@media (max-width: 1280px) {
  [data-testid="stHorizontalBlock"] { flex-wrap: wrap; row-gap: 0.75rem; }
  [data-testid="stColumn"]:has([data-testid="stMetric"]) { flex: 1 1 calc(50% - 1rem) !important;
    min-width: calc(50% - 1rem) !important; }
  [data-testid="stColumn"]:has([data-testid="stPlotlyChart"]) { flex: 1 1 460px !important;
    min-width: 460px !important; }
  [data-testid="stColumn"]:has([data-testid="stNumberInput"]) { flex: 1 1 190px !important;
    min-width: 190px !important; }
  /* a node's dozen price inputs, number and text boxes alike, two abreast (three left one on a row alone) */
  [class*="st-key-node_fields_"] [data-testid="stColumn"] { flex: 1 1 calc(50% - 1rem) !important;
    min-width: calc(50% - 1rem) !important; }
}
[data-testid="stMetricValue"] > div { overflow: visible; text-overflow: clip; white-space: nowrap; }
[data-testid="stMetricLabel"] p { white-space: normal; }
/* a row of KPIs whose labels wrap to different line counts: every value on one line, at the bottom
   (the column is stretched to the row; its block, the metric and the metric's box fill it) */
[data-testid="stColumn"]:has([data-testid="stMetric"]) > [data-testid="stVerticalBlock"] { height: 100%; }
[data-testid="stElementContainer"]:has(> [data-testid="stMetric"]) { flex-grow: 1; }
[data-testid="stMetric"] { height: 100%; }
[data-testid="stMetric"] > div { height: 100%; display: flex; flex-direction: column; justify-content: space-between; }
</style>
"""


def narrow_window_styles() -> None:
    """Add the style sheet to the page (static text; never built from user input)."""
    st.html(NARROW_CSS)
