"""Saved price reviews: save, list, reopen exactly as saved, supersede (never overwrite), delete.

Where they live: see :mod:`storage.engine` (``LLMECON_DATABASE_URL`` for a server database shared by every
app replica, else one SQLite file under ``LLMECON_DATA_DIR``). Every function takes ``path=`` (another SQLite
file) or ``url=`` (any database URL) for tests and benchmarks.

What a review holds
    Name, review date, saved-at timestamp (UTC), who saved it, notes, the review it supersedes, the scenario as
    JSON (self-contained: GPUs, models and resolved prices, negotiated ones included, are embedded), the result
    as JSON and the resolved price list (one row per price, as :func:`economics.price_book.price_book` gave
    it), and the SHA-256 content hash of all of that (:mod:`storage.hashing`). Reopening parses the stored
    text and checks the hash: nothing is recomputed and the catalog is not read, so a review reopens exactly
    as saved after the catalog or the code's defaults change, and a row edited behind the app's back is
    reported, not shown.

Guarantees
    A save is one transaction (a process killed mid-save leaves no trace of it; concurrent savers lose
    nothing). Saved rows are never updated (the database refuses UPDATE with a trigger); a correction is a new
    review that supersedes the old one. Listing skips a damaged row with a message and keeps every other
    review reachable. SQL is built from SQLAlchemy Core objects with bound parameters throughout.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel, Field, ValidationError

from economics._base import Frozen
from economics.currency import pin_display_rate
from economics.io.scenarios import ScenarioError
from economics.price_book import PriceEntry, price_book
from economics.result import Result
from economics.review import ReviewSummary, SavedReview
from economics.scenario import Scenario, migrate
from storage.engine import (
    DATA_DIR_ENV,
    DATABASE_URL_ENV,
    DB_FILENAME,
    StoreError,
    StoreReadOnlyError,
    data_dir,
    default_store_path,
    head_revision,
    open_store,
)
from storage.hashing import content_hash
from storage.schema import review_prices, reviews

__all__ = [
    "DATABASE_URL_ENV",
    "DATA_DIR_ENV",
    "DB_FILENAME",
    "ReviewListing",
    "ReviewNotFoundError",
    "ReviewSummary",
    "SavedReview",
    "StoreError",
    "StoreReadOnlyError",
    "data_dir",
    "default_store_path",
    "delete_review",
    "head_revision",
    "latest_review",
    "list_reviews",
    "list_reviews_checked",
    "load_review",
    "save_review",
    "store_location",
    "store_schema_version",
]

#: Tests only: called inside the save transaction after the review row is written and before its prices
#: are, so a test can kill the process mid-transaction. Always None in the application.
_hook_in_transaction: Callable[[], None] | None = None


class ReviewNotFoundError(StoreError, LookupError):
    """No review with that id."""


@dataclass(frozen=True)
class ReviewListing:
    """The readable reviews, one message per row that could not be read, and whether saving is possible."""

    reviews: tuple[ReviewSummary, ...]
    problems: tuple[str, ...] = field(default=())
    read_only: bool = False


class _NewReview(Frozen):
    name: str = Field(min_length=1, max_length=200)
    notes: str = Field(max_length=20_000)
    saved_by: str = Field(max_length=200)


def _app_version() -> str:
    try:
        return metadata.version("llm-unit-economics")
    except metadata.PackageNotFoundError:
        return "dev"


def _to_json(model: BaseModel) -> str:
    # mode="json" keeps inf as a float (pydantic's JSON writer would turn it into null); json writes
    # Infinity, which pydantic reads back. Compact separators, field order as declared.
    return json.dumps(model.model_dump(mode="json"), allow_nan=True, separators=(",", ":"), ensure_ascii=False)


def store_location(path: Path | None = None, url: str | None = None) -> str:
    """Where the reviews are kept, for a message (a file path, or the database URL without its password)."""
    return open_store(path, url).where


def store_schema_version(path: Path | None = None, url: str | None = None) -> str:
    """The store's Alembic revision after opening it (opening migrates it to the newest)."""
    with open_store(path, url).read() as conn:
        from alembic.runtime.migration import MigrationContext

        return str(MigrationContext.configure(conn).get_current_revision())


_PRICE_COUNT = (
    sa.select(sa.func.count()).select_from(review_prices).where(review_prices.c.review_id == reviews.c.id)
).scalar_subquery()
_NEWER = sa.alias(reviews, "newer")
_SUPERSEDED_BY = (sa.select(sa.func.min(_NEWER.c.id)).where(_NEWER.c.supersedes_id == reviews.c.id)).scalar_subquery()
_SUMMARY = sa.select(
    reviews.c.id,
    reviews.c.name,
    reviews.c.review_date,
    reviews.c.saved_at,
    reviews.c.notes,
    reviews.c.app_version,
    _PRICE_COUNT.label("price_count"),
    reviews.c.saved_by,
    reviews.c.content_hash,
    reviews.c.supersedes_id,
    _SUPERSEDED_BY.label("superseded_by_id"),
)


def _summary(row: Any) -> ReviewSummary:
    return ReviewSummary(
        id=row.id,
        name=row.name,
        review_date=dt.date.fromisoformat(row.review_date),
        saved_at=dt.datetime.fromisoformat(row.saved_at),
        notes=row.notes,
        app_version=row.app_version,
        price_count=row.price_count,
        saved_by=row.saved_by or "",
        content_hash=row.content_hash or "",
        supersedes_id=row.supersedes_id,
        superseded_by_id=row.superseded_by_id,
    )


def save_review(
    scenario: Scenario,
    result: Result,
    *,
    name: str,
    notes: str = "",
    saved_by: str = "",
    supersedes: int | None = None,
    prices: Sequence[PriceEntry] | None = None,
    saved_at: dt.datetime | None = None,
    path: Path | None = None,
    url: str | None = None,
) -> ReviewSummary:
    """Save a review atomically and return its summary (with the new id and content hash).

    ``prices`` defaults to the scenario's price book; ``saved_at`` to now (UTC); ``supersedes`` names an
    earlier review this one replaces (it stays as saved). The review date is the scenario's ``review_date``.
    Raises ``pydantic.ValidationError`` for an empty or over-long name, notes or saved-by,
    :class:`ReviewNotFoundError` for an unknown superseded review, :class:`StoreReadOnlyError` when the store
    cannot be written and :class:`StoreError` for any other failure.
    """
    meta = _NewReview(name=name.strip(), notes=notes, saved_by=saved_by.strip())
    with contextlib.suppress(ScenarioError):  # no rate to pin: the review is saved as it is
        scenario = pin_display_rate(scenario)  # the review keeps the FX rate it was shown at (issue 14)
    entries = tuple(price_book(scenario) if prices is None else prices)
    stamp = (saved_at or dt.datetime.now(dt.UTC)).astimezone(dt.UTC).isoformat()
    scenario_json, result_json = _to_json(scenario), _to_json(result)
    entry_json = [_to_json(e) for e in entries]
    values: dict[str, Any] = {
        "name": meta.name,
        "review_date": scenario.review_date.isoformat(),
        "saved_at": stamp,
        "saved_by": meta.saved_by,
        "notes": meta.notes,
        "supersedes_id": supersedes,
        "scenario_json": scenario_json,
        "result_json": result_json,
    }
    digest = content_hash(**values, price_entries_json=entry_json)
    store = open_store(path, url)
    with store.write() as conn:
        if (
            supersedes is not None
            and conn.execute(sa.select(reviews.c.id).where(reviews.c.id == supersedes)).first() is None
        ):
            raise ReviewNotFoundError(f"review {supersedes} to supersede does not exist")
        inserted = conn.execute(
            reviews.insert().values(
                **values,
                scenario_schema_version=scenario.schema_version,
                app_version=_app_version(),
                content_hash=digest,
            )
        )
        review_id = int(inserted.inserted_primary_key[0])  # type: ignore[index]
        if _hook_in_transaction is not None:
            _hook_in_transaction()
        if entries:
            conn.execute(
                review_prices.insert(),
                [
                    {
                        "review_id": review_id,
                        "position": i,
                        "entry_json": text,
                        "offer_id": e.offer_id,
                        "item": e.item,
                        "value": e.value,
                        "as_of": e.as_of.isoformat() if e.as_of else None,
                    }
                    for i, (e, text) in enumerate(zip(entries, entry_json, strict=True))
                ],
            )
        row = conn.execute(_SUMMARY.where(reviews.c.id == review_id)).one()
    return _summary(row)


_ORDER = (reviews.c.review_date.desc(), reviews.c.saved_at.desc(), reviews.c.id.desc())


def list_reviews_checked(path: Path | None = None, url: str | None = None) -> ReviewListing:
    """Every readable review, newest review date first (then newest save); each damaged row is skipped with a
    message naming it, and ``read_only`` says whether saving is possible."""
    try:
        store = open_store(path, url)
    except StoreReadOnlyError as exc:
        if "holds no review store yet" in str(exc):  # a read-only folder without a store: nothing to list
            return ReviewListing((), (), True)
        raise
    with store.read() as conn:
        rows = conn.execute(_SUMMARY.order_by(*_ORDER)).all()
    good: list[ReviewSummary] = []
    problems: list[str] = []
    for row in rows:
        try:
            good.append(_summary(row))
        except (ValueError, TypeError) as exc:  # pydantic ValidationError is a ValueError
            detail = str(exc).splitlines()[0][:200]
            problems.append(f"review #{row.id} is damaged and was skipped ({detail})")
    return ReviewListing(tuple(good), tuple(problems), store.read_only)


_LATEST_SCAN = 50  # newest rows read by latest_review before it gives up on a run of damaged ones


def latest_review(path: Path | None = None, url: str | None = None) -> ReviewSummary | None:
    """The most recently saved readable review (newest ``saved_at``, then highest id), or None without one.

    One indexed query of a few rows, not a listing: the "what changed" banner calls it on every rerun of
    every session, and a team's store holds many reviews. A damaged row is skipped as in
    :func:`list_reviews_checked` (among the newest ``_LATEST_SCAN`` rows)."""
    try:
        store = open_store(path, url)
    except StoreReadOnlyError as exc:
        if "holds no review store yet" in str(exc):
            return None
        raise
    newest_first = sa.select(reviews.c.id).order_by(reviews.c.saved_at.desc(), reviews.c.id.desc())
    with store.read() as conn:
        for review_id in conn.execute(newest_first.limit(_LATEST_SCAN)).scalars().all():  # reviews_by_saved_at
            row = conn.execute(_SUMMARY.where(reviews.c.id == review_id)).one()
            try:
                return _summary(row)
            except (ValueError, TypeError):  # damaged: the next newest
                continue
    return None


def list_reviews(path: Path | None = None, url: str | None = None) -> tuple[ReviewSummary, ...]:
    """Every readable review, newest review date first (damaged rows skipped: see :func:`list_reviews_checked`)."""
    return list_reviews_checked(path, url).reviews


def load_review(review_id: int, path: Path | None = None, url: str | None = None) -> SavedReview:
    """The review exactly as saved, its content hash checked. Raises :class:`ReviewNotFoundError` or, for a
    damaged or altered row, :class:`StoreError`."""
    with open_store(path, url).read() as conn:
        row = conn.execute(
            _SUMMARY.add_columns(reviews.c.scenario_json, reviews.c.result_json).where(reviews.c.id == int(review_id))
        ).first()
        if row is None:
            raise ReviewNotFoundError(f"no review with id {review_id}")
        entries = list(
            conn.execute(
                sa.select(review_prices.c.entry_json)
                .where(review_prices.c.review_id == int(review_id))
                .order_by(review_prices.c.position)
            ).scalars()
        )
    try:
        summary = _summary(row)
        expected = content_hash(
            name=row.name,
            review_date=row.review_date,
            saved_at=row.saved_at,
            saved_by=row.saved_by or "",
            notes=row.notes,
            supersedes_id=row.supersedes_id,
            scenario_json=row.scenario_json,
            result_json=row.result_json,
            price_entries_json=entries,
        )
        if not row.content_hash:  # every saved or migrated row has one: removing it is tampering too
            raise StoreError(f"review {review_id} has no content hash, so it cannot be shown as saved")
        if row.content_hash != expected:
            raise StoreError(
                f"review {review_id} does not match its content hash: it was changed after it was saved, so it "
                "is not shown"
            )
        return SavedReview(
            summary=summary,
            scenario=Scenario.model_validate(migrate(json.loads(row.scenario_json))),
            result=Result.model_validate_json(row.result_json),
            prices=tuple(PriceEntry.model_validate_json(text) for text in entries),
            scenario_json=row.scenario_json,
            result_json=row.result_json,
        )
    except (ValidationError, ValueError, TypeError, RecursionError) as exc:
        detail = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        raise StoreError(f"review {review_id} cannot be read by this version of the code: {detail}") from exc


def delete_review(review_id: int, path: Path | None = None, url: str | None = None) -> bool:
    """Delete a review and its prices; True if it existed. A review another one supersedes stays (its
    successor names it): :class:`StoreError`."""
    with open_store(path, url).write() as conn:
        successor = conn.execute(sa.select(reviews.c.id).where(reviews.c.supersedes_id == int(review_id))).first()
        if successor is not None:
            raise StoreError(f"review {review_id} is superseded by review {successor.id} and cannot be deleted")
        deleted = conn.execute(reviews.delete().where(reviews.c.id == int(review_id)))
    return deleted.rowcount > 0
