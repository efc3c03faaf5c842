"""Page view settings that are not part of the scenario (which option a chart studies, a utilization marker…).

They live in one frozen :class:`View` model in ``st.session_state`` and travel in the URL next to the
scenario, one short query parameter per setting that differs from its default, so a copied link reproduces
every page, not only the one it was copied from. Parameters are validated like everything else from a URL:
an invalid value is dropped (the default is used) and named in a message.
"""

from __future__ import annotations

from typing import Any, Literal

import streamlit as st
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ui.format import plain, validation_words

_VIEW = "_view"
_ID = r"^[A-Za-z0-9_.-]*$"

BreakEvenAxis = Literal["utilization", "api_price", "node_price", "demand"]


class View(BaseModel):
    """Every page-level setting; ids are option/workload ids of the scenario, '' meaning "the first one"."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cost_option: str = Field(default="", max_length=64, pattern=_ID, description="owned option priced [-]")
    cost_workload: str = Field(default="", max_length=64, pattern=_ID, description="request shape and SLO [-]")
    cost_util: float = Field(default=0.5, ge=0.01, le=1.0, description="utilization marked on the chart [1]")
    cost_source: Literal["model", "measured"] = Field(default="model", description="throughput source [-]")
    cost_measured: float = Field(
        default=0.0,
        ge=0,
        le=1e7,
        description="measured throughput of one replica within the SLO; 0 = not given [tok/s]",
    )
    be_workload: str = Field(default="", max_length=64, pattern=_ID, description="workload of the break-even [-]")
    be_option: str = Field(default="", max_length=64, pattern=_ID, description="owned option compared [-]")
    be_api: str = Field(default="", max_length=64, pattern=_ID, description="API compared [-]")
    be_x: BreakEvenAxis = Field(default="utilization", description="heat-map x axis [-]")
    be_y: BreakEvenAxis = Field(default="api_price", description="heat-map y axis [-]")
    be_chart: Literal["utilization", "demand", "map"] = Field(
        default="utilization", description="break-even chart on screen [-]"
    )
    bt_ar: str = Field(default="", max_length=64, pattern=_ID, description="owned AR option studied [-]")
    bt_diff: str = Field(default="", max_length=64, pattern=_ID, description="owned diffusion option studied [-]")
    bt_workload: str = Field(default="", max_length=64, pattern=_ID, description="request shape [-]")
    bt_batch: int = Field(
        default=32, ge=1, le=8192, description="batch size marked on the charts; 32 shows the 10–30× swing [sequences]"
    )
    rt_workload: str = Field(default="", max_length=64, pattern=_ID, description="workload whose regions are drawn [-]")


_DEFAULT = View()


def init(query_params: dict[str, str]) -> list[str]:
    """Read the view from query parameters once per session; returns messages about invalid ones."""
    if _VIEW in st.session_state:
        return []
    kept: dict[str, Any] = {}
    messages: list[str] = []
    for name in View.model_fields:
        if name not in query_params:
            continue
        raw = query_params[name]
        try:
            View.model_validate({name: raw})
        except ValidationError as exc:
            reason = validation_words(exc.errors(include_url=False)[0]["msg"])
            messages.append(f"{setting_words(name)} (link setting {name}={raw[:40]!r}): {reason}; the default is used")
            continue
        kept[name] = raw
    axes = View.model_validate(kept)
    problem = axes_problem(axes.be_x, axes.be_y)
    if problem:  # each axis valid alone, not together (be_x=api_price alone meets the default be_y)
        linked = ", ".join(f"{n}={query_params[n][:40]!r}" for n in ("be_x", "be_y") if n in kept)
        messages.append(f"Break-even page, map axes (link settings {linked}): {problem}; the defaults are used")
        kept = {k: v for k, v in kept.items() if k not in ("be_x", "be_y")}
    st.session_state[_VIEW] = View.model_validate(kept)
    return messages


def axes_problem(x: BreakEvenAxis, y: BreakEvenAxis) -> str:
    """Why the Break-even map cannot have these two axes, or "" when it can (the rule of
    :class:`economics.views.breakeven.BreakEvenInputs`, said to a person).

    >>> axes_problem("demand", "utilization")
    'utilization and demand cannot both be axes: demand sets the utilization'
    """
    if x == y:
        return "the two axes must differ"
    if {x, y} == {"utilization", "demand"}:
        return "utilization and demand cannot both be axes: demand sets the utilization"
    return ""


#: The page each setting belongs to, by its parameter's prefix.
_PAGE_OF = {"cost": "Cost per token", "be": "Break-even", "bt": "Batching", "rt": "Workloads and routing"}


def setting_words(name: str) -> str:
    """A view setting in words: its page and its description without the unit.

    >>> setting_words("bt_batch")
    'Batching page, batch size marked on the charts'
    """
    description = str(View.model_fields[name].description or name).split(";")[0].split(" [")[0]
    return f"{_PAGE_OF[name.split('_')[0]]} page, {plain(description)}"


def get() -> View:
    value: View = st.session_state[_VIEW]
    return value


def set_value(name: str, value: object) -> None:
    """Change one setting (validated). The URL follows at the end of the next full run (``app.py``), not
    here: a setting moved inside a fragment (a slider, a select box) then costs no URL rewrite, which made
    the browser push a history entry with a ~3 KB address on every step (~15 ms each, and a Back button
    that replays every slider position). The Share dialog builds its link from this state, so it is always
    complete."""
    current = get()
    if getattr(current, name) == value:
        return
    st.session_state[_VIEW] = View.model_validate({**current.model_dump(), name: value})


def params() -> dict[str, str]:
    """The non-default settings as query parameters."""
    current = get()
    out: dict[str, str] = {}
    for name in View.model_fields:
        value = getattr(current, name)
        if value != getattr(_DEFAULT, name):
            out[name] = repr(value) if isinstance(value, float) else str(value)
    return out


def sync_url() -> None:
    """Write the non-default settings to the URL and remove the ones back at their default."""
    wanted = params()
    for name in View.model_fields:
        have = st.query_params.get(name)
        if name in wanted and have != wanted[name]:
            st.query_params[name] = wanted[name]
        elif name not in wanted and have is not None:
            del st.query_params[name]
