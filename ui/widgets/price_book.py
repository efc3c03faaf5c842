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

from economics import ITEM_LABEL, by_id
from economics.io.price_csv import CSV_COLUMNS, read_negotiated_csv, template_csv
from economics.price_book import (
    NEGOTIABLE_ITEMS,
    NegotiatedPrice,
    NegotiatedPriceError,
    apply_negotiated,
    price_book_frame,
)
from economics.price_text import PriceTextError, parse_money, parse_percent, typed_source
from economics.result import Result
from economics.scenario import Policy, Scenario
from ui import state
from ui.format import PRICE_UNIT_WORDS, md_escape, plain, plural, price_age, price_statuses
from ui.tables import csv_bytes
from ui.widgets.api_rates import money_text
from ui.widgets.common import bounds, describe
from ui.widgets.table import MISSING_SHOWN

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


#: Price book items in words, and the offer field each one edits (typed over in the in-use table).
ITEM_WORDS: dict[str, tuple[str, str]] = {
    item: (ITEM_LABEL[item], field)
    for item, field in (
        ("gpu_hour", "price_usd_per_gpu_hour"),
        ("node_capex", "capex_usd"),
        ("electricity", "electricity_usd_per_kwh"),
        ("colocation", "colocation_usd_per_kw_month"),
        ("api_input", "input_usd_per_mtok"),
        ("api_cached_input", "cached_input_usd_per_mtok"),
        ("api_output", "output_usd_per_mtok"),
        # the API's priced tiers (data/prices/api_tiers.csv) read "api cache write" before (screenshots)
        ("api_cache_write", "cache_write_usd_per_mtok"),
        ("api_long_context_input", "long_context_input_usd_per_mtok"),
        ("api_long_context_output", "long_context_output_usd_per_mtok"),
    )
}
_LIST = "List price (type to change)"


def price_frame(s: Scenario, r: Result) -> pd.DataFrame:
    """Every price with its source, as-of date, age and stale flag, for display and CSV (no ids: the offer's
    and the price's names; the index holds (offer id, item) for edits)."""
    f = price_book_frame(s, r)
    frame = pd.DataFrame(
        {
            "Offer": f["offer_name"],
            "Price": [ITEM_LABEL.get(i, i.replace("_", " ")) for i in f["item"]],
            _LIST: [money_text(float(v)) for v in f["list_value"]],
            "Discount": f["discount_fraction"],
            "In use": [money_text(float(v)) for v in f["value"]],  # as precise as the list price: $0.025, not $0.03
            # before the unit: whether a price is stale matters more than its unit in words
            "Status": price_statuses(f),
            "As of": [d.isoformat() if d is not None else "undated" for d in f["as_of"]],
            "Unit": [PRICE_UNIT_WORDS.get(u, u.replace("USD", "$")) for u in f["unit"]],
            "Negotiated": f["negotiated"],
            "Age [days]": price_age(f["age_days"]),
            "Source": [plain(str(x)) for x in f["source"]],
            "Feeds a chosen route": f["in_chosen_route"],
        }
    )
    frame.index = pd.Index([f"{o}\t{i}" for o, i in zip(f["offer_id"], f["item"], strict=True)], name="key")
    return frame


#: Up to this many prices the in-use table is as tall as its rows; a longer list scrolls in a table of the default
#: height rather than pushing the negotiated prices a screen further down.
IN_USE_ROWS_SHOWN = 30


def price_table(s: Scenario, shown: pd.DataFrame) -> Scenario:
    """The price frame as a table whose list prices can be typed over ("$9.50", "9.50"), with its CSV
    download; returns the scenario with the typed prices applied (entered by the user today)."""
    edited = st.data_editor(
        shown,
        placeholder="",  # a missing value is an empty cell to type into, not the word None
        hide_index=True,
        # every price in view up to a long list (Streamlit's default shows ten rows and scrolls the rest)
        height="content" if len(shown) <= IN_USE_ROWS_SHOWN else "auto",
        key=state.key("pb_in_use"),
        disabled=[c for c in shown.columns if c != _LIST],
        column_config={
            "Offer": st.column_config.TextColumn(pinned=True),
            _LIST: st.column_config.TextColumn(help="Type a new price as on the invoice: $9.50 or 9.50"),
            "In use": st.column_config.TextColumn(help="After the negotiated discount"),
            "Status": st.column_config.TextColumn(
                help="Current, older than the threshold above (stale), undated, or dated after the review date; "
                "(assumed): the source says the price is an assumption, not a quote"
            ),
            "Discount": st.column_config.NumberColumn(format="percent"),
            "Source": st.column_config.TextColumn(width="large"),
        },
    )
    st.download_button(
        f"Download this table [CSV, {plural(len(shown), 'row')}]",
        data=csv_bytes(shown),
        file_name="price_book.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        key="csv_price_book",
    )
    problems: list[str] = []
    today = dt.date.today()
    for key, before, after in zip(shown.index, shown[_LIST], edited[_LIST], strict=True):
        offer_id, item = str(key).split("\t")
        if after == before or item not in ITEM_WORDS:
            continue
        label, field = ITEM_WORDS[item]
        try:
            value = parse_money(str(after or ""), label, maximum=1e8)
        except PriceTextError as exc:
            problems.append(str(exc))
            continue
        s = _typed_price(s, str(offer_id), field, value, today, problems)
    if problems:
        st.error("Not applied:\n\n" + "\n".join(f"- {md_escape(p)}" for p in problems), icon=":material/error:")
    return s


def _typed_price(s: Scenario, offer_id: str, field: str, value: float, today: dt.date, problems: list[str]) -> Scenario:
    """``s`` with one offer's price replaced by a typed one (source and date stamped); a value out of the
    offer's bounds is reported in ``problems`` instead."""
    group = "apis" if any(a.id == offer_id for a in s.apis) else "nodes"
    offer = by_id(getattr(s, group), offer_id, "API" if group == "apis" else "node")
    update: dict[str, Any] = {field: value, "source": typed_source(today), "as_of": today.isoformat()}
    if "price_id" in type(offer).model_fields:
        update["price_id"] = None
    try:
        return state.with_item(s, group, type(offer).model_validate({**offer.model_dump(), **update}))
    except ValidationError as exc:
        problems.append(f"{offer.name}: " + "; ".join(plain(str(e["msg"])) for e in exc.errors(include_url=False)))
        return s


def summary(s: Scenario, shown: pd.DataFrame) -> None:
    """Counts of prices, stale and negotiated ones, and a warning naming the offers with stale prices."""
    is_stale = shown["Status"].str.startswith("⚠ stale")
    m = st.columns(3)
    m[0].metric("Prices in use", f"{len(shown)}")
    m[1].metric(
        "Stale or undated", f"{int(is_stale.sum())}", help=f"Older than {s.policy.stale_after_days} days, or undated"
    )
    m[2].metric("Negotiated", f"{int(shown['Negotiated'].sum())}")
    later = shown["Status"].str.contains("after the review")
    if later.any():
        st.warning(
            f"{plural(int(later.sum()), 'price')} dated after the review date ({s.review_date:%d %b %Y}): "
            f"{md_escape(', '.join(sorted(set(shown.loc[later, 'Offer']))))}. Move the review date or check "
            "that these prices were known on it.",
            icon=":material/event_busy:",
        )
    if is_stale.any():
        offers = ", ".join(sorted(set(shown.loc[is_stale, "Offer"])))
        st.warning(
            f"{plural(int(is_stale.sum()), 'price')} older than {s.policy.stale_after_days} days or undated; "
            f"check them before the review: {md_escape(offers)}.",
            icon=":material/schedule:",
        )


def _offers(s: Scenario) -> dict[str, str]:
    """Offer display name → id (the editor shows names; the negotiated price stores the id)."""
    return {n.name: n.id for n in s.nodes} | {a.name: a.id for a in s.apis}


#: Negotiable item in words → its code.
_ITEM_BY_WORDS = {rule.help[:1].upper() + rule.help[1:]: name for name, rule in NEGOTIABLE_ITEMS.items()}


def _value(text: Any, i: int, problems: list[str]) -> float | None:
    """A typed value: "30%" → 0.30, "$9.50" or "9.50" → 9.5; a bad text is a problem naming the row."""
    if text is None or (isinstance(text, float) and math.isnan(text)) or str(text).strip() == "":
        return None
    if isinstance(text, (int, float)):
        return float(text)
    try:
        if str(text).strip().endswith("%"):
            return parse_percent(str(text), f"row {i}, value")
        return parse_money(str(text), f"row {i}, value", maximum=1e8)
    except PriceTextError as exc:
        problems.append(str(exc))
        return math.nan


def _rows_to_prices(
    frame: pd.DataFrame, offers: dict[str, str] | None = None
) -> tuple[list[NegotiatedPrice], list[str]]:
    prices: list[NegotiatedPrice] = []
    problems: list[str] = []
    for i, row in enumerate(frame.to_dict("records"), start=1):
        if all(v is None or (isinstance(v, float) and math.isnan(v)) or v == "" for v in row.values()):
            continue
        as_of = row.get("as_of")
        if isinstance(as_of, dt.datetime):  # pandas hands dates back as Timestamps
            as_of = as_of.date()
        value = _value(row.get("value"), i, problems)
        if value is not None and math.isnan(value):
            continue
        offer = row.get("offer_id") or ""
        item = row.get("item") or ""
        data: dict[str, Any] = {
            "offer_id": (offers or {}).get(offer, offer),
            "item": _ITEM_BY_WORDS.get(item, item),
            "value": value,
            "as_of": as_of if isinstance(as_of, dt.date) else None,
            "source": row.get("source") or "",
        }
        try:
            prices.append(NegotiatedPrice.model_validate(data))
        except ValidationError as exc:
            for err in exc.errors(include_url=False):
                field = {"offer_id": "offer", "as_of": "as of"}.get(str(err["loc"][0]), str(err["loc"][0]))
                problems.append(f"row {i}, {field}: {plain(str(err['msg']))}")
    return prices, problems


def negotiated_editor(s: Scenario) -> None:
    """Rows of negotiated prices typed on the page; "Apply" applies them all or none."""
    empty = pd.DataFrame(
        {
            "offer_id": pd.Series(dtype="object"),
            "item": pd.Series(dtype="object"),
            "value": pd.Series(dtype="object"),
            "as_of": pd.Series(dtype="object"),
            "source": pd.Series(dtype="object"),
        }
    )
    edited = st.data_editor(
        empty,
        placeholder="",  # a missing value is an empty cell to type into, not the word None
        num_rows="dynamic",
        hide_index=True,
        key=state.key("pb_editor"),
        column_config={
            "offer_id": st.column_config.SelectboxColumn("Offer", options=list(_offers(s)), required=True),
            "item": st.column_config.SelectboxColumn(
                "Price", options=list(_ITEM_BY_WORDS), required=True, help=_items_help()
            ),
            "value": st.column_config.TextColumn(
                "Value", help="As on the contract: $9.50, 9.50, or 30% for a discount"
            ),
            "as_of": st.column_config.DateColumn(
                "As of", format="YYYY-MM-DD", help="Date of the agreement; empty = the review date"
            ),
            "source": st.column_config.TextColumn("Source", help="Contract or quote reference"),
        },
    )
    if not st.button("Apply these negotiated prices", key=state.key("pb_apply"), icon=":material/done_all:"):
        return
    prices, problems = _rows_to_prices(edited, _offers(s))
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
    return "; ".join(f"{words} [{NEGOTIABLE_ITEMS[name].unit}]" for words, name in _ITEM_BY_WORDS.items())


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
        st.dataframe(
            problems,
            hide_index=True,
            key="pb_problems",
            column_config={"Reason": {"width": "large"}},
            placeholder=MISSING_SHOWN,
        )
        return
    st.success(f"{md_escape(uploaded.name)}: {plural(result.rows_read, 'row')}, all valid.", icon=":material/task_alt:")
    st.dataframe(
        pd.DataFrame([p.model_dump() for p in result.prices]),
        hide_index=True,
        key="pb_preview",
        placeholder=MISSING_SHOWN,
    )
    if st.session_state.get(_APPLIED_FILE) == uploaded.file_id:
        return
    if st.button(f"Apply the {plural(len(result.prices), 'imported price')}", key=state.key("pb_apply_csv")):
        st.session_state[_APPLIED_FILE] = uploaded.file_id
        applied = plural(len(result.prices), "negotiated price")
        _applied(result.applied_to(s), f"Imported {applied} from {md_escape(uploaded.name)}.")
