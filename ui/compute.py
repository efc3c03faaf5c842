"""Cached entry points for the pages: the same scenario and inputs are computed, and drawn, once per process.

Results are frozen, so ``st.cache_resource`` shares them between sessions without copying. The cache key is
the scenario's canonical JSON (exact, unlike a hash of the object) plus the inputs' JSON; the JSON of the
session's scenario object is written once, not at each of the half-dozen calls of a rerun (:func:`scenario_key`).
SLO capacities are keyed without prices, so editing a price does not re-solve the serving model.

:func:`evaluate` leaves out the decisions' flip thresholds unless asked (``flips=True``): only the Reviews page
shows them and only a saved review stores them, and they are about a third of an evaluation's time, paid on
every price a user types on any other page.

:func:`figure` memoizes chart builders on the identity of their (cached, immutable) arguments: building a
plotly figure costs 10–40 ms of validation, which a rerun with unchanged inputs should not pay again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar, cast

import plotly.graph_objects as go
import streamlit as st

from economics import FleetPlan, evaluate_with_plan
from economics.argument import Claim
from economics.argument import argument as argument_claims
from economics.io.scenarios import canonical_json
from economics.result import Result
from economics.scenario import Scenario
from economics.uncertainty import MonteCarlo, Tornado, UncertaintyRanges
from economics.uncertainty import build_surrogate as _build_surrogate
from economics.uncertainty import monte_carlo as _monte_carlo
from economics.uncertainty import tornado as _tornado
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
from ui import format as fmt

_ENTRIES = 64
T = TypeVar("T")


class _IdentityMemo:
    """A bounded memo of values computed from immutable objects, keyed on the objects' identity (no hashing of
    their contents). It holds the objects, so that their ids cannot be recycled while it has them."""

    def __init__(self, size: int = 256) -> None:
        self._items: OrderedDict[tuple[Any, ...], tuple[tuple[Any, ...], Any]] = OrderedDict()
        self._lock = threading.Lock()
        self._size = size

    def get(self, compute: Callable[..., T], *args: Any, extra: tuple[Any, ...] = ()) -> T:
        """``compute(*args)``, reused while ``args`` are the very same objects (and ``extra`` equal)."""
        key = (*extra, *(id(a) for a in args))
        with self._lock:
            hit = self._items.get(key)
            if hit is not None and all(x is y for x, y in zip(hit[0], args, strict=True)):
                self._items.move_to_end(key)
                return cast(T, hit[1])
        value = compute(*args)
        with self._lock:
            self._items[key] = (args, value)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_KEYS = _IdentityMemo()


def scenario_key(scenario: Scenario) -> str:
    """The scenario's canonical JSON, the cache key of everything computed from it; memoized on the (frozen)
    object: a rerun asks for it at every cached call."""
    return _KEYS.get(canonical_json, scenario)


@st.cache_resource(max_entries=_ENTRIES, show_spinner=False)
def _evaluate(scenario_json: str, flips: bool, _scenario: Scenario) -> tuple[Result, FleetPlan]:
    return evaluate_with_plan(_scenario, flips=flips)


def evaluate(scenario: Scenario, *, flips: bool = False) -> Result:
    """:func:`economics.evaluate.evaluate`, cached per scenario; the decisions' ``flips`` are empty unless
    ``flips=True`` (the Reviews page and a saved review: the only places that show or store them)."""
    return _evaluate(scenario_key(scenario), flips, scenario)[0]


def fleet_plan(scenario: Scenario) -> FleetPlan:
    """The scenario's solved fleet plan (arrays), from the same cache entry as :func:`evaluate`'s result."""
    return _evaluate(scenario_key(scenario), False, scenario)[1]


@st.cache_resource(max_entries=_ENTRIES, show_spinner=False)
def _batching(scenario_json: str, inputs_json: str, _scenario: Scenario, _inputs: BatchingInputs) -> BatchingAnalysis:
    return batching_analysis(_scenario, _inputs)


def batching(scenario: Scenario, inputs: BatchingInputs) -> BatchingAnalysis:
    """:func:`economics.views.batching.batching_analysis`, cached."""
    return _batching(scenario_key(scenario), inputs.model_dump_json(), scenario, inputs)


@st.cache_resource(max_entries=4 * _ENTRIES, show_spinner=False)
def _batch_point(
    scenario_json: str, inputs_json: str, batch: int, _scenario: Scenario, _inputs: BatchingInputs
) -> BatchPoint:
    return batch_point(_scenario, _inputs, batch, batching(_scenario, _inputs))


def batch_point_at(scenario: Scenario, inputs: BatchingInputs, batch: int) -> BatchPoint:
    """:func:`economics.views.batching.batch_point`, cached."""
    return _batch_point(scenario_key(scenario), inputs.model_dump_json(), batch, scenario, inputs)


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
    return _cost(scenario_key(scenario), inputs.model_dump_json(), scenario, inputs)


_COST_AT = _IdentityMemo()


def cost_at_utilization(analysis: CostAnalysis, utilization: float) -> CostAtUtilization:
    """:func:`economics.views.cost.cost_at` memoized on the (cached) analysis object, so figures memoize too."""
    return _COST_AT.get(lambda a: cost_at(a, utilization), analysis, extra=(utilization,))


@st.cache_resource(max_entries=_ENTRIES, show_spinner=False)
def _node_costs(scenario_json: str, _scenario: Scenario) -> tuple[NodeCost, ...]:
    return node_cost_table(_scenario)


def node_costs(scenario: Scenario) -> tuple[NodeCost, ...]:
    """:func:`economics.views.cost.node_costs`, cached."""
    return _node_costs(scenario_key(scenario), scenario)


@st.cache_resource(max_entries=_ENTRIES, show_spinner=False)
def _break_even(
    scenario_json: str, inputs_json: str, _scenario: Scenario, _inputs: BreakEvenInputs
) -> BreakEvenAnalysis:
    return break_even_analysis(_scenario, _inputs, capacities(_scenario, _inputs.workload_id))


def break_even(scenario: Scenario, inputs: BreakEvenInputs) -> BreakEvenAnalysis:
    """:func:`economics.views.breakeven.break_even_analysis`, cached."""
    return _break_even(scenario_key(scenario), inputs.model_dump_json(), scenario, inputs)


@st.cache_resource(max_entries=_ENTRIES, show_spinner=False)
def _quadrant(scenario_json: str, region: str, _scenario: Scenario, _result: Result) -> Quadrant:
    # the plan is the one evaluate() solved for this scenario: a workloads edit solves it once, not twice
    return quadrant_analysis(_scenario, _result, region, fleet=fleet_plan(_scenario))


def quadrant(scenario: Scenario, result: Result, region_workload_id: str) -> Quadrant:
    """:func:`economics.views.quadrant.quadrant`, cached per scenario and region workload."""
    return _quadrant(scenario_key(scenario), region_workload_id, scenario, result)


# ---- figures ---------------------------------------------------------------------------------------------------

_FIGURES = _IdentityMemo()


def figure(builder: Callable[..., go.Figure], *args: Any) -> go.Figure:
    """``builder(*args)``, reused while the arguments are the very same objects (cached results, the
    session's scenario)."""
    return _FIGURES.get(builder, *args, extra=(f"{builder.__module__}.{builder.__qualname__}",))


def clear_memos() -> None:
    """Empty the identity memos (figures, cost read-offs, scenario keys): benchmarks time a cold rerun."""
    for memo in (_FIGURES, _COST_AT, _KEYS):
        memo.clear()


def chart(builder: Callable[..., go.Figure], *args: Any, key: str, where: Any = None) -> None:
    """Draw ``builder(*args)`` (memoized) with the house template, not Streamlit's theme, and no logo."""
    (where or st).plotly_chart(
        figure(builder, *args), key=key, theme=None, config={"displaylogo": False}, width="stretch"
    )


@st.cache_resource(max_entries=_ENTRIES, show_spinner=False)
def _argument(scenario_json: str, code: str, units_per_usd: float, _scenario: Scenario) -> tuple[Claim, ...]:
    return argument_claims(_scenario, evaluate(_scenario), lambda x: fmt.money(x, code, units_per_usd))


def argument(scenario: Scenario, code: str = "USD", units_per_usd: float = 1.0) -> tuple[Claim, ...]:
    """:func:`economics.argument.argument` of the scenario, its amounts in the display currency ``code`` at
    ``units_per_usd`` (converted, then rounded), cached per scenario and currency."""
    return _argument(scenario_key(scenario), code, units_per_usd, scenario)


@st.cache_resource(max_entries=16, show_spinner=False)
def _uncertainty(
    key: str, _scenario: Scenario, _ranges: UncertaintyRanges, draws: int, seed: int
) -> tuple[Tornado, MonteCarlo]:
    surrogate = _build_surrogate(_scenario, _ranges)
    return _tornado(surrogate), _monte_carlo(surrogate, draws, seed)


def uncertainty(scenario: Scenario, ranges: UncertaintyRanges, draws: int, seed: int) -> tuple[Tornado, MonteCarlo]:
    """Tornado and Monte Carlo of ``scenario`` (cached per scenario, ranges, draws and seed)."""
    key = scenario_key(scenario) + ranges.model_dump_json()
    return _uncertainty(key, scenario, ranges, draws, seed)
