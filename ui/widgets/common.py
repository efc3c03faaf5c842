"""Widget helpers shared by the widget groups: bounds and help from the pydantic field, keys from the store.

Bounds come from the model's own ``Field`` constraints, so a widget can never accept a value the model
rejects (except for a strict ``gt`` bound, which the model's validation message then names).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import streamlit as st
from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel

from ui import state, view

#: The type of a select box's options (plain ids or a Literal of them).
OptionT = TypeVar("OptionT", bound=str)


#: How a node's purchase price may be typed (``economics.price_text.parse_money``), in its fields' help.
QUOTE_HINT = "Type it as on the quote: $280,000, 280000 or $280k."

#: Where a scenario without GPUs gets some (a reader on the API-only preset was told to use "the scenario panel",
#: which had no such field).
ADD_GPUS_HINT = (
    "To compare, add GPUs (Cost per token: Add or take out GPUs), load a preset with owned or rented GPUs "
    "(sidebar: Load or reset a scenario), or upload a scenario file that has a node."
)


def bounds(model: type[BaseModel], name: str) -> tuple[float | None, float | None]:
    """(min, max) from the field's ``ge``/``gt`` and ``le``/``lt`` constraints."""
    lo: float | None = None
    hi: float | None = None
    for meta in model.model_fields[name].metadata:
        if isinstance(meta, Ge):
            lo = float(meta.ge)  # type: ignore[arg-type]
        elif isinstance(meta, Gt):
            lo = float(meta.gt)  # type: ignore[arg-type]
        elif isinstance(meta, Le):
            hi = float(meta.le)  # type: ignore[arg-type]
        elif isinstance(meta, Lt):
            hi = float(meta.lt)  # type: ignore[arg-type]
    return lo, hi


def describe(model: type[BaseModel], name: str) -> str:
    """The field's description, capitalised, without the trailing unit (the label carries it)."""
    text = model.model_fields[name].description or ""
    text = text.rsplit(" [", 1)[0]
    return text[:1].upper() + text[1:]


def _fmt(x: float | None) -> str:
    if x is None:
        return "any"
    return f"{x:,.0f}" if x == int(x) and abs(x) >= 1 else f"{x:g}"


def view_select(
    label: str,
    name: str,
    options: Sequence[OptionT],
    format_func: Callable[[OptionT], str],
    *,
    help_text: str,
    container: Any = None,
) -> str:
    """A select box for a view setting holding an id; '' (the default) means the first option."""
    current = str(getattr(view.get(), name))
    index = options.index(current) if current in options else 0
    where = container if container is not None else st
    choice = str(
        where.selectbox(
            label, options, index=index, format_func=format_func, key=state.key(f"v_{name}"), help=help_text
        )
    )
    # an id setting keeps '' ("the first one") while its stored id is gone from the scenario; a setting
    # without that default (a map axis) stores the option shown
    first = choice == options[0] and current not in options and view.View.model_fields[name].default == ""
    view.set_value(name, "" if first else choice)
    return choice


def view_number(
    label: str,
    name: str,
    *,
    step: float,
    help_text: str,
    fmt: str | None = None,
    integer: bool = False,
    container: Any = None,
) -> float:
    """A number input for a numeric view setting, bounded by the View model."""
    lo, hi = bounds(view.View, name)
    current = getattr(view.get(), name)
    where = container if container is not None else st
    if integer:
        value: Any = where.number_input(
            label,
            min_value=None if lo is None else int(lo),
            max_value=None if hi is None else int(hi),
            value=int(current),
            step=int(step),
            key=state.key(f"v_{name}"),
            help=help_text,
        )
        view.set_value(name, int(value))
        return float(value)
    value = where.number_input(
        label,
        min_value=lo,
        max_value=hi,
        value=float(current),
        step=step,
        format=fmt,
        key=state.key(f"v_{name}"),
        help=help_text,
    )
    view.set_value(name, float(value))
    return float(value)


def view_tabs(name: str, options: Sequence[str], labels: Callable[[str], str]) -> tuple[str, Any]:
    """Tabs whose content runs only for the open one; returns (the open option, its container).

    Only the open tab's chart is built and drawn, so an input above the tabs redraws one chart instead of
    every chart of the page. Which tab is open is a view setting, so a shared link opens the same one.
    """
    current = str(getattr(view.get(), name))
    tabs = st.tabs(
        [labels(o) for o in options],
        default=labels(current if current in options else options[0]),
        key=state.key(f"v_{name}"),
        on_change="rerun",
    )
    open_index = next((i for i, t in enumerate(tabs) if t.open), 0)
    choice = options[open_index]
    view.set_value(name, choice)
    return choice, tabs[open_index]


#: Text typed into a price field and refused (it does not parse, or is out of range), by widget key: Streamlit
#: forgets a widget's text on pages where it is not drawn, so coming back showed the old price and no message,
#: as if the typing had been lost or, worse, applied.
_REFUSED_TEXT = "_refused_price_text"


def shown_text(key: str, shown: str) -> str:
    """The text a price field is drawn with: the refused text the user typed there, kept until it is fixed or
    replaced, else ``shown`` (the price in use)."""
    refused: dict[str, str] = st.session_state.get(_REFUSED_TEXT, {})
    return refused.get(key, shown)


def keep_refused(key: str, text: str | None) -> None:
    """Remember ``text`` as refused in the field ``key``; None forgets it (the field now holds a usable price)."""
    refused: dict[str, str] = dict(st.session_state.get(_REFUSED_TEXT, {}))
    if text is None:
        if refused.pop(key, None) is None:
            return
    else:
        refused[key] = text
    st.session_state[_REFUSED_TEXT] = refused
