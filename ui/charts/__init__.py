"""Pure chart builders: typed economics results in, ``go.Figure`` out, no Streamlit calls."""
