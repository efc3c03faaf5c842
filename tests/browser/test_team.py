"""The team deployment for real: PostgreSQL, two Streamlit replicas and nginx (deploy.team), driven by chromium.

* A review saved through one replica is listed and reopened through the other (both behind nginx, each
  browser context pinned to its replica by nginx's sticky cookie, checked with the ``X-Replica`` header).
* A replica restarted in the middle of a session: the browser reconnects through nginx to the other replica
  and the scenario is intact, restored from the link's ``?s=`` parameter; the restarted replica serves again.

These tests need PostgreSQL and nginx (``bash scripts/test`` installs both when missing); without them they
fail with the install command, never skip.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from deploy.processes import StartError
from deploy.team import Replica, Team, start_team
from economics.io import scenarios
from economics.io.scenarios import load_preset
from storage import reviews as store
from tests.browser.streamlit_page import choose, fill_in_form, fresh, wait_for_app


@pytest.fixture(scope="module")
def team() -> Iterator[Team]:
    try:
        running = start_team(2, fsync=False)
    except StartError as exc:
        raise pytest.fail.Exception(f"could not start the team deployment: {exc}", pytrace=False) from None
    try:
        yield running
    finally:
        running.stop()


def _context_on(browser: Browser, team: Team, replica: Replica) -> BrowserContext:
    """A new browser context whose sticky cookie nginx maps onto ``replica`` (new contexts until one is)."""
    for _ in range(40):
        context = browser.new_context(viewport={"width": 1440, "height": 900})
        response = context.request.get(f"{team.url}/_stcore/health")
        served = response.headers.get("x-replica")
        if served is not None and team.replica_named(served) is replica:
            return context
        context.close()
        if served is None:  # nginx answered itself (a 502 while every replica sat out its fail_timeout after a
            time.sleep(1.0)  # connect timeout on a loaded CI machine): no replica named, so ask again shortly
    raise AssertionError(f"nginx never assigned a new browser to the replica on port {replica.port}")


def _open(context: BrowserContext, url: str, replica: Replica) -> Page:
    page = context.new_page()
    response = page.goto(url)
    assert response is not None
    assert response.headers["x-replica"].endswith(f":{replica.port}"), response.headers["x-replica"]
    wait_for_app(page, timeout_ms=60_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    return page


def test_a_review_saved_through_one_replica_is_read_through_the_other(browser: Browser, team: Team) -> None:
    first, second = team.replicas
    name = f"Team review {uuid.uuid4().hex[:8]}"

    page = _open(_context_on(browser, team, first), f"{team.url}/reviews", first)
    fill_in_form(page.get_by_label("Name", exact=True), name)
    fill_in_form(page.get_by_label("Saved by", exact=True), "Ana from finance")
    page.get_by_role("button", name="Save review").click()
    expect(fresh(page, "stAlert").filter(has_text="Saved review #")).to_be_visible(timeout=30_000)
    (saved,) = [s for s in store.list_reviews(url=team.database_url) if s.name == name]
    assert saved.saved_by == "Ana from finance"
    page.context.close()

    page = _open(_context_on(browser, team, second), f"{team.url}/reviews", second)
    choose(
        page, page.get_by_test_id("stSelectbox").filter(has_text="Review").first, re.compile(rf"#{saved.id} · {name}")
    )
    wait_for_app(page)
    expect(page.get_by_text("shown exactly as saved", exact=False)).to_be_visible()
    expect(page.get_by_text(f"Review #{saved.id}, saved by Ana from finance", exact=False)).to_be_visible()
    expect(page.get_by_text(saved.content_hash.removeprefix("sha256:"), exact=False)).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.context.close()


def test_a_replica_restart_mid_session_keeps_the_scenario_from_the_url(browser: Browser, team: Team) -> None:
    first, second = team.replicas
    streams_before = team.streams_served_by(second)
    marker = f"Restart check {uuid.uuid4().hex[:8]}"
    scenario = load_preset("batch-shop").model_copy(update={"name": marker})
    page = _open(_context_on(browser, team, first), f"{team.url}/?s={scenarios.encode(scenario)}", first)
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar).to_contain_text(marker)

    first.stop()  # the session's replica goes away mid-session ...
    try:
        # ... the client reconnects through nginx, which fails over to the other replica; the new session
        # reads the scenario from the URL, which still carries ?s=
        page.wait_for_timeout(1000)
        expect(sidebar).to_contain_text(marker, timeout=60_000)
        wait_for_app(page, timeout_ms=60_000)
        expect(page.get_by_test_id("stException")).to_have_count(0)
        assert f"s={scenarios.encode(scenario)}" in page.url
    finally:
        first.start()  # ... and comes back
    assert first.healthy()
    page.context.close()
    # the session really moved: its reconnected websocket was served by the other replica (nginx logs a
    # websocket when it closes, so poll briefly after closing the browser)
    deadline = time.monotonic() + 10
    while team.streams_served_by(second) <= streams_before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert team.streams_served_by(second) > streams_before
