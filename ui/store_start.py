"""Bring the review store's schema up to date when the app starts, once per process (issue 15).

The app's entry point calls :func:`migrate_at_start` on every run; the work happens on the first run in a
process (a cached resource per store), so a new version of the app upgrades an old database before anyone
opens the Reviews page. Two replicas starting at once against one PostgreSQL database are safe: the upgrade
runs in one transaction under a PostgreSQL advisory lock (SQLite: the write lock), and the second replica
finds the schema current (:func:`storage.engine.upgrade`). A store that cannot be upgraded here (a read-only
data folder, an unreachable server) does not stop the app: the reason is logged, the Reviews page tries again
and shows it, and a read-only folder whose store is current still lists its reviews read-only.
"""

from __future__ import annotations

import logging

import streamlit as st

from storage import reviews as store
from storage.engine import store_key

_LOG = logging.getLogger(__name__)


def migrate_at_start() -> str | None:
    """Open (and so migrate to the newest revision) the configured store, once per process and store; the
    error that prevented it, else None."""
    return _migrate(store_key())


@st.cache_resource(show_spinner=False, max_entries=8)
def _migrate(key: str) -> str | None:
    try:
        revision = store.store_schema_version()
    except store.StoreError as exc:
        _LOG.warning("review store not upgraded at start (the Reviews page will say why): %s", exc)
        return str(exc)
    _LOG.info("review store %s at schema revision %s", store.store_location(), revision)
    return None
