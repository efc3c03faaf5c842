"""API rates typed where they are read: input, output and cached-input prices and the batch-tier discount of
every API, as text ("$9.50", "9.50", "30%"), parsed by :mod:`economics.price_text`.

A typed rate replaces the list price: the API's source becomes "entered by the user on <date>", its as-of
date today, and its catalog price id is dropped (a review repricing from the catalog keeps it as typed).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping

import streamlit as st

from economics import by_id
from economics.offers import ApiOffer
from economics.price_text import PriceTextError, parse_money, parse_percent, typed_source
from economics.scenario import Scenario
from ui import format as fmt
from ui import state
from ui.widgets.changes import rerun_edited
from ui.widgets.common import keep_refused, shown_text

#: Decimals a typed price keeps in its field: a price is shown as entered, never rounded ($0.125 read "$0.12").
PRICE_DECIMALS = 8


def money_text(x: float | None) -> str:
    """A price as it is shown in a text field, exactly as entered: at least two decimals, more when the price has
    them, float noise (0.30000000000000004) dropped; '' for none.

    >>> [money_text(v) for v in (3.0, 9.5, 0.125, 1.275, 0.025, 0.000053, 280000.0, 1234.5, 0.1 + 0.2, None)]
    ['$3.00', '$9.50', '$0.125', '$1.275', '$0.025', '$0.000053', '$280,000', '$1,234.50', '$0.30', '']
    """
    if x is None:
        return ""
    if x >= 1000 and x == round(x):
        return f"${x:,.0f}"
    whole, _, decimals = f"{x:,.{PRICE_DECIMALS}f}".partition(".")
    return f"${whole}.{decimals.rstrip('0').ljust(2, '0')}"


def _fields(api: ApiOffer) -> tuple[tuple[str, str, str, str], ...]:
    """(field, label, shown text, help) of the typed rates of one API."""
    return (
        ("input_usd_per_mtok", "Input [USD per Mtok]", money_text(api.input_usd_per_mtok), "Price of prompt tokens."),
        (
            "output_usd_per_mtok",
            "Output [USD per Mtok]",
            money_text(api.output_usd_per_mtok),
            "Price of output tokens.",
        ),
        (
            "cached_input_usd_per_mtok",
            "Cached input [USD per Mtok]",
            money_text(api.cached_input_usd_per_mtok),
            "Price of prompt tokens served from the provider's cache; empty = no cache discount.",
        ),
        (
            "batch_discount_fraction",
            "Batch tier discount [%]",
            f"{100 * api.batch_discount_fraction:g}%",
            "Discount of the provider's batch tier (results within a day); 0% = no batch tier.",
        ),
    )


def _refused(field: str, label: str, text: str, shown: str) -> bool:
    """Whether ``text`` typed in the field is one :func:`_parse` refuses (the price in use, as shown, is not)."""
    if text == shown:
        return False
    try:
        _parse(field, label, text)
    except PriceTextError:
        return True
    return False


def _parse(field: str, label: str, text: str) -> float | None:
    if field == "batch_discount_fraction":
        return min(parse_percent(text, label), 0.99)
    if field == "cached_input_usd_per_mtok" and not text.strip():
        return None
    return parse_money(text, label, maximum=1000)


def api_rate_inputs(
    s: Scenario,
    today: dt.date | None = None,
    on_change: Callable[[], None] | None = None,
    live_keys: tuple[str, ...] = (),
) -> Scenario:
    """Text fields for every API's rates; returns the scenario with the typed rates applied (only when every
    field of an API parses; otherwise that API is unchanged and the message names the field). ``on_change``
    is every field's callback (a targeted rerun, ``ui.live``); ``live_keys`` = (the fragment drawing these
    fields, the fragments they feed…) instead applies an edit in the callback (:func:`live_rate_edit`)."""
    today = today or dt.date.today()
    problems_shown = False
    for api in s.apis:
        # the name on a line of its own: beside the fields it left them ~90 px at 1,024 px, and their labels
        # ("Cached input [USD per Mtok]") wrapped to four lines
        st.markdown(f"**{fmt.md_escape(api.name)}**")
        columns = st.columns(4, vertical_alignment="bottom")
        callback = live_rate_edit(api.id, *live_keys) if live_keys else on_change
        texts = {
            field: where.text_input(
                label,
                value=shown_text(state.key(f"api_{api.id}_{field}"), shown),
                key=state.key(f"api_{api.id}_{field}"),
                help=help_text,
                on_change=callback,
            )
            for (field, label, shown, help_text), where in zip(_fields(api), columns, strict=True)
        }
        for field, label, shown, _ in _fields(api):  # a refused text stays in its field across pages
            keep_refused(
                state.key(f"api_{api.id}_{field}"),
                texts[field] if _refused(field, label, texts[field], shown) else None,
            )
        edited, problems = _typed(api, texts, today)
        if problems:
            problems_shown = True
            st.error(f"{fmt.md_escape(api.name)}: not applied. " + " ".join(fmt.md_escape(p) for p in problems))
            continue
        s = state.with_item(s, "apis", edited) if edited != api else s
        st.caption(source_caption(edited.source, edited.as_of, s.review_date))
    st.session_state[_PROBLEMS_SHOWN] = problems_shown
    return s


#: Whether the last drawing of the rate fields showed a message (an edit must then redraw them, to clear it).
_PROBLEMS_SHOWN = "_api_rate_problems_shown"


def _typed(api: ApiOffer, texts: Mapping[str, str], today: dt.date) -> tuple[ApiOffer, list[str]]:
    """``api`` with the typed ``texts`` (field → text) applied, and the problems that kept them out."""
    changes: dict[str, float | None] = {}
    problems: list[str] = []
    for field, label, shown, _ in _fields(api):
        text = texts.get(field, shown)
        if text == shown:
            continue
        try:
            changes[field] = _parse(field, label, text)
        except PriceTextError as exc:
            problems.append(str(exc))
    changed = {k: v for k, v in changes.items() if v != getattr(api, k)}
    if problems or not changed:
        return api, problems
    update = {**changed, "source": typed_source(today), "as_of": today.isoformat(), "price_id": None}
    return ApiOffer.model_validate({**api.model_dump(), **update}), []


def live_rate_edit(api_id: str, own: str, *follow: str) -> Callable[[], None]:
    """An ``on_change`` for the rate fields of one API that applies the edit here and reruns only the
    fragments it feeds (``follow``, ``ui.live``), not the fragment ``own`` that draws the fields: redrawing a
    dozen text fields that did not change was a large part of an edit's time in the browser. ``own`` reruns
    too when what it shows changes: a message (a rate that does not parse, or one to clear) or the API's
    source caption (its first typed rate makes it "entered by the user on <date>")."""

    def callback() -> None:
        s = state.scenario()
        api = by_id(s.apis, api_id, "API")
        texts = {
            field: st.session_state.get(state.key(f"api_{api_id}_{field}"), shown)
            for field, _, shown, _ in _fields(api)
        }
        edited, problems = _typed(api, texts, dt.date.today())
        if not problems:
            state.update(state.with_item(s, "apis", edited) if edited != api else s)
        same_caption = (edited.source, edited.as_of) == (api.source, api.as_of)
        redraw_own = bool(problems) or bool(st.session_state.get(_PROBLEMS_SHOWN)) or not same_caption
        rerun_edited(*((own,) if redraw_own else ()), *follow)

    return callback


def source_caption(source: str, as_of: str, review_date: dt.date) -> str:
    """ "As of … · Source: …", flagged when the price is dated after the review date (markdown-escaped)."""
    flag = ""
    try:
        if as_of and dt.date.fromisoformat(as_of[:10]) > review_date:
            flag = f" · :orange[dated after the review date ({review_date:%d %b %Y})]"
    except ValueError:
        pass
    return (
        f"As of {fmt.md_escape(as_of or 'undated')} · Source: {fmt.md_escape(fmt.plain(source) or 'not given')}{flag}"
    )
