"""Schema migrations of the review store, applied in order on open (``PRAGMA user_version`` = the last applied).

Each migration is a tuple of SQL statements run in the same ``BEGIN IMMEDIATE`` transaction as the
``user_version`` bump, so a crash leaves the file at the previous version, never half-migrated. Never edit a
released migration: add a new one at the end.

1. The first schema: one row per review (scenario and result as JSON text) and its resolved price list.
2. A ``notes`` column on reviews (the reviewer's notes, shown in the list and the meeting pack) and an index
   that serves the review list's order (newest review date first).
"""

from __future__ import annotations

__all__ = ["MIGRATIONS", "SCHEMA_VERSION"]

_V1: tuple[str, ...] = (
    """
    CREATE TABLE reviews (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        review_date TEXT NOT NULL,
        saved_at TEXT NOT NULL,
        scenario_schema_version INTEGER NOT NULL,
        scenario_json TEXT NOT NULL,
        result_json TEXT NOT NULL,
        app_version TEXT NOT NULL
    )
    """,
    """
    CREATE TABLE review_prices (
        review_id INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        entry_json TEXT NOT NULL,
        offer_id TEXT NOT NULL,
        item TEXT NOT NULL,
        value REAL NOT NULL,
        as_of TEXT,
        PRIMARY KEY (review_id, position)
    )
    """,
)

_V2: tuple[str, ...] = (
    "ALTER TABLE reviews ADD COLUMN notes TEXT NOT NULL DEFAULT ''",
    "CREATE INDEX reviews_by_date ON reviews (review_date DESC, saved_at DESC)",
)

#: Migration ``i`` (1-based) is ``MIGRATIONS[i - 1]``.
MIGRATIONS: tuple[tuple[str, ...], ...] = (_V1, _V2)
SCHEMA_VERSION = len(MIGRATIONS)
