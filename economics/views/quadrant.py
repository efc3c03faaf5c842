"""The routing quadrant: batchability × per-token value, decision regions from ``evaluate_grid``.

Pure: :func:`quadrant` sweeps one workload's demand (the batchability axis) and failure cost (the value
axis) through :func:`economics.evaluate.evaluate_grid` (on the workload's marginal cost in the fleet plan, the
rest of the plan held fixed) and places every workload at its own (β, v) from the evaluated
:class:`~economics.result.Result`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from economics.evaluate import FleetPlan, evaluate_grid
from economics.lookup import by_id
from economics.model import FloatArray
from economics.result import Result
from economics.scenario import Scenario

GRID = 48
#: Sweep range around the region workload's own demand and failure cost (factors) [1].
DEMAND_SPAN = (0.003, 300.0)
FAILURE_COST_USD = (1e-4, 1e3)


@dataclass(frozen=True)
class QuadrantPoint:
    workload_id: str
    name: str
    batchability: float  # β [1]
    value_usd_per_output_token: float  # v [USD/token]
    route_label: str
    reason: str
    margin_usd_per_request: float


@dataclass(frozen=True)
class Quadrant:
    """Decision regions of one workload's shape, and every workload's position."""

    region_workload_id: str
    region_workload_name: str
    batchability: FloatArray  # (nx,) [1]
    value_usd_per_output_token: FloatArray  # (ny,) [USD/token]
    labels: NDArray[np.int8]  # (ny, nx) index into label_names
    label_names: tuple[str, ...]
    points: tuple[QuadrantPoint, ...]


def quadrant(
    scenario: Scenario, result: Result, region_workload_id: str, *, fleet: FleetPlan | None = None
) -> Quadrant:
    """Regions for ``region_workload_id`` (its shape, SLOs, sovereignty) and all workloads as points.

    ``fleet`` is the scenario's solved plan (:func:`economics.evaluate.evaluate_with_plan`); without it the
    plan is solved again (~half the time of the regions on the bank)."""
    wl = by_id(scenario.workloads, region_workload_id, "workload")
    demand = wl.avg_requests_per_s * np.geomspace(*DEMAND_SPAN, GRID)
    failure = np.geomspace(*FAILURE_COST_USD, GRID)
    grid = evaluate_grid(scenario, wl.id, demand, failure, fleet=fleet)
    names = {w.id: w.name for w in scenario.workloads}
    points = tuple(
        QuadrantPoint(
            workload_id=d.workload_id,
            name=names.get(d.workload_id, d.workload_name),
            batchability=d.batchability,
            value_usd_per_output_token=d.value_usd_per_output_token,
            route_label=d.route_label,
            reason=d.reason,
            margin_usd_per_request=d.margin_usd_per_request,
        )
        for d in result.decisions
    )
    return Quadrant(
        region_workload_id=wl.id,
        region_workload_name=wl.name,
        batchability=grid.batchability,
        value_usd_per_output_token=grid.value_usd_per_output_token,
        labels=grid.label,
        label_names=grid.label_names,
        points=points,
    )
