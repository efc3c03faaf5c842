"""Where each LLM workload should run and what it really costs: owned AR, owned text diffusion, or an API.

The supported API is what ``__all__`` lists: the domain models, the one orchestrator :func:`evaluate` (and
:func:`evaluate_grid`), the catalog and scenario loaders, and the key formulas of the physics and the
economics. Everything else is internal and may change. Keep the list sorted and small; tests/test_public_api.py
checks it.
"""

from __future__ import annotations

from economics.catalog import Catalog, load_catalog
from economics.costs import (
    api_cost_per_request,
    break_even_demand,
    break_even_utilization,
    capital_recovery_factor,
    cost_per_mtok,
    cost_per_mtok_capacity_form,
    cost_per_request_dedicated,
    cost_per_request_pooled,
    idle_cost_usd_per_month,
    node_cost_usd_per_hour,
    owned_node_cost_breakdown,
)
from economics.evaluate import DecisionGrid, evaluate, evaluate_grid
from economics.hardware import GPU, Deployment, Efficiency
from economics.model import ModelSpec
from economics.offers import ApiOffer, OwnedNode, RentedNode
from economics.pricing import reprice
from economics.quality import break_even_failure_cost, expected_cost_per_task
from economics.result import FleetSummary, FlipThreshold, OptionResult, Result, WorkloadDecision
from economics.roofline import forward_time
from economics.routing import route
from economics.scenario import SCHEMA_VERSION, OwnedOption, Policy, Scenario, migrate
from economics.scenarios import ScenarioError, default_scenario, list_presets, load_scenario, parse_scenario
from economics.schemes import ARScheme, DiffusionScheme, SpeculativeScheme
from economics.serving import continuous_batching, replicas_for_peak, slo_capacity
from economics.workload import Workload

__all__ = [
    "GPU",
    "SCHEMA_VERSION",
    "ARScheme",
    "ApiOffer",
    "Catalog",
    "DecisionGrid",
    "Deployment",
    "DiffusionScheme",
    "Efficiency",
    "FleetSummary",
    "FlipThreshold",
    "ModelSpec",
    "OptionResult",
    "OwnedNode",
    "OwnedOption",
    "Policy",
    "RentedNode",
    "Result",
    "Scenario",
    "ScenarioError",
    "SpeculativeScheme",
    "Workload",
    "WorkloadDecision",
    "api_cost_per_request",
    "break_even_demand",
    "break_even_failure_cost",
    "break_even_utilization",
    "capital_recovery_factor",
    "continuous_batching",
    "cost_per_mtok",
    "cost_per_mtok_capacity_form",
    "cost_per_request_dedicated",
    "cost_per_request_pooled",
    "default_scenario",
    "evaluate",
    "evaluate_grid",
    "expected_cost_per_task",
    "forward_time",
    "idle_cost_usd_per_month",
    "list_presets",
    "load_catalog",
    "load_scenario",
    "migrate",
    "node_cost_usd_per_hour",
    "owned_node_cost_breakdown",
    "parse_scenario",
    "replicas_for_peak",
    "reprice",
    "route",
    "slo_capacity",
]
