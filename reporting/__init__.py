"""Documents built from economics results: the meeting pack (one self-contained HTML file, a CSV bundle, PNGs).

A top-level package beside ``economics`` because it uses plotly, which ``economics`` must never import. The
CLI reaches it only at run time (``cli.report`` imports :mod:`reporting.meeting_pack` with
``importlib``), so the pure core stays free of UI libraries. Functions here are pure apart from
:mod:`reporting.png`, which drives the system chromium through kaleido.

Layers: ``reporting`` uses ``economics`` and the Streamlit-free parts of ``ui`` (chart builders, formatting,
tables); ``ui`` never imports ``reporting`` (the Reviews page passes :func:`reporting.meeting_pack.pack_downloads`
to its widget), so there is no import cycle. HTML comes only from the autoescaping Jinja2 templates in
``reporting/templates``; the narrative sentences from :mod:`reporting.narrative`.
"""
