"""Widget groups of the Price book page: the staleness policy, the price table, the negotiated-price editor and
the CSV import with its error list and template.

Negotiated prices change the shared scenario only through :func:`economics.price_book.apply_negotiated`,
all at once and only when every row is valid; a successful apply replaces the scenario (new widget epoch),
so the editor and the uploader start empty again and a discount is never applied twice by accident.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import pandas as pd
import streamlit as st
from pydantic import ValidationError

from economics.price_book import (
    NEGOTIABLE_ITEMS,
    NegotiatedPrice,
    NegotiatedPriceError,
    apply_negotiated,
    price_book_frame,
)
from economics.price_csv import CSV_COLUMNS, read_negotiated_csv, template_csv
from economics.result import Result
from economics.scenario import Policy, Scenario
from ui import state
from ui.format import md_escape, plural
from ui.widgets.common import bounds, describe
from ui.widgets.table import table

_FLASH = "_price_book_flash"
_APPLIED_FILE = "_price_book_applied_file"


def flash() -> None:
    """Show (once) the message of the last apply."""
    message = st.session_state.pop(_FLASH, None)
    if message:
        st.success(message, icon=":material/check_circle:")


def _applied(new: Scenario, message: str) -> None:
    state.replace(new)
    st.session_state[_FLASH] = message
    st.rerun()


def stale_policy(s: Scenario, container: Any) -> Scenario:
    """The staleness threshold (``Policy.stale_after_days``), part of the scenario."""
    lo, hi = bounds(Policy, "stale_after_days")
    days = container.number_input(
        "Prices are stale after [days]",
        min_value=int(lo or 1),
        max_value=int(hi or 3650),
        value=s.policy.stale_after_days,
        step=15,
        key=state.key("pb_stale_days"),
        help=describe(Policy, "stale_after_days") + ", counted back from the review date.",
    )
    if int(days) == s.policy.stale_after_days:
        return s
    return s.model_copy(update={"policy": s.policy.model_copy(update={"stale_after_days": int(days)})})


def price_frame(s: Scenario, r: Result) -> pd.DataFrame:
    """Every price with its source, as-of date, age and stale flag, for display and CSV."""
    f = price_book_frame(s, r)
    return pd.DataFrame(
        {
            "Status": ["⚠ stale" if x else "" for x in f["stale"]],
            "Offer": f["offer_name"],
            "Offer id": f["offer_id"],
            "Price": f["item"],
            "Unit": f["unit"],
            "List": f["list_value"],
            "Discount": f["discount_fraction"],
            "In use": f["value"],
            "Negotiated": f["negotiated"],
            "As of": [d.isoformat() if d is not None else "undated" for d in f["as_of"]],
            "Age [days]": f["age_days"],
            "Source": f["source"],
            "Feeds a chosen route": f["in_chosen_route"],
        }
    )


def price_table(shown: pd.DataFrame) -> None:
    """The price frame as a table with its CSV download."""
    table(
        shown,
        key="price_book",
        file_name="price_book.csv",
        column_config={
            "Status": st.column_config.TextColumn(help="Older than the threshold above, or undated"),
            "Discount": st.column_config.NumberColumn(format="percent"),
            "Source": st.column_config.TextColumn(width="large"),
        },
    )


def summary(s: Scenario, shown: pd.DataFrame) -> None:
    """Counts of prices, stale and negotiated ones, and a warning naming the offers with stale prices."""
    is_stale = shown["Status"] != ""
    m = st.columns(3)
    m[0].metric("Prices in use", f"{len(shown)}")
    m[1].metric(
        "Stale or undated", f"{int(is_stale.sum())}", help=f"Older than {s.policy.stale_after_days} days, or undated"
    )
    m[2].metric("Negotiated", f"{int(shown['Negotiated'].sum())}")
    if is_stale.any():
        offers = ", ".join(sorted(set(shown.loc[is_stale, "Offer"])))
        st.warning(
            f"{plural(int(is_stale.sum()), 'price')} older than {s.policy.stale_after_days} days or undated; "
            f"check them before the review: {md_escape(offers)}.",
            icon=":material/schedule:",
        )


def _offers(s: Scenario) -> list[str]:
    return [n.id for n in s.nodes] + [a.id for a in s.apis]


def _rows_to_prices(frame: pd.DataFrame) -> tuple[list[NegotiatedPrice], list[str]]:
    prices: list[NegotiatedPrice] = []
    problems: list[str] = []
    for i, row in enumerate(frame.to_dict("records"), start=1):
        if all(v is None or (isinstance(v, float) and math.isnan(v)) or v == "" for v in row.values()):
            continue
        as_of = row.get("as_of")
        if isinstance(as_of, dt.datetime):  # pandas hands dates back as Timestamps
            as_of = as_of.date()
        data: dict[str, Any] = {
            "offer_id": row.get("offer_id") or "",
            "item": row.get("item") or "",
            "value": row.get("value"),
            "as_of": as_of if isinstance(as_of, dt.date) else None,
            "source": row.get("source") or "",
        }
        try:
            prices.append(NegotiatedPrice.model_validate(data))
        except ValidationError as exc:
            for err in exc.errors(include_url=False):
                field = ".".join(str(p) for p in err["loc"])
                problems.append(f"row {i}, {field}: {err['msg']}")
    return prices, problems


def negotiated_editor(s: Scenario) -> None:
    """Rows of negotiated prices typed on the page; "Apply" applies them all or none."""
    empty = pd.DataFrame(
        {
            "offer_id": pd.Series(dtype="object"),
            "item": pd.Series(dtype="object"),
            "value": pd.Series(dtype="float64"),
            "as_of": pd.Series(dtype="object"),
            "source": pd.Series(dtype="object"),
        }
    )
    edited = st.data_editor(
        empty,
        num_rows="dynamic",
        hide_index=True,
        key=state.key("pb_editor"),
        column_config={
            "offer_id": st.column_config.SelectboxColumn("Offer", options=_offers(s), required=True),
            "item": st.column_config.SelectboxColumn(
                "Item", options=list(NEGOTIABLE_ITEMS), required=True, help=_items_help()
            ),
            "value": st.column_config.NumberColumn("Value", help="USD, or a fraction for discounts (0.2 = 20 %)"),
            "as_of": st.column_config.DateColumn("As of", help="Date of the agreement; empty = the review date"),
            "source": st.column_config.TextColumn("Source", help="Contract or quote reference"),
        },
    )
    if not st.button("Apply these negotiated prices", key=state.key("pb_apply"), icon=":material/done_all:"):
        return
    prices, problems = _rows_to_prices(edited)
    if not problems and not prices:
        st.info("Add at least one row first.")
        return
    if not problems:
        try:
            new = apply_negotiated(s, prices)
        except NegotiatedPriceError as exc:
            problems = list(exc.problems)
        else:
            _applied(new, f"Applied {plural(len(prices), 'negotiated price')}.")
    st.error(
        "Nothing was applied; fix these rows:\n\n" + "\n".join(f"- {md_escape(p)}" for p in problems),
        icon=":material/error:",
    )


def _items_help() -> str:
    return "; ".join(f"{name}: {rule.help} [{rule.unit}]" for name, rule in NEGOTIABLE_ITEMS.items())


def csv_import(s: Scenario) -> None:
    """Upload a CSV; every bad row is listed with line, column and reason, and nothing applies until it is clean."""
    st.download_button(
        "Download the template [CSV]",
        data=template_csv(s).encode("utf-8"),
        file_name="negotiated_prices_template.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        key="pb_template",
        help="One row per offer with its current price; columns " + ", ".join(CSV_COLUMNS),
    )
    uploaded = st.file_uploader(
        "Import negotiated prices [CSV]", type=["csv"], key=state.key("pb_upload"), max_upload_size=1
    )
    if uploaded is None:
        return
    result = read_negotiated_csv(uploaded.getvalue(), s)
    if not result.ok:
        st.error(
            f"{md_escape(uploaded.name)}: {plural(len(result.problems), 'problem')}; nothing was applied.",
            icon=":material/error:",
        )
        problems = pd.DataFrame([{"Line": p.line, "Column": p.column, "Reason": p.reason} for p in result.problems])
        st.dataframe(problems, hide_index=True, key="pb_problems", column_config={"Reason": {"width": "large"}})
        return
    st.success(f"{md_escape(uploaded.name)}: {plural(result.rows_read, 'row')}, all valid.", icon=":material/task_alt:")
    st.dataframe(pd.DataFrame([p.model_dump() for p in result.prices]), hide_index=True, key="pb_preview")
    if st.session_state.get(_APPLIED_FILE) == uploaded.file_id:
        return
    if st.button(f"Apply the {plural(len(result.prices), 'imported price')}", key=state.key("pb_apply_csv")):
        st.session_state[_APPLIED_FILE] = uploaded.file_id
        applied = plural(len(result.prices), "negotiated price")
        _applied(result.applied_to(s), f"Imported {applied} from {uploaded.name}.")
