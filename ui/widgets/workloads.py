"""The workloads editor: ``st.data_editor`` over the scenario's workloads, applied only when every row is valid."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from economics.scenario import Scenario
from economics.workload import Workload
from ui import format as fmt
from ui import state
from ui.tables import csv_bytes
from ui.widgets.common import bounds
from ui.workload_table import COLUMNS, read_workloads, workloads_frame

_EDITOR = "workloads_editor"
_BASE = "_workloads_base"

_HELP = {
    "ID": "Short unique id (letters, digits, '-', '_', '.'); made from the name when left empty.",
    "Average [req/s]": "Average arrival rate over the month.",
    "Peak [req/s]": "Peak arrival rate the capacity is sized for; at least the average.",
    "Prompt [tokens]": "Mean prompt length, input tokens per request.",
    "Output [tokens]": "Mean output length, generated tokens per request.",
    "TTFT SLO [s]": "Time to first token the users need; empty = no SLO.",
    "TPOT SLO [ms/token]": "Time per output token the users need; empty = no SLO.",
    "Deadline [h]": "End-to-end deadline; 24 h or more admits an API's batch tier. Empty = none.",
    "Cached prompt [%]": "Share of prompt tokens that hit an API's prompt cache.",
    "Sovereign": "The data may not leave owned infrastructure: APIs are not allowed.",
    "Failure cost [USD/task]": "What a failed task costs the business (rework, escalation); sets the value axis.",
    "Min quality [%]": "Options below this quality are not used; empty = no floor.",
    "Attempts [count]": "Attempts when failures are detectable (1 = no retry).",
    "Notes": "Assumptions behind the numbers.",
}
_SCALE = {"TPOT SLO [ms/token]": 1000.0, "Deadline [h]": 1 / 3600, "Cached prompt [%]": 100.0, "Min quality [%]": 100.0}


def _column_config() -> dict[str, object]:
    config: dict[str, object] = {}
    for c in COLUMNS:
        help_text = _HELP.get(c.label, "")
        if c.field in ("id", "name", "notes"):
            config[c.label] = st.column_config.TextColumn(
                c.label, help=help_text, required=c.field == "name", max_chars=2000 if c.field == "notes" else 120
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
                format="%d" if integer else None,
                required=c.field in ("avg_requests_per_s", "peak_requests_per_s", "input_tokens", "output_tokens"),
            )
    return config


def workloads_editor(s: Scenario) -> Scenario:
    """Draw the editor; return the scenario with the edited workloads if every row is valid, else unchanged
    (with the problems listed by row and column)."""
    key = state.key(_EDITOR)
    if key not in st.session_state or _BASE not in st.session_state:
        st.session_state[_BASE] = workloads_frame(s.workloads)
    base: pd.DataFrame = st.session_state[_BASE]
    edited = st.data_editor(
        base,
        key=key,
        num_rows="dynamic",
        hide_index=True,
        column_config=_column_config(),
        width="stretch",
    )
    st.download_button(
        f"Download the workloads [CSV, {len(s.workloads)} rows]",
        data=csv_bytes(workloads_frame(s.workloads)),
        file_name="workloads.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        key="csv_workloads",
    )
    if edited.equals(base):
        return s
    workloads, messages = read_workloads(edited, s.workloads)
    if workloads is None:
        st.error(
            "**Not applied: fix these cells first** (the rest of the dashboard still shows the last valid table).\n\n"
            + "\n".join(f"- {fmt.md_escape(m)}" for m in messages[:20])
        )
        return s
    try:
        return Scenario.model_validate({**s.model_dump(), "workloads": [w.model_dump() for w in workloads]})
    except ValueError as exc:
        st.error(f"**Not applied:** {fmt.md_escape(str(exc).splitlines()[-1])}")
        return s
