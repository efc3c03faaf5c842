"""Issue 14, item 4: the Break-even, Batching and Cost per token charts draw money in the display currency.

Economics computes in USD; the chart builders multiply by the rate at the display edge. With SGD at 1.30 per US
dollar, by hand: an API at $10/Mtok is drawn at S$13.00/Mtok, a node at $4/h at S$5.20/h, a cost of $10/Mtok
while busy at S$13.00 and $1/Mtok at S$1.30, a node at $5/h at S$6.50/h. In USD (the default) the same numbers
are drawn unchanged.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import plotly.graph_objects as go
import pytest

from economics.currency import USD, DisplayRate
from economics.evaluate import evaluate
from economics.io.scenarios import default_scenario
from economics.views.batching import BatchingAnalysis, BatchingInputs, BatchPoint, batch_point, batching_analysis
from economics.views.breakeven import BreakEvenAnalysis, BreakEvenInputs, break_even_analysis
from economics.views.cost import CostAtUtilization, CostInputs, NodeCost, cost_analysis, variant_capacities
from economics.views.quadrant import quadrant
from ui.axes import prefix_on_every_log_tick
from ui.charts.batching import batch_cost_figure
from ui.charts.breakeven import break_even_map_figure, demand_curve_figure, utilization_curve_figure
from ui.charts.cost import cost_at_utilization_figure, cost_curve_figure
from ui.charts.quadrant import quadrant_figure
from ui.tables import cost_curves_frame
from ui.widgets.nodes import node_cost_line

SGD = DisplayRate("SGD", 1.3, None, "test")


def _break_even(x: str = "api_price", y: str = "demand") -> BreakEvenAnalysis:
    s = default_scenario()
    inputs = BreakEvenInputs(workload_id="onboarding-checks", option_id="owned-70b-ar", api_id="frontier-api", x=x, y=y)  # type: ignore[arg-type]
    a = break_even_analysis(s, inputs, variant_capacities(s, inputs.workload_id))
    # hand values: API $10/Mtok, node $4/h, the API price grid from $10 to $20/Mtok, node cost grid $4 to $8/h
    return dataclasses.replace(
        a,
        api_usd_per_mtok=10.0,
        node_usd_per_hour=4.0,
        curve_api_usd_per_mtok=np.array([10.0, 20.0]),
        curve_break_even_utilization=np.array([0.5, 0.25]),
        curve_node_usd_per_hour=np.array([4.0, 8.0]),
        curve_break_even_demand=np.array([1.0, 2.0]),
        x_now=10.0,
    )


def _prefix(axis: go.layout.XAxis | go.layout.YAxis) -> str | None:
    """The currency written before each tick: US dollars through d3's "$" format, others as a prefix or, on a
    1-2-5 log axis, written into every listed tick label (ui.axes.prefix_on_every_log_tick)."""
    if str(axis.tickformat or "").startswith("$"):
        return "$"
    if axis.ticktext:
        found = {re.match(r"[^\d.]*", str(t)).group(0) for t in axis.ticktext}  # type: ignore[union-attr]
        return found.pop() if len(found) == 1 else None
    return axis.tickprefix


def _trace(fig: go.Figure, name_part: str) -> go.Scatter:
    return next(t for t in fig.data if name_part in (t.name or ""))


@pytest.mark.parametrize(
    ("rate", "prefix", "x_today", "x_limit"), [(USD, "$", 10.0, [10.0, 20.0]), (SGD, "S$", 13.0, [13.0, 26.0])]
)
def test_utilization_curve_in_display_currency(
    rate: DisplayRate, prefix: str, x_today: float, x_limit: list[float]
) -> None:
    a = _break_even()
    fig = utilization_curve_figure(a, rate) if rate is SGD else utilization_curve_figure(a)  # USD: the default
    today = _trace(fig, "today")
    assert today.x[0] == pytest.approx(x_today)
    assert list(_trace(fig, "capacity limit").x) == pytest.approx(x_limit)
    # the curve too: it was drawn at its US dollar prices on an SGD axis, 1.3x left of the marker and the limit
    assert list(_trace(fig, "break-even utilization").x) == pytest.approx(x_limit)  # $10 and $20/Mtok
    assert f"API {prefix}%{{x" in today.hovertemplate
    assert _prefix(fig.layout.xaxis) == prefix
    assert f"[{rate.code} per Mtok output" in fig.layout.xaxis.title.text


@pytest.mark.parametrize(("rate", "prefix", "x_today"), [(USD, "$", 4.0), (SGD, "S$", 5.2)])
def test_demand_curve_in_display_currency(rate: DisplayRate, prefix: str, x_today: float) -> None:
    fig = demand_curve_figure(_break_even(), rate)
    assert _trace(fig, "today").x[0] == pytest.approx(x_today)
    assert list(_trace(fig, "break-even demand").x) == pytest.approx([x_today, 2 * x_today])  # $4 and $8/h
    assert f"node {prefix}%{{x" in _trace(fig, "break-even demand").hovertemplate
    assert _prefix(fig.layout.xaxis) == prefix
    assert f"[{rate.code} per node-hour]" in fig.layout.xaxis.title.text


def test_break_even_map_converts_only_the_money_axis() -> None:
    a = _break_even("api_price", "demand")
    usd, sgd = break_even_map_figure(a), break_even_map_figure(a, SGD)
    assert _trace(sgd, "today").x[0] == pytest.approx(13.0)  # $10/Mtok × 1.30
    assert _trace(usd, "today").x[0] == pytest.approx(10.0)
    assert _trace(sgd, "today").y[0] == _trace(usd, "today").y[0]  # demand has no currency
    heat_usd, heat_sgd = _trace(usd, "owned ÷ API"), _trace(sgd, "owned ÷ API")
    assert np.asarray(heat_sgd.x) == pytest.approx(1.3 * np.asarray(heat_usd.x))
    assert np.asarray(heat_sgd.y) == pytest.approx(np.asarray(heat_usd.y))
    assert np.asarray(heat_sgd.customdata) == pytest.approx(np.asarray(heat_usd.customdata))  # a ratio: no unit
    assert "x S$%{x" in heat_sgd.hovertemplate
    assert "y %{y" in heat_sgd.hovertemplate
    assert _prefix(sgd.layout.xaxis) == "S$"
    assert _prefix(usd.layout.xaxis) == "$"
    assert "SGD per Mtok" in sgd.layout.xaxis.title.text
    assert "USD" not in sgd.layout.xaxis.title.text
    assert _prefix(sgd.layout.yaxis) is None


def test_break_even_map_node_cost_on_y() -> None:
    a = dataclasses.replace(_break_even("utilization", "node_price"), y_now=4.0)  # node at $4/h
    sgd = break_even_map_figure(a, SGD)
    assert _trace(sgd, "today").y[0] == pytest.approx(5.2)  # $4/h × 1.30
    assert _prefix(sgd.layout.yaxis) == "S$"
    assert "SGD per node-hour" in sgd.layout.yaxis.title.text
    assert sgd.layout.xaxis.ticksuffix == "%"


def _batching() -> tuple[BatchingAnalysis, BatchPoint]:
    s = default_scenario()
    inputs = BatchingInputs(
        ar_option_id="owned-70b-ar",
        speculation_option_id="owned-70b-ar",
        diffusion_option_id="owned-8b-diffusion",
        workload_id="kyc-overnight",
    )
    a = batching_analysis(s, inputs)
    first = dataclasses.replace(a.batch_series[0], batch=np.array([1.0, 10.0]), cost_usd_per_mtok=np.array([10.0, 1.0]))
    return dataclasses.replace(a, batch_series=(first, *a.batch_series[1:])), batch_point(s, inputs, 8, a)


@pytest.mark.parametrize(("rate", "prefix", "y"), [(USD, "$", [10.0, 1.0]), (SGD, "S$", [13.0, 1.3])])
def test_batch_cost_in_display_currency(rate: DisplayRate, prefix: str, y: list[float]) -> None:
    a, p = _batching()
    fig = batch_cost_figure(a, p, rate)
    line = _trace(fig, a.batch_series[0].label)
    assert list(line.y) == pytest.approx(y)  # $10 and $1/Mtok while busy, × 1.30 in SGD
    assert f"{prefix}%{{y" in line.hovertemplate
    assert _prefix(fig.layout.yaxis) == prefix
    assert f"[{rate.code} per Mtok output]" in fig.layout.yaxis.title.text


def test_replica_cost_column_in_display_currency() -> None:
    s = default_scenario()
    a = cost_analysis(s, CostInputs(workload_id="onboarding-checks"), variant_capacities(s, "onboarding-checks"))
    usd, sgd = cost_curves_frame(a), cost_curves_frame(a, rate=SGD)
    hourly = [c.replica_cost_usd_per_hour for c in a.curves]  # economics' USD figures, unchanged by the table
    assert list(usd["Replica cost at full load [USD/h]"]) == pytest.approx(hourly)
    assert list(sgd["Replica cost at full load [SGD/h]"]) == pytest.approx([1.3 * h for h in hourly])


def test_node_cost_line_in_display_currency() -> None:
    # a node at $4/h of capital and $1/h of power, 8 GPUs: $5/h, $0.625 per GPU-hour; in SGD S$6.50 and S$0.81
    node = NodeCost("n", "Test node", "owned", 8, (("capital", 4.0), ("power", 1.0)), 5.0, 0.625)
    sgd, usd = (node_cost_line(node, r).replace("\\", "") for r in (SGD, USD))
    assert sgd == (
        "**Test node: S$6.50 per node-hour at full load** (S$0.81 per GPU-hour): capital S$5.20 · power S$1.30"
    )
    assert usd == "**Test node: $5.00 per node-hour at full load** ($0.62 per GPU-hour): capital $4.00 · power $1.00"


def test_cost_at_utilization_in_display_currency() -> None:
    at = CostAtUtilization(0.5, (("Owned", "owned-ar", 10.0, "owned"), ("API", "api-frontier", 20.0, "API")))
    sgd, usd = cost_at_utilization_figure(at, SGD), cost_at_utilization_figure(at)
    assert list(sgd.data[0].x) == pytest.approx([13.0, 26.0])  # $10 and $20/Mtok × 1.30
    assert list(sgd.data[0].text) == ["S$13.00", "S$26.00"]
    assert list(usd.data[0].text) == ["$10.00", "$20.00"]
    assert "S$%{x" in sgd.data[0].hovertemplate
    assert "SGD per Mtok output" in sgd.layout.xaxis.title.text


def test_cost_curve_in_display_currency() -> None:
    s = default_scenario()
    a = cost_analysis(s, CostInputs(workload_id="onboarding-checks"), variant_capacities(s, "onboarding-checks"))
    usd, sgd = cost_curve_figure(a), cost_curve_figure(a, rate=SGD)
    for u, g in zip(usd.data, sgd.data, strict=True):  # every money trace scaled by 1.30; utilization unchanged
        assert np.asarray(g.y, dtype=float) == pytest.approx(1.3 * np.asarray(u.y, dtype=float), nan_ok=True)
        assert np.asarray(g.x, dtype=float) == pytest.approx(np.asarray(u.x, dtype=float), nan_ok=True)
    api = next(api for api in a.apis if api.feasible and np.isfinite(api.cost_usd_per_mtok))
    line = _trace(sgd, api.label)
    assert line.name.startswith(f"{api.label}: S$")
    assert "S$%{y" in line.hovertemplate
    assert _prefix(sgd.layout.yaxis) == "S$"
    assert "SGD per Mtok output" in sgd.layout.yaxis.title.text


def test_quadrant_value_axis_in_display_currency() -> None:
    s = default_scenario()
    q = quadrant(s, evaluate(s), s.workloads[0].id)
    # hand value: a workload at $0.01 per output token = $10 per 1,000 tokens → S$13 per 1,000 in SGD
    point = dataclasses.replace(q.points[0], value_usd_per_output_token=0.01, margin_usd_per_request=1.0)
    q = dataclasses.replace(q, points=(point, *q.points[1:]))
    usd, sgd = quadrant_figure(q), quadrant_figure(q, SGD)
    dots_usd, dots_sgd = _trace(usd, "workloads"), _trace(sgd, "workloads")
    assert dots_usd.customdata[0][3] == pytest.approx(10.0)
    assert dots_sgd.customdata[0][3] == pytest.approx(13.0)
    assert dots_sgd.customdata[0][1] == pytest.approx(1.3)  # margin $1/task × 1.30
    assert dots_sgd.y[0] == pytest.approx(np.log10(13.0))  # the axis holds log10 of the displayed value
    assert "S$%{customdata[3]" in dots_sgd.hovertemplate
    assert "SGD per 1,000 output tokens" in sgd.layout.yaxis.title.text
    assert all(str(t).startswith("S$") for t in sgd.layout.yaxis.ticktext)
    assert all(str(t).startswith("$") for t in usd.layout.yaxis.ticktext)


def test_prefix_on_every_log_tick() -> None:
    # data from 10 to 100, padded ÷1.5 and ×1.5 like plotly's autorange (6.7 to 150): ticks 10, 20, 50, 100
    axis: dict[str, object] = {"type": "log", "dtick": "D2", "tickformat": "~g", "tickprefix": "S$"}
    prefix_on_every_log_tick(axis, [10.0, 100.0])
    assert axis["tickvals"] == pytest.approx([10.0, 20.0, 50.0, 100.0])
    assert axis["ticktext"] == ["S$10", "S$20", "S$50", "S$100"]
    assert "tickprefix" not in axis
    for kept in (
        {"type": "log", "dtick": "D2", "tickformat": "~g", "tickprefix": "$"},  # d3's "$" format does it
        {"type": "log", "dtick": 1, "tickformat": "~g", "tickprefix": "S$"},  # powers of ten carry the prefix
    ):
        before = dict(kept)
        prefix_on_every_log_tick(kept, [10.0, 100.0])
        assert kept == before
