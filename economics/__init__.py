"""Where each LLM workload should run and what it really costs: owned AR, owned text diffusion, or an API.

The supported API is what ``__all__`` lists: the domain models, the one orchestrator :func:`evaluate` (and
:func:`evaluate_grid`), the catalog and scenario loaders, the key formulas of the physics and the
economics, and what the dashboard and the meeting pack read: price book, comparison of reviews, uncertainty,
share-link JSON and the display unit constants. Everything else is internal and may change. Keep the list
sorted and small; tests/test_public_api.py checks it, and that ui/, pages/ and reporting/ import nothing else.
"""

from __future__ import annotations

import importlib
import typing

from economics._errors import ScenarioError
from economics.catalog import Catalog
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
from economics.evaluate import DecisionGrid, FleetPlan, evaluate, evaluate_grid, evaluate_with_plan
from economics.hardware import GPU, Deployment, Efficiency
from economics.io.catalog import load_catalog
from economics.io.scenarios import (
    canonical_json,
    default_scenario,
    list_presets,
    load_scenario,
    parse_scenario,
    scenario_json,
)
from economics.lookup import UnknownOptionError, by_id
from economics.model import ModelSpec
from economics.offers import ApiOffer, NodeOffer, OwnedNode, RentedNode
from economics.pricing import reprice
from economics.quality import break_even_failure_cost, expected_cost_per_task
from economics.result import CloseCall, FleetSummary, FlipThreshold, OptionResult, Result, WorkloadDecision
from economics.roofline import forward_time
from economics.routing import route
from economics.scenario import SCHEMA_VERSION, OwnedOption, Policy, Scenario, migrate
from economics.schemes import ARScheme, DiffusionScheme, SpeculativeScheme
from economics.serving import continuous_batching, replicas_for_peak, slo_capacity
from economics.units import GB, MS, SECONDS_PER_HOUR, TFLOPS
from economics.workload import Workload

if typing.TYPE_CHECKING:  # imported on first use (below): they pull in pandas, which `import economics` need not load
    from economics.compare import Comparison, Snapshot, compare, compare_with_prices
    from economics.price_book import (
        NEGOTIABLE_ITEMS,
        NegotiatedPrice,
        NegotiatedPriceError,
        apply_negotiated,
        price_book,
        price_book_frame,
    )
    from economics.uncertainty import (
        INPUT_LABELS,
        MonteCarlo,
        Range,
        Tornado,
        TornadoBar,
        UncertaintyRanges,
        build_surrogate,
        monte_carlo,
        tornado,
    )

#: Public names whose module is imported on first use (PEP 562), so the CLI starts without pandas.
_LAZY: dict[str, str] = {
    **dict.fromkeys(("Claim", "argument"), "economics.argument"),
    **dict.fromkeys(("error_items", "field_path"), "economics._errors"),
    **dict.fromkeys(("WhatChanged", "scenario_changes", "what_changed"), "economics.changes"),
    **dict.fromkeys(("MeasuredThroughput",), "economics.measured"),
    **dict.fromkeys(("PriceTextError", "parse_money", "parse_percent", "typed_source"), "economics.price_text"),
    **dict.fromkeys(("USD", "DisplayRate", "currency_statement", "display_rate", "to_display"), "economics.currency"),
    **dict.fromkeys(
        ("PlanCarbon", "carbon_statement", "energy_table", "grid_factor", "plan_carbon"), "economics.energy"
    ),
    **dict.fromkeys(("finance_pack_section",), "economics.finance.report"),
    **dict.fromkeys(("fx_rates",), "economics.finance.data"),
    **dict.fromkeys(("api_usd_per_task",), "economics.option_costs"),
    **dict.fromkeys(
        (
            "DOLLAR_AMOUNT",
            "ROUTE_WORDS",
            "dollar_value",
            "dollars_alike",
            "joined",
            "plural",
            "quoted",
            "route_words",
            "sentence",
        ),
        "economics.words",
    ),
    **dict.fromkeys(
        ("DEFAULT_SENSITIVITY_RATES", "Horizon", "crossover_sensitivity", "horizon", "price_trends"),
        "economics.finance.horizon",
    ),
    **dict.fromkeys(("FinanceSettings", "HorizonSettings"), "economics.finance.settings"),
    **dict.fromkeys(("CalibrationProfile", "PointResidual", "fit_profile"), "economics.calibration_fit"),
    **dict.fromkeys(("SavedCalibration",), "economics.calibration_saved"),
    **dict.fromkeys(
        ("apply_calibration", "calibrated_options", "matching_options", "saved_calibration"),
        "economics.calibration_apply",
    ),
    **dict.fromkeys(
        (
            "GpuAddition",
            "add_gpus",
            "catalog_node_inputs",
            "fit_problem",
            "problem_of",
            "remove_option",
            "replica_choices",
            "replica_gpus",
            "replica_limit",
            "serving_choices",
        ),
        "economics.gpu_options",
    ),
    **dict.fromkeys(("Band", "throughput_band"), "economics.bands"),
    **dict.fromkeys(("option_band_ratio",), "economics.route_bands"),
    **dict.fromkeys(
        ("AccuracyReport", "DIMENSION_NAMES", "GROUP_NAMES", "calibration_report"), "economics.calibration_report"
    ),
    **dict.fromkeys(("load_engines",), "economics.engines"),
    **dict.fromkeys(("PRECISIONS",), "economics.hardware"),
    **dict.fromkeys(
        (
            "BenchmarkFormatError",
            "MAX_FILE_BYTES",
            "RunContext",
            "match_catalog_models",
            "read_benchmark",
        ),
        "economics.io",
    ),
    **dict.fromkeys(("csv_text", "http_url"), "economics.io.safe_io"),
    **dict.fromkeys(("Comparison", "Snapshot", "compare", "compare_with_prices"), "economics.compare"),
    **dict.fromkeys(
        (
            "ITEM_LABEL",
            "NEGOTIABLE_ITEMS",
            "NegotiatedPrice",
            "NegotiatedPriceError",
            "apply_negotiated",
            "price_book",
            "price_book_frame",
        ),
        "economics.price_book",
    ),
    **dict.fromkeys(
        (
            "INPUT_LABELS",
            "MonteCarlo",
            "Range",
            "Tornado",
            "TornadoBar",
            "UncertaintyRanges",
            "build_surrogate",
            "monte_carlo",
            "tornado",
        ),
        "economics.uncertainty",
    ),
}


def __getattr__(name: str) -> typing.Any:
    """The lazily imported public names of :data:`_LAZY`."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'economics' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_SENSITIVITY_RATES",
    "DIMENSION_NAMES",
    "DOLLAR_AMOUNT",
    "GB",
    "GPU",
    "GROUP_NAMES",
    "INPUT_LABELS",
    "ITEM_LABEL",
    "MAX_FILE_BYTES",
    "MS",
    "NEGOTIABLE_ITEMS",
    "PRECISIONS",
    "ROUTE_WORDS",
    "SCHEMA_VERSION",
    "SECONDS_PER_HOUR",
    "TFLOPS",
    "USD",
    "ARScheme",
    "AccuracyReport",
    "ApiOffer",
    "Band",
    "BenchmarkFormatError",
    "CalibrationProfile",
    "Catalog",
    "Claim",
    "CloseCall",
    "Comparison",
    "DecisionGrid",
    "Deployment",
    "DiffusionScheme",
    "DisplayRate",
    "Efficiency",
    "FinanceSettings",
    "FleetPlan",
    "FleetSummary",
    "FlipThreshold",
    "GpuAddition",
    "Horizon",
    "HorizonSettings",
    "MeasuredThroughput",
    "ModelSpec",
    "MonteCarlo",
    "NegotiatedPrice",
    "NegotiatedPriceError",
    "NodeOffer",
    "OptionResult",
    "OwnedNode",
    "OwnedOption",
    "PlanCarbon",
    "PointResidual",
    "Policy",
    "PriceTextError",
    "Range",
    "RentedNode",
    "Result",
    "RunContext",
    "SavedCalibration",
    "Scenario",
    "ScenarioError",
    "Snapshot",
    "SpeculativeScheme",
    "Tornado",
    "TornadoBar",
    "UncertaintyRanges",
    "UnknownOptionError",
    "WhatChanged",
    "Workload",
    "WorkloadDecision",
    "add_gpus",
    "api_cost_per_request",
    "api_usd_per_task",
    "apply_calibration",
    "apply_negotiated",
    "argument",
    "break_even_demand",
    "break_even_failure_cost",
    "break_even_utilization",
    "build_surrogate",
    "by_id",
    "calibrated_options",
    "calibration_report",
    "canonical_json",
    "capital_recovery_factor",
    "carbon_statement",
    "catalog_node_inputs",
    "compare",
    "compare_with_prices",
    "continuous_batching",
    "cost_per_mtok",
    "cost_per_mtok_capacity_form",
    "cost_per_request_dedicated",
    "cost_per_request_pooled",
    "crossover_sensitivity",
    "csv_text",
    "currency_statement",
    "default_scenario",
    "display_rate",
    "dollar_value",
    "dollars_alike",
    "energy_table",
    "error_items",
    "evaluate",
    "evaluate_grid",
    "evaluate_with_plan",
    "expected_cost_per_task",
    "field_path",
    "finance_pack_section",
    "fit_problem",
    "fit_profile",
    "forward_time",
    "fx_rates",
    "grid_factor",
    "horizon",
    "http_url",
    "idle_cost_usd_per_month",
    "joined",
    "list_presets",
    "load_catalog",
    "load_engines",
    "load_scenario",
    "match_catalog_models",
    "matching_options",
    "migrate",
    "monte_carlo",
    "node_cost_usd_per_hour",
    "option_band_ratio",
    "owned_node_cost_breakdown",
    "parse_money",
    "parse_percent",
    "parse_scenario",
    "plan_carbon",
    "plural",
    "price_book",
    "price_book_frame",
    "price_trends",
    "problem_of",
    "quoted",
    "read_benchmark",
    "remove_option",
    "replica_choices",
    "replica_gpus",
    "replica_limit",
    "replicas_for_peak",
    "reprice",
    "route",
    "route_words",
    "saved_calibration",
    "scenario_changes",
    "scenario_json",
    "sentence",
    "serving_choices",
    "slo_capacity",
    "throughput_band",
    "to_display",
    "tornado",
    "typed_source",
    "what_changed",
]
