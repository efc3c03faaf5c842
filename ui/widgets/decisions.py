"""Decision cards: one bordered row per workload with its route, the reason, and the money."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import streamlit as st

from economics.currency import USD, DisplayRate
from economics.result import Result, WorkloadDecision
from economics.scenario import Scenario
from ui import bands
from ui import format as fmt
from ui.tables import option_names

BadgeColor = Literal["blue", "green", "orange", "red", "violet", "gray"]
ROUTE_BADGE: dict[str, BadgeColor] = {
    "owned diffusion": "green",
    "owned AR (batch)": "blue",
    "owned AR": "blue",
    "frontier API": "red",
    "API": "orange",
    "none feasible": "gray",
    "rented diffusion": "green",
    "rented AR (batch)": "violet",
    "rented AR": "violet",
}


def decision_cards(result: Result, scenario: Scenario, rate: DisplayRate = USD) -> None:
    """Draw one card per workload, in the scenario's order; money in the display currency of ``rate``, like the
    headline (economics writes its reasons in USD; they are converted here, at the display edge)."""
    names = option_names(scenario)
    measured = {o.id for o in scenario.owned_options if o.measured is not None}
    workloads = {w.id: w for w in scenario.workloads}

    def money(x: float | None) -> str:  # whole units, as the headline: "saves S$692", not "S$691.82" beside it
        return fmt.money(x, rate.code, rate.units_per_usd, cents=False)

    def text(x: str) -> str:
        return fmt.md_escape(fmt.money_text(x, rate.code, rate.units_per_usd))

    # each card's share in whole units, rounded together so that the cards add up to the headline to the unit
    shares = dict(
        zip(
            (d.workload_id for d in result.decisions),
            fmt.whole_parts([rate.units_per_usd * d.monthly_cost_usd for d in result.decisions]),
            strict=True,
        )
    )
    for d in result.decisions:
        wl = workloads[d.workload_id]
        with st.container(border=True):
            left, mid, right = st.columns([2.2, 5, 1.6], vertical_alignment="center")
            left.markdown(f"**{fmt.md_escape(d.workload_name)}**")
            with left:
                # a coloured label that wraps: a badge is one line, and at 1,024 px "owned GPUs, one request at a
                # time" was cut to "owned GPUs, on…"
                color = ROUTE_BADGE.get(d.route_label, "gray")
                st.markdown(f":small[:{color}-background[{fmt.md_escape(fmt.route_words(d.route_label))}]]")
                if wl.sovereign:
                    st.badge("sovereign data", icon=":material/lock:", color="gray")
            runs_on = fmt.md_escape(names.get(d.chosen_option_id or "", "nothing feasible"))
            left.caption(
                f"Runs on: {runs_on}" + (" · **measured** throughput" if d.chosen_option_id in measured else "")
            )
            mid.markdown(text(fmt.plain(d.reason)))
            for line in bands.card_lines(result.options, d, names):  # issue 13: accuracy band, close call
                (mid.warning if line.startswith("Too close") else mid.caption)(text(line))
            share = fmt.money(shares[d.workload_id], rate.code, 1.0, cents=False)
            right.markdown(f"**{share}** per month, its share of the plan")
            right.caption(versus_api(d, money))


def versus_api(d: WorkloadDecision, money: Callable[[float], str]) -> str:
    """A card's line on the API baseline: what its best API would cost, or, where no API may serve it, its share
    of the baseline's owned nodes when that differs from its share here (the cards' differences then add up to
    the savings card)."""
    if d.chosen_kind == "api":
        return "pay per token: no owned capacity needed"
    if d.savings_vs_api_usd_per_month is None:
        there = d.baseline_share_usd_per_month
        if there is None:
            return "no API allowed or feasible"
        if money(d.monthly_cost_usd) == money(there):
            return "no API allowed or feasible: it stays owned in the API baseline too, at the same cost"
        gap = d.monthly_cost_usd - there
        diff = f"{money(gap)} more" if gap > 0 else f"{money(-gap)} less"
        return f"no API allowed or feasible: in the API baseline it stays owned at {money(there)}, {diff} here"
    if d.savings_vs_api_usd_per_month >= 0:
        return f"saves {money(d.savings_vs_api_usd_per_month)} a month vs its best API"
    return (
        f"costs {money(-d.savings_vs_api_usd_per_month)} a month more than its best API, "
        "which the quality gain pays for"
    )
