"""The workloads editor, safe to edit: existing rows are edited in place (no new row to tab into and overwrite
another), a workload is added through a form that asks for every key figure, removed by name, and every
change can be undone. Key columns come first; the engineering details sit behind a toggle.

Changes apply only when every row is valid (:func:`ui.workload_table.read_workloads`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from economics.price_text import PriceTextError, parse_money
from economics.scenario import Scenario
from economics.workload import Workload
from ui import format as fmt
from ui import state
from ui.tables import csv_bytes
from ui.widgets.common import bounds
from ui.workload_table import (
    COLUMNS,
    DETAIL_LABELS,
    KEY_LABELS,
    LABEL,
    read_workloads,
    workloads_file_frame,
    workloads_frame,
)

_EDITOR = "workloads_editor"
_BASE = "_workloads_base"
_UNDO = "_workloads_undo"  # earlier workload tables, newest last
_UNDO_DEPTH = 20

_HELP = {
    "ID": "Short unique id (letters, digits, '-', '_', '.'); made from the name when left empty.",
    "Average [req/s]": "Average arrival rate over the month, requests per second.",
    "Peak [req/s]": "Peak arrival rate the capacity is sized for; at least the average.",
    "Prompt [tokens]": "Mean prompt length, input tokens per request (about ¾ of a word each).",
    "Output [tokens]": "Mean output length, generated tokens per request.",
    "First-token target [s]": "How soon the first token must arrive (engineers: TTFT SLO); empty = no target.",
    "Per-token target [ms/token]": "Time allowed per output token (engineers: TPOT SLO); empty = no target.",
    "Deadline [h]": "End-to-end deadline; 24 h or more admits an API's batch tier. Empty = none.",
    "Cached prompt [%]": "Share of prompt tokens that hit an API's prompt cache; empty = 0%.",
    "Sovereign data": "The data may not leave owned infrastructure: APIs are not allowed.",
    "Failure cost [USD/task]": "What a failed task costs the business (rework, escalation); sets the value axis. "
    "Required: type 0 if a failure costs nothing.",
    "Min quality [%]": "Options below this quality are not used; empty = no floor.",
    "Attempts [count]": "Attempts when failures are detectable (1 = no retry); empty = 1.",
    "Notes": "Assumptions behind the numbers.",
}
_SCALE = {
    "Per-token target [ms/token]": 1000.0,
    "Deadline [h]": 1 / 3600,
    "Cached prompt [%]": 100.0,
    "Min quality [%]": 100.0,
}


def _column_config() -> dict[str, Any]:
    config: dict[str, Any] = {}  # column label -> st.column_config.*Column(...)
    for c in COLUMNS:
        help_text = _HELP.get(c.label, "")
        if c.field in ("id", "name", "notes"):
            config[c.label] = st.column_config.TextColumn(
                c.label,
                help=help_text,
                required=c.field == "name",
                max_chars=2000 if c.field == "notes" else 120,
                pinned=c.field == "name",
            )
        elif c.field == "sovereign":
            config[c.label] = st.column_config.CheckboxColumn(c.label, help=help_text, default=False)
        else:
            lo, hi = bounds(Workload, c.field)
            scale = _SCALE.get(c.label, 1.0)
            integer = c.field in ("input_tokens", "output_tokens", "max_attempts")
            config[c.label] = st.column_config.NumberColumn(
                c.label,
                help=help_text,
                min_value=None if lo is None else lo * scale,
                max_value=None if hi is None else hi * scale,
                step=1 if integer else None,
                format="localized" if integer else ("dollar" if c.field == "failure_cost_usd" else None),
                required=c.field
                in ("avg_requests_per_s", "peak_requests_per_s", "input_tokens", "output_tokens", "failure_cost_usd"),
            )
    return config


def _apply(s: Scenario, workloads: tuple[Workload, ...], message: str) -> None:
    """Replace the workloads (recreating the editor from them), remember the old ones for undo, rerun."""
    undo: list[tuple[Workload, ...]] = st.session_state.setdefault(_UNDO, [])
    undo.append(s.workloads)
    del undo[:-_UNDO_DEPTH]
    new = Scenario.model_validate({**s.model_dump(), "workloads": [w.model_dump() for w in workloads]})
    state.replace(new)
    st.session_state["_workloads_flash"] = message
    st.rerun()


def _validated(s: Scenario, frame: pd.DataFrame) -> tuple[tuple[Workload, ...] | None, list[str]]:
    workloads, messages = read_workloads(frame, s.workloads)
    if workloads is None:
        return None, messages
    try:
        Scenario.model_validate({**s.model_dump(), "workloads": [w.model_dump() for w in workloads]})
    except ValueError as exc:
        return None, [fmt.plain(str(exc).splitlines()[-1])]
    return workloads, []


def _add_form(s: Scenario) -> None:
    """A form for one new workload: it is appended, never written over an existing row."""
    with st.expander("Add a workload", icon=":material/add:"), st.form("workload_add", border=False):
        c = st.columns(4, vertical_alignment="bottom")
        name = c[0].text_input("Name", max_chars=120, key="wl_add_name")
        avg = c[1].number_input("Average [req/s]", min_value=0.0, value=1.0, step=0.1, key="wl_add_avg")
        peak = c[2].number_input("Peak [req/s]", min_value=0.0, value=2.0, step=0.1, key="wl_add_peak")
        failure = c[3].text_input(
            "Failure cost [USD/task]", placeholder="e.g. $2.50 (0 if nothing)", key="wl_add_failure"
        )
        d = st.columns(4, vertical_alignment="bottom")
        prompt = d[0].number_input("Prompt [tokens]", min_value=1, value=1000, step=100, key="wl_add_in")
        output = d[1].number_input("Output [tokens]", min_value=1, value=300, step=50, key="wl_add_out")
        tpot = d[2].number_input(
            "Per-token target [ms/token]", min_value=0.0, value=0.0, step=5.0, key="wl_add_tpot", help="0 = none"
        )
        sovereign = d[3].checkbox("Sovereign data (owned only)", key="wl_add_sovereign")
        if not st.form_submit_button("Add this workload", icon=":material/add:"):
            return
    row: dict[str, object] = {c.label: None for c in COLUMNS}
    row.update(
        {
            LABEL["name"]: name.strip() or None,
            LABEL["avg_requests_per_s"]: avg,
            LABEL["peak_requests_per_s"]: peak,
            LABEL["input_tokens"]: prompt,
            LABEL["output_tokens"]: output,
            LABEL["tpot_slo_s"]: tpot or None,
            LABEL["sovereign"]: sovereign,
            LABEL["failure_cost_usd"]: _money(failure),
        }
    )
    frame = pd.concat([workloads_frame(s.workloads), pd.DataFrame([row])], ignore_index=True)
    workloads, messages = _validated(s, frame)
    if workloads is None:
        st.error("**Not added:**\n\n" + "\n".join(f"- {fmt.md_escape(m)}" for m in messages[:10]))
        return
    _apply(s, workloads, f"Added “{workloads[-1].name}”.")


def _money(text: str) -> float | None:
    try:
        return parse_money(text, LABEL["failure_cost_usd"]) if text.strip() else None
    except PriceTextError:
        return -1.0  # out of bounds: the row's validation names the column


def _remove_and_undo(s: Scenario) -> None:
    c = st.columns([2.2, 1, 1], vertical_alignment="bottom")
    names = {w.id: w.name for w in s.workloads}
    victim = c[0].selectbox(
        "Remove a workload",
        list(names),
        format_func=names.__getitem__,
        index=None,
        placeholder="Pick a workload",
        key=state.key("wl_remove_pick"),
    )
    if c[1].button("Remove", key=state.key("wl_remove"), disabled=victim is None or len(names) < 2):
        _apply(s, tuple(w for w in s.workloads if w.id != victim), f"Removed “{names[str(victim)]}”.")
    undo: list[tuple[Workload, ...]] = st.session_state.get(_UNDO, [])
    if c[2].button(
        "Undo", key=state.key("wl_undo"), icon=":material/undo:", disabled=not undo, help="Undo the last change"
    ):
        previous = undo.pop()
        new = Scenario.model_validate({**s.model_dump(), "workloads": [w.model_dump() for w in previous]})
        state.replace(new)
        st.session_state["_workloads_flash"] = "Undone: the workloads are back as they were."
        st.rerun()


def workloads_editor(s: Scenario, on_change: Callable[[], None] | None = None) -> Scenario:
    """Draw the editor; return the scenario with the edited workloads if every row is valid, else unchanged
    (with the problems listed by row and column). ``on_change`` is the table's callback (a targeted rerun,
    ``ui.live``); adding, removing and undoing rerun the whole app."""
    message = st.session_state.pop("_workloads_flash", None)
    if message:
        st.success(fmt.md_escape(message), icon=":material/check_circle:")
    key = state.key(_EDITOR)
    if key not in st.session_state or _BASE not in st.session_state:
        st.session_state[_BASE] = workloads_frame(s.workloads)
    base: pd.DataFrame = st.session_state[_BASE]
    details = st.toggle("Show engineering details (latency targets, deadline, caching, retries)", key="wl_details")
    edited = st.data_editor(
        base,
        placeholder="",  # a missing value is an empty cell to type into, not the word None
        key=key,
        num_rows="fixed",  # rows are added by the form below: tabbing can never write into another row
        hide_index=True,
        column_config=_column_config(),
        column_order=list(KEY_LABELS + (DETAIL_LABELS if details else ())),
        width="stretch",
        on_change=on_change,
    )
    new, problems = _edited(s, base, edited)  # before the buttons: Undo is enabled by the edit it undoes
    if problems:
        st.error(
            "**Not applied: fix these cells first** (the rest of the dashboard still shows the last valid table).\n\n"
            + "\n".join(f"- {fmt.md_escape(m)}" for m in problems[:20])
        )
    # below the table, the workloads as edited (``new``): the scenario holds a cell edit only once this returns,
    # and a download built from ``s`` lagged one edit behind the table on screen
    _add_form(new)
    _remove_and_undo(new)
    st.download_button(
        f"Download the workloads [CSV, {fmt.plural(len(new.workloads), 'row')}]",
        data=functools.partial(_workloads_csv, new.workloads),  # written when clicked, not on every rerun
        file_name="workloads.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        key="csv_workloads",
    )
    return new


def _workloads_csv(workloads: tuple[Workload, ...]) -> bytes:
    return csv_bytes(workloads_file_frame(workloads))


def _edited(s: Scenario, base: pd.DataFrame, edited: pd.DataFrame) -> tuple[Scenario, list[str]]:
    """The scenario with the edited table applied (its old workloads pushed on the undo stack), or the
    unchanged scenario and the problems of an invalid table."""
    if edited.equals(base):
        return s, []
    workloads, messages = _validated(s, edited)
    if workloads is None:
        return s, messages
    new = Scenario.model_validate({**s.model_dump(), "workloads": [w.model_dump() for w in workloads]})
    if new != s:
        undo: list[tuple[Workload, ...]] = st.session_state.setdefault(_UNDO, [])
        if not undo or undo[-1] != s.workloads:
            undo.append(s.workloads)
            del undo[:-_UNDO_DEPTH]
    return new, []
