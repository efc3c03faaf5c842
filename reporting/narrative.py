"""The meeting pack's narrative: every sentence generated from the scenario and the result the pack exports.

Nothing here is stored text. Counts come from the scenario ("7 workloads", never a number typed into a
description), money and shares are formatted like the dashboard (``$12,345/month``, ``38%``), durations in the
unit a person uses (``8 h``, ``300 ms``), and a scenario that differs from the preset it carries the name of
says so, and what changed. The pack shows the scenario's own description only when it still describes the
scenario (a user's own scenario, or an unchanged preset).
"""

from __future__ import annotations

from dataclasses import dataclass

from economics import (
    OwnedNode,
    RentedNode,
    Result,
    Scenario,
    list_presets,
    load_scenario,
    owned_node_cost_breakdown,
    scenario_changes,
)
from economics import plural as plural  # never "word(s)": the helper the app and the CLI use
from economics.compare import Comparison
from economics.currency import USD, DisplayRate
from economics.uncertainty import MonteCarlo
from economics.words import joined as _and
from economics.words import quoted as _quoted
from economics.words import sentence
from ui.bands import ROUTE_HOLDS_NAMED
from ui.format import CURRENCY_PREFIX, money, money_text, pct, plain, route_words, usd_per_month
from ui.format import duration as app_duration

__all__ = [
    "Baseline",
    "duration",
    "find_baseline",
    "in_prefix",
    "narrative",
    "per_month",
    "plural",
    "scenario_changes",
    "show_description",
]


@dataclass(frozen=True)
class Baseline:
    """The scenario a pack's scenario is compared with to say whether, and how, it was modified."""

    label: str  # e.g. 'the preset "Singapore bank"'
    scenario: Scenario


def duration(seconds: float | None) -> str:
    """A duration as the app writes it (:func:`ui.format.duration`), ``"none"`` when there is none.

    >>> [duration(x) for x in (28_800, 0.3, 0.008, 90, 1.5, 172_800, None)]
    ['8 h', '300 ms', '8 ms', '1.5 min', '1.5 s', '2 days', 'none']
    """
    return "none" if seconds is None else app_duration(seconds)


def in_prefix(text: str, code: str) -> str:
    """A figure formatted in dollars (``$2,665/month``) written with ``code``'s prefix (``S$2,665/month``); the
    number is already in that currency.

    >>> in_prefix("−$5/month", "SGD"), in_prefix("$5", "USD"), in_prefix("$5", "CHF")
    ('−S$5/month', '$5', 'CHF 5')
    """
    return text if code == "USD" else text.replace("$", CURRENCY_PREFIX.get(code, f"{code} "), 1)


def per_month(x_usd: float | None, rate: DisplayRate = USD) -> str:
    """A monthly amount computed in USD, shown in ``rate``'s currency, whole units: ``S$2,665/month``.

    >>> per_month(2049.84, DisplayRate("SGD", 1.3, None, "x"))  # 2,049.84 × 1.3 = 2,664.79
    'S$2,665/month'
    """
    return in_prefix(usd_per_month(None if x_usd is None else x_usd * rate.units_per_usd), rate.code)


def find_baseline(scenario: Scenario) -> Baseline | None:
    """The shipped preset whose name the scenario carries, or None for a scenario of the user's own."""
    for preset in list_presets():
        if preset.name == scenario.name:
            return Baseline(f"the preset {_quoted(preset.name)}", load_scenario(preset.path))
    return None


def show_description(scenario: Scenario, baseline: Baseline | None) -> bool:
    """Show the scenario's own description only while it still describes the scenario."""
    if not scenario.description:
        return False
    if baseline is None or scenario.description != baseline.scenario.description:
        return True  # the user's own scenario, or a description the user rewrote
    return not scenario_changes(baseline.scenario, scenario)


def _provenance(scenario: Scenario, baseline: Baseline | None) -> list[str]:
    head = f"This pack covers the scenario {_quoted(scenario.name)} with prices as of {scenario.review_date:%-d %B %Y}"
    if baseline is None:
        return [head + "."]
    changes = scenario_changes(baseline.scenario, scenario)
    if not changes:
        return [head + f"; it is {baseline.label}, unchanged."]
    out = [head + f". It is modified from {baseline.label}: {'; '.join(changes)}."]
    if scenario.description and scenario.description == baseline.scenario.description:
        out.append("The preset's description no longer matches these numbers, so it is left out of this pack.")
    return out


def _workloads(scenario: Scenario) -> str:
    names = [_quoted(w.name) for w in scenario.workloads]
    sovereign = sum(w.sovereign for w in scenario.workloads)
    text = f"It has {plural(len(names), 'workload')}: {_and(names)}."
    if sovereign:
        who = f"All {len(names)}" if sovereign == len(names) > 1 else plural(sovereign, "workload").capitalize()
        text += f" {who} must stay on owned infrastructure (sovereign data)."
    return text


def _latency(scenario: Scenario) -> str | None:
    parts = []
    for w in scenario.workloads:
        targets = []
        if w.ttft_slo_s is not None:
            targets.append(f"first token within {duration(w.ttft_slo_s)}")
        if w.tpot_slo_s is not None:
            targets.append(f"{duration(w.tpot_slo_s)} per token")
        if w.deadline_s is not None:
            targets.append(f"done within {duration(w.deadline_s)}")
        if targets:
            parts.append(f"{_quoted(w.name)} {_and(targets)}")
    return f"Latency targets: {'; '.join(parts)}." if parts else None


def _routes(result: Result) -> str:
    groups: dict[str, list[str]] = {}
    for d in result.decisions:
        groups.setdefault(route_words(d.route_label), []).append(_quoted(d.workload_name))
    return "Where each workload runs: " + "; ".join(f"{label}: {_and(names)}" for label, names in groups.items()) + "."


def _money(result: Result, rate: DisplayRate) -> str:
    f = result.fleet
    text = f"The chosen routes cost {per_month(f.total_cost_usd_per_month, rate)}"
    if f.all_api_cost_usd_per_month is None:
        return text + "; this scenario has no all-API comparison."
    saving = f.all_api_cost_usd_per_month - f.total_cost_usd_per_month
    text += f", against {per_month(f.all_api_cost_usd_per_month, rate)} with every movable workload on its best API"
    if saving >= 0:
        share = pct(saving / f.all_api_cost_usd_per_month) if f.all_api_cost_usd_per_month > 0 else pct(0.0)
        return text + f": a saving of {per_month(saving, rate)} ({share})."
    return text + f": {per_month(-saving, rate)} more."


def _fleet(scenario: Scenario, result: Result, rate: DisplayRate) -> list[str]:
    f, c, k = result.fleet, rate.code, rate.units_per_usd
    out = []
    if f.owned_gpus:
        # the idle hours at full cost, as the Overview's "Idle GPUs" card and the key figures show them: in the
        # cash lens the lens's own idle cost is 0 (the node is sunk), which read as "nothing is wasted"
        idle = result.plan.idle_owned_full_cost_usd_per_month if result.plan is not None else f.idle_cost_usd_per_month
        sunk = ""
        if scenario.policy.lens == "cash":
            sunk = " (paid whatever the plan does, so not a new spend in the cash view)"
        out.append(
            f"The owned fleet has {plural(f.owned_gpus, 'GPU')} in {plural(f.owned_nodes, 'node')}, busy "
            f"{pct(f.owned_utilization)} of the paid hours; the idle hours' share of its full cost is "
            f"{per_month(idle, rate)}{sunk}."
        )
    used = {o.node_id for o in scenario.owned_options}
    plan_nodes = result.plan.nodes if result.plan is not None else ()
    rented = {n.node_id: n.nodes_used for n in plan_nodes if n.kind == "rented"}
    for node in scenario.nodes:
        if node.id not in used:
            continue
        if isinstance(node, OwnedNode):
            hour = float(owned_node_cost_breakdown(node, f.owned_utilization).total_usd_per_hour)
            gpus = node.gpus_per_node
            out.append(
                f"{_quoted(node.name)} costs {money(hour, c, k)} an hour all-in ({money(hour / gpus, c, k)} per "
                f"GPU-hour), with electricity at {in_prefix(f'${node.electricity_usd_per_kwh * k:,.2f}', c)} per kWh "
                "and capital recovered over "
                f"{node.economic_life_years:g} years at {pct(node.cost_of_capital_per_year)}."
            )
        elif isinstance(node, RentedNode):
            price = money(node.price_usd_per_gpu_hour, c, k)
            if result.plan is None or rented.get(node.id, 0) > 0:
                out.append(f"{_quoted(node.name)} is rented at {price} per GPU-hour.")
            else:  # an offer the plan weighed and left: its price, without saying it is rented
                out.append(f"{_quoted(node.name)} would rent at {price} per GPU-hour; the plan rents none of it.")
    return out


def _closest_flip(result: Result, rate: DisplayRate) -> str | None:
    best: tuple[float, str] | None = None
    for d in result.decisions:
        for f in d.flips:
            if f.threshold is None or f.current == 0:
                continue
            distance = abs(f.threshold - f.current) / abs(f.current)
            if best is None or distance < best[0]:
                text = money_text(plain(f.text), rate.code, rate.units_per_usd)
                best = (distance, f"Closest to changing: {_quoted(d.workload_name)}. {text}")
    return None if best is None else best[1]


def _comparison(c: Comparison, rate: DisplayRate) -> str:
    moved = len(c.flipped)
    change = c.total_change_usd_per_month
    if not moved and c.prices.empty and abs(change) < 0.005:
        # "the monthly bill is unchanged and 0 workloads change route" read as the review compared with itself
        return sentence(f"{c.after_label} and {c.before_label} have the same prices, routes and monthly bill.")
    direction = "rises" if change > 0 else "falls" if change < 0 else "is unchanged"
    amount = f" by {per_month(abs(change), rate)}" if change else ""
    return (
        f"Against {c.before_label}, the monthly bill {direction}{amount} and "
        f"{plural(moved, 'workload changes', 'workloads change')} route."
    )


def _uncertainty(mc: MonteCarlo, rate: DisplayRate) -> str:
    text = (
        f"Across {mc.draws:,} draws of the uncertain inputs, the saving against the best APIs lies between "
        f"{per_month(mc.savings_p05_usd_per_month, rate)} and {per_month(mc.savings_p95_usd_per_month, rate)} in "
        f"90% of the draws (median {per_month(mc.savings_p50_usd_per_month, rate)})."
    )
    wl = mc.workloads
    if "prob_route_unchanged" not in wl.columns:
        return text
    shaky = wl[wl["prob_route_unchanged"] < ROUTE_HOLDS_NAMED].sort_values("prob_route_unchanged")  # NaN: not <
    if not shaky.empty:  # the route most likely to change, in the words of the draws table
        first = shaky.iloc[0]
        text += (
            f" The least settled route is {_quoted(str(first['workload_name']))}'s: it holds in "
            f"{pct(float(first['prob_route_unchanged']))} of the draws."
        )
    return text


def _accuracy(scenario: Scenario, result: Result) -> str:
    """Which routes are too close to call at the throughput model's accuracy, and which options are calibrated."""
    close = [d.workload_name for d in result.decisions if d.too_close_to_call]
    calibrated = [o.name for o in scenario.owned_options if o.calibration is not None]
    parts = []
    if close:
        parts.append(
            f"At the throughput model's accuracy, {plural(len(close), 'route')} "
            f"{'is' if len(close) == 1 else 'are'} too close to call: "
            f"{', '.join(close)}; the runner-up's cost lies inside the likely range of the chosen route's, so "
            "measure before committing."
        )
    elif any(d.close_call is not None for d in result.decisions):
        # scoped to the model's error: a flip threshold or the draws of prices and demand below can still move a
        # route, and an unscoped "every route stays" read as "safe" beside "a coin flip" in the same summary
        parts.append(
            "The throughput model's own error moves no route: each stays the better one across that error's likely "
            "range (prices and demand can still move one, below)."
        )
    if calibrated:
        parts.append(f"Throughput calibrated to your own benchmark runs for {', '.join(calibrated)}.")
    return " ".join(parts)


def narrative(
    scenario: Scenario,
    result: Result,
    *,
    baseline: Baseline | None = None,
    comparison: Comparison | None = None,
    monte_carlo: MonteCarlo | None = None,
    rate: DisplayRate = USD,
) -> tuple[str, ...]:
    """The pack's summary in sentences, each computed from the arguments; money in ``rate``'s currency."""
    sentences = [*_provenance(scenario, baseline), _workloads(scenario), _latency(scenario), _routes(result)]
    sentences += [_money(result, rate), *_fleet(scenario, result, rate), _closest_flip(result, rate)]
    sentences.append(_accuracy(scenario, result))
    if comparison is not None:
        sentences.append(_comparison(comparison, rate))
    if monte_carlo is not None:
        sentences.append(_uncertainty(monte_carlo, rate))
    return tuple(s for s in sentences if s)
