"""An index that serves "the most recently saved review" (``storage.reviews.latest_review``), which the
"what changed" banner asks on every rerun of every session: one index lookup instead of a scan of a team's
whole store.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("reviews_by_saved_at", "reviews", [sa.text("saved_at DESC"), sa.text("id DESC")])
