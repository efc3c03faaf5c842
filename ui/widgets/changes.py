"""The "what changed" banner: after every edit, the effect against the last saved review (or the scenario the
session started from when none is saved), and the sidebar's "modified from …" line.

The figures come from :func:`economics.changes.what_changed`; this module only chooses the reference and
words the result.
"""

from __future__ import annotations

from typing import Any, cast

import streamlit as st

from economics import USD, DisplayRate, scenario_changes
from economics.changes import WhatChanged, what_changed
from economics.result import Result
from economics.scenario import Scenario
from storage import reviews as store
from ui import auth, compute, live, state
from ui import format as fmt
from ui.energy import page_rate

_REFERENCE = "_changes_reference"
_ORIGIN_RESULT = "_changes_origin_result"


def _last_review() -> tuple[int, str, Result, Scenario] | None:
    """(id, label, result and scenario as saved) of the most recently saved review; None without one or a
    readable store, and None when sign-in is on and nobody is signed in (reviews are then shown to signed-in
    users only)."""
    if auth.sign_in_enabled() and auth.signed_in_user() is None:
        return None
    try:
        last = store.latest_review()  # one small query per rerun, not the whole listing
    except store.StoreError:
        return None
    if last is None:
        return None
    cached = st.session_state.get(_REFERENCE)
    if cached is not None and cached[0] == last.id:
        return tuple(cached)
    try:
        review = store.load_review(last.id)
    except store.StoreError:
        return None
    value = (last.id, f"the last saved review “{last.name}” ({last.review_date:%d %b %Y})", review.result,
             review.scenario)  # fmt: skip
    st.session_state[_REFERENCE] = value
    return value


def reference() -> tuple[str, Result, Scenario]:
    """(label, result, scenario) the current scenario is compared with."""
    review = _last_review()
    if review is not None:
        return review[1], review[2], review[3]
    origin, label = state.origin()
    return label, _origin_result(origin), origin


def _origin_result(origin: Scenario) -> Result:
    """The evaluated starting scenario, kept by the session: the shared result cache holds the newest scenarios
    of every session, and under load (30 sessions typing prices) it dropped the starting ones, so the banner
    evaluated its reference again at every edit."""
    kept = st.session_state.get(_ORIGIN_RESULT)
    if kept is not None and kept[0] is origin:
        return cast(Result, kept[1])
    result = compute.evaluate(origin)
    st.session_state[_ORIGIN_RESULT] = (origin, result)
    return result


def effect(current: Scenario) -> WhatChanged | None:
    """The change against the reference, or None when the scenario is exactly the reference: the last saved
    review as saved (a review was just saved, or opened), or with none saved the session's starting one."""
    label, ref_result, ref_scenario = reference()
    if ref_scenario == current:
        return None
    return what_changed(ref_result, compute.evaluate(current), reference_label=label)


def sentences(c: WhatChanged, rate: DisplayRate = USD) -> list[str]:
    """The change in a finance reader's words, one sentence per fact (markdown-escaped); money in the display
    currency of ``rate``, like the headline."""
    out: list[str] = []
    # the bills as the headline shows them (whole units of the display currency), and their difference as shown:
    # "S$4,509 higher: S$2,665 → S$7,174", not the unrounded S$4,510 that the two figures do not add up to
    before, after = (round(x * rate.units_per_usd) for x in (c.bill_before_usd_per_month, c.bill_after_usd_per_month))
    delta = after - before

    def money(x: float) -> str:  # x in display units, already whole
        return fmt.money(x, rate.code, 1.0, cents=False)

    if delta == 0:
        out.append(f"The monthly bill is unchanged at {money(after)}.")
    else:
        word = "higher" if delta > 0 else "lower"
        out.append(f"The monthly bill is {money(abs(delta))} {word}: {money(before)} → {money(after)}.")
    if c.moved:
        moves = "; ".join(
            f"{fmt.md_escape(m.workload_name)} moves from {fmt.md_escape(m.before or 'nothing feasible')} to "
            f"{fmt.md_escape(m.after or 'nothing feasible')}"
            for m in c.moved
        )
        out.append(f"{fmt.plural(len(c.moved), 'route')} moved: {moves}.")
    else:
        out.append("No route moved.")
    n = c.nodes_to_buy
    if n > 0:
        out.append(f"{fmt.plural(n, 'more owned node')} to buy ({c.owned_nodes_before} → {c.owned_nodes_after}).")
    elif n < 0:
        out.append(f"{fmt.plural(-n, 'owned node')} no longer needed ({c.owned_nodes_before} → {c.owned_nodes_after}).")
    if c.added_workloads:
        out.append(f"New workloads: {fmt.md_escape(', '.join(c.added_workloads))}.")
    if c.removed_workloads:
        out.append(f"Removed workloads: {fmt.md_escape(', '.join(c.removed_workloads))}.")
    return out


def banner_text(current: Scenario) -> str | None:
    """What the banner says about ``current`` (markdown), or None when there is nothing to say."""
    c = effect(current)
    if c is None or (c.unchanged and state.origin()[0] == current):
        return None
    said = sentences(c, page_rate(current)[0])
    ref = reference()[2]
    if c.unchanged:  # an edit with no effect said nothing at all: the reader was left looking for the change
        said += _why_unchanged(ref, current)
    # what differs, by name: after a node price and then an API rate, the banner explained only the first
    if edits := scenario_changes(ref, current):
        said.append(fmt.md_escape("What differs: " + "; ".join(edits) + "."))
    return f"**Compared with {fmt.md_escape(c.reference)}:** " + " ".join(said)


def _changed_ids(before: tuple[Any, ...], after: tuple[Any, ...]) -> set[str]:
    """Ids of the offers in ``after`` that are new or differ from ``before``."""
    old = {x.id: x for x in before}
    return {x.id for x in after if old.get(x.id) != x}


def _why_unchanged(ref: Scenario, current: Scenario) -> list[str]:
    """Why the bill did not move, for the offers that changed: a bought node's prices are paid whatever the plan
    does (cash lens); any other changed offer serves no chosen route (a used one would have moved the bill)."""
    nodes, apis = _changed_ids(ref.nodes, current.nodes), _changed_ids(ref.apis, current.apis)
    bought = {n.id for n in current.nodes if getattr(n, "nodes_owned", 0)}
    out = []
    if current.policy.lens == "cash" and nodes & bought:
        out.append(
            "In the cash lens the bill counts only what the plan changes: the nodes already bought, their power when "
            "idle and their fixed costs are paid whatever the plan does, so their prices do not move it."
        )
    if (nodes - bought) or apis:
        other = "The other offers that changed" if out else "The offers that changed"
        out.append(f"{other} serve no chosen route, so they do not move it.")
    return out


#: What the sidebar status last drew (None: nothing); absent until it was first drawn. A price edit's callback
#: compares it with what the status would read now (:func:`rerun_edited`).
_STATUS_SHOWN = "_status_shown"


def banner(current: Scenario, where: Any) -> None:
    """Draw the banner in ``where`` (a placeholder at the top of the page) when the scenario differs."""
    text = banner_text(current)
    if text is not None:
        where.info(text, icon=":material/compare_arrows:")


def modified_from(current: Scenario) -> str | None:
    """ "Modified from the preset “…”" when the scenario differs from the one the session started from."""
    origin, label = state.origin()
    return None if origin == current else f"Modified from {label}"


def status_drawn(text: str | None) -> None:
    """Record what the sidebar status shows (it is drawn by ``ui.widgets.scenario_panel.status``)."""
    st.session_state[_STATUS_SHOWN] = text


def status_changes(current: Scenario) -> bool:
    """Whether the sidebar status would read differently for ``current`` than it does now (always, before it was
    first drawn)."""
    return _STATUS_SHOWN not in st.session_state or st.session_state[_STATUS_SHOWN] != modified_from(current)


def rerun_edited(*fragment_keys: str) -> None:
    """From a callback that applied its edit to the scenario: rerun ``fragment_keys``, then the banner, and the
    sidebar status only if it now reads differently (``ui.live.rerun``).

    The banner always reruns: whether its text changed is only known once the edited scenario's fleet plan is
    solved, and solving it here, in the callback, held back every part of the page the edit redraws (a new
    price: 20-40 ms before the first of them left the server). The banner reruns last, after the charts, which
    do not need the plan."""
    live.rerun(*fragment_keys, status=status_changes(state.scenario()))()
