"""``python -m economics evaluate SCENARIO.json [--as-of DATE] [--format table|json]``.

Prints, per workload, the route, its reason and the cost on every option; then the fleet totals and what
the owned nodes cost while idle. Bad input (malformed JSON, unknown ids, out-of-range values, a date with no
prices) exits with status 2 and one line per problem on stderr, each naming the field path.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import sys
from collections import defaultdict
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from cli.jsonout import dumps
from economics.plan import NO_PLAN
from economics.result import OptionResult, Result
from economics.words import DOLLAR_AMOUNT, dollar_value, plural

if TYPE_CHECKING:
    from economics.currency import DisplayRate
    from economics.energy import EnergyRow, PlanCarbon

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
    from economics.currency import currency_statement, display_rate
    from economics.energy import carbon_statement, energy_table, plan_carbon
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
    try:
        rate = display_rate(scenario)
    except ScenarioError as e:
        return _problems(e.problems)
    result = evaluate(scenario)
    carbon = plan_carbon(scenario, result)
    if args.format == "json":
        text = dumps(json_document(result, rate=rate, carbon=carbon))
    else:
        energy = energy_lines(energy_table(scenario, result), result)
        notes = (currency_statement(rate), carbon_statement(carbon, rate))
        text = format_table(result, rate, notes=notes, tail=energy)
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `| head` closed the pipe: not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0


def json_document(
    result: Result, *, rate: DisplayRate | None = None, carbon: PlanCarbon | None = None
) -> dict[str, Any]:
    """The JSON output: the typed result, with the plan's per-workload lines also under ``workloads``
    (each with its flips, ``to_option_id`` null when no option takes over). Amounts stay in USD (their names
    say so); ``currency`` states the display currency, its rate and date, and the headline in it; ``carbon``
    the owned nodes' and rented GPUs' kWh, their CO2e and carbon cost (APIs publish no energy)."""
    doc = result.model_dump(mode="json")
    if rate is not None:
        f = result.fleet
        doc["currency"] = {
            "code": rate.code,
            "units_per_usd": rate.units_per_usd,
            "as_of": rate.as_of.isoformat() if rate.as_of else None,
            "source": rate.source,
            "total_cost_per_month": f.total_cost_usd_per_month * rate.units_per_usd,
            "all_api_cost_per_month": None
            if f.all_api_cost_usd_per_month is None
            else f.all_api_cost_usd_per_month * rate.units_per_usd,
        }
    if carbon is not None:
        doc["carbon"] = {
            "owned_kwh_per_month": carbon.kwh_per_month,
            "rented_kwh_per_month": carbon.rented_kwh_per_month,
            "api_energy": "not published by the providers: not counted",
            "owned_kg_co2e_per_month": carbon.kwh_per_month * carbon.factor.kg_co2e_per_kwh if carbon.factor else None,
            "kg_co2e_per_month": carbon.kg_co2e_per_month,  # owned and rented
            "grid_kg_co2e_per_kwh": carbon.factor.kg_co2e_per_kwh if carbon.factor else None,
            "grid_region": carbon.factor.region if carbon.factor else None,
            "grid_year": carbon.factor.year if carbon.factor else None,
            "carbon_price_usd_per_tonne": carbon.carbon_price_usd_per_tonne,
            "carbon_usd_per_month": carbon.carbon_usd_per_month,
        }
    flips = {d.workload_id: [f.model_dump(mode="json") for f in d.flips] for d in result.decisions}
    plan = doc.get("plan") or {}
    doc["workloads"] = [dict(w, flips=flips.get(w["workload_id"], [])) for w in plan.get("workloads", [])]
    calls = {d.workload_id: d for d in result.decisions}  # issue 13: "too close to call" and the two bands
    for w in doc["workloads"]:
        d = calls.get(w["workload_id"])
        w["too_close_to_call"] = bool(d and d.too_close_to_call)
        w["close_call"] = d.close_call.model_dump(mode="json") if d and d.close_call else None
    return doc


# ---- the table ---------------------------------------------------------------------------------------------------


def _usd(x: float, digits: int = 4, rate: DisplayRate | None = None) -> str:
    """An amount computed in USD, shown in the display currency: ``$1,234`` or ``SGD 1,604`` (converted here)."""
    if not math.isfinite(x):
        return "–"
    sign = "$"
    if rate is not None and not rate.is_identity:
        x, sign = x * rate.units_per_usd, f"{rate.code} "
    return f"{sign}{x:,.{digits}g}" if abs(x) < 1000 else f"{sign}{x:,.0f}"


def _said(text: str, rate: DisplayRate | None = None) -> str:
    """A sentence the model wrote in US dollars (a reason, a flip, a close call), each amount re-stated as the
    table writes money: "SGD 0.117/task", where the route's line above reads "SGD 47,146/month"."""
    if rate is None or rate.is_identity:
        return text
    return DOLLAR_AMOUNT.sub(lambda m: _usd(dollar_value(m), rate=rate), text)


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


def _band(o: OptionResult, rate: DisplayRate | None = None) -> str:
    """The likely range of an owned option's $/Mtok (issue 13), "measured" for a benchmarked one."""
    if o.band_basis == "measured":
        return "measured"
    if o.cost_low_usd_per_mtok_output is None or o.cost_high_usd_per_mtok_output is None:
        return ""
    usd = partial(_usd, rate=rate)
    return f"{usd(o.cost_low_usd_per_mtok_output, 3)}–{usd(o.cost_high_usd_per_mtok_output, 3)}"


def _option_row(o: OptionResult, chosen: str | None, rate: DisplayRate | None = None) -> list[str]:
    usd = partial(_usd, rate=rate)
    mark = "→" if o.option_id == chosen else " "
    if not o.feasible:
        return [mark, o.option_id, "no", "", "", "", "", "", "", "", "", "", _said(o.reason, rate)]
    return [
        mark,
        o.option_id,
        "yes",
        usd(o.cost_usd_per_request),
        usd(o.cost_usd_per_mtok_output, 3),
        _band(o, rate),
        usd(o.expected_cost_usd_per_request),
        f"{o.quality:.2f}",
        _ms(o.tpot_s),
        _s(o.ttft_s),
        str(o.gpus) if o.gpus else "",
        f"{100 * o.utilization:.2g}%" if o.kind != "api" else "",
        ("speculation on" if o.speculation_on else "") + ("batch tier" if o.batch_tier else ""),
    ]


def _plan_lines(result: Result, rate: DisplayRate | None = None) -> list[str]:
    usd = partial(_usd, rate=rate)
    p = result.plan
    assert p is not None
    lens = "cash (bought nodes are sunk)" if p.lens == "cash" else "full cost (every node carries its capital)"
    out = [
        f"Plan — lens: {lens}; solver: {p.solver_status}" + _gap_words(p.solver_status, p.mip_gap),
        f"  total {usd(p.total_cost_usd_per_month)}/month (cash {usd(p.cash_cost_usd_per_month)}, "
        f"full cost {usd(p.full_cost_usd_per_month)}); with expected failure cost "
        f"{usd(p.objective_usd_per_month)}/month",
        f"  sunk: {usd(p.sunk_capital_usd)} of capital already bought, {usd(p.sunk_usd_per_month)}/month",
    ]
    if p.nodes_to_buy:
        out.append(
            f"  needs {plural(p.nodes_to_buy, 'more node')}: +{usd(p.capital_to_buy_usd)} capital, "
            f"+{usd(p.new_nodes_usd_per_month)}/month"
        )
    for n in p.nodes:
        out.append(
            f"  node {n.node_id}: {plural(n.nodes_used, n.rental_unit)} used, {n.nodes_owned} owned, "
            f"{n.nodes_to_buy} to buy, {n.gpus_used}/{n.gpus_paid} GPUs carry replicas, "
            f"utilization {100 * n.utilization:.2g}%, {usd(n.cost_usd_per_month)}/month in the lens"
        )
    for r in p.replicas:
        out.append(f"  replicas {r.option_id}: {r.replicas} ({r.gpus} GPUs), busiest hour {100 * r.peak_load:.3g}%")
    if p.unallocated_usd_per_month:
        out.append(f"  idle bought nodes no workload uses: {usd(p.unallocated_usd_per_month)}/month")
    out.append("")
    return out


def energy_lines(rows: Sequence[EnergyRow], result: Result) -> list[str]:
    """Energy and emissions per million output tokens of each workload's chosen route (APIs publish none)."""
    chosen = {(d.workload_id, d.chosen_option_id) for d in result.decisions}
    out = ["Energy per million output tokens (chosen routes, idle hours included)"]
    for r in rows:
        if (r.workload_id, r.option_id) not in chosen:
            continue
        if r.kwh_per_mtok_output is None:
            out.append(f"  {r.workload_id} on {r.option_id}: {r.basis}")
            continue
        kg = "" if r.kg_co2e_per_mtok_output is None else f", {r.kg_co2e_per_mtok_output:,.3g} kg CO2e"
        out.append(f"  {r.workload_id} on {r.option_id}: {r.kwh_per_mtok_output:,.3g} kWh{kg}")
    return out if len(out) > 1 else []


def format_table(
    result: Result, rate: DisplayRate | None = None, notes: Sequence[str] = (), tail: Sequence[str] = ()
) -> str:
    """The human-readable report of :func:`economics.evaluate.evaluate`'s result."""
    usd = partial(_usd, rate=rate)
    lines = [f"{result.scenario_name} — prices as of {result.review_date.isoformat()}", *notes, ""]
    cur = "$" if rate is None or rate.is_identity else rate.code
    header = ["", "option", "ok", f"{cur}/req", f"{cur}/Mtok out", "likely range", f"J {cur}/task", "q", "TPOT ms",
              "TTFT s", "GPUs", "util", "note"]  # fmt: skip
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
            f"{usd(d.monthly_cost_usd)}/month{split}"
        )
        lines.append(f"  why:   {_said(d.reason, rate)}")
        if d.too_close_to_call and d.close_call is not None:
            c, basis = d.close_call, _said(d.close_call.basis, rate)
            lines.append(
                f"  too close to call at this accuracy: {usd(c.chosen_usd_per_task)}/task "
                f"(likely {usd(c.chosen_low_usd_per_task)}–{usd(c.chosen_high_usd_per_task)}) against "
                f"{usd(c.runner_up_usd_per_task)} on {c.runner_up_option_id} "
                f"(likely {usd(c.runner_up_low_usd_per_task)}–{usd(c.runner_up_high_usd_per_task)}); {basis}"
            )
        rows = [header] + [_option_row(o, d.chosen_option_id, rate) for o in by_workload[d.workload_id]]
        lines.extend(_grid(rows, right={3, 4, 5, 6, 7, 8, 9, 10, 11}))
        flips = [_said(f.text, rate) for f in d.flips if f.threshold is not None]
        if flips:
            lines.append("  flips: " + flips[0])
            lines.extend("         " + text for text in flips[1:])
        lines.append("")
    if result.plan is not None:
        lines += _plan_lines(result, rate)
    f = result.fleet
    lines += [
        "Fleet",
        f"  owned nodes {f.owned_nodes} ({f.owned_gpus} GPUs), {usd(f.owned_cost_usd_per_month)}/month, "
        f"utilization {100 * f.owned_utilization:.2g}%",
        f"  idle owned capacity: {usd(f.idle_cost_usd_per_month)}/month",
        f"  rented {usd(f.rented_cost_usd_per_month)}/month, APIs {usd(f.api_cost_usd_per_month)}/month, "
        f"total {usd(f.total_cost_usd_per_month)}/month",
    ]
    if f.all_api_cost_usd_per_month is not None:
        savings = f.all_api_cost_usd_per_month - f.total_cost_usd_per_month
        lines.append(
            f"  all-API baseline (each workload that may use an API on the best API for it, the rest as planned): "
            f"{usd(f.all_api_cost_usd_per_month)}/month; this plan "
            + (f"saves {usd(savings)}/month" if savings >= 0 else f"costs {usd(-savings)}/month more")
        )
    if tail:
        lines += ["", *tail]
    if result.warnings:
        lines += ["", "Warnings", *("  " + _said(w, rate) for w in result.warnings)]
    return "\n".join(lines)


def _gap_words(status: str, gap: float) -> str:
    """ ", gap 0.012%" for a plan with a proven gap; ", gap unknown" when no bound was proven; "" when optimal."""
    if status.startswith(NO_PLAN):
        return ", gap unknown"
    return f", gap {100 * gap:.3g}%" if gap > 0 else ""
