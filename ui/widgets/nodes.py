"""Node pricing inputs: a rented node's $/GPU-hour, or an owned node's capital, power, facility and operations.

:func:`node_inputs` draws the inputs of one node and returns the edited node, validated by its model. Shares
(cost of capital, PUE-independent fractions) are shown in percent and converted back here, at the edge.
"""

from __future__ import annotations

from typing import Any

import streamlit as st
from pydantic import ValidationError

from economics.offers import NodeOffer, OwnedNode, RentedNode
from ui import format as fmt
from ui import state
from ui.widgets.common import bounds, describe


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
) -> float:
    """A bounded number input for ``node.<name>`` displayed times ``scale`` (e.g. 100 for percent)."""
    lo, hi = bounds(type(node), name)
    value = float(getattr(node, name)) * scale
    note = ""
    if default is not None and hasattr(default, name):
        note = f"Default {show.format(float(getattr(default, name)) * scale)}, as of {default.as_of or 'undated'}."
    help_text = f"{describe(type(node), name)}. {note}".strip()
    out = where.number_input(
        label,
        min_value=None if lo is None else lo * scale,
        max_value=None if hi is None else hi * scale,
        value=value,
        step=float(step),
        format=fmt_,
        key=state.key(f"node_{node.id}_{name}"),
        help=help_text,
    )
    return float(out) / scale


def node_inputs(node: NodeOffer, default: NodeOffer | None) -> NodeOffer:
    """Inputs for one node; returns the edited node, or the unchanged one with an error box if invalid.

    ``default`` is the same node in the default scenario (None if it has none): its value and as-of date
    appear in each input's help.
    """
    changes: dict[str, float | int] = {}
    if isinstance(node, RentedNode):
        c = st.columns(2)
        changes["price_usd_per_gpu_hour"] = _number(
            node,
            default,
            "price_usd_per_gpu_hour",
            "Rental price [USD per GPU-hour]",
            step=0.1,
            fmt_="%.2f",
            where=c[0],
            show="${:,.2f}",
        )
        changes["gpus_per_node"] = int(
            _number(node, default, "gpus_per_node", "GPUs per node [count]", step=1, fmt_="%.0f", where=c[1])
        )
    else:
        assert isinstance(node, OwnedNode)
        c = st.columns(4)
        changes["capex_usd"] = _number(
            node,
            default,
            "capex_usd",
            "Purchase price per node [USD]",
            step=5000,
            fmt_="%.0f",
            where=c[0],
            show="${:,.0f}",
        )
        changes["economic_life_years"] = _number(
            node, default, "economic_life_years", "Economic life [years]", step=0.5, fmt_="%.1f", where=c[1]
        )
        changes["cost_of_capital_per_year"] = _number(
            node,
            default,
            "cost_of_capital_per_year",
            "Cost of capital [% per year]",
            step=0.5,
            scale=100,
            fmt_="%.1f",
            where=c[2],
            show="{:.1f}%",
        )
        changes["ops_fraction_of_capex_per_year"] = _number(
            node,
            default,
            "ops_fraction_of_capex_per_year",
            "Operations [% of CapEx per year]",
            step=0.5,
            scale=100,
            fmt_="%.1f",
            where=c[3],
            show="{:.1f}%",
        )
        c = st.columns(4)
        changes["node_power_kw"] = _number(
            node, default, "node_power_kw", "Node power, maximum [kW]", step=0.1, fmt_="%.1f", where=c[0]
        )
        changes["pue"] = _number(node, default, "pue", "PUE [ratio]", step=0.05, fmt_="%.2f", where=c[1])
        changes["electricity_usd_per_kwh"] = _number(
            node,
            default,
            "electricity_usd_per_kwh",
            "Electricity [USD per kWh]",
            step=0.01,
            fmt_="%.3f",
            where=c[2],
            show="${:,.3f}",
        )
        changes["colocation_usd_per_kw_month"] = _number(
            node,
            default,
            "colocation_usd_per_kw_month",
            "Colocation [USD per kW-month]",
            step=5,
            fmt_="%.0f",
            where=c[3],
            show="${:,.0f}",
        )
        c = st.columns(4)
        changes["power_fraction_busy"] = _number(
            node,
            default,
            "power_fraction_busy",
            "Power drawn when busy [% of max]",
            step=5,
            scale=100,
            fmt_="%.0f",
            where=c[0],
            show="{:.0f}%",
        )
        changes["power_fraction_idle"] = _number(
            node,
            default,
            "power_fraction_idle",
            "Power drawn when idle [% of max]",
            step=5,
            scale=100,
            fmt_="%.0f",
            where=c[1],
            show="{:.0f}%",
        )
        changes["nodes_owned"] = int(
            _number(node, default, "nodes_owned", "Nodes already owned [count]", step=1, fmt_="%.0f", where=c[2])
        )
        changes["ops_fixed_usd_per_hour"] = _number(
            node,
            default,
            "ops_fixed_usd_per_hour",
            "Fixed operations [USD per hour]",
            step=0.5,
            fmt_="%.2f",
            where=c[3],
            show="${:,.2f}",
        )
    try:
        return type(node).model_validate({**node.model_dump(), **changes})
    except ValidationError as exc:
        st.error(
            f"{fmt.md_escape(node.name)}: not applied. "
            + "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors(include_url=False))
        )
        return node
