"""The Reviews page (AppTest): a damaged row is a warning while every other review stays reachable; saving
records who saved it and shows the content hash; sign-in (Streamlit OIDC) on and off.

AppTest cannot run an OIDC provider: with sign-in on, ``at.user`` stands for the identity Streamlit would
read from the provider's token; the ``[auth]`` secrets switch it on exactly as in a deployment."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from streamlit.testing.v1 import AppTest

from economics.evaluate import evaluate
from economics.io.scenarios import default_scenario
from storage import reviews as store
from tests.ui.helpers import APP

SAVE = "FormSubmitter:rv_save-Save review"
AUTH = {
    "redirect_uri": "http://localhost:8501/oauth2callback",
    "cookie_secret": "test-only-not-a-secret",
    "client_id": "llmecon",
    "client_secret": "test-only",
    "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
}


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(store.DATA_DIR_ENV, str(tmp_path))
    monkeypatch.delenv(store.DATABASE_URL_ENV, raising=False)
    return tmp_path


def reviews_page(secrets: dict[str, object] | None = None, user: dict[str, object] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if secrets:
        at.secrets["auth"] = secrets
    if user is not None:
        at.user = user
    at.run()
    at.switch_page("pages/7_reviews.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_damaged_row_is_a_warning_and_the_others_stay_reachable(data_dir: Path) -> None:
    bank = default_scenario()
    good = store.save_review(bank, evaluate(bank), name="good one")
    engine = sa.create_engine(f"sqlite:///{data_dir / 'reviews.sqlite3'}")
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO reviews (name, review_date, saved_at, scenario_schema_version, scenario_json, "
                "result_json, app_version) VALUES ('bad', 'yesterday', 'now', 1, '{', '{', 'x')"
            )
        )
    engine.dispose()
    at = reviews_page()
    assert any("is damaged and was skipped" in w.body for w in at.warning), [w.body for w in at.warning]
    at.selectbox(key="rv_subject").set_value(good.id).run()
    assert not at.exception
    assert any(f"content hash sha256\\:{good.content_hash[7:]}" in c.value for c in at.caption)
    at.text_input(key="rv_name").set_value("after the damage").run()
    at.button(key=SAVE).click().run()
    assert not at.exception
    assert "Saved review" in at.success[0].body


def test_with_sign_in_off_a_save_records_the_typed_name() -> None:
    at = reviews_page()
    at.text_input(key="rv_name").set_value("Q4")
    at.text_input(key="rv_saved_by").set_value("Ana Lim")
    at.button(key=SAVE).click().run()
    assert not at.exception
    (saved,) = store.list_reviews()
    assert saved.saved_by == "Ana Lim"
    assert saved.short_hash in at.success[0].body


def test_with_sign_in_on_nobody_signed_in_sees_no_reviews_and_cannot_save() -> None:
    bank = default_scenario()
    store.save_review(bank, evaluate(bank), name="secret review")
    at = reviews_page(secrets=AUTH, user={"is_logged_in": False})
    assert [b for b in at.button if b.label == "Sign in"]
    infos = " ".join(i.body for i in at.info)
    assert "Sign in to save a review" in infos
    assert "Sign in to see the saved reviews" in infos
    assert not [t for t in at.text_input if t.key == "rv_name"]  # no save form
    assert "secret review" not in " ".join(str(o) for o in at.selectbox(key="rv_subject").options)


def test_with_sign_in_on_a_save_records_the_signed_in_user() -> None:
    at = reviews_page(secrets=AUTH, user={"is_logged_in": True, "email": "ana@bank.example", "name": "Ana"})
    assert not [b for b in at.button if b.label == "Sign in"]
    assert not [t for t in at.text_input if t.key == "rv_saved_by"]  # the name is not typed, it is known
    at.text_input(key="rv_name").set_value("Q4 signed")
    at.button(key=SAVE).click().run()
    assert not at.exception
    (saved,) = store.list_reviews()
    assert saved.saved_by == "ana@bank.example"
