"""The review store on both databases: immutable reviews with a content hash, saved_by and supersede; a
damaged or altered row is skipped or refused with a message while every other review stays reachable; the
same migrations on SQLite and PostgreSQL; a read-only data folder lists reviews and refuses saves clearly."""

from __future__ import annotations

import ast
import datetime as dt
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from deploy.postgres import Postgres
from storage import reviews as store
from storage.engine import forget_open_stores
from storage.schema import metadata
from tests.reviews.factories import small_result, small_scenario
from tests.storage.conftest import fresh_pg_database

ROOT = Path(__file__).resolve().parents[2]


def _save(backend: dict[str, Any], name: str = "Q3", **kwargs: Any) -> store.ReviewSummary:
    scenario = small_scenario()
    return store.save_review(scenario, small_result(scenario), name=name, **kwargs, **backend)


def _engine(backend: dict[str, Any]) -> sa.Engine:
    if "url" in backend:
        return sa.create_engine(backend["url"], poolclass=sa.pool.NullPool)
    return sa.create_engine(f"sqlite:///{backend['path']}", poolclass=sa.pool.NullPool)


def test_a_review_records_who_when_and_its_content_hash(backend: dict[str, Any]) -> None:
    at = dt.datetime(2025, 10, 1, 9, 30, tzinfo=dt.UTC)
    summary = _save(backend, saved_by=" Ana Lim ", saved_at=at)
    assert (summary.saved_by, summary.saved_at) == ("Ana Lim", at)
    assert summary.content_hash.startswith("sha256:")
    assert len(summary.content_hash) == len("sha256:") + 64
    review = store.load_review(summary.id, **backend)
    assert review.summary == summary
    # the same content saved again by someone else is a different review with a different hash
    other = _save(backend, saved_by="Bo", saved_at=at)
    assert other.content_hash != summary.content_hash


def test_saved_rows_cannot_be_updated_only_superseded(backend: dict[str, Any]) -> None:
    first = _save(backend, name="Q3")
    engine = _engine(backend)
    with pytest.raises(sa.exc.DBAPIError, match="immutable"), engine.begin() as conn:
        conn.execute(sa.text("UPDATE reviews SET notes = 'edited' WHERE id = :id"), {"id": first.id})
    with pytest.raises(sa.exc.DBAPIError, match="immutable"), engine.begin() as conn:
        conn.execute(sa.text("UPDATE review_prices SET value = 0 WHERE review_id = :id"), {"id": first.id})
    engine.dispose()
    second = _save(backend, name="Q3 corrected", supersedes=first.id)
    by_id = {s.id: s for s in store.list_reviews(**backend)}
    assert by_id[second.id].supersedes_id == first.id
    assert by_id[first.id].superseded_by_id == second.id
    assert store.load_review(first.id, **backend).summary.notes == ""  # the old one is kept as saved
    with pytest.raises(store.StoreError, match="superseded by review"):
        store.delete_review(first.id, **backend)
    with pytest.raises(store.ReviewNotFoundError):
        _save(backend, supersedes=999_999)


def _insert_damaged(backend: dict[str, Any], review_date: str) -> int:
    engine = _engine(backend)
    with engine.begin() as conn:
        row = conn.execute(
            sa.text(
                "INSERT INTO reviews (name, review_date, saved_at, scenario_schema_version, scenario_json, "
                "result_json, app_version, notes, saved_by) VALUES ('bad', :d, 'not a time', 1, '{', '{', 'x', '', '')"
                " RETURNING id"
            ),
            {"d": review_date},
        ).one()
    engine.dispose()
    return int(row[0])


def test_one_damaged_row_is_skipped_with_a_message_and_the_rest_stay_reachable(backend: dict[str, Any]) -> None:
    good = [_save(backend, name=f"good {i}") for i in range(3)]
    bad_id = _insert_damaged(backend, "31/12/2025")
    listing = store.list_reviews_checked(**backend)
    assert [s.id for s in listing.reviews] == [g.id for g in reversed(good)]
    assert len(listing.problems) == 1
    assert f"review #{bad_id}" in listing.problems[0]
    assert "skipped" in listing.problems[0]
    for g in good:
        assert store.load_review(g.id, **backend).summary == g
    with pytest.raises(store.StoreError, match=f"review {bad_id} cannot be read"):
        store.load_review(bad_id, **backend)
    _save(backend, name="still saving")  # the save path is not blocked either
    assert len(store.list_reviews(**backend)) == 4


def test_an_altered_row_is_refused_by_its_content_hash(backend: dict[str, Any]) -> None:
    first, second = _save(backend, name="a"), _save(backend, name="b")
    engine = _engine(backend)
    with engine.begin() as conn:  # someone with database access drops the guard and edits a review
        if engine.dialect.name == "postgresql":
            conn.execute(sa.text("ALTER TABLE reviews DISABLE TRIGGER reviews_immutable"))
        else:
            conn.execute(sa.text("DROP TRIGGER reviews_immutable"))
        conn.execute(sa.text("UPDATE reviews SET notes = 'approved by nobody' WHERE id = :id"), {"id": first.id})
    engine.dispose()
    with pytest.raises(store.StoreError, match="does not match its content hash"):
        store.load_review(first.id, **backend)
    assert store.load_review(second.id, **backend).summary == second


def test_the_migrations_build_exactly_the_declared_schema(backend: dict[str, Any]) -> None:
    _save(backend)
    engine = _engine(backend)
    inspector = sa.inspect(engine)
    for table in metadata.sorted_tables:
        columns = {c["name"]: c for c in inspector.get_columns(table.name)}
        assert set(columns) == {c.name for c in table.columns}, table.name
        for column in table.columns:
            assert columns[column.name]["nullable"] == column.nullable or column.primary_key, (table.name, column.name)
    engine.dispose()


def test_two_processes_opening_a_new_postgres_database_migrate_it_once(postgres: Postgres) -> None:
    url = fresh_pg_database(postgres)
    code = (
        "import sys; from storage import reviews as s; from tests.reviews.factories import small_result, "
        "small_scenario as sc; print(s.save_review(sc(), small_result(sc()), name='p', url=sys.argv[1]).id)"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, url], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, [o[1][-1500:] for o in outs]
    assert sorted(int(o[0]) for o in outs) == [1, 2, 3, 4]
    assert store.store_schema_version(url=url) == store.head_revision()


def test_concurrent_savers_on_postgres_lose_nothing(postgres: Postgres) -> None:
    url = fresh_pg_database(postgres)
    ids: list[int] = []
    lock = threading.Lock()

    def saver(worker: int) -> None:
        for i in range(5):
            summary = _save({"url": url}, name=f"w{worker} s{i}")
            with lock:
                ids.append(summary.id)

    threads = [threading.Thread(target=saver, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(set(ids)) == 40
    listed = store.list_reviews(url=url)
    assert {s.id for s in listed} == set(ids)
    assert all(s.price_count == listed[0].price_count > 0 for s in listed)


_READ_ONLY_CHECK = """
import sys
import tempfile
from pathlib import Path
from storage import reviews as store
from tests.reviews.factories import small_result, small_scenario
path = Path(sys.argv[1])
listing = store.list_reviews_checked(path=path)
print("listed", [s.name for s in listing.reviews], listing.read_only)
print("empty", store.list_reviews_checked(path=path.parent / "none" / "reviews.sqlite3"))
print("opened", store.load_review(listing.reviews[0].id, path=path).name)
try:
    store.save_review(small_scenario(), small_result(small_scenario()), name="x", path=path)
except store.StoreReadOnlyError as exc:
    print("refused", exc)
"""


def test_a_read_only_data_folder_lists_reviews_and_says_so_on_save() -> None:
    tmp_path = Path(tempfile.mkdtemp(prefix="llmecon-ro-"))  # under /tmp: reachable by an unprivileged user
    folder = tmp_path / "data"
    path = folder / "reviews.sqlite3"
    _save({"path": path}, name="kept")
    forget_open_stores()
    folder.chmod(0o555)
    path.chmod(0o444)
    tmp_path.chmod(0o755)
    # root ignores file modes, so the check runs as an unprivileged user when we are root
    prefix = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] if os.geteuid() == 0 else []
    try:
        proc = subprocess.run(
            [*prefix, sys.executable, "-c", _READ_ONLY_CHECK, str(path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, "HOME": str(tmp_path)},
        )
    finally:
        folder.chmod(0o755)
        path.chmod(0o644)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[0] == "listed ['kept'] True"
    assert lines[1] == "empty ReviewListing(reviews=(), problems=(), read_only=True)"
    assert lines[2] == "opened kept"
    assert lines[3].startswith("refused ")
    assert "read-only" in lines[3]
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT COUNT(*) FROM reviews").fetchone()[0] == 1
    shutil.rmtree(tmp_path)


def test_economics_never_imports_storage() -> None:
    offenders = []
    for path in sorted((ROOT / "economics").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n == "storage" or n.startswith("storage.") for n in names):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_a_removed_content_hash_does_not_switch_the_check_off(backend: dict[str, Any]) -> None:
    # Found by the long fuzz run: NULL hash + deleted prices opened as if intact.
    first = _save(backend)
    engine = _engine(backend)
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(sa.text("ALTER TABLE reviews DISABLE TRIGGER reviews_immutable"))
        else:
            conn.execute(sa.text("DROP TRIGGER reviews_immutable"))
        conn.execute(sa.text("UPDATE reviews SET content_hash = NULL WHERE id = :id"), {"id": first.id})
        conn.execute(sa.text("DELETE FROM review_prices WHERE review_id = :id"), {"id": first.id})
    engine.dispose()
    with pytest.raises(store.StoreError, match="has no content hash"):
        store.load_review(first.id, **backend)


def test_the_latest_review_is_the_newest_readable_save_found_through_an_index(backend: dict[str, Any]) -> None:
    assert store.latest_review(**backend) is None
    first = _save(backend, name="first", saved_at=dt.datetime(2026, 1, 5, 9, 0, tzinfo=dt.UTC))
    newest = _save(backend, name="newest", saved_at=dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.UTC))
    _save(backend, name="older, saved later by id", saved_at=dt.datetime(2026, 2, 1, 9, 0, tzinfo=dt.UTC))
    assert store.latest_review(**backend) == newest  # by saved_at, not by id
    bad_id = _insert_damaged(backend, "31/12/2025")  # saved_at "not a time" sorts first: newest, unreadable
    latest = store.latest_review(**backend)
    assert latest is not None
    assert latest.id != bad_id
    assert latest == newest
    assert first in store.list_reviews(**backend)
    engine = _engine(backend)
    assert "reviews_by_saved_at" in {i["name"] for i in sa.inspect(engine).get_indexes("reviews")}
    engine.dispose()
