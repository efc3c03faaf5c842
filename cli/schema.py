"""``python -m economics schema``: the JSON schema of a scenario file (what ``evaluate`` accepts)."""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    p = subparsers.add_parser(
        "schema",
        help="print the JSON schema of a scenario file",
        description="Print the JSON schema of the Scenario model: the format `evaluate` reads.",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from economics.scenario import Scenario

    print(json.dumps(Scenario.model_json_schema(), indent=2))
    return 0
