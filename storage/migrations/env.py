"""Alembic environment of the review store: always run programmatically by :func:`storage.engine.upgrade`,
on the connection (and inside the transaction) it passes in ``config.attributes["connection"]``."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None)
with context.begin_transaction():
    context.run_migrations()
