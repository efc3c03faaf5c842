"""Cached entry points for the pages: the same scenario and inputs are computed, and drawn, once per process.

Results are frozen, so ``st.cache_resource`` shares them between sessions without copying. The cache key is
the scenario's canonical JSON (exact, unlike a hash of the object) plus the inputs' JSON. SLO capacities are
keyed without prices, so editing a price does not re-solve the serving model.

:func:`figure` memoizes chart builders on the identity of their (cached, immutable) arguments: building a
plotly figure costs 10–40 ms of validation, which a rerun with unchanged inputs should not pay again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from economics.argument import Claim
from economics.argument import argument as argument_claims
from economics.evaluate import evaluate as evaluate_scenario
from economics.io.scenarios import canonical_json
from economics.result import Result
from economics.scenario import Scenario
from economics.views.batching import BatchingAnalysis, BatchingInputs, BatchPoint, batch_point, batching_analysis
from economics.views.breakeven import BreakEvenAnalysis, BreakEvenInputs, break_even_analysis
from economics.views.cost import (
    CostAnalysis,
    CostAtUtilization,
    CostInputs,
    NodeCost,
    VariantCapacity,
    capacity_key,
    cost_analysis,
    cost_at,
    variant_capacities,
)
from economics.views.cost import node_costs as node_cost_table
from economics.views.quadrant import Quadrant
from economics.views.quadrant import quadrant as quadrant_analysis

_ENTRIES = 64


@st.cache_resource(max_entries=_ENTRIES, show_spinner=False)
def _evaluate(scenario_json: str, _scenario: Scenario) -> Result:
    return evaluate_scenario(_scenario)


def evaluate(scenario: Scenario) -> Result:
    """:func:`economics.evaluate.evaluate`, cached per scenario."""
    return _evaluate(canonical_json(scenario), scenario)


@st.cache_resource(max_entries=_ENTRIES, show_spinner=False)
def _batching(scenario_json: str, inputs_json: str, _scenario: Scenario, _inputs: BatchingInputs) -> BatchingAnalysis:
    return batching_analysis(_scenario, _inputs)


def batching(scenario: Scenario, inputs: BatchingInputs) -> BatchingAnalysis:
    """:func:`economics.views.batching.batching_analysis`, cached."""
    return _batching(canonical_json(scenario), inputs.model_dump_json(), scenario, inputs)


@st.cache_resource(max_entries=4 * _ENTRIES, show_spinner=False)
def _batch_point(
    scenario_json: str, inputs_json: str, batch: int, _scenario: Scenario, _inputs: BatchingInputs
) -> BatchPoint:
    return batch_point(_scenario, _inputs, batch, batching(_scenario, _inputs))


def batch_point_at(scenario: Scenario, inputs: BatchingInputs, batch: int) -> BatchPoint:
    """:func:`economics.views.batching.batch_point`, cached."""
    return _batch_point(canonical_json(scenario), inputs.model_dump_json(), batch, scenario, inputs)


@st.cache_resource(max_entries=_ENTRIES, show_spinner=False)
def _capacities(key: str, workload_id: str, _scenario: Scenario) -> tuple[VariantCapacity, ...]:
    return variant_capacities(_scenario, workload_id)


def capacities(scenario: Scenario, workload_id: str) -> tuple[VariantCapacity, ...]:
    """SLO capacities of every owned variant for one workload, cached on a key without prices."""
    return _capacities(capacity_key(scenario, workload_id), workload_id, scenario)


@st.cache_resource(max_entries=_ENTRIES, show_spinner=False)
def _cost(scenario_json: str, inputs_json: str, _scenario: Scenario, _inputs: CostInputs) -> CostAnalysis:
    return cost_analysis(_scenario, _inputs, capacities(_scenario, _inputs.workload_id))


def cost(scenario: Scenario, inputs: CostInputs) -> CostAnalysis:
    """:func:`economics.views.cost.cost_analysis`, cached."""
    return _cost(canonical_json(scenario), inputs.model_dump_json(), scenario, inputs)


_COST_AT: OrderedDict[tuple[int, float], tuple[CostAnalysis, CostAtUtilization]] = OrderedDict()


def cost_at_utilization(analysis: CostAnalysis, utilization: float) -> CostAtUtilization:
    """:func:`economics.views.cost.cost_at` memoized on the (cached) analysis object, so figures memoize too."""
    key = (id(analysis), utilization)
    with _FIGURES_LOCK:
        hit = _COST_AT.get(key)
        if hit is not None and hit[0] is analysis:
            return hit[1]
    value = cost_at(analysis, utilization)
    with _FIGURES_LOCK:
        _COST_AT[key] = (analysis, value)
        while len(_COST_AT) > _MAX_FIGURES:
            _COST_AT.popitem(last=False)
    return value


@st.cache_resource(max_entries=_ENTRIES, show_spinner=False)
def _node_costs(scenario_json: str, _scenario: Scenario) -> tuple[NodeCost, ...]:
    return node_cost_table(_scenario)


def node_costs(scenario: Scenario) -> tuple[NodeCost, ...]:
    """:func:`economics.views.cost.node_costs`, cached."""
    return _node_costs(canonical_json(scenario), scenario)


@st.cache_resource(max_entries=_ENTRIES, show_spinner=False)
def _break_even(
    scenario_json: str, inputs_json: str, _scenario: Scenario, _inputs: BreakEvenInputs
) -> BreakEvenAnalysis:
    return break_even_analysis(_scenario, _inputs, capacities(_scenario, _inputs.workload_id))


def break_even(scenario: Scenario, inputs: BreakEvenInputs) -> BreakEvenAnalysis:
    """:func:`economics.views.breakeven.break_even_analysis`, cached."""
    return _break_even(canonical_json(scenario), inputs.model_dump_json(), scenario, inputs)


@st.cache_resource(max_entries=_ENTRIES, show_spinner=False)
def _quadrant(scenario_json: str, region: str, _scenario: Scenario, _result: Result) -> Quadrant:
    return quadrant_analysis(_scenario, _result, region)


def quadrant(scenario: Scenario, result: Result, region_workload_id: str) -> Quadrant:
    """:func:`economics.views.quadrant.quadrant`, cached per scenario and region workload."""
    return _quadrant(canonical_json(scenario), region_workload_id, scenario, result)


# ---- figures ---------------------------------------------------------------------------------------------------

_FIGURES: OrderedDict[tuple[str, tuple[int, ...]], tuple[tuple[Any, ...], go.Figure]] = OrderedDict()
_FIGURES_LOCK = threading.Lock()
_MAX_FIGURES = 256


def figure(builder: Callable[..., go.Figure], *args: Any) -> go.Figure:
    """``builder(*args)``, reused while the arguments are the very same objects (cached results, the
    session's scenario). The memo holds the arguments, so their ids cannot be recycled while it has them."""
    key = (f"{builder.__module__}.{builder.__qualname__}", tuple(id(a) for a in args))
    with _FIGURES_LOCK:
        hit = _FIGURES.get(key)
        if hit is not None and all(x is y for x, y in zip(hit[0], args, strict=True)):
            _FIGURES.move_to_end(key)
            return hit[1]
    fig = builder(*args)
    with _FIGURES_LOCK:
        _FIGURES[key] = (args, fig)
        while len(_FIGURES) > _MAX_FIGURES:
            _FIGURES.popitem(last=False)
    return fig


def chart(builder: Callable[..., go.Figure], *args: Any, key: str, where: Any = None) -> None:
    """Draw ``builder(*args)`` (memoized) with the house template, not Streamlit's theme, and no logo."""
    (where or st).plotly_chart(
        figure(builder, *args), key=key, theme=None, config={"displaylogo": False}, width="stretch"
    )


@st.cache_resource(max_entries=_ENTRIES, show_spinner=False)
def _argument(scenario_json: str, _scenario: Scenario) -> tuple[Claim, ...]:
    return argument_claims(_scenario, evaluate(_scenario))


def argument(scenario: Scenario) -> tuple[Claim, ...]:
    """:func:`economics.argument.argument` of the scenario, cached per scenario."""
    return _argument(canonical_json(scenario), scenario)
