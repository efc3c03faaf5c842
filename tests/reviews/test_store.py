"""The review store: round trip, atomic saves under SIGKILL, concurrent savers, schema migrations."""

from __future__ import annotations

import datetime as dt
import json
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest
from pydantic import ValidationError

from economics.price_book import price_book
from storage import reviews as store
from tests.reviews.factories import small_result, small_scenario

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "data" / "reviews.sqlite3"


def _integrity(path: Path) -> tuple[str, int, int]:
    """(integrity_check, review rows, price rows whose review is missing)."""
    with closing(sqlite3.connect(path)) as conn:
        check = conn.execute("PRAGMA integrity_check").fetchone()[0]
        reviews = conn.execute("SELECT COUNT(*) FROM reviews").fetchone()[0]
        orphans = conn.execute(
            "SELECT COUNT(*) FROM review_prices WHERE review_id NOT IN (SELECT id FROM reviews)"
        ).fetchone()[0]
    return check, reviews, orphans


def test_round_trip_returns_exactly_what_was_saved(db: Path) -> None:
    scenario = small_scenario()
    result = small_result(scenario)
    saved_at = dt.datetime(2025, 10, 1, 9, 30, tzinfo=dt.UTC)
    summary = store.save_review(
        scenario, result, name=" Q3 review ", notes="API prices fell", saved_at=saved_at, path=db
    )
    assert db.is_file()  # the directory is created on demand
    assert (summary.name, summary.notes, summary.review_date) == ("Q3 review", "API prices fell", dt.date(2025, 9, 30))
    assert summary.saved_at == saved_at
    assert summary.price_count == len(price_book(scenario))

    review = store.load_review(summary.id, path=db)
    assert review.summary == summary
    assert review.scenario == scenario
    assert review.result == result  # inf costs of the infeasible option survive (stored as Infinity)
    assert review.result.options[3].cost_usd_per_request == float("inf")
    assert review.prices == price_book(scenario)
    assert store.list_reviews(path=db) == (summary,)


def test_reopens_as_saved_without_recomputing_or_reading_defaults(db: Path) -> None:
    # The stored result is returned as stored (a hand-made result, not what evaluate would give), and the
    # stored scenario spells out every field, so a later change of a code default cannot change it.
    scenario = small_scenario()
    summary = store.save_review(scenario, small_result(scenario, chat_route="ar-owned"), name="r", path=db)
    review = store.load_review(summary.id, path=db)
    assert review.result.decisions[0].chosen_option_id == "ar-owned"
    stored = json.loads(review.scenario_json)
    owned = next(n for n in stored["nodes"] if n["kind"] == "owned")
    assert {"capex_usd", "pue", "electricity_usd_per_kwh", "economic_life_years"} <= owned.keys()
    assert {"mbu", "mfu_decode", "step_overhead_s"} <= stored["efficiency"].keys()
    assert stored["policy"]["stale_after_days"] == 90


def test_list_order_delete_and_not_found(db: Path) -> None:
    old = store.save_review(
        small_scenario(review_date=dt.date(2025, 3, 31)), small_result(small_scenario()), name="Q1", path=db
    )
    new = store.save_review(small_scenario(), small_result(small_scenario()), name="Q3", path=db)
    assert [s.name for s in store.list_reviews(path=db)] == ["Q3", "Q1"]  # newest review date first
    assert store.delete_review(old.id, path=db)
    assert not store.delete_review(old.id, path=db)
    assert [s.id for s in store.list_reviews(path=db)] == [new.id]
    assert _integrity(db) == ("ok", 1, 0)  # the cascade removed the prices too
    with pytest.raises(store.ReviewNotFoundError, match=f"no review with id {old.id}"):
        store.load_review(old.id, path=db)


def test_an_empty_name_is_refused(db: Path) -> None:
    with pytest.raises(ValidationError):
        store.save_review(small_scenario(), small_result(small_scenario()), name="   ", path=db)


def test_the_data_directory_comes_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(store.DATA_DIR_ENV, str(tmp_path / "elsewhere"))
    assert store.default_store_path() == tmp_path / "elsewhere" / "reviews.sqlite3"
    store.save_review(small_scenario(), small_result(small_scenario()), name="env")
    assert (tmp_path / "elsewhere" / "reviews.sqlite3").is_file()
    monkeypatch.delenv(store.DATA_DIR_ENV)
    assert store.default_store_path() == ROOT / "var" / "reviews.sqlite3"
    monkeypatch.delenv(store.DATABASE_URL_ENV, raising=False)


def test_the_file_runs_in_wal_mode(db: Path) -> None:
    store.save_review(small_scenario(), small_result(small_scenario()), name="wal", path=db)
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


# ---- crash safety --------------------------------------------------------------------------------------

_KILLED_SAVER = """
import pathlib, sys, time
from storage import reviews as store
from tests.reviews.factories import small_result, small_scenario

db, marker = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])

def pause() -> None:  # inside the transaction: the review row is written, its prices are not
    marker.write_text("in transaction")
    time.sleep(60)

store._hook_in_transaction = pause
store.save_review(small_scenario(), small_result(small_scenario()), name="never committed", path=db)
"""


def test_a_save_killed_mid_transaction_leaves_the_store_consistent(db: Path, tmp_path: Path) -> None:
    first = store.save_review(small_scenario(), small_result(small_scenario()), name="committed", path=db)
    marker = tmp_path / "marker"
    child = subprocess.Popen([sys.executable, "-c", _KILLED_SAVER, str(db), str(marker)], cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert child.poll() is None, "the saver exited before reaching the transaction"
            assert time.monotonic() < deadline, "the saver never reached the transaction"
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(10) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
    # The killed writer's uncommitted frames are discarded on the next open; the earlier review is intact,
    # and the store accepts new saves (the write lock died with the process).
    assert [s.id for s in store.list_reviews(path=db)] == [first.id]
    assert store.load_review(first.id, path=db).summary == first
    assert _integrity(db) == ("ok", 1, 0)
    store.save_review(small_scenario(), small_result(small_scenario()), name="after the crash", path=db)
    assert _integrity(db) == ("ok", 2, 0)


# ---- concurrency ---------------------------------------------------------------------------------------

SAVERS, SAVES_EACH = 10, 5


def _saver(args: tuple[str, int]) -> list[int]:
    path, worker = args
    scenario, result = small_scenario(), small_result(small_scenario())
    return [
        store.save_review(scenario, result, name=f"worker {worker} save {i}", path=Path(path)).id
        for i in range(SAVES_EACH)
    ]


def test_ten_parallel_savers_lose_nothing(db: Path) -> None:
    # Ten processes open a file that does not exist yet (so they also race on creation and migration),
    # then each saves five reviews. Every save is there, with all of its prices.
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(SAVERS) as pool:
        ids = pool.map(_saver, [(str(db), w) for w in range(SAVERS)])
    all_ids = [i for worker in ids for i in worker]
    assert len(set(all_ids)) == SAVERS * SAVES_EACH
    summaries = store.list_reviews(path=db)
    assert {s.id for s in summaries} == set(all_ids)
    assert {s.name for s in summaries} == {f"worker {w} save {i}" for w in range(SAVERS) for i in range(SAVES_EACH)}
    n_prices = len(price_book(small_scenario()))
    assert all(s.price_count == n_prices for s in summaries)
    assert _integrity(db) == ("ok", SAVERS * SAVES_EACH, 0)


# ---- migrations ----------------------------------------------------------------------------------------


def _legacy_file(path: Path, version: int) -> int:
    """A store written by the old code (tests/reviews/legacy, a frozen copy) at schema version 1 or 2."""
    from tests.reviews.legacy import store as legacy
    from tests.reviews.legacy.store_migrations import MIGRATIONS

    scenario = small_scenario()
    if version == 2:
        return legacy.save_review(scenario, small_result(scenario), name="old review", notes="from v2", path=path).id
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path)) as conn, conn:
        for statement in MIGRATIONS[0]:
            conn.execute(statement)
        conn.execute("PRAGMA user_version = 1")
        conn.execute(
            "INSERT INTO reviews (name, review_date, saved_at, scenario_schema_version, scenario_json, result_json,"
            " app_version) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                "old review",
                "2025-09-30",
                "2025-10-01T09:30:00+00:00",
                1,
                legacy._to_json(scenario),
                legacy._to_json(small_result(scenario)),
                "0.0.1",
            ),
        )
        for i, entry in enumerate(price_book(scenario)):
            conn.execute(
                "INSERT INTO review_prices VALUES (?, ?, ?, ?, ?, ?, ?)",
                (1, i, legacy._to_json(entry), entry.offer_id, entry.item, entry.value, None),
            )
    return 1


@pytest.mark.parametrize("version", [1, 2])
def test_a_file_of_the_old_store_is_upgraded_and_its_reviews_kept(db: Path, version: int) -> None:
    old_id = _legacy_file(db, version)
    assert store.store_schema_version(db) == store.head_revision() == "0004"
    (summary,) = store.list_reviews(path=db)
    assert summary.id == old_id
    assert summary.name == "old review"
    assert summary.notes == ("from v2" if version == 2 else "")
    assert summary.saved_by == ""  # not recorded by the old store
    assert summary.content_hash.startswith("sha256:")  # computed by the migration from what was stored
    review = store.load_review(summary.id, path=db)  # and it verifies
    assert review.scenario == small_scenario()
    with closing(sqlite3.connect(db)) as conn:
        indexes = {row[1] for row in conn.execute("PRAGMA index_list(reviews)")}
    assert "reviews_by_date" in indexes
    new = store.save_review(small_scenario(), small_result(small_scenario()), name="new", saved_by="ana", path=db)
    assert [s.id for s in store.list_reviews(path=db)] == [new.id, old_id]  # same date: newest save first


def test_a_file_from_a_newer_version_is_refused(db: Path) -> None:
    db.parent.mkdir(parents=True)
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA user_version = 3")
    with pytest.raises(store.StoreError, match="schema version 3"):
        store.list_reviews(path=db)


def test_a_database_at_an_unknown_revision_is_refused(db: Path) -> None:
    store.list_reviews(path=db)
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    from storage.engine import forget_open_stores

    forget_open_stores()
    with pytest.raises(store.StoreError, match="newer version"):
        store.list_reviews(path=db)


def test_a_file_that_is_not_a_database_is_a_store_error(db: Path) -> None:
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(store.StoreError):
        store.list_reviews(path=db)
