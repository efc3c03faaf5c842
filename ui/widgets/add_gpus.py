"""Add GPUs to the scenario, or take an option out: a dialog opened from Cost per token.

A reader on the API-only preset, or one who wants to price another GPU, could only edit the scenario's JSON. The
dialog adds a rented catalog instance or a node to buy, with a catalog model served on it
(``economics.gpu_options``). Its fields are drawn only while it is open, so they cost the page's price edits nothing.
"""

from __future__ import annotations

import datetime as dt

import streamlit as st

from economics import (
    PRECISIONS,
    Catalog,
    GpuAddition,
    PriceTextError,
    Scenario,
    add_gpus,
    catalog_node_inputs,
    fit_problem,
    load_catalog,
    parse_money,
    problem_of,
    remove_option,
    replica_choices,
    replica_gpus,
    replica_limit,
    serving_choices,
)
from ui import format as fmt
from ui import state
from ui.widgets.common import QUOTE_HINT

#: The fields of ``economics.gpu_options`` in the dialog's words, for its messages ("model_id: …" → "Model: …").
FIELD_WORDS = {
    "instance_id": "Instance",
    "gpu_id": "GPU",
    "capex_usd": "Purchase price of one node",
    "node_power_kw": "Node power",
    "nodes_owned": "Nodes already bought",
    "gpus_per_node": "GPUs per node",
    "gpus_per_replica": "GPUs per model replica",
    "model_id": "Model",
    "serving": "How it is served",
    "quality": "Acceptable answers",
    "option_id": "Option",
    "scenario": "This scenario",
}
_FLASH = "_add_gpus_flash"
#: Whether the dialog is open: it stays open through the app's full reruns until it is closed or used.
_OPEN = "_add_gpus_open"
SOURCES = ("Rent a cloud instance", "Buy a node")


def _problem(exc: ValueError) -> str:
    """A refusal of ``economics.gpu_options`` with its field in the dialog's words ("model_id: …" → "Model: …")."""
    field, text = problem_of(exc)
    return f"{FIELD_WORDS[field]}: {text}" if field in FIELD_WORDS else text


def _rent_fields(s: Scenario, catalog: Catalog) -> tuple[dict[str, object], str, int] | None:
    rows = sorted(catalog.instance_prices_in_force(s.review_date), key=lambda r: (r.provider, r.sku, r.pricing_type))
    if not rows:
        st.info(f"The catalog has no instance price in force on the review date ({s.review_date:%d %b %Y}).")
        return None
    labels = {
        r.id: f"{r.provider} {r.sku} · {r.gpus_per_instance}× {catalog.gpus[r.gpu_id].name} · {r.pricing_type} · "
        f"{fmt.usd(r.usd_per_instance_hour)}/h"
        for r in rows
    }
    instance_id = st.selectbox(
        "Instance, at its list price in force on the review date (USD)",
        list(labels),
        format_func=labels.__getitem__,
        key="ag_instance",
    )
    row = next(r for r in rows if r.id == instance_id)
    st.caption(f"As of {row.as_of.isoformat()} · Source: {fmt.md_escape(fmt.plain(row.source))}")
    return {"source": "rent", "instance_id": instance_id}, row.gpu_id, replica_limit(row.gpus_per_instance)


def _buy_fields(s: Scenario, catalog: Catalog) -> tuple[dict[str, object], str, int] | None:
    gpu_id = st.selectbox("GPU", list(catalog.gpus), format_func=lambda g: catalog.gpus[g].name, key="ag_gpu")
    c = st.columns(2)
    gpus = int(c[0].number_input("GPUs per node", min_value=1, max_value=72, value=8, step=1, key="ag_gpus"))
    nodes = int(c[1].number_input("Nodes already bought", min_value=0, max_value=100_000, value=0, key="ag_owned"))
    known = catalog_node_inputs(catalog, gpu_id, gpus, s.review_date)
    capex, power = known.get("capex_usd"), known.get("node_power_kw")
    c = st.columns(2)
    capex_text = c[0].text_input(
        "Purchase price of one node [USD]",
        value=f"${capex.value:,.0f}" if capex else "",
        placeholder="e.g. $280,000",
        help=f"{QUOTE_HINT} Prefilled where the catalog has a price for this node.",
        key=f"ag_capex_{gpu_id}_{gpus}",
    )
    kw = c[1].number_input(
        "Node power at most [kW]",
        min_value=0.1,
        max_value=200.0,
        value=power.value if power else None,
        help="The node's maximum input power, the kW a data centre provisions. Prefilled where the catalog has it.",
        key=f"ag_power_{gpu_id}_{gpus}",
    )
    if not capex or not power:
        st.caption("The catalog has no purchase price or power for this node: type them from your quote.")
    try:
        price = parse_money(capex_text, "Purchase price of one node", maximum=1e8) if capex_text.strip() else None
    except PriceTextError as e:
        st.error(fmt.md_escape(str(e)))  # it quotes what was typed
        return None
    fields = {"source": "buy", "gpu_id": gpu_id, "gpus_per_node": gpus, "nodes_owned": nodes}
    return fields | {"capex_usd": price, "node_power_kw": kw}, gpu_id, gpus


def _add(s: Scenario, catalog: Catalog) -> None:
    today = dt.date.today()
    source = st.radio("Where the GPUs come from", SOURCES, horizontal=True, key="ag_source")
    picked = _rent_fields(s, catalog) if source == SOURCES[0] else _buy_fields(s, catalog)
    models = {k: m.name for k, m in catalog.models.items()}
    c = st.columns(2)
    model_id = c[0].selectbox("Model", list(models), format_func=models.__getitem__, key="ag_model")
    choices = serving_choices(catalog, model_id)
    serving = c[1].selectbox(
        "How it is served", list(choices), format_func=choices.__getitem__, key=f"ag_sv_{model_id}"
    )
    if picked is None:
        return
    fields, gpu_id, most = picked
    gpu, model = catalog.gpus[gpu_id], catalog.models[model_id]
    row = st.columns(3)
    precision = row[0].selectbox("Precision", PRECISIONS, format_func=str.upper, key="ag_precision")
    sizes = replica_choices(s, model, gpu, precision, most)
    if not sizes:
        st.warning(fit_problem(model, gpu, precision, most))
        return
    suggested = replica_gpus(s, model, gpu, precision, most) or sizes[0]
    n = row[1].selectbox(
        "GPUs per model replica",
        sizes,
        index=sizes.index(suggested),
        help="The GPUs one copy of the model is split over. Suggested: the fewest that leave half their memory to "
        "the requests in flight, so batches can form.",
        key=f"ag_tp_{gpu_id}_{model_id}_{precision}_{most}",
    )
    quality = row[2].number_input(
        "Acceptable answers [%]",
        min_value=0.0,
        max_value=100.0,
        value=90.0,
        step=1.0,
        format="%.0f",
        help="The share of this model's answers a workload can use as they are (the quality q of the glossary).",
        key="ag_quality",
    )
    if not st.button("Add to the scenario", type="primary", icon=":material/add:", key="ag_go"):
        return
    try:
        a = GpuAddition.model_validate(
            fields
            | {"model_id": model_id, "serving": serving, "precision": precision, "gpus_per_replica": n}
            | {"quality": quality / 100, "entered_on": today}
        )
        new = add_gpus(s, catalog, a)
    except ValueError as e:  # pydantic's ValidationError is one
        st.error(fmt.md_escape(_problem(e)))
        return
    option, node = new.owned_options[-1], new.nodes[-1]
    _applied(new, f"Added {option.name}, on {node.name}. The plan and every page now count it.")


def _remove(s: Scenario) -> None:
    if not s.owned_options:
        st.caption("This scenario has no owned or rented option to take out.")
        return
    names = {o.id: o.name for o in s.owned_options}
    option_id = st.selectbox("Option", list(names), format_func=names.__getitem__, key="ag_remove")
    node = s.node(next(o.node_id for o in s.owned_options if o.id == option_id))
    shared = [o for o in s.owned_options if o.node_id == node.id and o.id != option_id]
    st.caption(
        f"Its node, {fmt.md_escape(node.name)}, stays: other options run there."
        if shared
        else f"Its node, {fmt.md_escape(node.name)}, goes too: no other option runs there."
    )
    if not st.button("Take it out", icon=":material/remove:", key="ag_remove_go"):
        return
    try:
        new = remove_option(s, option_id)
    except ValueError as e:
        st.error(fmt.md_escape(_problem(e)))
        return
    _applied(new, f"Took out {names[option_id]}." + ("" if shared else f" {node.name} went with it."))


def _applied(new: Scenario, message: str) -> None:
    """Make ``new`` the session's scenario, close the dialog and rerun the app, which then shows ``message``."""
    state.replace(new)
    st.session_state[_OPEN] = False
    st.session_state[_FLASH] = message
    st.rerun()


def _closed() -> None:
    st.session_state[_OPEN] = False


@st.dialog("Add or take out GPUs", width="large", on_dismiss=_closed)
def gpu_dialog() -> None:
    """Add a rented instance or a node to buy, with a model on it; or take an option out."""
    s, catalog = state.scenario(), load_catalog()
    add, remove = st.tabs(["Add GPUs", "Take an option out"])
    with add:
        _add(s, catalog)
    with remove:
        _remove(s)


def gpu_button() -> None:
    """The button that opens :func:`gpu_dialog`, and the message of its last change."""
    message = st.session_state.pop(_FLASH, None)
    if message:
        st.success(fmt.md_escape(message), icon=":material/check_circle:")
    if st.button("Add or take out GPUs", icon=":material/add_circle:", key="ag_open"):
        st.session_state[_OPEN] = True
    if st.session_state.get(_OPEN):
        gpu_dialog()
