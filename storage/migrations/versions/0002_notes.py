"""A ``notes`` column on reviews and an index that serves the review list's order (newest review date first).

Equal to the second SQLite store (``PRAGMA user_version = 2``).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("reviews", sa.Column("notes", sa.Text, nullable=False, server_default=""))
    op.create_index("reviews_by_date", "reviews", [sa.text("review_date DESC"), sa.text("saved_at DESC")])
