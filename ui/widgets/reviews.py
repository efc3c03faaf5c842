"""Widget groups of the Reviews page: pick what to review, save, list/open/delete, compare, uncertainty inputs,
and the meeting-pack downloads. Each group reads widgets and makes one economics call; charts are drawn by the
page with the pure builders of :mod:`ui.charts.reviews`.

The page's *subject* is either the current (unsaved) scenario or a saved review. A saved review is shown as
stored: its result is not recomputed unless the user asks for "a recomputation with today's code".
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pandas as pd
import streamlit as st
from pydantic import ValidationError

from economics.changes import what_changed
from economics.compare import Comparison, Snapshot, compare
from economics.currency import USD, DisplayRate
from economics.io.catalog import load_catalog
from economics.io.scenarios import ScenarioError
from economics.price_book import price_book
from economics.pricing import reprice
from economics.result import Result
from economics.scenario import Scenario
from economics.uncertainty import INPUT_LABELS, MonteCarlo, Range, Tornado, UncertaintyRanges
from storage import reviews as store
from ui import auth, compute, state
from ui.energy import page_rate
from ui.format import md_escape, money, money_text, plain, plural, route_words
from ui.widgets import changes
from ui.widgets.changes import sentences
from ui.widgets.table import MISSING_SHOWN

CURRENT = 0  # subject id of the current, unsaved scenario
#: The Monte Carlo's default draws and seed, which the Overview's "How sure" line uses too (one cache entry)
REVIEW_DRAWS = 10_000
REVIEW_SEED = 0
#: The Overview's budget of draws × workload-option pairs (~0.2 s; the bank's 10,000 draws × 30 pairs fit), and
#: the fewest draws it shows a band from (a larger portfolio is pointed to the Reviews page)
OVERVIEW_DRAW_CELLS = 500_000
MIN_OVERVIEW_DRAWS = 1_000
_SUBJECT = "rv_subject"
_EFFECT = "_rv_effect"
_SIDE_RATES = "_rv_side_rates"  # (before label, its rate), (after label, its rate) of the comparison drawn
_NEXT_SUBJECT = "_rv_next_subject"  # set by an action; applied before the picker is drawn on the next run
_FLASH = "_reviews_flash"


@dataclass(frozen=True)
class Subject:
    """What the page reviews: the current scenario or a saved review (as saved)."""

    snapshot: Snapshot
    review: store.SavedReview | None  # None for the current scenario

    @property
    def scenario(self) -> Scenario:
        return self.snapshot.scenario

    @property
    def result(self) -> Result:
        return self.snapshot.result


def flash() -> None:
    """Show (once) the message of the last save, open or delete."""
    message = st.session_state.pop(_FLASH, None)
    if message:
        st.success(message, icon=":material/check_circle:")


def _done(message: str, subject: int | None = None) -> None:
    st.session_state[_FLASH] = message
    if subject is not None:
        st.session_state[_NEXT_SUBJECT] = subject
    st.rerun()


def _label(summary: store.ReviewSummary) -> str:
    return f"#{summary.id} · {summary.name} · {summary.review_date.isoformat()}"


def saved_reviews() -> tuple[store.ReviewSummary, ...]:
    """The store's reviews; a store that cannot be read is an error message and an empty list, a damaged row a
    warning (the others stay listed), a read-only store a note. With sign-in on, only for a signed-in user."""
    allowed, _user = auth.require_user("see the saved reviews")
    if not allowed:
        return ()
    try:
        listing = store.list_reviews_checked()
    except store.StoreError as exc:
        st.error(f"The review store cannot be read: {md_escape(str(exc))}", icon=":material/database:")
        return ()
    for problem in listing.problems:
        st.warning(md_escape(problem), icon=":material/warning:")
    if listing.read_only:
        st.info(
            "The review store is read-only here (its folder cannot be written): saved reviews can be opened, "
            "new ones cannot be saved.",
            icon=":material/lock:",
        )
    return listing.reviews


def subject_picker(current: Scenario, reviews: tuple[store.ReviewSummary, ...]) -> Subject:
    """Choose the current scenario or a saved review; a saved review is loaded as stored."""
    labels = {CURRENT: f"Current scenario (unsaved): {current.name}"} | {r.id: _label(r) for r in reviews}
    if _NEXT_SUBJECT in st.session_state:
        st.session_state[_SUBJECT] = st.session_state.pop(_NEXT_SUBJECT)
    _restore(_SUBJECT, list(labels))
    if st.session_state.get(_SUBJECT) not in labels:
        st.session_state[_SUBJECT] = CURRENT
    chosen = st.selectbox("Review", list(labels), format_func=labels.__getitem__, key=_SUBJECT)
    st.session_state[_kept(_SUBJECT)] = chosen
    if chosen != CURRENT:
        try:
            review = store.load_review(int(chosen))
        except store.StoreError as exc:
            st.error(f"Review #{chosen} cannot be opened: {md_escape(str(exc))}")
        else:
            return Subject(Snapshot.from_review(review), review)
    snap = Snapshot(
        label="current scenario",
        scenario=current,
        result=compute.evaluate(current, flips=True),
        prices=price_book(current),
    )
    return Subject(snap, None)


def save_form(current: Scenario, reviews: tuple[store.ReviewSummary, ...] = ()) -> None:
    """Save the current scenario, its resolved prices and its result as a review (name, date, notes, who
    saves it, and the earlier review it supersedes, if any). Saved reviews are never changed afterwards."""
    allowed, user = auth.require_user("save a review")
    if not allowed:
        return
    with st.form("rv_save", border=True):
        c = st.columns([2, 1])
        name = c[0].text_input("Name", value=f"{current.name} review", max_chars=200, key="rv_name")
        date = c[1].date_input("Review date (prices as of)", value=current.review_date, key="rv_date")
        notes = st.text_area("Notes", key="rv_notes", max_chars=20_000, placeholder="What was decided, by whom")
        who = st.columns(2)
        if user is None:
            saved_by = who[0].text_input("Saved by", key="rv_saved_by", max_chars=200, placeholder="Your name")
        else:
            saved_by = user
            who[0].text_input("Saved by (signed in)", value=user, disabled=True, key="rv_saved_by_user")
        labels: dict[int | None, str] = {None: "nothing (a new review)"} | {r.id: _label(r) for r in reviews}
        supersedes = who[1].selectbox("Supersedes", list(labels), format_func=labels.__getitem__, key="rv_supersedes")
        submitted = st.form_submit_button("Save review", icon=":material/save:")
    if not submitted:
        return
    scenario = current.model_copy(update={"review_date": date}) if date != current.review_date else current
    try:
        summary = store.save_review(
            scenario,
            compute.evaluate(scenario, flips=True),
            name=name,
            notes=notes,
            saved_by=saved_by,
            supersedes=supersedes,
        )
    except ValidationError:
        st.error("Give the review a name (1–200 characters) and at most 200 characters in 'Saved by'.")
        return
    except store.StoreError as exc:
        st.error(f"The review was not saved: {md_escape(str(exc))}")
        return
    _done(
        # the server's database path ("to /srv/…/reviews.sqlite3") is not the reader's business
        f"Saved review #{summary.id} “{md_escape(summary.name)}” (content hash {summary.short_hash}…: its fingerprint, "
        "which shows later that it was not altered).",
        subject=summary.id,
    )


def review_list(reviews: tuple[store.ReviewSummary, ...], subject: Subject) -> None:
    """The saved reviews; open the selected one as the current scenario, or delete it."""
    if not reviews:
        st.info(f"No saved review yet. Reviews are kept in {md_escape(_location())}.")
        return
    frame = pd.DataFrame(
        [
            {
                "Id": r.id,
                "Name": r.name,
                "Review date": r.review_date,
                "Saved at (UTC)": r.saved_at.strftime("%Y-%m-%d %H:%M"),
                "Notes": r.notes,
                "Prices": r.price_count,
                "Saved by": r.saved_by,
                "Supersedes": f"#{r.supersedes_id}" if r.supersedes_id else "",
                "Superseded by": f"#{r.superseded_by_id}" if r.superseded_by_id else "",
                "Content hash": r.short_hash,
            }
            for r in reviews
        ]
    )
    st.dataframe(
        frame, hide_index=True, key="rv_list", column_config={"Notes": {"width": "large"}}, placeholder=MISSING_SHOWN
    )
    st.caption(
        f"Stored in {md_escape(_location())} (set LLMECON_DATA_DIR, or LLMECON_DATABASE_URL for a team). "
        "Saved reviews are never changed: a correction is a new review that supersedes the old one."
    )
    if subject.review is None:
        return
    review = subject.review
    c = st.columns([1, 1, 2])
    if c[0].button("Open as the current scenario", key="rv_open", icon=":material/open_in_browser:"):
        state.replace(review.scenario, f"review #{review.id} “{review.name}”")
        _done(f"Opened review #{review.id} as the current scenario; every page now shows it.")
    confirm = c[2].checkbox(f"Yes, delete review #{review.id}", key=f"rv_confirm_{review.id}")
    if c[1].button("Delete", key="rv_delete", icon=":material/delete:", disabled=not confirm):
        store.delete_review(review.id)
        _done(f"Deleted review #{review.id}.", subject=CURRENT)


def _location() -> str:
    try:
        return store.store_location()
    except store.StoreError:
        return str(store.default_store_path())


def provenance(summary: store.ReviewSummary) -> str:
    """Who saved a review, and its content hash, in one line (page caption and meeting pack)."""
    who = f"saved by {summary.saved_by}" if summary.saved_by else "saver not recorded"
    return f"Review #{summary.id}, {who} · content hash {summary.content_hash or 'not recorded'}"


def comparison_picker(
    subject: Subject, current: Scenario, reviews: tuple[store.ReviewSummary, ...]
) -> Comparison | None:
    """Compare the subject with catalog prices as of a date, an earlier review, the current scenario, or (for a
    saved review) a recomputation with today's code.

    The current scenario, once edited, is first compared with what the what-changed banner compares it with
    (the last saved review, else the scenario the session started from): the banner said "S$1,200 a month more
    than the preset" while this section, against today's catalog (which keeps typed prices), said no price
    changed."""
    start = _banner_reference(subject, current)
    choices = ([start.label] if start is not None else []) + ["catalog prices as of a date"]
    others = [r for r in reviews if subject.review is None or r.id != subject.review.id]
    if others:
        choices.append("another saved review")
    if subject.review is not None:
        choices += ["the current scenario", "a recomputation with today's code"]
    if len(choices) == 1:  # a radio button with one choice reads like a control that does nothing
        st.caption(
            "Compared with the catalog's prices as of a date. Save reviews to compare one with another, with the "
            "current scenario, or with a recomputation by today's code."
        )
        how = choices[0]
    else:
        _restore("rv_compare_how", choices)
        how = st.radio("Compare with", choices, horizontal=True, key="rv_compare_how")
        st.session_state[_kept("rv_compare_how")] = how
    if start is not None and how == start.label:
        return _diff(start, subject.snapshot)
    if how == "catalog prices as of a date":
        as_of = st.date_input("Prices as of", value=dt.date.today(), key="rv_compare_date")
        try:
            repriced = Snapshot.evaluated(reprice(subject.scenario, load_catalog(), as_of), f"prices as of {as_of}")
        except ScenarioError as exc:
            st.error("No catalog price for that date:\n\n" + "\n".join(f"- {md_escape(p)}" for p in exc.problems))
            return None
        return _diff(subject.snapshot, repriced)
    if how == "another saved review":
        labels = {r.id: _label(r) for r in others}
        _restore("rv_baseline", list(labels))
        other_id = st.selectbox("Baseline review", list(labels), format_func=labels.__getitem__, key="rv_baseline")
        st.session_state[_kept("rv_baseline")] = other_id
        return _diff(Snapshot.from_review(store.load_review(int(other_id))), subject.snapshot)
    if how == "the current scenario":
        return _diff(subject.snapshot, Snapshot.evaluated(current, "current scenario"))
    assert subject.review is not None  # the choice exists only for a saved review
    return _diff(subject.snapshot, Snapshot.evaluated(subject.scenario, "recomputed with today's code"))


def _banner_reference(subject: Subject, current: Scenario) -> Snapshot | None:
    """What the what-changed banner compares the current scenario with (:func:`ui.widgets.changes.reference`),
    as a comparison side; None for a saved review on the page, or when the scenario is that reference."""
    if subject.review is not None:
        return None
    label, result, scenario = changes.reference()
    if scenario == current:
        return None
    return Snapshot(label=label, scenario=scenario, result=result, prices=price_book(scenario))


def _kept(key: str) -> str:
    """Where a widget's last choice is kept across pages (Streamlit drops a widget's key where it is not drawn)."""
    return f"_{key}_kept"


def _restore(key: str, options: list[Any]) -> None:
    """Give the widget ``key`` its last choice back when the user returns from another page, if still offered."""
    if key not in st.session_state and st.session_state.get(_kept(key)) in options:
        st.session_state[key] = st.session_state[_kept(key)]


def _diff(before: Snapshot, after: Snapshot) -> Comparison:
    """:func:`economics.compare.compare`, and the same change in words for :func:`change_in_words`."""
    st.session_state[_EFFECT] = what_changed(before.result, after.result, reference_label=before.label)
    st.session_state[_SIDE_RATES] = tuple((x.label, page_rate(x.scenario)[0]) for x in (before, after))
    return compare(before, after)


def _rate_words(rate: DisplayRate) -> str:
    date = f", {rate.as_of:%d %b %Y}" if rate.as_of else ""
    return f"{rate.units_per_usd:g} {rate.code} per US dollar{date}"


def comparison_rate_note(rate: DisplayRate) -> str:
    """Which exchange rate the comparison's tables and charts use, in words.

    Both sides are converted at the one rate of the review on the page (constant currency): the change shown
    is then what prices and routes changed, not the exchange rate. When the other side was saved or is shown at
    another rate, the note names it and what the rate alone would change (docs/finance.md#currency-in-reviews)."""
    sides = st.session_state.get(_SIDE_RATES, ())
    if rate.is_identity and all(r.is_identity for _, r in sides):
        return ""
    text = f"Both columns in {rate.code} at this review's rate, {_rate_words(rate)} (constant currency)."
    for label, other in sides:
        if other.code == rate.code and other.units_per_usd == rate.units_per_usd:
            continue
        if other.code == rate.code:
            move = other.units_per_usd / rate.units_per_usd - 1.0
            text += (
                f" {label} is shown at {_rate_words(other)}; converted at its own rate its figures would be "
                f"{abs(move):.1%} {'lower' if move < 0 else 'higher'}: that is the exchange rate, not a price change."
            )
        else:
            text += f" {label} is shown in {other.code} ({_rate_words(other)}); here it is converted at this rate."
    return text


def change_in_words(rate: DisplayRate = USD) -> None:
    """The comparison just drawn, reconciled in words: the bill's change, the routes that moved, the nodes;
    money in the display currency of ``rate``."""
    effect = st.session_state.get(_EFFECT)
    if effect is not None:
        st.markdown("\n".join(f"- {line}" for line in sentences(effect, rate)))


def bill_in_words(result: Result, rate: DisplayRate = USD) -> str:
    """The fleet total reconciled with its line items, in one sentence (markdown-escaped), in the display
    currency of ``rate``."""
    f = result.fleet

    def shown(x: float | None) -> str:
        return money(x, rate.code, rate.units_per_usd)

    idle = f" ({shown(f.idle_cost_usd_per_month)} of it pays for idle GPUs)" if f.owned_nodes else ""
    full_idle = result.plan.idle_owned_full_cost_usd_per_month if result.plan is not None else None
    if f.owned_nodes and full_idle is not None and abs(full_idle - f.idle_cost_usd_per_month) >= 0.5:
        # the cash lens books the bought nodes at S$0, so "S$0 of it pays for idle GPUs" stood beside the Overview's
        # "Idle GPUs S$10,624" (the full cost of the idle hours): both figures, each named
        idle = (
            f" ({shown(f.idle_cost_usd_per_month)} of it pays for idle GPUs; the full cost of their idle hours, "
            f"{shown(full_idle)} a month, is paid whatever the plan does and left out in this lens)"
        )
    # only the parts this fleet has: an API-only scenario read "the owned fleet of 0 nodes, S$0, plus rented
    # nodes S$0, plus API spend S$53,680"
    parts = [
        f"the owned fleet of {plural(f.owned_nodes, 'node')}, {shown(f.owned_cost_usd_per_month)}{idle}"
        if f.owned_nodes
        else "",
        f"rented nodes {shown(f.rented_cost_usd_per_month)}" if f.rented_cost_usd_per_month else "",
        f"API spend {shown(f.api_cost_usd_per_month)}" if f.api_cost_usd_per_month else "",
    ]
    parts = [p for p in parts if p]
    total = shown(f.total_cost_usd_per_month)
    if not parts:
        return f"The bill is {total} a month: no workload is served."
    if len(parts) == 1 and not f.owned_nodes:
        what = "API spend" if f.api_cost_usd_per_month else "node rental"
        return f"The bill of {total} a month is all {what}: the plan runs no owned node."
    return f"The bill of {total} a month is " + ", plus ".join(parts) + "."


def ranges_editor() -> tuple[UncertaintyRanges, int, int]:
    """Plausible ranges of the uncertain inputs, Monte Carlo draws and seed."""
    defaults = UncertaintyRanges()
    values = {}
    with st.expander("Plausible ranges [assumption] and draws", icon=":material/tune:"):
        cols = st.columns(3)
        for i, name in enumerate(UncertaintyRanges.model_fields):
            rng: Range = getattr(defaults, name)
            label, unit = INPUT_LABELS[name]
            box = cols[i % 3]
            low = box.number_input(f"{label}: low [{unit}]", 0.01, 10.0, rng.low, 0.05, key=f"rv_{name}_low")
            high = box.number_input(f"{label}: high [{unit}]", 0.01, 10.0, rng.high, 0.05, key=f"rv_{name}_high")
            values[name] = {"low": low, "high": max(low, high), "base": rng.base}
        c = st.columns(2)
        draws = int(c[0].number_input("Monte Carlo draws", 100, 100_000, REVIEW_DRAWS, 1000, key="rv_draws"))
        seed = int(c[1].number_input("Seed", 0, 2**31 - 1, REVIEW_SEED, 1, key="rv_seed"))
    return UncertaintyRanges.model_validate(values), draws, seed


def flip_sentences(result: Result, rate: DisplayRate = USD) -> None:
    """Per workload, its route and one sentence per driver that can flip it; prices in the display currency of
    ``rate`` (economics writes the sentences in USD; converted here)."""
    for d in result.decisions:
        texts = [money_text(plain(f.text), rate.code, rate.units_per_usd) for f in d.flips if f.threshold is not None]
        texts = texts or ["No driver in range changes this route."]
        st.markdown(
            f"**{md_escape(d.workload_name)}** — {md_escape(route_words(d.route_label))}\n"
            + "\n".join(f"- {md_escape(t)}" for t in texts)
        )


def _flip_value(x: float | None, unit: str, rate: DisplayRate) -> float | None:
    """A threshold or current value in the display currency when its unit is money (USD/…) [unit]."""
    return x * rate.units_per_usd if x is not None and unit.startswith("USD") else x


def flips_frame(result: Result, rate: DisplayRate = USD) -> pd.DataFrame:
    """One row per workload and driver that can flip its route, with the sentence for the meeting; money
    thresholds in the display currency of ``rate`` (the unit column says which)."""
    names = {o.option_id: o.option_name for o in result.options}
    rows = [
        {
            "Workload": d.workload_name,
            "Route now": route_words(d.route_label),
            "Driver": f.driver.replace("_", " "),
            "Flips when it goes": f.direction,
            "Threshold": _flip_value(f.threshold, f.unit, rate),
            "Now": _flip_value(f.current, f.unit, rate),
            "Unit": rate.code + f.unit.removeprefix("USD") if f.unit.startswith("USD") else plain(f.unit),
            "Moves to": names.get(f.new_option_id or "", ""),
            "In words": money_text(plain(f.text), rate.code, rate.units_per_usd),
        }
        for d in result.decisions
        for f in d.flips
        if f.threshold is not None
    ]
    return pd.DataFrame(rows)


def _app_url() -> str:
    url = urlsplit(st.context.url or "http://localhost:8501/")
    return f"{url.scheme}://{url.netloc}/"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:60] or "review"


def meeting_pack(
    subject: Subject,
    comparison: Comparison | None,
    tornado: Tornado,
    mc: MonteCarlo,
    ranges: UncertaintyRanges,
    build: Callable[..., Any],
) -> None:
    """Build the meeting pack of the subject (with the comparison and uncertainty shown above) and offer the
    HTML and the CSV bundle for download. ``build`` is ``reporting.meeting_pack.pack_downloads``, passed in by
    the page so that ``ui`` does not import ``reporting``."""
    notes = subject.review.summary.notes if subject.review is not None else ""
    if subject.review is not None:  # the pack names the exact saved review it shows
        notes = (notes + "\n\n" if notes else "") + provenance(subject.review.summary)
    if not st.button("Build the meeting pack", key="rv_pack", icon=":material/summarize:"):
        return
    pack = build(
        subject.scenario,
        result=subject.result,
        title=f"Price review: {subject.review.name}" if subject.review is not None else None,
        notes=notes,
        comparison=comparison,
        tornado_result=tornado,
        monte_carlo_result=mc,
        ranges=ranges,
        app_url=_app_url(),
    )
    stem = _slug(pack.title)
    c = st.columns(2)
    c[0].download_button(
        "Download the meeting pack [HTML]",
        data=pack.html,
        file_name=f"{stem}.html",
        mime="text/html",
        on_click="ignore",
        icon=":material/download:",
        key="rv_pack_html",
    )
    c[1].download_button(
        "Download every table [CSV bundle, zip]",
        data=pack.csv_zip,
        file_name=f"{stem}.zip",
        mime="application/zip",
        on_click="ignore",
        icon=":material/folder_zip:",
        key="rv_pack_zip",
    )
