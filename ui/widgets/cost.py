"""Inputs of the Cost-per-token page: workload, throughput source (model or measured), utilization."""

from __future__ import annotations

import streamlit as st

from economics.scenario import Scenario
from economics.views.cost import CostInputs
from ui import state, view
from ui.widgets.common import view_number, view_select


def workload_select(s: Scenario) -> str:
    """The workload whose request shape and SLOs set the throughput."""
    names = {w.id: f"{w.name} ({w.input_tokens:,} in / {w.output_tokens:,} out)" for w in s.workloads}
    return view_select(
        "Workload priced",
        "cost_workload",
        list(names),
        names.__getitem__,
        help_text="Its prompt and output lengths [tokens] and latency targets set each option's throughput "
        "(capacity of one replica within those targets; engineers say SLO capacity). Edit workloads on the "
        "Workloads page.",
    )


def throughput_inputs(s: Scenario) -> tuple[str | None, float | None]:
    """(option id, measured tok/s) when the user types a measured throughput, else (None, None)."""
    ids = [o.id for o in s.owned_options]
    if not ids:
        return None, None
    c = st.columns([2, 3, 2])
    source = c[0].radio(
        "Throughput source",
        ["model", "measured"],
        index=["model", "measured"].index(view.get().cost_source),
        format_func={"model": "from the model", "measured": "a measured number"}.__getitem__,
        key=state.key("v_cost_source"),
        help="'From the model': SLO capacity of one replica from the roofline and serving model. 'A measured "
        "number': your own benchmark of one replica at the workload's SLO replaces the model for one option.",
        horizontal=True,
    )
    view.set_value("cost_source", source)
    if source != "measured":
        return None, None
    names = {o.id: o.name for o in s.owned_options}
    option_id = view_select(
        "Option measured",
        "cost_option",
        ids,
        names.__getitem__,
        help_text="The owned option your benchmark measured (its plain decoding; speculation keeps the model).",
        container=c[1],
    )
    measured = view_number(
        "Measured throughput [output tok/s per replica]",
        "cost_measured",
        step=50.0,
        fmt="%.0f",
        help_text="Output tokens per second one replica sustains while meeting the workload's SLOs. "
        "0 = not given (the model is used).",
        container=c[2],
    )
    return (option_id, measured) if measured > 0 else (None, None)


def utilization_slider() -> float:
    """The utilization marked on the chart, shown in percent, stored as a fraction [1]."""
    percent = st.slider(
        "Utilization marked [% of capacity]",
        min_value=1,
        max_value=100,
        value=round(100 * view.get().cost_util),
        step=1,
        format="%d%%",
        key=state.key("v_cost_util"),
        help="Average load over the replica's SLO capacity: the share of paid hours doing useful work.",
    )
    view.set_value("cost_util", percent / 100)
    return percent / 100


def cost_inputs(workload_id: str, measured: tuple[str | None, float | None]) -> CostInputs:
    """The validated inputs model of the page."""
    option_id, tok_s = measured
    return CostInputs(workload_id=workload_id, measured_option_id=option_id, measured_tokens_per_s=tok_s)
