"""``python -m economics horizon SCENARIO.json [--years N] [--api-change X] [--sensitivity] [--format table|json]``.

Re-plans the scenario for each year of a 1–5 year horizon and prints per-year bills and the NPV of each
plan, the crossover year (when owning stops paying), optionally its sensitivity to the API price decline,
and the owned nodes' book and economic cost, in the scenario's display currency (stated). Bad input exits
with status 2 and one line per problem naming the field.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli.jsonout import dumps

PROG = "python -m economics horizon"


def _years(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of years, got {text!r}") from None
    if not 1 <= n <= 5:
        raise argparse.ArgumentTypeError(f"the horizon is 1 to 5 years, got {n}")
    return n


def _change(text: str) -> float:
    try:
        x = float(text.rstrip("%")) / (100.0 if text.endswith("%") else 1.0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a yearly change such as -0.4 or -40%, got {text!r}") from None
    if not -0.95 <= x <= 5.0:
        raise argparse.ArgumentTypeError(f"a yearly change must be between -95% and +500%, got {text!r}")
    return x


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    p = subparsers.add_parser(
        "horizon",
        help="re-plan a scenario year by year: bills, NPV, crossover year",
        description="Multi-year horizon of a scenario file: per-year bills and NPV of each plan, the year owning "
        "stops paying, book vs economic depreciation, in the scenario's display currency.",
    )
    p.add_argument("scenario", metavar="SCENARIO.json", help="scenario file (see `python -m economics schema`)")
    p.add_argument("--years", type=_years, default=None, help="1 to 5 (default: the scenario's, else 5)")
    p.add_argument(
        "--api-change",
        type=_change,
        default=None,
        metavar="X",
        help="API price change per year, e.g. --api-change=-0.4 or --api-change=-40%%",
    )
    p.add_argument("--sensitivity", action="store_true", help="also the crossover at -0%% … -60%%/year API prices")
    p.add_argument("--format", choices=("table", "json"), default="table", help="output format (default: table)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from economics.catalog import CatalogError
    from economics.currency import display_rate
    from economics.finance.data import FinanceDataError
    from economics.finance.horizon import DEFAULT_SENSITIVITY_RATES, crossover_sensitivity, horizon
    from economics.finance.report import horizon_dict, horizon_table
    from economics.io.scenarios import ScenarioError, load_scenario

    try:
        scenario = load_scenario(args.scenario)
        rate = display_rate(scenario)
        h = horizon(scenario, years=args.years, api_change_per_year=args.api_change)
        sens: tuple[tuple[float, int | None], ...] = ()
        if args.sensitivity:
            sens = crossover_sensitivity(scenario, DEFAULT_SENSITIVITY_RATES, years=args.years, known=h)
    except ScenarioError as e:
        for line in e.problems:
            print(f"{PROG}: error: {line}", file=sys.stderr)
        return 2
    except (CatalogError, FinanceDataError) as e:
        print(f"{PROG}: error: {e}".splitlines()[0], file=sys.stderr)
        return 2
    if args.format == "json":
        print(dumps(horizon_dict(h, rate, sens)))
    else:
        print(horizon_table(h, rate, sens))
    return 0
