"""Sign-in end to end: a real OpenID Connect provider on localhost, the app with ``[auth]`` secrets pointing at
it, and chromium going through the provider's sign-in form (issue 15, "Sign-in where a team wants it").

The provider is ``oidc-provider-mock`` (PyPI; a real OIDC server: discovery, authorization code, token and
userinfo endpoints, signed ID tokens), run as its own process on 127.0.0.1; Streamlit's ``st.login`` talks to
it through Authlib exactly as it would to a company's provider. Both are in requirements-dev.txt (Authlib also
in requirements.txt); a missing one fails the provider's start or the app's sign-in here: never a skip.

* Signed out, the Reviews page refuses to list or save reviews and says to sign in (no save form, no review
  names).
* Signed in through the provider's form, a saved review records the signed-in user (the ID token's email),
  not a typed name.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from deploy.processes import StartError, die_with_parent, port_open, stop_group, tail, wait_until
from economics.evaluate import evaluate
from economics.io.scenarios import default_scenario
from storage import reviews as store
from tests.browser.server import ROOT, ServerStartError, StreamlitServer, free_port, start_server
from tests.browser.streamlit_page import fill_in_form, fresh, wait_for_app

USER = "ana.lim@bank.example"


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The provider's base URL, e.g. ``http://127.0.0.1:41234`` (any client id and secret are accepted). Its
    own process, as a company's provider would be (and out of reach of pytest's warnings-as-errors)."""
    port = free_port()
    log = tmp_path_factory.mktemp("oidc") / "provider.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "oidc_provider_mock", "--host", "127.0.0.1", "--port", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=die_with_parent(),
        )
    try:
        wait_until(lambda: port_open(port), 60, "the OpenID provider (oidc-provider-mock)", lambda: tail(log))
    except StartError as exc:
        stop_group(process)
        raise pytest.fail.Exception(str(exc), pytrace=False) from None
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_group(process)


@pytest.fixture(scope="module")
def signed_app(provider: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[StreamlitServer, Path]]:
    """The app with sign-in on (``[auth]`` in its own secrets file) and its own review store; (server, store)."""
    folder = tmp_path_factory.mktemp("sign-in")
    port = free_port()
    secrets_file = folder / "secrets.toml"
    secrets_file.write_text(
        "[auth]\n"
        f'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        f'cookie_secret = "{secrets.token_hex(32)}"\n'
        'client_id = "llm-unit-economics"\n'
        'client_secret = "test-only"\n'
        f'server_metadata_url = "{provider}/.well-known/openid-configuration"\n'
    )
    data = folder / "data"
    bank = default_scenario()
    store.save_review(bank, evaluate(bank), name="Q3 team review", saved_by="Ben", path=data / store.DB_FILENAME)
    env = {
        "STREAMLIT_SECRETS_FILES": str(secrets_file),
        store.DATA_DIR_ENV: str(data),
        store.DATABASE_URL_ENV: "",
    }
    try:
        server = start_server(ROOT / "app.py", extra_env=env, port=port)
    except ServerStartError as exc:
        raise pytest.fail.Exception(f"could not start the Streamlit server: {exc}", pytrace=False) from None
    try:
        yield server, data / store.DB_FILENAME
    finally:
        server.stop()


def _reviews_page(browser: Browser, url: str) -> Page:
    page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
    page.goto(f"{url}/reviews", timeout=60_000)
    wait_for_app(page, timeout_ms=60_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    return page


def test_signed_out_the_reviews_are_neither_listed_nor_saved(
    browser: Browser, signed_app: tuple[StreamlitServer, Path]
) -> None:
    server, _db = signed_app
    page = _reviews_page(browser, server.url)
    expect(fresh(page, "stAlert").filter(has_text="Sign in to see the saved reviews")).to_be_visible()
    expect(fresh(page, "stAlert").filter(has_text="Sign in to save a review")).to_be_visible()
    expect(page.get_by_role("button", name="Save review")).to_have_count(0)
    expect(page.get_by_label("Name", exact=True)).to_have_count(0)
    assert "Q3 team review" not in page.locator("body").inner_text()
    page.context.close()


def test_signed_in_through_the_provider_a_save_records_the_user(
    browser: Browser, signed_app: tuple[StreamlitServer, Path], provider: str
) -> None:
    server, db = signed_app
    page = _reviews_page(browser, server.url)
    fresh(page, "stButton").get_by_role("button", name="Sign in").first.click()

    # the provider's own authorization form (a page served by the provider, not by the app)
    page.wait_for_url(f"{provider}/oauth2/authorize*", timeout=30_000)
    page.locator('input[name="sub"]').fill(USER)
    page.get_by_role("button", name="Authorize").click()

    # back in the app, signed in: the reviews are listed and the save form knows who is saving
    page.wait_for_url(f"{server.url}/**", timeout=30_000)
    page.goto(f"{server.url}/reviews", timeout=60_000)
    wait_for_app(page, timeout_ms=60_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(fresh(page, "stAlert").filter(has_text="Sign in to")).to_have_count(0)
    expect(page.get_by_text("Saved reviews (1)")).to_be_visible()  # listed again, now that we are signed in
    page.get_by_text("Save the current scenario as a review").click()  # collapsed when reviews exist
    expect(page.get_by_label("Saved by (signed in)")).to_have_value(USER)
    expect(page.get_by_label("Saved by", exact=True)).to_have_count(0)  # nothing to type: the user is known

    name = f"Signed review {uuid.uuid4().hex[:8]}"
    fill_in_form(page.get_by_label("Name", exact=True), name)
    page.get_by_role("button", name="Save review").click()
    expect(fresh(page, "stAlert").filter(has_text="Saved review #")).to_be_visible(timeout=30_000)
    (saved,) = [s for s in store.list_reviews(path=db) if s.name == name]
    assert saved.saved_by == USER
    page.context.close()
