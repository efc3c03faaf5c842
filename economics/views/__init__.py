"""Page view models: what each dashboard page draws, computed by the economics core.

One pure builder per page (:mod:`.batching`, :mod:`.breakeven`, :mod:`.cost`, :mod:`.quadrant`) takes a
:class:`~economics.scenario.Scenario` and a validated inputs model and returns frozen, typed results in SI
or stated units; :mod:`.kinds` classifies options into the display kinds pages group them by. No
Streamlit, no plotly: ``ui.charts`` turns these results into figures.
"""
