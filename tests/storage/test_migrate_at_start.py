"""The review store's schema is brought up to date when the app starts (issue 15: "one set of versioned
migrations ... applied at start"), before anyone opens the Reviews page:

* an old SQLite store (the first store's file) is upgraded by the app's first run on the Overview, with
  sign-in on and nobody signed in (so no page reads a review: only the start-up step can upgrade it; the
  "what changed" banner then does not name the last review either);
* two app processes starting at once against an old PostgreSQL database both start cleanly and leave it
  upgraded once, its review kept (the upgrade runs under an advisory lock);
* a read-only data folder does not stop the app, and the Reviews page still lists its reviews read-only.

Every app run here is the real ``app.py`` under Streamlit's AppTest (the first run of a process, in a
subprocess where a fresh process matters).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from contextlib import closing
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from streamlit.testing.v1 import AppTest

from deploy.postgres import Postgres
from economics.price_book import price_book
from storage import reviews as store
from storage.engine import forget_open_stores
from tests.hardening.test_reviews_page import AUTH
from tests.reviews.factories import small_result, small_scenario
from tests.reviews.legacy import store as legacy
from tests.storage.conftest import fresh_pg_database
from tests.ui.helpers import APP

ROOT = Path(__file__).resolve().parents[2]

# The first run of app.py in a fresh process (the Overview), then optionally the Reviews page; prints what the
# page said about the store.
_APP_START = """
import sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file("app.py", default_timeout=240)
at.run()
assert not at.exception, [e.value for e in at.exception]
if sys.argv[1:] == ["reviews"]:
    at.switch_page("pages/7_reviews.py").run()
    assert not at.exception, [e.value for e in at.exception]
    for box in (*at.info, *at.error, *at.warning):
        print(type(box).__name__, "|", box.value)
    print("options |", " ;; ".join(str(o) for o in at.selectbox(key="rv_subject").options))
print("started")
"""


def _run_app(env: dict[str, str], *args: str, user: list[str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*(user or []), sys.executable, "-c", _APP_START, *args],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _old_postgres_database(server: Postgres) -> str:
    """A PostgreSQL database at the first revision (0001) holding one review written the way that schema did."""
    url = fresh_pg_database(server)
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    scenario = small_scenario()
    with engine.begin() as conn:
        config = Config()
        config.set_main_option("script_location", str(ROOT / "storage" / "migrations"))
        config.attributes["connection"] = conn
        command.upgrade(config, "0001")
        review_id = conn.execute(
            sa.text(
                "INSERT INTO reviews (name, review_date, saved_at, scenario_schema_version, scenario_json, "
                "result_json, app_version) VALUES ('old review', '2025-09-30', '2025-10-01T09:30:00+00:00', 1, "
                ":scenario, :result, '0.0.1') RETURNING id"
            ),
            {"scenario": legacy._to_json(scenario), "result": legacy._to_json(small_result(scenario))},
        ).scalar_one()
        for i, entry in enumerate(price_book(scenario)):
            conn.execute(
                sa.text("INSERT INTO review_prices VALUES (:id, :i, :entry, :offer, :item, :value, NULL)"),
                {
                    "id": review_id,
                    "i": i,
                    "entry": legacy._to_json(entry),
                    "offer": entry.offer_id,
                    "item": entry.item,
                    "value": entry.value,
                },
            )
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar_one() == "0001"
    engine.dispose()
    return url


def test_the_first_run_of_the_app_upgrades_an_old_sqlite_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(store.DATABASE_URL_ENV, raising=False)
    monkeypatch.setenv(store.DATA_DIR_ENV, str(tmp_path))
    db = tmp_path / store.DB_FILENAME
    old = legacy.save_review(small_scenario(), small_result(small_scenario()), name="old review", path=db)
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2  # the first store's second version
        assert not conn.execute("SELECT name FROM sqlite_master WHERE name = 'alembic_version'").fetchall()

    at = AppTest.from_file(APP, default_timeout=60)
    at.secrets["auth"] = AUTH
    at.user = {"is_logged_in": False}
    at.run()  # the Overview
    assert not at.exception, [e.value for e in at.exception]
    shown = " ".join(str(e.value) for e in (*at.markdown, *at.info, *at.success, *at.warning, *at.caption))
    assert "old review" not in shown  # reviews are for signed-in users only

    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone()[0] == store.head_revision()
    (kept,) = store.list_reviews(path=db)
    assert (kept.id, kept.name) == (old.id, "old review")
    assert kept.content_hash.startswith("sha256:")


def test_two_app_processes_starting_at_once_upgrade_an_old_postgres_database_once(postgres: Postgres) -> None:
    url = _old_postgres_database(postgres)
    apps = [_run_app({store.DATABASE_URL_ENV: url}) for _ in range(2)]
    outs = [app.communicate(timeout=600) for app in apps]
    assert [app.returncode for app in apps] == [0, 0], [err[-3000:] for _out, err in outs]
    assert all(out.splitlines()[-1] == "started" for out, _err in outs)
    assert store.store_schema_version(url=url) == store.head_revision()
    (kept,) = store.list_reviews(url=url)
    assert kept.name == "old review"
    assert store.load_review(kept.id, url=url).scenario == small_scenario()  # its content hash verifies
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    with engine.connect() as conn:  # one row of migration state: migrated once, not twice
        versions = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalars().all()
    assert versions == [store.head_revision()]
    engine.dispose()


def test_an_app_starting_on_a_read_only_data_folder_lists_its_reviews_read_only() -> None:
    tmp_path = Path(tempfile.mkdtemp(prefix="llmecon-ro-start-"))  # under /tmp: reachable by an unprivileged user
    folder = tmp_path / "data"
    path = folder / store.DB_FILENAME
    store.save_review(small_scenario(), small_result(small_scenario()), name="kept review", path=path)
    forget_open_stores()
    folder.chmod(0o555)
    path.chmod(0o444)
    tmp_path.chmod(0o755)
    # root ignores file modes, so the app runs as an unprivileged user when we are root
    user = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] if os.geteuid() == 0 else []
    try:
        app = _run_app({store.DATA_DIR_ENV: str(folder), "HOME": str(tmp_path)}, "reviews", user=user)
        out, err = app.communicate(timeout=600)
    finally:
        folder.chmod(0o755)
        path.chmod(0o644)
    assert app.returncode == 0, err[-3000:]
    assert "read-only here" in out
    assert "kept review" in out.split("options |", 1)[1]
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT COUNT(*) FROM reviews").fetchone()[0] == 1
    shutil.rmtree(tmp_path)
