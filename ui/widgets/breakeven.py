"""Inputs of the Break-even page: workload, owned option, API and the two axes of the map."""

from __future__ import annotations

import math
from collections.abc import Callable

import streamlit as st

from economics import api_usd_per_task, by_id
from economics.offers import RentedNode
from economics.scenario import Scenario
from economics.views.breakeven import AXIS_NAME, Axis, BreakEvenAnalysis, BreakEvenInputs
from ui import compute, view
from ui import format as fmt
from ui.widgets.common import ADD_GPUS_HINT, view_select

AXES: list[Axis] = ["utilization", "api_price", "node_price", "demand"]


def break_even_inputs(s: Scenario) -> BreakEvenInputs | None:
    """Draw the inputs; None (with a message) when the scenario has no owned option or no API."""
    if not s.owned_options or not s.apis:
        missing = (
            f"no owned or rented option. {ADD_GPUS_HINT}"
            if not s.owned_options
            else "no API to compare with. Load a preset with APIs (sidebar: Load or reset a scenario)."
        )
        st.info(f"Break-even compares running a workload yourself with an API; this scenario has {missing}")
        return None
    # the workload on a row of its own, the two options side by side: three columns cut every name at 1,024 px
    # ("Overnight KYC docum", "Owned 70B, AR + EAGI")
    c = [st.container(), *st.columns(2)]
    wl_names = {w.id: w.name for w in s.workloads}
    workload_id = view_select(
        "Workload",
        "be_workload",
        list(wl_names),
        wl_names.__getitem__,
        help_text="Its request shape, SLOs and demand set the owned option's capacity and utilization.",
        container=c[0],
    )
    opt_ids, api_ids = route_first(s, workload_id)
    opt_names = {i: by_id(s.owned_options, i, "owned option").name for i in opt_ids}
    rented = any(isinstance(n, RentedNode) for n in s.nodes)
    option_id = view_select(
        "Owned or rented option" if rented else "Owned option",
        "be_option",
        list(opt_names),
        opt_names.__getitem__,
        help_text="Its node's cost per hour and its SLO capacity (with speculation where it helps).",
        container=c[1],
    )
    api_names = {i: by_id(s.apis, i, "API").name for i in api_ids}
    api_id = view_select(
        "API compared",
        "be_api",
        list(api_names),
        api_names.__getitem__,
        help_text="Its price for this workload's tokens (cache, negotiated and batch discounts included).",
        container=c[2],
    )
    x, y = view.get().be_x, view.get().be_y
    return BreakEvenInputs(workload_id=workload_id, option_id=option_id, api_id=api_id, x=x, y=y)


def route_first(s: Scenario, workload_id: str) -> tuple[list[str], list[str]]:
    """Owned option ids and API ids, each ordered cheapest first for the workload (expected cost per task;
    infeasible last), so the page opens on the workload's chosen route against its runner-up of the other
    kind."""
    rows = [o for o in compute.evaluate(s).options if o.workload_id == workload_id]
    cost = {o.option_id: (not o.feasible, o.expected_cost_usd_per_request) for o in rows}
    owned = sorted((o.id for o in s.owned_options), key=lambda i: cost.get(i, (True, float("inf"))))
    # an API the workload may not use (sovereign data) has no expected cost: those are ordered by their price for
    # its tokens, so the page compares with the cheapest one (it opened on the dearest, the frontier API)
    price = api_usd_per_task(s, workload_id)
    apis = sorted((a.id for a in s.apis), key=lambda i: (*cost.get(i, (True, float("inf"))), price[i]))
    return owned, apis


def map_axes(inputs: BreakEvenInputs) -> BreakEvenInputs:
    """The two axes of the map (drawn in the map's tab only); ``inputs`` with the axes chosen."""
    c = st.columns(3)
    x = view_select(
        "Map x axis",
        "be_x",
        AXES,
        AXIS_NAME.__getitem__,
        help_text="Each axis scales one input around today's value; the other inputs stay as they are.",
        container=c[0],
    )
    y_options = [a for a in AXES if a != x and {a, x} != {"utilization", "demand"}]
    y = view_select(
        "Map y axis",
        "be_y",
        y_options,
        AXIS_NAME.__getitem__,
        help_text="Utilization and demand cannot be paired: demand sets the utilization.",
        container=c[1],
    )
    return inputs.model_copy(update={"x": x, "y": y})


def verdict(a: BreakEvenAnalysis, money: Callable[[float], str]) -> str:
    """The page's answer in one paragraph: which is cheaper today, at what utilization that turns, and whether
    this workload can reach it (a reader saw the curve and the numbers but was never told the answer).

    ``money`` writes a USD amount in the display currency. When the option's nodes are already bought and the
    plan's cash lens books them at $0 (``a.sunk_in_plan``), the plan may keep work on them although the full
    cost loses here: said only when it does lose.
    """
    owned, api, u, u_star, u_max = (
        a.owned_usd_per_mtok,
        a.api_usd_per_mtok,
        a.utilization,
        a.break_even_utilization,
        a.max_utilization,
    )
    paid_for = (
        "at its rental for the hours paid for"
        if a.rented
        else "at full cost (capital recovery, power and fixed costs of the hours paid for)"
    )
    text = (
        f"At this workload's {fmt.pct(u, 1)} utilization of its replicas, {a.option_name} costs {money(owned)} "
        f"per million output tokens {paid_for} "
        f"against {money(api)} on {a.api_name}: "
    )
    owning = "renting" if a.rented else "owning"  # a rented node is not owned: "renting is cheaper"
    if owned <= api:
        text += f"{owning} is cheaper"
        text += (
            f", and stays so down to {fmt.pct(u_star, 1)} utilization."
            if u_star < u
            else f" (it would be at any utilization the peak allows up to {fmt.pct(u_max, 1)})."
        )
    else:
        text += "the API is cheaper"
        if not math.isfinite(u_star) or u_star > 1:
            text += f"; {owning} would not catch up even with its replicas fully used."
        elif u_star > u_max:
            text += (
                f"; {owning} would need {fmt.pct(u_star, 1)} utilization, above the {fmt.pct(u_max, 1)} this "
                "workload can reach while keeping headroom for its peak (the capacity limit)."
            )
        else:
            text += (
                f"; {owning} wins above {fmt.pct(u_star, 1)} utilization, within the {fmt.pct(u_max, 1)} its peak "
                "allows: more work on the same replicas would get there."
            )
    if not a.api_allowed:
        text += " The workload may not use this API (sovereign data): the gap is what keeping the data costs."
    if a.sunk_in_plan and owned > api:
        text += (
            " These are full costs; the plan's cash lens leaves out what nodes already bought cost (paid whatever "
            "it does), which is why it can keep work on them that loses here."
        )
    return text
