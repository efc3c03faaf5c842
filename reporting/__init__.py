"""Documents built from economics results: the meeting pack (one self-contained HTML file, a CSV bundle, PNGs).

A top-level package beside ``economics`` because it uses plotly, which ``economics`` must never import. The
CLI reaches it only at run time (``economics.cli_report`` imports :mod:`reporting.meeting_pack` with
``importlib``), so the pure core stays free of UI libraries. Functions here are pure apart from
:mod:`reporting.png`, which drives the system chromium through kaleido.
"""
