"""The latency floor: one plotly chart driven by a number input, a slider and a select box.

`benchmarks/browser_latency.py` compares each of our pages against this one driven by the *same widget
type* as the page's input: number input key ``value``, slider key ``slider``, select box key ``choice``.
A text input (key ``text``) is the floor for typed prices. All four drive the one chart (key ``chart``,
watched by its key like the charts of our pages), whose title reads
``value = <n> · slider = <s> · choice = <c> · text = <t>`` once the rerun has reached the browser.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

CHOICES = ("alpha", "beta", "gamma", "delta")

value = int(st.number_input("Value", min_value=0, max_value=1_000_000, value=1, step=1, key="value"))
slider = int(st.slider("Slider", min_value=0, max_value=100, value=50, step=1, key="slider"))
choice = st.selectbox("Choice", CHOICES, index=1, key="choice")
text = st.text_input("Text", value="1", key="text")
k = 1 + CHOICES.index(choice)
fig = go.Figure(go.Scatter(x=[0, 1, 2], y=[0, value + slider, 2 * k * (value + slider)], mode="lines+markers"))
fig.update_layout(title=f"value = {value} · slider = {slider} · choice = {choice} · text = {text}")
st.plotly_chart(fig, key="chart")
