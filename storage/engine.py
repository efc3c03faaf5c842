"""Which database holds the reviews, how to connect to it, and bringing its schema up to date at start.

Choosing the database
    ``LLMECON_DATABASE_URL`` (e.g. ``postgresql+psycopg://user@/llmecon?host=/run/pg``) selects a server
    database shared by every app replica. Without it, the reviews live in one SQLite file,
    ``$LLMECON_DATA_DIR/reviews.sqlite3`` (default ``var/reviews.sqlite3`` under the repository). Functions of
    :mod:`storage.reviews` also take ``path=`` (another SQLite file) or ``url=`` (tests, benchmarks).

Schema
    One schema for both, created and changed only by the versioned Alembic migrations in
    ``storage/migrations/versions``, applied when a process first opens the store (under a lock: the
    SQLite write lock, or a PostgreSQL advisory lock, so replicas starting together migrate once). A SQLite
    file of the first store (``PRAGMA user_version`` 1 or 2, no Alembic table) is stamped with the
    matching revision and upgraded. A database at a revision this code does not know (written by a newer
    version) is refused rather than misread.

SQLite specifics
    WAL mode, a 30 s busy timeout, foreign keys on; a write transaction starts with ``BEGIN IMMEDIATE`` (the
    write lock is taken up front, so concurrent savers queue instead of failing on a lock upgrade). A file in
    a folder this process cannot write is opened read-only: reviews can be listed and opened, and a save
    says the folder is read-only.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

__all__ = [
    "DATABASE_URL_ENV",
    "DATA_DIR_ENV",
    "DB_FILENAME",
    "Store",
    "StoreError",
    "StoreReadOnlyError",
    "data_dir",
    "default_store_path",
    "describe",
    "open_store",
    "store_key",
]

DATA_DIR_ENV = "LLMECON_DATA_DIR"
DATABASE_URL_ENV = "LLMECON_DATABASE_URL"
DB_FILENAME = "reviews.sqlite3"
_REPO_ROOT = Path(__file__).resolve().parents[1]
_MIGRATIONS = Path(__file__).resolve().parent / "migrations"
_BUSY_TIMEOUT_S = 30.0
_LEGACY_REVISIONS = {1: "0001", 2: "0002"}  # PRAGMA user_version of the first SQLite store → revision
_PG_MIGRATION_LOCK = 0x11E_C0  # pg_advisory_xact_lock key held while migrating [-]


class StoreError(RuntimeError):
    """The store cannot be used (newer schema, corrupt row, unreadable file, unreachable server)."""


class StoreReadOnlyError(StoreError):
    """The store can be read but not written (a read-only data folder or file)."""


def data_dir() -> Path:
    """The data directory: ``$LLMECON_DATA_DIR`` if set, else ``var/`` under the repository."""
    configured = os.environ.get(DATA_DIR_ENV, "").strip()
    return Path(configured).expanduser() if configured else _REPO_ROOT / "var"


def default_store_path() -> Path:
    """``data_dir() / "reviews.sqlite3"``."""
    return data_dir() / DB_FILENAME


@dataclass(frozen=True)
class Store:
    """An opened, migrated store: its engine, whether it is read-only, and where it is (for messages)."""

    engine: sa.Engine
    read_only: bool
    where: str

    @contextlib.contextmanager
    def read(self) -> Iterator[sa.Connection]:
        """A connection in a read transaction."""
        with _errors(self.where), self.engine.connect() as conn, conn.begin():
            yield conn

    @contextlib.contextmanager
    def write(self) -> Iterator[sa.Connection]:
        """A connection in a write transaction (SQLite: ``BEGIN IMMEDIATE``); committed on success."""
        if self.read_only:
            raise StoreReadOnlyError(
                f"the review store {self.where} is read-only (the folder or file cannot be written): reviews "
                "can be opened but not saved or deleted; ask for write access or set LLMECON_DATA_DIR"
            )
        with _errors(self.where), self.engine.connect() as conn:
            conn = conn.execution_options(sqlite_write=True)
            with conn.begin():
                yield conn


@contextlib.contextmanager
def _errors(where: str) -> Iterator[None]:
    try:
        yield
    except sa.exc.SQLAlchemyError as exc:
        detail = str(getattr(exc, "orig", None) or exc).splitlines()[0][:300]
        if "readonly" in detail or "read-only" in detail:
            raise StoreReadOnlyError(f"the review store {where} is read-only: {detail}") from exc
        raise StoreError(f"review store {where}: {detail}") from exc


def describe(url: str | sa.URL) -> str:
    """The store's location for a message, never with its password."""
    parsed = sa.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return str(parsed.database)
    return parsed.render_as_string(hide_password=True)


# ---- connecting ----------------------------------------------------------------------------------------


def _set_wal(dbapi: sqlite3.Connection) -> None:
    # Switching a fresh file to WAL needs a brief exclusive lock and can report "locked" without waiting on
    # the busy handler when many processes open the file at once; retry within the busy timeout.
    deadline = time.monotonic() + _BUSY_TIMEOUT_S
    while True:
        try:
            dbapi.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _sqlite_engine(path: Path, read_only: bool, immutable: bool = False) -> sa.Engine:
    if read_only:
        query = "mode=ro&immutable=1" if immutable else "mode=ro"
        url = f"sqlite+pysqlite:///file:{path}?{query}&uri=true"
    else:
        url = f"sqlite+pysqlite:///{path}"
    engine = sa.create_engine(url, connect_args={"timeout": _BUSY_TIMEOUT_S}, poolclass=sa.pool.NullPool)

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi: sqlite3.Connection, _record: Any) -> None:
        dbapi.isolation_level = None  # the driver's own BEGIN handling off: _on_begin below decides
        dbapi.execute(f"PRAGMA busy_timeout = {int(_BUSY_TIMEOUT_S * 1000):d}")
        if not read_only:
            _set_wal(dbapi)
        dbapi.execute("PRAGMA foreign_keys = ON")

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        write = conn.get_execution_options().get("sqlite_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


def _writable(path: Path) -> bool:
    folder = path.parent
    if not folder.exists():
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return False
    if not os.access(folder, os.W_OK | os.X_OK):
        return False
    return not path.exists() or os.access(path, os.W_OK)


# ---- migrations ----------------------------------------------------------------------------------------


def _script() -> ScriptDirectory:
    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    return ScriptDirectory.from_config(config)


def head_revision() -> str:
    """The newest migration's revision id."""
    head = _script().get_current_head()
    assert head is not None  # there is always at least one migration
    return head


def _current(conn: sa.Connection) -> str | None:
    return MigrationContext.configure(conn).get_current_revision()


def _check_known(revision: str | None, where: str) -> None:
    if revision is not None and revision not in {s.revision for s in _script().walk_revisions()}:
        raise StoreError(
            f"the review store {where} has schema revision {revision!r}, written by a newer version of this app; "
            f"this code reads up to {head_revision()!r}"
        )


def _legacy_revision(conn: sa.Connection, where: str) -> str | None:
    """The revision matching a first-store SQLite file (no Alembic table), or None for an empty database."""
    if conn.dialect.name != "sqlite":
        return None
    version = int(conn.exec_driver_sql("PRAGMA user_version").scalar() or 0)
    has_reviews = sa.inspect(conn).has_table("reviews")
    if version == 0 and not has_reviews:
        return None
    if version in _LEGACY_REVISIONS and has_reviews:
        return _LEGACY_REVISIONS[version]
    newer = " (written by a newer version of this app)" if version > max(_LEGACY_REVISIONS) else ""
    raise StoreError(f"the review store {where} has schema version {version}{newer}, which this code cannot read")


def upgrade(engine: sa.Engine, where: str) -> None:
    """Bring the database to the newest revision, once, under a lock (see the module docstring)."""
    with _errors(where), engine.connect() as conn:
        conn = conn.execution_options(sqlite_write=True)
        with conn.begin():
            if conn.dialect.name == "postgresql":
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK})
            current = _current(conn)
            _check_known(current, where)
            if current == head_revision():
                return
            config = Config()
            config.set_main_option("script_location", str(_MIGRATIONS))
            config.attributes["connection"] = conn
            if current is None and (legacy := _legacy_revision(conn, where)) is not None:
                command.stamp(config, legacy)
            command.upgrade(config, "head")


def _check_read_only(engine: sa.Engine, where: str) -> None:
    with _errors(where), engine.connect() as conn, conn.begin():
        current = _current(conn)
    _check_known(current, where)
    if current != head_revision():
        raise StoreError(
            f"the review store {where} is read-only and has schema revision {current!r}; it must be opened once "
            f"with write access to be upgraded to {head_revision()!r}"
        )


# ---- opening (cached per process) ------------------------------------------------------------------------

_LOCK = threading.Lock()
_OPEN: dict[tuple[str, bool], Store] = {}


def _resolve(path: Path | None, url: str | None) -> tuple[str, Path | None]:
    if url is None and path is None:
        url = os.environ.get(DATABASE_URL_ENV, "").strip() or None
    if url is not None:
        parsed = sa.make_url(url)
        if parsed.get_backend_name() == "sqlite":
            return url, Path(str(parsed.database))
        return url, None
    db = Path(path) if path is not None else default_store_path()
    return f"sqlite:{db.resolve()}", db.resolve()


def store_key(path: Path | None = None, url: str | None = None) -> str:
    """Which store :func:`open_store` would open for these arguments (and the environment), without opening it:
    the database URL, or ``sqlite:`` and the file's absolute path. A cache key, not for messages."""
    return _resolve(path, url)[0]


def open_store(path: Path | None = None, url: str | None = None) -> Store:
    """The store for ``url``, ``path``, ``$LLMECON_DATABASE_URL`` or the default SQLite file (in that order),
    migrated to the newest revision on first use in this process. Raises :class:`StoreError`."""
    try:
        return _open(path, url)
    except OSError as exc:
        raise StoreError(f"cannot open the review store: {exc.strerror or exc}: {exc.filename or ''}") from exc


def _open(path: Path | None, url: str | None) -> Store:
    key, sqlite_path = _resolve(path, url)
    if sqlite_path is not None:
        if not sqlite_path.exists() and sqlite_path.is_symlink():
            raise StoreError(f"the review store {sqlite_path} is a dangling link")
        writable = _writable(sqlite_path)
        cache_key = (key, writable)
        # a store whose file was deleted since (tests, a reset) is opened afresh
        if cache_key in _OPEN and (not writable or sqlite_path.exists()):
            return _OPEN[cache_key]
        with _LOCK:
            store = _open_sqlite(sqlite_path, writable)
            _OPEN[cache_key] = store
            return store
    with _LOCK:
        if (key, True) not in _OPEN:
            engine = sa.create_engine(key, pool_pre_ping=True, pool_size=5, max_overflow=5)
            where = describe(key)
            try:
                upgrade(engine, where)
            except BaseException:
                engine.dispose()
                raise
            _OPEN[(key, True)] = Store(engine, False, where)
        return _OPEN[(key, True)]


def _open_sqlite(path: Path, writable: bool) -> Store:
    where = str(path)
    if writable:
        engine = _sqlite_engine(path, read_only=False)
        upgrade(engine, where)
        return Store(engine, False, where)
    if not path.exists():
        raise StoreReadOnlyError(f"the data folder {path.parent} is read-only and holds no review store yet")
    for immutable in (False, True):  # without -wal/-shm files a WAL database opens only as immutable
        engine = _sqlite_engine(path, read_only=True, immutable=immutable)
        try:
            _check_read_only(engine, where)
        except StoreError as exc:
            if immutable or "newer version" in str(exc) or "upgraded" in str(exc):
                raise
            continue
        return Store(engine, True, where)
    raise AssertionError("unreachable")  # pragma: no cover


def forget_open_stores() -> None:
    """Dispose every cached engine (tests that delete or replace a database file)."""
    with _LOCK:
        for store in _OPEN.values():
            store.engine.dispose()
        _OPEN.clear()
