"""``python -m economics add-gpus SCENARIO.json (--rent INSTANCE | --buy GPU --capex USD --power KW) --model ID
--out S2.json``, and ``remove-option SCENARIO.json OPTION --out S2.json``.

The command-line twin of the dashboard's "Add or take out GPUs" dialog (:mod:`economics.gpu_options`): adds a
rented catalog instance at its price in force on the scenario's review date, or a node to buy at the price and
power given, with a catalog model served on it; or takes an option out. Writes the new scenario to ``--out`` and
says what it added. Bad input exits with status 2 and one line naming the argument.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from typing import Any

from cli.main import CliError, read_scenario, write_scenario

#: The argument behind each field of :class:`economics.gpu_options.GpuAddition`, for messages.
FLAGS = {
    "instance_id": "--rent",
    "gpu_id": "--buy",
    "capex_usd": "--capex",
    "node_power_kw": "--power",
    "gpus_per_node": "--gpus-per-node",
    "nodes_owned": "--owned",
    "gpus_per_replica": "--gpus-per-replica",
    "model_id": "--model",
    "serving": "--serving",
    "quality": "--quality",
    "option_id": "OPTION",
    "scenario": "SCENARIO.json",
}


def _usd(text: str) -> float:
    """An amount as the app's price fields read it ("500000", "$500,000", "$500k"); argparse names the flag."""
    from economics.price_text import PriceTextError, parse_money

    try:
        return parse_money(text, "purchase price", maximum=1e8)
    except PriceTextError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("purchase price: ")) from None


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    from economics.hardware import PRECISIONS

    p = subparsers.add_parser(
        "add-gpus",
        help="add a rented catalog instance or a node to buy, with a model on it, to a scenario",
        description="Add GPUs to a scenario file: a catalog instance at its price on the review date (--rent), or "
        "a node to buy (--buy GPU --capex USD --power KW), serving a catalog model. See `catalog` for the ids.",
    )
    p.add_argument("scenario", metavar="SCENARIO.json", help="scenario file")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--rent", metavar="INSTANCE", help="catalog instance price id (data/prices/instances.csv)")
    where.add_argument("--buy", metavar="GPU", help="catalog GPU id of a node to buy")
    p.add_argument(
        "--capex", type=_usd, metavar="USD", help="with --buy: purchase price of one node (500000, $500k, 1.2M)"
    )
    p.add_argument("--power", type=float, metavar="KW", help="with --buy: the node's maximum power")
    p.add_argument("--gpus-per-node", type=int, default=8, metavar="N", help="with --buy: GPUs in a node (8)")
    p.add_argument("--owned", type=int, default=0, metavar="N", help="with --buy: nodes already bought (0)")
    p.add_argument("--model", required=True, metavar="ID", help="catalog model id")
    p.add_argument("--serving", default="ar", metavar="ID", help="ar, a speculative or a diffusion preset id")
    p.add_argument("--precision", choices=PRECISIONS, default="bf16", help="serving precision (bf16)")
    p.add_argument("--gpus-per-replica", type=int, metavar="N", help="GPUs of a replica (default: suggested)")
    p.add_argument("--quality", type=float, default=0.9, metavar="Q", help="share of acceptable answers (0.9)")
    p.add_argument("--out", required=True, metavar="S2.json", help="where to write the new scenario")
    p.set_defaults(run=run_add)

    r = subparsers.add_parser(
        "remove-option",
        help="take an owned or rented option (and its node, if unused) out of a scenario",
        description="Take an option out of a scenario file, and its node when no other option runs there.",
    )
    r.add_argument("scenario", metavar="SCENARIO.json", help="scenario file")
    r.add_argument("option", metavar="OPTION", help="owned or rented option id")
    r.add_argument("--out", required=True, metavar="S2.json", help="where to write the new scenario")
    r.set_defaults(run=run_remove)


def _refused(exc: ValueError) -> CliError:
    """A refusal of :mod:`economics.gpu_options` ("model_id: …") as the argument that holds the value."""
    from economics.gpu_options import problem_of

    field, text = problem_of(exc)
    return CliError(FLAGS.get(field, "SCENARIO.json"), text)


def run_add(args: argparse.Namespace) -> int:
    from economics.gpu_options import GpuAddition, add_gpus
    from economics.io.catalog import load_catalog

    scenario = read_scenario(args.scenario, "SCENARIO.json")
    if args.rent and (args.capex is not None or args.power is not None):
        raise CliError("--capex" if args.capex is not None else "--power", "only applies with --buy")
    fields = {"source": "rent", "instance_id": args.rent} if args.rent else {"source": "buy", "gpu_id": args.buy}
    if args.buy:
        fields |= {"capex_usd": args.capex, "node_power_kw": args.power, "gpus_per_node": args.gpus_per_node}
        fields |= {"nodes_owned": args.owned}
    try:
        addition = GpuAddition.model_validate(
            fields
            | {"model_id": args.model, "serving": args.serving, "precision": args.precision}
            | {"gpus_per_replica": args.gpus_per_replica, "quality": args.quality}
            | {"entered_on": dt.datetime.now(dt.UTC).date()}
        )
        new = add_gpus(scenario, load_catalog(), addition)
    except ValueError as exc:
        raise _refused(exc) from None
    write_scenario(new, args.out)
    option, node = new.owned_options[-1], new.nodes[-1]
    print(f"Added {option.id} ({option.name}) on node {node.id} ({node.name}) in {args.out}", file=sys.stderr)
    return 0


def run_remove(args: argparse.Namespace) -> int:
    from economics.gpu_options import remove_option

    scenario = read_scenario(args.scenario, "SCENARIO.json")
    try:
        new = remove_option(scenario, args.option)
    except ValueError as exc:
        raise _refused(exc) from None
    write_scenario(new, args.out)
    gone = sorted({n.id for n in scenario.nodes} - {n.id for n in new.nodes})
    print(f"Took {args.option} out{f' and node {gone[0]}' if gone else ''} in {args.out}", file=sys.stderr)
    return 0
