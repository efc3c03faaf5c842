"""The latency floor: one number input and one plotly chart whose title shows the value.

`benchmarks/browser_latency.py` compares our pages against this one (input key ``value``; chart key
``chart``, watched by its key like the charts of our pages, whose title reads ``value = <n>`` once the rerun
has reached the browser).
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

value = int(st.number_input("Value", min_value=0, max_value=1_000_000, value=1, step=1, key="value"))
fig = go.Figure(go.Scatter(x=[0, 1, 2], y=[0, value, 2 * value], mode="lines+markers"))
fig.update_layout(title=f"value = {value}")
st.plotly_chart(fig, key="chart")
