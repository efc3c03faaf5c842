"""Node pricing inputs: a rented node's $/GPU-hour, or an owned node's capital, power, facility and operations.

:func:`node_inputs` draws the inputs of one node and returns the edited node, validated by its model. Shares
(cost of capital, PUE-independent fractions) are shown in percent and converted back here, at the edge.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any, NamedTuple

import streamlit as st
from pydantic import ValidationError

from economics import by_id, error_items, field_path
from economics.currency import DisplayRate
from economics.offers import NodeOffer, RentedNode
from economics.price_text import PriceTextError, parse_money, typed_source
from economics.views.cost import NodeCost
from ui import format as fmt
from ui import state
from ui.widgets.api_rates import money_text
from ui.widgets.changes import rerun_edited
from ui.widgets.common import QUOTE_HINT, bounds, describe, keep_refused, shown_text


def _number(
    node: NodeOffer,
    default: NodeOffer | None,
    name: str,
    label: str,
    *,
    step: float,
    scale: float = 1.0,
    fmt_: str | None = None,
    where: Any,
    show: str = "{:,g}",
    on_change: Callable[[], None] | None = None,
) -> float:
    """A bounded number input for ``node.<name>`` displayed times ``scale`` (e.g. 100 for percent)."""
    lo, hi = bounds(type(node), name)
    value = float(getattr(node, name)) * scale
    note = ""
    if default is not None and hasattr(default, name):
        note = f"Default {show.format(float(getattr(default, name)) * scale)}, as of {default.as_of or 'undated'}."
    help_text = f"{describe(type(node), name)}. {note}".strip()
    if show.startswith("$"):  # a price: typed as on the invoice ("$280,000", "280000", "$280k", "$0.20")
        if name == "capex_usd":  # a fixed help: a widget whose help changed with its value would be a new one
            help_text += f" {QUOTE_HINT}"
        return _money_input(node, name, label, value, (lo, hi), help_text, where, on_change)
    out = where.number_input(
        label,
        min_value=None if lo is None else lo * scale,
        max_value=None if hi is None else hi * scale,
        value=value,
        step=float(step),
        format=fmt_,
        key=state.key(f"node_{node.id}_{name}"),
        help=help_text,
        on_change=on_change,
    )
    return float(out) / scale


def _money_input(
    node: NodeOffer,
    name: str,
    label: str,
    value: float,
    limits: tuple[float | None, float | None],
    help_text: str,
    where: Any,
    on_change: Callable[[], None] | None,
) -> float:
    """A price as text ("$280,000", "280000"); an unreadable or out-of-range text keeps the old value and says
    why, naming the field."""
    key = state.key(f"node_{node.id}_{name}")
    text = where.text_input(
        label, value=shown_text(key, money_text(value)), key=key, help=help_text, on_change=on_change
    )
    typed, problem = _read_money(text, value, label, limits)
    keep_refused(key, text if problem else None)
    if problem:
        where.error(fmt.md_escape(problem))
        st.session_state[_PROBLEMS_SHOWN] = True
    return typed


def _read_money(text: str, value: float, label: str, limits: tuple[float | None, float | None]) -> tuple[float, str]:
    """(the price typed as ``text``, "") or (``value`` unchanged, the message naming the field)."""
    if text == money_text(value):
        return value, ""
    lo, hi = limits
    field = label.split(" [")[0]
    try:
        typed = parse_money(text, field, maximum=hi if hi is not None else 1e9)
    except PriceTextError as exc:
        return value, str(exc)
    if lo is not None and typed <= lo and not (lo == 0 and typed == 0):
        return value, f"{field}: must be more than {money_text(lo)}"
    return typed, ""


class _Field(NamedTuple):
    """One input: the node's field, its label with unit, step, display scale and formats."""

    name: str
    label: str
    step: float
    fmt_: str
    scale: float = 1.0
    show: str = "{:,g}"
    integer: bool = False


#: Rows of inputs, each drawn in its own row of columns. Shares are shown in percent (scale 100).
_RENTED: tuple[tuple[_Field, ...], ...] = (
    (
        _Field("price_usd_per_gpu_hour", "Rental price [USD per GPU-hour]", 0.1, "%.2f", show="${:,.2f}"),
        _Field("gpus_per_node", "GPUs per node [count]", 1, "%.0f", integer=True),
    ),
)
_OWNED: tuple[tuple[_Field, ...], ...] = (
    (
        _Field("capex_usd", "Purchase price per node [USD]", 5000, "%.0f", show="${:,.0f}"),
        _Field("economic_life_years", "Economic life [years]", 0.5, "%.1f"),
        _Field("cost_of_capital_per_year", "Cost of capital [% per year]", 0.5, "%.1f", 100, "{:.1f}%"),
        _Field("ops_fraction_of_capex_per_year", "Operations [% of CapEx per year]", 0.5, "%.1f", 100, "{:.1f}%"),
    ),
    (
        _Field("node_power_kw", "Node power, maximum [kW]", 0.1, "%.1f"),
        _Field("pue", "Facility overhead [ratio]", 0.05, "%.2f"),
        _Field("electricity_usd_per_kwh", "Electricity [USD per kWh]", 0.01, "%.3f", show="${:,.3f}"),
        _Field("colocation_usd_per_kw_month", "Colocation [USD per kW-month]", 5, "%.0f", show="${:,.0f}"),
    ),
    (
        _Field("power_fraction_busy", "Power drawn when busy [% of max]", 5, "%.0f", 100, "{:.0f}%"),
        _Field("power_fraction_idle", "Power drawn when idle [% of max]", 5, "%.0f", 100, "{:.0f}%"),
        _Field("nodes_owned", "Nodes already owned [count]", 1, "%.0f", integer=True),
        _Field("ops_fixed_usd_per_hour", "Fixed operations [USD per hour]", 0.5, "%.2f", show="${:,.2f}"),
    ),
)


def node_inputs(node: NodeOffer, default: NodeOffer | None, on_change: Callable[[], None] | None = None) -> NodeOffer:
    """Inputs for one node; returns the edited node, or the unchanged one with an error box if invalid.

    ``default`` is the same node in the default scenario (None if it has none): its value and as-of date
    appear in each input's help. ``on_change`` is every input's callback (a targeted rerun, ``ui.live``).
    """
    changes: dict[str, float | int] = {}
    rows = _RENTED if isinstance(node, RentedNode) else _OWNED
    # the keyed box lets the narrow-window style sheet (ui.layout) lay these out two abreast at 1,024 px
    box = st.container(key=f"node_fields_{node.id}")
    for row in rows:
        # input boxes on one line when a label wraps to two (the bottom of each column, not its top)
        columns = box.columns(4 if len(row) > 2 else 2, vertical_alignment="bottom")
        for f, where in zip(row, columns, strict=False):
            value = _number(
                node,
                default,
                f.name,
                f.label,
                step=f.step,
                scale=f.scale,
                fmt_=f.fmt_,
                where=where,
                show=f.show,
                on_change=on_change,
            )
            changes[f.name] = int(value) if f.integer else value
    try:
        return type(node).model_validate({**node.model_dump(), **changes})
    except ValidationError as exc:
        st.error(f"{fmt.md_escape(node.name)}: not applied. " + _invalid(exc))
        st.session_state[_PROBLEMS_SHOWN] = True
        return node


def _invalid(exc: ValidationError) -> str:
    """The fields a node's validation refused, named as their inputs are, in plain words (markdown-safe):
    "Purchase price per node: must be more than 0", not "capex $: Input should be greater than 0"."""
    labels = {f.name: f.label.split(" [")[0] for row in (*_OWNED, *_RENTED) for f in row}
    said = []
    for loc, _, msg in error_items(exc):
        name = str(loc[-1]) if loc else ""
        field = labels.get(name) or fmt.plain(field_path(loc)) or "This node"
        said.append(f"{field}: {fmt.validation_words(msg)}")
    return fmt.md_escape("; ".join(said))


#: Whether the last drawing of the node inputs showed a message (an edit must then redraw them, to clear it).
_PROBLEMS_SHOWN = "_node_problems_shown"


def start_drawing() -> None:
    """Call before drawing the node inputs: the messages they show are counted afresh."""
    st.session_state[_PROBLEMS_SHOWN] = False


def typed_in_state(node: NodeOffer, today: dt.date | None = None) -> tuple[NodeOffer, bool]:
    """``node`` with the values typed in its inputs (read from the session), and whether all of them were
    accepted: an unreadable price or a node its model refuses leaves ``node`` unchanged (the inputs, redrawn,
    say why). The same rules as :func:`node_inputs`, without drawing."""
    changes: dict[str, float | int] = {}
    ok = True
    for row in _RENTED if isinstance(node, RentedNode) else _OWNED:
        for f in row:
            held = st.session_state.get(state.key(f"node_{node.id}_{f.name}"))
            if held is None:
                continue
            if f.show.startswith("$"):
                was = float(getattr(node, f.name))
                value, problem = _read_money(str(held), was, f.label, bounds(type(node), f.name))
                ok = ok and not problem
            else:
                value = float(held) / f.scale
            changes[f.name] = int(value) if f.integer else value
    try:
        edited = type(node).model_validate({**node.model_dump(), **changes})
    except ValidationError:
        return node, False
    return typed(node, edited, today), ok


def live_node_edit(node_id: str, own: str, *follow: str) -> Callable[[], None]:
    """An ``on_change`` for one node's inputs that applies the edit here and reruns only the fragments it feeds
    (``follow``: the node's cost and source line, the charts; ``ui.live``), not the fragment ``own`` that draws
    the dozen inputs, which did not change. ``own`` reruns too when a message must be shown or cleared."""

    def callback() -> None:
        s = state.scenario()
        node = by_id(s.nodes, node_id, "node")
        edited, ok = typed_in_state(node)
        if ok:
            state.update(state.with_item(s, "nodes", edited) if edited != node else s)
        redraw_own = not ok or bool(st.session_state.get(_PROBLEMS_SHOWN))
        rerun_edited(*((own,) if redraw_own else ()), *follow)

    return callback


def node_cost_line(cost: NodeCost, rate: DisplayRate) -> str:
    """One node's cost per node-hour and its parts, in ``rate``'s currency (markdown-safe): "**Owned node:
    S$22.82 per node-hour at full load** (S$2.85 per GPU-hour): capital recovery S$12.55 · …". A rented node's
    hour is its rental, whatever the load: no parts, no "at full load"."""
    k, cur = rate.units_per_usd, fmt.currency_prefix(rate.code)
    parts = cost.components_usd_per_hour if len(cost.components_usd_per_hour) > 1 else ()
    listed = " · ".join(f"{label} {cur}{k * usd:,.2f}" for label, usd in parts)
    load = " at full load" if cost.kind == "owned" else ""
    head = f"{cost.name}: {cur}{k * cost.total_usd_per_hour:,.2f} per node-hour{load}"
    tail = f" ({cur}{k * cost.usd_per_gpu_hour:,.2f} per GPU-hour)" + (f": {listed}" if listed else "")
    return f"**{fmt.md_escape(head)}**{fmt.md_escape(tail)}"


def typed(before: NodeOffer, after: NodeOffer, today: dt.date | None = None) -> NodeOffer:
    """``after`` with its source set to "entered by the user on <today>" when the user changed a price."""
    if after == before:
        return after
    day = today or dt.date.today()
    update: dict[str, object] = {"source": typed_source(day), "as_of": day.isoformat()}
    if isinstance(after, RentedNode):
        update["price_id"] = None
    return after.model_copy(update=update)
