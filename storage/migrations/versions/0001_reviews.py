"""The first schema: one row per review (scenario and result as JSON text) and its resolved price list.

The same tables as the first SQLite store (``PRAGMA user_version = 1``); a file of that store is stamped
with this revision and upgraded from here.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("review_date", sa.Text, nullable=False),
        sa.Column("saved_at", sa.Text, nullable=False),
        sa.Column("scenario_schema_version", sa.Integer, nullable=False),
        sa.Column("scenario_json", sa.Text, nullable=False),
        sa.Column("result_json", sa.Text, nullable=False),
        sa.Column("app_version", sa.Text, nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "review_prices",
        sa.Column("review_id", sa.Integer, sa.ForeignKey("reviews.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("position", sa.Integer, primary_key=True),
        sa.Column("entry_json", sa.Text, nullable=False),
        sa.Column("offer_id", sa.Text, nullable=False),
        sa.Column("item", sa.Text, nullable=False),
        sa.Column("value", sa.Float, nullable=False),
        sa.Column("as_of", sa.Text, nullable=True),
    )
