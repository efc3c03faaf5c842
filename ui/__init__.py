"""The dashboard's UI layer: widget groups, the scenario store, pure chart builders and display formatting.

Layer rule: ``economics`` (pure) ← ``ui`` ← ``pages`` ← ``app.py``. Chart builders in ``ui/charts`` take typed
results and return ``plotly.graph_objects.Figure`` without calling Streamlit; units are converted for display
only in :mod:`ui.format`.
"""
