"""The workloads as an editable table and back: display units in the columns, validation naming row and column.

Pure (no Streamlit): :func:`workloads_frame` turns workloads into a DataFrame whose column names carry their
units (ms, hours, percent for readability); :func:`read_workloads` turns an edited frame back into validated
:class:`~economics.workload.Workload` objects, or into messages such as
``Row 3 ('KYC batch'), column 'Peak [req/s]': must be at least Average [req/s]``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
from pydantic import ValidationError

from economics.units import MS, SECONDS_PER_HOUR
from economics.workload import Workload


@dataclass(frozen=True)
class Column:
    """One table column: the Workload field it edits and the conversion to display units."""

    field: str
    label: str
    to_display: Callable[[Any], Any]
    from_display: Callable[[Any], Any]


def _same(x: Any) -> Any:
    return x


def _opt(scale: float) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    def to_display(x: Any) -> Any:
        return None if x is None else x / scale

    def from_display(x: Any) -> Any:
        return None if x is None else x * scale

    return to_display, from_display


_MS = _opt(MS)
_HOUR = _opt(SECONDS_PER_HOUR)
_PCT = _opt(0.01)

#: Key columns first (what a finance reader sets), then the engineering details (:data:`DETAIL_LABELS`).
COLUMNS: tuple[Column, ...] = (
    Column("name", "Name", _same, _same),
    Column("avg_requests_per_s", "Average [req/s]", _same, _same),
    Column("peak_requests_per_s", "Peak [req/s]", _same, _same),
    Column("input_tokens", "Prompt [tokens]", _same, _same),
    Column("output_tokens", "Output [tokens]", _same, _same),
    Column("failure_cost_usd", "Failure cost [USD/task]", _same, _same),
    Column("sovereign", "Sovereign data", _same, _same),
    Column("id", "ID", _same, _same),
    Column("ttft_slo_s", "First-token target [s]", _same, _same),
    Column("tpot_slo_s", "Per-token target [ms/token]", *_MS),
    Column("deadline_s", "Deadline [h]", *_HOUR),
    Column("prompt_cache_hit_rate", "Cached prompt [%]", *_PCT),
    Column("min_quality", "Min quality [%]", *_PCT),
    Column("max_attempts", "Attempts [count]", _same, _same),
    Column("notes", "Notes", _same, _same),
)
KEY_LABELS: tuple[str, ...] = tuple(c.label for c in COLUMNS[:7])
DETAIL_LABELS: tuple[str, ...] = tuple(c.label for c in COLUMNS[7:])
LABEL = {c.field: c.label for c in COLUMNS}
_FIELD_RE = re.compile("|".join(sorted((re.escape(f) for f in LABEL), key=len, reverse=True)))


def workloads_frame(workloads: Sequence[Workload]) -> pd.DataFrame:
    """The workloads in display units, one row each (quality overrides are kept aside, by id)."""
    rows = [{c.label: c.to_display(getattr(w, c.field)) for c in COLUMNS} for w in workloads]
    frame = pd.DataFrame(rows, columns=[c.label for c in COLUMNS])
    for c in COLUMNS:
        if c.field in ("id", "name", "notes"):
            frame[c.label] = frame[c.label].astype("string")
        elif c.field == "sovereign":
            frame[c.label] = frame[c.label].astype("boolean")
        else:
            frame[c.label] = pd.to_numeric(frame[c.label], errors="coerce").astype("Float64")
    return frame


#: The columns whose workload field is a whole number (tokens, attempts): a file writes them without ".0".
WHOLE_LABELS: frozenset[str] = frozenset(c.label for c in COLUMNS if Workload.model_fields[c.field].annotation is int)


def workloads_file_frame(workloads: Sequence[Workload]) -> pd.DataFrame:
    """:func:`workloads_frame` for a CSV: the whole-number columns as integers ("6000", not "6000.0")."""
    frame = workloads_frame(workloads)
    for label in WHOLE_LABELS:
        frame[label] = frame[label].round().astype("Int64")
    return frame


def _cell(value: Any) -> Any:
    """A frame cell as a plain Python value; missing (NaN, NA, empty text) becomes None."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, str) and not value.strip():
        return None
    if hasattr(value, "item"):
        return value.item()
    return value


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-").lower()[:48]


def _human(msg: str) -> str:
    """Field names in a validation message replaced by their column labels."""
    return _FIELD_RE.sub(lambda m: LABEL[m.group(0)], msg.removeprefix("Value error, "))


def read_workloads(frame: pd.DataFrame, previous: Sequence[Workload]) -> tuple[tuple[Workload, ...] | None, list[str]]:
    """Validate every row; ``(workloads, [])`` if all are valid, else ``(None, messages)``.

    A row with no ID gets one from its name. Quality overrides of a workload are kept when its ID is kept.
    Duplicate IDs are reported. Messages count rows from 1, as the table shows them.
    """
    overrides = {w.id: w.quality_overrides for w in previous}
    kept = {w.id: {"demand_profile": w.demand_profile, "data_locations": w.data_locations} for w in previous}
    out: list[Workload] = []
    messages: list[str] = []
    seen: dict[str, int] = {}
    for i, (_, row) in enumerate(frame.iterrows(), start=1):
        data: dict[str, Any] = {}
        for c in COLUMNS:
            value = _cell(row.get(c.label))
            data[c.field] = c.from_display(value) if value is not None else None
        name = data.get("name") or ""
        if not data.get("id") and name:
            data["id"] = _slug(str(name)) or f"workload-{i}"
        for key in ("sovereign",):
            data[key] = bool(data[key]) if data[key] is not None else False
        for key in ("notes",):
            data[key] = data[key] or ""
        for key in ("max_attempts",):
            data[key] = 1 if data[key] is None else data[key]
        data["prompt_cache_hit_rate"] = data["prompt_cache_hit_rate"] or 0.0
        where = f"Row {i}" + (f" ({str(name)[:40]!r})" if name else "")
        if data["failure_cost_usd"] is None:  # asked for, never silently $0: it decides API vs owned quality
            messages.append(
                f"{where}, column {LABEL['failure_cost_usd']!r}: enter what a failed task costs the business "
                "(rework, escalation); type 0 if nothing"
            )
            continue
        for key in ("input_tokens", "output_tokens", "max_attempts"):
            if isinstance(data[key], float) and data[key].is_integer():
                data[key] = int(data[key])
        data["quality_overrides"] = overrides.get(str(data.get("id")), {})
        data.update(kept.get(str(data.get("id")), {}))  # day profile and data rule are not table columns
        try:
            workload = Workload.model_validate(data)
        except ValidationError as exc:
            for err in exc.errors(include_url=False):
                loc = err["loc"]
                column = f", column {LABEL[str(loc[0])]!r}" if loc and str(loc[0]) in LABEL else ""
                messages.append(f"{where}{column}: {_human(str(err['msg']))}")
            continue
        if workload.id in seen:
            messages.append(f"{where}, column 'ID': {workload.id!r} is already used by row {seen[workload.id]}")
            continue
        seen[workload.id] = i
        out.append(workload)
    if not frame.shape[0]:
        messages.append("The table is empty: a scenario needs at least one workload.")
    return (tuple(out), []) if not messages else (None, messages)
