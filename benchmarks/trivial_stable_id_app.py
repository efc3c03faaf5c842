"""The trivial page's chart with its element id taken from its key alone, to check whether Streamlit can redraw
a changed plotly chart in place (``benchmarks/plotly_stable_id_probe.py`` drives it).

Streamlit 1.67 computes a plotly chart's element id from its spec too (``key_as_main_identity=False``), so a
changed figure is a new element and remounts. With ``STABLE_ID=1`` in the environment this page computes the
id from the key alone (and the page), for this one chart, by wrapping Streamlit's
``compute_and_register_element_id`` during the call; otherwise it is plain ``st.plotly_chart``. A probe, not
app code: the app never does this (it draws stale figures in 1.67, see the probe).
"""

from __future__ import annotations

import os
from typing import Any

import plotly.graph_objects as go
import streamlit as st
import streamlit.elements.plotly_chart as plotly_chart_module

value = int(st.number_input("Value", min_value=0, max_value=1_000_000, value=1, step=1, key="value"))
fig = go.Figure(go.Bar(x=["a", "b"], y=[1, value], text=[1, value]))
fig.update_layout(title=f"value = {value}")

#: The function ``st.plotly_chart`` calls for its element id (Streamlit 1.67; a name in that module's namespace).
ID_FUNCTION = "compute_and_register_element_id"
original = getattr(plotly_chart_module, ID_FUNCTION)


def _key_only(element_type: str, *, user_key: str | None, key_as_main_identity: Any, **kwargs: Any) -> str:
    return str(original(element_type, user_key=user_key, key_as_main_identity=user_key is not None, **kwargs))


if os.environ.get("STABLE_ID") == "1":
    setattr(plotly_chart_module, ID_FUNCTION, _key_only)
try:
    st.plotly_chart(fig, key="chart", theme=None)
finally:
    setattr(plotly_chart_module, ID_FUNCTION, original)
