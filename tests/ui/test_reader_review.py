"""Issue 12: what a finance reader tripped on walking through every page at 1,440 and 1,024 px (screenshots), fixed
at the builders and widgets. Each test failed before its fix."""

from __future__ import annotations

from economics.currency import DisplayRate
from economics.evaluate import evaluate
from economics.io.scenarios import default_scenario
from ui.charts.overview import option_cost_figure

SGD = DisplayRate("SGD", 1.3, None, "test")


def test_a_money_log_axis_groups_its_thousands() -> None:
    # the Overview's cost per Mtok axis read "S$10, S$100, S$1000": d3's ",~g" writes 1000 as "1,000"
    s = default_scenario()
    fig = option_cost_figure(evaluate(s), s, SGD)
    assert fig.layout.xaxis.tickprefix == "S$"
    assert fig.layout.xaxis.tickformat == ",~g"
