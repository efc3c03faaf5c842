"""Fixtures of the store tests: a real PostgreSQL server (started here, once per session) and a ``backend``
fixture that runs a test on SQLite and on PostgreSQL. A missing PostgreSQL fails these tests with the install
command; they never skip."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from deploy.postgres import Postgres, start_postgres
from deploy.processes import StartError


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    try:
        server = start_postgres(fsync=False)
    except StartError as exc:
        raise pytest.fail.Exception(f"could not start PostgreSQL: {exc}", pytrace=False) from None
    try:
        yield server
    finally:
        server.stop()


def fresh_pg_database(server: Postgres) -> str:
    """A new empty database on the session's server; its SQLAlchemy URL."""
    name = "t" + uuid.uuid4().hex[:12]
    admin = sa.create_engine(server.url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {name}")
    admin.dispose()
    return server.url.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, object]:
    """Keyword arguments selecting a fresh store: ``{"path": file}`` or ``{"url": postgresql URL}``."""
    if request.param == "sqlite":
        return {"path": tmp_path / "data" / "reviews.sqlite3"}
    return {"url": fresh_pg_database(request.getfixturevalue("postgres"))}
