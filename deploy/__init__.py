"""Run the app for a team on one machine: PostgreSQL, several Streamlit replicas and nginx in front.

``python -m deploy.team up`` (or ``bash scripts/team/up``) starts everything on free localhost ports in a
temporary folder and prints the address; the browser tests and ``benchmarks/load.py`` use the same code.
"""
