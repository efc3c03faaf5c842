"""Inputs of the Cost-per-token page: workload, throughput source (model or measured), utilization."""

from __future__ import annotations

import datetime as dt

import streamlit as st

from economics import by_id
from economics.measured import MeasuredThroughput
from economics.scenario import Scenario
from economics.views.cost import CostInputs
from ui import compute, state, view
from ui import format as fmt
from ui.widgets.common import view_select


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


def throughput_inputs(s: Scenario, workload_id: str) -> Scenario:
    """A measured throughput for any owned option (speculative ones included), stored in the scenario
    (``OwnedOption.measured``), with the model's estimate for the priced workload beside it. Returns the
    scenario with the benchmark set, changed or cleared (empty or 0 tok/s)."""
    if not s.owned_options:
        return s
    names = {o.id: o.name + (" (measured)" if o.measured is not None else "") for o in s.owned_options}
    c = st.columns([3, 2, 1, 1, 1], vertical_alignment="bottom")
    option_id = view_select(
        "Owned option benchmarked",
        "cost_option",
        list(names),
        names.__getitem__,
        help_text="Your own benchmark of one replica replaces the model's throughput for this option everywhere: "
        "capacity, cost and routing on every page, the command line and saved reviews. With speculation it "
        "replaces the option as deployed.",
        container=c[0],
    )
    option = by_id(s.owned_options, option_id, "owned option")
    m = option.measured
    tok_s = c[1].number_input(
        "Measured throughput [output tok/s per replica]",
        min_value=0.0,
        max_value=1e7,
        value=float(m.output_tokens_per_s) if m else None,
        step=50.0,
        format="%.0f",
        placeholder="not measured",
        key=state.key(f"measured_{option_id}_tok_s"),
        help="Output tokens per second one replica sustained within the workload's latency targets "
        "(engineers: SLO goodput). Empty or 0 = no benchmark: the model is used.",
    )
    concurrency = c[2].number_input(
        "At concurrency [requests]",
        min_value=1,
        max_value=100_000,
        value=m.concurrency if m else 1,
        step=1,
        key=state.key(f"measured_{option_id}_conc"),
        help="Batch size or concurrent requests of the benchmark.",
    )
    prompt = c[3].number_input(
        "Prompt [tokens]",
        min_value=0,
        max_value=10_000_000,
        value=m.input_tokens if m else _shape(s, workload_id)[0],
        step=100,
        key=state.key(f"measured_{option_id}_in"),
        help="Prompt length of the benchmark's requests.",
    )
    output = c[4].number_input(
        "Output [tokens]",
        min_value=1,
        max_value=10_000_000,
        value=m.output_tokens if m else _shape(s, workload_id)[1],
        step=50,
        key=state.key(f"measured_{option_id}_out"),
        help="Output length of the benchmark's requests.",
    )
    new = (
        MeasuredThroughput(
            output_tokens_per_s=float(tok_s),
            concurrency=int(concurrency),
            input_tokens=int(prompt),
            output_tokens=int(output),
            measured_on=m.measured_on if m else dt.date.today().isoformat(),
        )
        if tok_s
        else None
    )
    # the model's own figure (the scenario's capacities carry the measured one once it is set) and what is in use
    # after this edit: the caption said "in use: the model" on the run that applied a typed benchmark
    model_only = state.with_item(s, "owned_options", option.model_copy(update={"measured": None})) if m else s
    estimate = max(
        (
            v.output_tokens_per_s
            for v in compute.capacities(model_only, workload_id)
            if v.option_id == option_id and v.feasible
        ),
        default=0.0,
    )
    st.caption(
        f"Model estimate for this workload: **{fmt.count(estimate)} output tok/s per replica** "
        + ("(the model finds no feasible setting)" if estimate == 0 else "")
        + (f" · in use: **{fmt.count(new.output_tokens_per_s)} tok/s, measured**" if new else " · in use: the model")
    )
    if new == m:
        return s
    return state.with_item(s, "owned_options", option.model_copy(update={"measured": new}))


def _shape(s: Scenario, workload_id: str) -> tuple[int, int]:
    wl = by_id(s.workloads, workload_id, "workload")
    return wl.input_tokens, wl.output_tokens


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


def cost_inputs(workload_id: str) -> CostInputs:
    """The validated inputs model of the page (a benchmark lives in the scenario, not here)."""
    return CostInputs(workload_id=workload_id)
