"""``python -m economics evaluate SCENARIO.json [--as-of DATE] [--format table|json]``.

Prints, per workload, the route, its reason and the cost on every option; then the fleet totals and what
the owned nodes cost while idle. Bad input (malformed JSON, unknown ids, out-of-range values, a date with no
prices) exits with status 2 and one line per problem on stderr, each naming the field path.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import sys
from collections import defaultdict
from typing import Any

from economics.result import OptionResult, Result

PROG = "python -m economics evaluate"


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date as YYYY-MM-DD, got {text!r}") from None


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    p = subparsers.add_parser(
        "evaluate",
        help="route every workload of a scenario and cost the fleet",
        description="Evaluate a scenario file: per workload and option cost, the chosen route and why, "
        "fleet totals and the idle cost of owned nodes.",
    )
    p.add_argument("scenario", metavar="SCENARIO.json", help="scenario file (see `python -m economics schema`)")
    p.add_argument("--as-of", type=_date, metavar="DATE", help="re-price offers with the catalog prices of DATE")
    p.add_argument("--format", choices=("table", "json"), default="table", help="output format (default: table)")
    p.add_argument(
        "--lens",
        choices=("cash", "full"),
        help="cash: bought nodes are sunk; full: every node carries its capital share (default: the scenario's)",
    )
    p.set_defaults(run=run)


def _problems(lines: tuple[str, ...] | list[str]) -> int:
    for line in lines:
        print(f"{PROG}: error: {line}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from economics.catalog import CatalogError
    from economics.evaluate import evaluate
    from economics.io.catalog import load_catalog
    from economics.io.scenarios import ScenarioError, load_scenario
    from economics.pricing import reprice

    try:
        scenario = load_scenario(args.scenario)
        if args.as_of is not None:
            scenario = reprice(scenario, load_catalog(), args.as_of)
    except ScenarioError as e:
        return _problems(e.problems)
    except CatalogError as e:
        return _problems([str(p) for p in e.problems])
    except RecursionError:  # JSON nested deeper than Python's parser goes
        return _problems(["(json): the file is nested too deeply to be a scenario"])
    if getattr(args, "lens", None):
        scenario = scenario.model_copy(update={"policy": scenario.policy.model_copy(update={"lens": args.lens})})
    result = evaluate(scenario)
    text = json.dumps(json_document(result), indent=2) if args.format == "json" else format_table(result)
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `| head` closed the pipe: not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0


def json_document(result: Result) -> dict[str, Any]:
    """The JSON output: the typed result, with the plan's per-workload lines also under ``workloads``
    (each with its flips, ``to_option_id`` null when no option takes over)."""
    doc = result.model_dump(mode="json")
    flips = {d.workload_id: [f.model_dump(mode="json") for f in d.flips] for d in result.decisions}
    plan = doc.get("plan") or {}
    doc["workloads"] = [dict(w, flips=flips.get(w["workload_id"], [])) for w in plan.get("workloads", [])]
    return doc


# ---- the table ---------------------------------------------------------------------------------------------------


def _usd(x: float, digits: int = 4) -> str:
    if not math.isfinite(x):
        return "–"
    return f"${x:,.{digits}g}" if abs(x) < 1000 else f"${x:,.0f}"


def _ms(x: float) -> str:
    return f"{1e3 * x:.3g}" if math.isfinite(x) else "–"


def _s(x: float) -> str:
    return f"{x:.3g}" if math.isfinite(x) else "–"


def _grid(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        out.append("  " + "  ".join(cells).rstrip())
    return out


def _option_row(o: OptionResult, chosen: str | None) -> list[str]:
    mark = "→" if o.option_id == chosen else " "
    if not o.feasible:
        return [mark, o.option_id, "no", "", "", "", "", "", "", "", "", o.reason]
    return [
        mark,
        o.option_id,
        "yes",
        _usd(o.cost_usd_per_request),
        _usd(o.cost_usd_per_mtok_output, 3),
        _usd(o.expected_cost_usd_per_request),
        f"{o.quality:.2f}",
        _ms(o.tpot_s),
        _s(o.ttft_s),
        str(o.gpus) if o.gpus else "",
        f"{100 * o.utilization:.2g}%" if o.kind != "api" else "",
        ("speculation on" if o.speculation_on else "") + ("batch tier" if o.batch_tier else ""),
    ]


def _plan_lines(result: Result) -> list[str]:
    p = result.plan
    assert p is not None
    lens = "cash (bought nodes are sunk)" if p.lens == "cash" else "full cost (every node carries its capital)"
    out = [
        f"Plan — lens: {lens}; solver: {p.solver_status}" + (f", gap {100 * p.mip_gap:.3g}%" if p.mip_gap > 0 else ""),
        f"  total {_usd(p.total_cost_usd_per_month)}/month (cash {_usd(p.cash_cost_usd_per_month)}, "
        f"full cost {_usd(p.full_cost_usd_per_month)}); with expected failure cost "
        f"{_usd(p.objective_usd_per_month)}/month",
        f"  sunk: {_usd(p.sunk_capital_usd)} of capital already bought, {_usd(p.sunk_usd_per_month)}/month",
    ]
    if p.nodes_to_buy:
        out.append(
            f"  needs {p.nodes_to_buy} more node(s): +{_usd(p.capital_to_buy_usd)} capital, "
            f"+{_usd(p.new_nodes_usd_per_month)}/month"
        )
    for n in p.nodes:
        out.append(
            f"  node {n.node_id}: {n.nodes_used} {n.rental_unit}(s) used, {n.nodes_owned} owned, "
            f"{n.nodes_to_buy} to buy, {n.gpus_used}/{n.gpus_paid} GPUs carry replicas, "
            f"utilization {100 * n.utilization:.2g}%, {_usd(n.cost_usd_per_month)}/month in the lens"
        )
    for r in p.replicas:
        out.append(f"  replicas {r.option_id}: {r.replicas} ({r.gpus} GPUs), busiest hour {100 * r.peak_load:.3g}%")
    if p.unallocated_usd_per_month:
        out.append(f"  idle bought nodes no workload uses: {_usd(p.unallocated_usd_per_month)}/month")
    out.append("")
    return out


def format_table(result: Result) -> str:
    """The human-readable report of :func:`economics.evaluate.evaluate`'s result."""
    lines = [f"{result.scenario_name} — prices as of {result.review_date.isoformat()}", ""]
    header = ["", "option", "ok", "$/req", "$/Mtok out", "J $/task", "q", "TPOT ms", "TTFT s", "GPUs", "util", "note"]
    by_workload: dict[str, list[OptionResult]] = defaultdict(list)
    for o in result.options:  # one pass: the table stays linear in the number of workloads
        by_workload[o.workload_id].append(o)
    lines.append("  option table: stand-alone comparison (each option on its own dedicated replicas, full cost)")
    lines.append("")
    for d in result.decisions:
        lines.append(f"{d.workload_name} [{d.workload_id}]")
        split = ""
        if len(d.share_by_option) > 1:
            split = " — split: " + ", ".join(f"{100 * v:.3g}% {k}" for k, v in d.share_by_option.items())
        lines.append(
            f"  route: {d.chosen_option_id or 'none'} ({d.route_label}), its share of the plan "
            f"{_usd(d.monthly_cost_usd)}/month{split}"
        )
        lines.append(f"  why:   {d.reason}")
        rows = [header] + [_option_row(o, d.chosen_option_id) for o in by_workload[d.workload_id]]
        lines.extend(_grid(rows, right={3, 4, 5, 6, 7, 8, 9, 10}))
        flips = [f.text for f in d.flips if f.threshold is not None]
        if flips:
            lines.append("  flips: " + flips[0])
            lines.extend("         " + text for text in flips[1:])
        lines.append("")
    if result.plan is not None:
        lines += _plan_lines(result)
    f = result.fleet
    lines += [
        "Fleet",
        f"  owned nodes {f.owned_nodes} ({f.owned_gpus} GPUs), {_usd(f.owned_cost_usd_per_month)}/month, "
        f"utilization {100 * f.owned_utilization:.2g}%",
        f"  idle owned capacity: {_usd(f.idle_cost_usd_per_month)}/month",
        f"  rented {_usd(f.rented_cost_usd_per_month)}/month, APIs {_usd(f.api_cost_usd_per_month)}/month, "
        f"total {_usd(f.total_cost_usd_per_month)}/month",
    ]
    if f.all_api_cost_usd_per_month is not None:
        savings = f.all_api_cost_usd_per_month - f.total_cost_usd_per_month
        lines.append(
            f"  all-API baseline (each workload that may use an API on the best API for it, the rest as planned): "
            f"{_usd(f.all_api_cost_usd_per_month)}/month; this plan "
            + (f"saves {_usd(savings)}/month" if savings >= 0 else f"costs {_usd(-savings)}/month more")
        )
    if result.warnings:
        lines += ["", "Warnings", *("  " + w for w in result.warnings)]
    return "\n".join(lines)
