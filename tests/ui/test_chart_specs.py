"""Every chart a page draws is a valid plotly figure, exactly as plotly's validation would have built it.

:class:`ui.charts.chart.Chart` hands its assembled dicts to plotly without validating them again (that pass was
about half of a rerun's chart cost on the Cost per token page, issue 15's load target); this test is where the
validation happens instead: each page's served spec is rebuilt by a validating ``go.Figure`` (which raises on
any unknown property or bad value) and must come out the same, so the browser draws what it drew before.
"""

from __future__ import annotations

import json
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio
import pytest

from tests.ui.helpers import run_page
from ui.charts.chart import Chart

#: Every page that draws charts, and the break-even page's other tabs (it draws the open one only).
PAGES: tuple[tuple[str, dict[str, str]], ...] = (
    ("1_overview", {}),
    ("2_cost_per_token", {}),
    ("3_break_even", {}),
    ("3_break_even", {"be_chart": "demand"}),
    ("3_break_even", {"be_chart": "map"}),
    ("4_batching", {}),
    ("5_workloads", {}),
    ("7_reviews", {}),
    ("8_accuracy", {}),
    ("8_horizon", {}),
)


def _validated(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec through plotly's validating constructor and back to JSON."""
    out: dict[str, Any] = json.loads(pio.to_json(go.Figure(spec), validate=False))
    return out


@pytest.mark.parametrize(("page", "query"), PAGES)
def test_every_chart_on_the_page_is_what_plotly_validation_builds(page: str, query: dict[str, str]) -> None:
    at = run_page(page, query=query)
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert specs, "every page draws at least one chart"
    for spec in specs:
        assert _validated(spec) == spec, spec.get("layout", {}).get("title")


def test_a_misspelt_property_is_caught_by_the_validation_this_test_relies_on() -> None:
    c = Chart("t", "x [1]", "y [1]")
    c.add(x=[1, 2], y=[3, 4], lnie={"width": 2})  # a typo plotly's validation names
    spec = json.loads(pio.to_json(c.figure(), validate=False))
    with pytest.raises(ValueError, match="lnie"):
        _validated(spec)


def test_the_quadrant_names_its_value_axis_in_words() -> None:
    # "value at risk" read as the risk measure (VaR) to a finance reader; the axis is the cost of a failed answer
    from economics import evaluate
    from economics.io.scenarios import default_scenario
    from ui import compute
    from ui.charts.quadrant import quadrant_figure

    s = default_scenario()
    fig = quadrant_figure(compute.quadrant(s, evaluate(s), s.workloads[0].id))
    title = fig.layout.yaxis.title.text
    assert title.startswith("cost of a failed answer [USD per 1,000 output tokens]"), title
    assert "value at risk" not in title
