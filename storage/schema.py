"""The review store's tables as SQLAlchemy Core objects: the schema at the newest migration (``head``).

Queries are built from these objects (bound parameters throughout). The schema itself is created and changed
only by the Alembic migrations in ``storage/migrations/versions``; a test checks that the two agree.

Dates and timestamps are ISO-8601 text (as the first SQLite store wrote them), so the same rows read the same
on SQLite and PostgreSQL and sort correctly as text.
"""

from __future__ import annotations

import sqlalchemy as sa

__all__ = ["metadata", "review_prices", "reviews"]

metadata = sa.MetaData()

reviews = sa.Table(
    "reviews",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("review_date", sa.Text, nullable=False),  # YYYY-MM-DD
    sa.Column("saved_at", sa.Text, nullable=False),  # ISO-8601 with +00:00
    sa.Column("scenario_schema_version", sa.Integer, nullable=False),
    sa.Column("scenario_json", sa.Text, nullable=False),
    sa.Column("result_json", sa.Text, nullable=False),
    sa.Column("app_version", sa.Text, nullable=False),
    sa.Column("notes", sa.Text, nullable=False, server_default=""),
    sa.Column("saved_by", sa.Text, nullable=False, server_default=""),
    # nullable only because SQLite cannot add a NOT NULL column without a default; migration 0003 hashes every
    # old row, and a review without a hash is refused when opened
    sa.Column("content_hash", sa.Text, nullable=True),
    sa.Column("supersedes_id", sa.Integer, sa.ForeignKey("reviews.id"), nullable=True),
    sqlite_autoincrement=True,
)

review_prices = sa.Table(
    "review_prices",
    metadata,
    sa.Column("review_id", sa.Integer, sa.ForeignKey("reviews.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("position", sa.Integer, primary_key=True),
    sa.Column("entry_json", sa.Text, nullable=False),
    sa.Column("offer_id", sa.Text, nullable=False),
    sa.Column("item", sa.Text, nullable=False),
    sa.Column("value", sa.Float, nullable=False),
    sa.Column("as_of", sa.Text, nullable=True),
)
