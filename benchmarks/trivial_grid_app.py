"""The latency floor for a table cell: one small data editor driving one small plotly chart.

Streamlit's data editor sends an edit 150 ms after it was made (a debounce in its frontend, ``DataFrame``
component, so that typing in several cells sends one message), which no other input does. A workloads-table
cell is therefore compared with this page driven the same way (click the first row, arrow to the *Failure
cost* column, type, Enter), not with a text input, as ``benchmarks/browser_latency.py`` compares every input
with the trivial page driven by the same widget type. Kept apart from ``trivial_app.py`` so the other floors
do not carry a grid. The chart (key ``chart``) is the trivial page's; its title reads ``cell = <value>``.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

#: Six columns like the workloads table's key columns: the sixth holds the number the benchmark types.
ROWS = pd.DataFrame(
    {
        "Name": ["alpha", "beta", "gamma"],
        "A": [1, 2, 3],
        "B": [1, 2, 3],
        "C": [1, 2, 3],
        "D": [1, 2, 3],
        "Failure cost": [1.0, 2.0, 3.0],
    }
)
edited = st.data_editor(ROWS, key="grid", num_rows="fixed", hide_index=True, width="stretch")
cell = edited["Failure cost"].iloc[0]
fig = go.Figure(go.Scatter(x=[0, 1, 2], y=[0, cell, 2 * cell], mode="lines+markers"))
fig.update_layout(title=f"cell = {cell:g}")
st.plotly_chart(fig, key="chart")
