"""A table with its CSV download next to it (every table of the dashboard can be downloaded)."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any, Literal

import pandas as pd
import streamlit as st

from ui.format import CURRENCY_PREFIX, currency_prefix, money_header, plural
from ui.tables import csv_bytes

#: What a table shows for a missing value (a sovereign workload's API cost, an option not feasible): a dash.
#: Streamlit's default is the word "None", which read as Python leaking into a finance table.
MISSING_SHOWN = "—"


def table(
    df: pd.DataFrame,
    *,
    key: str,
    file_name: str,
    column_config: dict[str, Any] | None = None,
    height: int | Literal["auto", "stretch", "content"] = "auto",
) -> None:
    """``st.dataframe`` without the index, and a "Download … [CSV]" button with the same columns."""
    # the first column (the row's name) stays in view while a wide table scrolls sideways; a money column the
    # caller did not format is formatted by its header's currency and unit (money_formats)
    config = (
        {df.columns[0]: st.column_config.Column(pinned=True), **money_formats(df.columns), **(column_config or {})}
        if len(df.columns)
        else None
    )
    st.dataframe(
        df, hide_index=True, column_config=config, height=height, key=f"table_{key}", placeholder=MISSING_SHOWN
    )
    st.download_button(
        f"Download this table [CSV, {plural(len(df), 'row')}]",
        data=functools.partial(csv_bytes, df),  # written when clicked, not on every rerun (issue 15, load)
        file_name=file_name,
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        key=f"csv_{key}",
    )


def money_formats(columns: Iterable[object]) -> dict[str, Any]:
    """Formats of the money ``columns`` by their header: an amount a task (fractions of a cent) to four
    significant figures with its currency sign, any other amount as :func:`money_in` writes it."""
    formats: dict[str, Any] = {}
    for column in map(str, columns):
        if (money := money_header(column)) is None:
            continue
        code, unit = money
        formats[column] = number(fmt=f"{currency_prefix(code)}%.4g") if unit == "/task" else money_in(code)
    return formats


def whole_money(columns: Iterable[object]) -> dict[str, Any]:
    """Formats of the money ``columns`` (by their header) in whole units with their sign: yearly bills and NPVs
    of hundreds of thousands read "S$826,608", not "S$826,608.00"."""
    return {
        c: number(fmt=f"{currency_prefix(m[0])}%,.0f") for c in map(str, columns) if (m := money_header(c)) is not None
    }


def money(label: str | None = None, help_text: str | None = None) -> Any:
    """A USD number column: $ sign, thousands separators, cents."""
    return st.column_config.NumberColumn(label, format="dollar", help=help_text)


def money_in(code: str, label: str | None = None, help_text: str | None = None) -> Any:
    """A money column in the display currency ``code``, as the dollar format writes USD: its sign, thousands
    separators and cents ("S$1,817,589.46", "CHF 17.23"; a bare "17.23" under "[SGD/Mtok]" sat beside charts
    reading "S$6.96")."""
    return money(label, help_text) if code == "USD" else number(label, help_text, fmt=f"{currency_prefix(code)}%,.2f")


def number(label: str | None = None, help_text: str | None = None, fmt: str = "localized") -> Any:
    """A plain number column with thousands separators (or a printf format such as "%.1f")."""
    return st.column_config.NumberColumn(label, format=fmt, help=help_text)


def routes_columns(code: str) -> dict[str, Any]:
    """Column formats of :func:`ui.tables.decisions_frame` in the display currency ``code`` (Overview, Workloads)."""
    prefix = CURRENCY_PREFIX.get(code, "")
    return {
        "Why": st.column_config.TextColumn(width="large"),
        f"Margin vs runner-up [{code}/task]": number(fmt=f"{prefix}%.4f"),
        f"Cost of route [{code}/month]": money_in(code),
        f"On its best API [{code}/month]": money_in(code),
        f"Savings vs API [{code}/month]": money_in(code),
    }
