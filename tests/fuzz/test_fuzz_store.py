"""A review store with tampered rows: listing never raises, each damaged row is skipped with a message or
refused on opening, and every review nobody touched stays listed and opens exactly as saved (nothing lost)."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import uuid
from contextlib import closing
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from storage import reviews as store
from storage.engine import forget_open_stores
from tests.fuzz.counts import record
from tests.reviews.factories import small_result, small_scenario
from tests.strategies import fuzz_settings, hostile_text

TMP = Path(tempfile.mkdtemp(prefix="llmecon-fuzz-store-"))
TEMPLATE = TMP / "template.sqlite3"
SAVED = [
    store.save_review(
        small_scenario(), small_result(small_scenario()), name=f"review {i}", saved_by="fuzz", path=TEMPLATE
    )
    for i in range(4)
]
ORIGINAL = {s.id: store.load_review(s.id, path=TEMPLATE) for s in SAVED}
forget_open_stores()
REVIEW_COLUMNS = (
    "name",
    "review_date",
    "saved_at",
    "notes",
    "saved_by",
    "scenario_json",
    "result_json",
    "content_hash",
    "supersedes_id",
    "app_version",
    "scenario_schema_version",
)
PRICE_COLUMNS = ("entry_json", "offer_id", "value", "as_of", "position")
VALUES = st.one_of(
    st.none(),
    st.integers(-5, 10**12),
    st.floats(allow_nan=True),
    hostile_text(),
    st.sampled_from(["", "{", "[]", "null", "2025-02-30", "yesterday", '{"a": 1}', "9999-12-31"]),
)


@st.composite
def tamperings(draw: st.DrawFn) -> list[tuple[str, int, str, object]]:
    ops = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["review", "review", "price", "delete-prices", "junk-row"]))
        review_id = draw(st.sampled_from([s.id for s in SAVED]))
        column = draw(st.sampled_from(REVIEW_COLUMNS if kind in ("review", "junk-row") else PRICE_COLUMNS))
        ops.append((kind, review_id, column, draw(VALUES)))
    return ops


def _tamper(path: Path, ops: list[tuple[str, int, str, object]]) -> set[int]:
    touched: set[int] = set()
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("DROP TRIGGER IF EXISTS reviews_immutable")
        conn.execute("DROP TRIGGER IF EXISTS review_prices_immutable")
        for kind, review_id, column, value in ops:
            try:
                if kind == "review":
                    conn.execute(f"UPDATE reviews SET {column} = ? WHERE id = ?", (value, review_id))
                elif kind == "price":
                    conn.execute(
                        f"UPDATE review_prices SET {column} = ? WHERE review_id = ? AND position = 0",
                        (value, review_id),
                    )
                elif kind == "delete-prices":
                    conn.execute("DELETE FROM review_prices WHERE review_id = ?", (review_id,))
                else:
                    conn.execute(
                        "INSERT INTO reviews (name, review_date, saved_at, scenario_schema_version, scenario_json,"
                        " result_json, app_version) VALUES ('junk', '2025-01-01', 'x', 1, '{', '{', 'x')"
                    )
                    if column in ("name", "notes", "saved_by", "review_date", "saved_at"):
                        conn.execute(f"UPDATE reviews SET {column} = ? WHERE name = 'junk'", (value,))
                    continue  # a new row: no saved review touched
            except sqlite3.Error:  # a constraint refused the tampering: nothing changed
                continue
            touched.add(review_id)
    return touched


def _content(review: store.SavedReview) -> tuple[object, ...]:
    """What was saved: every stored field, not the derived ``superseded_by_id``."""
    summary = review.summary.model_copy(update={"superseded_by_id": None})
    return summary, review.scenario_json, review.result_json, review.prices


@fuzz_settings(60)
@given(tamperings())
def test_tampered_rows_never_take_the_others_down(ops: list[tuple[str, int, str, object]]) -> None:
    path = TMP / f"{uuid.uuid4().hex}.sqlite3"
    shutil.copyfile(TEMPLATE, path)
    touched = _tamper(path, ops)
    failed = lost = False
    try:
        listing = store.list_reviews_checked(path=path)
        listed = {s.id for s in listing.reviews}
        for review_id, original in ORIGINAL.items():
            if review_id in touched:
                try:
                    got = store.load_review(review_id, path=path)
                except store.StoreError as exc:
                    failed |= not str(exc)
                    continue
                # opened: then what is shown is exactly what was saved (the hash covers it)
                failed |= (got.scenario_json, got.result_json, got.prices) != (
                    original.scenario_json,
                    original.result_json,
                    original.prices,
                )
            else:
                # superseded_by is derived from the other rows (a tampered row may claim to supersede this one)
                lost |= review_id not in listed or _content(store.load_review(review_id, path=path)) != _content(
                    original
                )
        failed |= not all(p.startswith("review #") and "skipped" in p for p in listing.problems)
    except Exception:
        record("store: tampered rows", failed=True)
        raise
    finally:
        forget_open_stores()
        path.unlink(missing_ok=True)
    record("store: tampered rows", failed=failed, lost=lost)
    assert not failed
    assert not lost
