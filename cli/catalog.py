"""``python -m economics catalog``: the ids the other subcommands accept, per kind."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

KINDS = ("gpus", "models", "speculative", "diffusion")


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    p = subparsers.add_parser("catalog", help="list catalog ids", description="List the catalog's ids per kind.")
    p.add_argument("--kind", choices=KINDS, help="only this kind")
    p.add_argument("--format", choices=("table", "json"), default="table", help="output format")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from economics.io.catalog import load_catalog

    catalog = load_catalog()
    tables: dict[str, Mapping[str, BaseModel]] = {
        "gpus": catalog.gpus,
        "models": catalog.models,
        "speculative": catalog.speculative,
        "diffusion": catalog.diffusion,
    }
    kinds = (args.kind,) if args.kind else KINDS
    if args.format == "json":
        print(json.dumps({kind: list(tables[kind]) for kind in kinds}, indent=2))
        return 0
    blocks = []
    for kind in kinds:
        items = tables[kind]
        width = max((len(i) for i in items), default=0)
        lines = [f"  {item_id:<{width}}  {getattr(item, 'name', '')}" for item_id, item in items.items()]
        blocks.append("\n".join([f"{kind} ({len(items)}):", *lines]))
    print("\n\n".join(blocks))
    return 0
