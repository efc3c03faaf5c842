"""FROZEN COPY of economics/store.py before the move to storage/ (issue 15), kept to write stores the way the
old code did, so the migration of real old files is tested. Do not edit.

Saved price reviews in one SQLite file: save, list, reopen exactly as saved, delete.

Where the file lives
    ``$LLMECON_DATA_DIR/reviews.sqlite3``; without the variable, ``var/reviews.sqlite3`` under the repository
    (gitignored). The directory is created on first use. Every function also takes ``path=`` to use another
    file (tests, benchmarks).

What a review holds
    Name, review date, saved-at timestamp (UTC), notes, the scenario as JSON (self-contained: GPUs, models
    and resolved prices are embedded), the result as JSON and the resolved price list (one row per price, as
    :func:`economics.price_book.price_book` gave it). Reopening parses the stored text: nothing is
    recomputed and the catalog is not read, so a review reopens exactly as saved after the catalog or the
    code's defaults change. Recompute on request with ``evaluate(review.scenario)``.

Guarantees
    The file runs in WAL mode with a 30 s busy timeout. A save is one ``BEGIN IMMEDIATE`` transaction (the
    write lock is taken up front, so concurrent savers queue instead of failing on a lock upgrade): a process
    killed mid-save leaves no trace of it, and concurrent sessions saving at once lose nothing. The schema is
    versioned with ``PRAGMA user_version`` and upgraded on open (:mod:`economics.store_migrations`); a file
    written by a newer version is refused rather than misread. SQL is parameterised throughout.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from economics._base import Frozen
from economics.price_book import PriceEntry, price_book
from economics.result import Result
from economics.scenario import Scenario, migrate
from tests.reviews.legacy.store_migrations import MIGRATIONS, SCHEMA_VERSION

__all__ = [
    "DATA_DIR_ENV",
    "DB_FILENAME",
    "ReviewNotFoundError",
    "ReviewSummary",
    "SavedReview",
    "StoreError",
    "data_dir",
    "default_store_path",
    "delete_review",
    "list_reviews",
    "load_review",
    "save_review",
    "store_schema_version",
]

DATA_DIR_ENV = "LLMECON_DATA_DIR"
DB_FILENAME = "reviews.sqlite3"
_REPO_ROOT = Path(__file__).resolve().parents[1]
_BUSY_TIMEOUT_S = 30.0

#: Tests only: called inside the save transaction after the review row is written and before its prices
#: are, so a test can kill the process mid-transaction. Always None in the application.
_hook_in_transaction: Callable[[], None] | None = None


class StoreError(RuntimeError):
    """The store file cannot be used (newer schema, corrupt row, unreadable file)."""


class ReviewNotFoundError(StoreError, LookupError):
    """No review with that id."""


class ReviewSummary(Frozen):
    """One line of the review list."""

    id: int = Field(description="review id, assigned on save [-]")
    name: str = Field(description="name the reviewer gave [-]")
    review_date: dt.date = Field(description="date the prices are taken as of [-]")
    saved_at: dt.datetime = Field(description="when the review was saved (UTC) [-]")
    notes: str = Field(description="the reviewer's notes [-]")
    price_count: int = Field(description="prices stored with the review [count]")
    app_version: str = Field(description="version of the code that saved it [-]")


class SavedReview(Frozen):
    """A review as saved: the parsed scenario, result and prices, plus the exact stored JSON text."""

    summary: ReviewSummary = Field(description="id, name, dates and notes [-]")
    scenario: Scenario = Field(description="the scenario as saved, self-contained [-]")
    result: Result = Field(description="the result as saved, not recomputed [-]")
    prices: tuple[PriceEntry, ...] = Field(description="the resolved prices as saved [-]")
    scenario_json: str = Field(description="the scenario exactly as stored [-]")
    result_json: str = Field(description="the result exactly as stored [-]")

    @property
    def id(self) -> int:
        """The review id."""
        return self.summary.id

    @property
    def name(self) -> str:
        """The review name."""
        return self.summary.name


class _NewReview(Frozen):
    name: str = Field(min_length=1, max_length=200)
    notes: str = Field(max_length=20_000)


def data_dir() -> Path:
    """The data directory: ``$LLMECON_DATA_DIR`` if set, else ``var/`` under the repository."""
    configured = os.environ.get(DATA_DIR_ENV, "").strip()
    return Path(configured).expanduser() if configured else _REPO_ROOT / "var"


def default_store_path() -> Path:
    """``data_dir() / "reviews.sqlite3"``."""
    return data_dir() / DB_FILENAME


def _app_version() -> str:
    try:
        return metadata.version("llm-unit-economics")
    except metadata.PackageNotFoundError:
        return "dev"


def _to_json(model: BaseModel) -> str:
    # mode="json" keeps inf as a float (pydantic's JSON writer would turn it into null); json writes
    # Infinity, which pydantic reads back. Compact separators, field order as declared.
    return json.dumps(model.model_dump(mode="json"), allow_nan=True, separators=(",", ":"), ensure_ascii=False)


def _migrate(conn: sqlite3.Connection) -> None:
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise StoreError(f"the review store has schema version {version}; this code reads up to {SCHEMA_VERSION}")
    with _transaction(conn):
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])  # another process may have migrated
        for index in range(version, SCHEMA_VERSION):
            for statement in MIGRATIONS[index]:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {index + 1:d}")  # PRAGMA takes no bound parameters; an int


def _set_wal(conn: sqlite3.Connection) -> None:
    # Switching a fresh file to WAL needs a brief exclusive lock and can report "locked" without waiting
    # on the busy handler when many processes open the file at once; retry within the busy timeout.
    deadline = time.monotonic() + _BUSY_TIMEOUT_S
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


@contextlib.contextmanager
def _connect(path: Path | None) -> Iterator[sqlite3.Connection]:
    db = Path(path) if path is not None else default_store_path()
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(db, timeout=_BUSY_TIMEOUT_S, isolation_level=None)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot open the review store {db}: {exc}") from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(_BUSY_TIMEOUT_S * 1000):d}")
        _set_wal(conn)
        conn.execute("PRAGMA foreign_keys = ON")
        _migrate(conn)
        yield conn
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"review store {db}: {exc}") from exc
    finally:
        conn.close()


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def store_schema_version(path: Path | None = None) -> int:
    """The schema version of the store file after opening it (opening migrates it to the latest)."""
    with _connect(path) as conn:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])


_SUMMARY_SQL = """
    SELECT r.id, r.name, r.review_date, r.saved_at, r.notes, r.app_version,
           (SELECT COUNT(*) FROM review_prices p WHERE p.review_id = r.id)
    FROM reviews r
"""


def _summary(row: Sequence[Any]) -> ReviewSummary:
    return ReviewSummary(
        id=row[0],
        name=row[1],
        review_date=dt.date.fromisoformat(row[2]),
        saved_at=dt.datetime.fromisoformat(row[3]),
        notes=row[4],
        app_version=row[5],
        price_count=row[6],
    )


def save_review(
    scenario: Scenario,
    result: Result,
    *,
    name: str,
    notes: str = "",
    prices: Sequence[PriceEntry] | None = None,
    saved_at: dt.datetime | None = None,
    path: Path | None = None,
) -> ReviewSummary:
    """Save a review atomically and return its summary (with the new id).

    ``prices`` defaults to the scenario's price book; ``saved_at`` to now (UTC). The review date is the
    scenario's ``review_date``. Raises ``pydantic.ValidationError`` for an empty or over-long name or notes and
    :class:`StoreError` when the file cannot be written.
    """
    meta = _NewReview(name=name.strip(), notes=notes)
    entries = tuple(price_book(scenario) if prices is None else prices)
    stamp = (saved_at or dt.datetime.now(dt.UTC)).astimezone(dt.UTC).isoformat()
    scenario_json, result_json = _to_json(scenario), _to_json(result)
    with _connect(path) as conn, _transaction(conn):
        cursor = conn.execute(
            "INSERT INTO reviews (name, review_date, saved_at, notes, scenario_schema_version, scenario_json,"
            " result_json, app_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                meta.name,
                scenario.review_date.isoformat(),
                stamp,
                meta.notes,
                scenario.schema_version,
                scenario_json,
                result_json,
                _app_version(),
            ),
        )
        review_id = int(cursor.lastrowid or 0)
        if _hook_in_transaction is not None:
            _hook_in_transaction()
        conn.executemany(
            "INSERT INTO review_prices (review_id, position, entry_json, offer_id, item, value, as_of)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (review_id, i, _to_json(e), e.offer_id, e.item, e.value, e.as_of.isoformat() if e.as_of else None)
                for i, e in enumerate(entries)
            ],
        )
        row = conn.execute(_SUMMARY_SQL + " WHERE r.id = ?", (review_id,)).fetchone()
    return _summary(row)


def list_reviews(path: Path | None = None) -> tuple[ReviewSummary, ...]:
    """Every saved review, newest review date first (then newest save)."""
    with _connect(path) as conn:
        rows = conn.execute(_SUMMARY_SQL + " ORDER BY r.review_date DESC, r.saved_at DESC, r.id DESC").fetchall()
    return tuple(_summary(row) for row in rows)


def load_review(review_id: int, path: Path | None = None) -> SavedReview:
    """The review exactly as saved. Raises :class:`ReviewNotFoundError` or, for an unreadable row, StoreError."""
    with _connect(path) as conn:
        row = conn.execute(_SUMMARY_SQL + " WHERE r.id = ?", (int(review_id),)).fetchone()
        if row is None:
            raise ReviewNotFoundError(f"no review with id {review_id}")
        scenario_json, result_json = conn.execute(
            "SELECT scenario_json, result_json FROM reviews WHERE id = ?", (int(review_id),)
        ).fetchone()
        price_rows = conn.execute(
            "SELECT entry_json FROM review_prices WHERE review_id = ? ORDER BY position", (int(review_id),)
        ).fetchall()
    try:
        return SavedReview(
            summary=_summary(row),
            scenario=Scenario.model_validate(migrate(json.loads(scenario_json))),
            result=Result.model_validate_json(result_json),
            prices=tuple(PriceEntry.model_validate_json(r[0]) for r in price_rows),
            scenario_json=scenario_json,
            result_json=result_json,
        )
    except (ValidationError, ValueError) as exc:
        raise StoreError(f"review {review_id} cannot be read by this version of the code: {exc}") from exc


def delete_review(review_id: int, path: Path | None = None) -> bool:
    """Delete a review and its prices; True if it existed."""
    with _connect(path) as conn, _transaction(conn):
        cursor = conn.execute("DELETE FROM reviews WHERE id = ?", (int(review_id),))
    return cursor.rowcount > 0
