"""Immutable reviews: who saved each one, its content hash, the review it supersedes; updates refused.

Existing rows get ``saved_by = ''`` (not recorded then) and their content hash computed from what is stored.
A trigger on each table refuses every UPDATE, so a review can be superseded by a later one, never overwritten.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from storage.hashing import content_hash

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_PG_FUNCTION = """
CREATE FUNCTION llmecon_refuse_update() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'saved reviews are immutable: save a new review that supersedes this one';
END
$$ LANGUAGE plpgsql
"""


def _refuse_updates(table: str) -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            f"CREATE TRIGGER {table}_immutable BEFORE UPDATE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION llmecon_refuse_update()"
        )
    else:
        op.execute(
            f"CREATE TRIGGER {table}_immutable BEFORE UPDATE ON {table} BEGIN "
            "SELECT RAISE(ABORT, 'saved reviews are immutable: save a new review that supersedes this one'); END"
        )


def _hash_existing_rows() -> None:
    bind = op.get_bind()
    rows = bind.execute(
        sa.text("SELECT id, name, review_date, saved_at, notes, scenario_json, result_json FROM reviews")
    ).all()
    for row in rows:
        prices = bind.execute(
            sa.text("SELECT entry_json FROM review_prices WHERE review_id = :id ORDER BY position"), {"id": row.id}
        ).scalars()
        digest = content_hash(
            name=row.name,
            review_date=row.review_date,
            saved_at=row.saved_at,
            saved_by="",
            notes=row.notes,
            supersedes_id=None,
            scenario_json=row.scenario_json,
            result_json=row.result_json,
            price_entries_json=list(prices),
        )
        bind.execute(sa.text("UPDATE reviews SET content_hash = :h WHERE id = :id"), {"h": digest, "id": row.id})


def upgrade() -> None:
    op.add_column("reviews", sa.Column("saved_by", sa.Text, nullable=False, server_default=""))
    op.add_column("reviews", sa.Column("content_hash", sa.Text, nullable=True))
    if op.get_bind().dialect.name == "sqlite":  # SQLite adds a column with a reference, not a constraint
        op.execute("ALTER TABLE reviews ADD COLUMN supersedes_id INTEGER REFERENCES reviews(id)")
    else:
        op.add_column("reviews", sa.Column("supersedes_id", sa.Integer, sa.ForeignKey("reviews.id"), nullable=True))
    _hash_existing_rows()
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_PG_FUNCTION)
    _refuse_updates("reviews")
    _refuse_updates("review_prices")
