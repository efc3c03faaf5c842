"""Price reviews in a real browser: save a review, reopen it in a new browser context, compare it with today;
import negotiated prices from CSV on the Price book page (bad file listed, good file applied).

These tests run their own Streamlit server with an empty review store (``LLMECON_DATA_DIR`` in a temporary
directory), so they never touch ``var/`` and a second context sees only what the first one saved.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from storage import reviews as store
from tests.browser.server import ROOT, StreamlitServer, start_server
from tests.browser.streamlit_page import choose, fill_in_form, fresh, goto_app, wait_for_app

SHOTS = ROOT / "test-results" / "screenshots"


@pytest.fixture(scope="module")
def review_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[StreamlitServer, Path]]:
    data_dir = tmp_path_factory.mktemp("reviews-data")
    server = start_server(ROOT / "app.py", extra_env={store.DATA_DIR_ENV: str(data_dir)})
    try:
        yield server, data_dir
    finally:
        server.stop()


def _open(browser: Browser, url: str) -> Page:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    goto_app(page, url)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    return page


#: Streamlit scrolls inside its main element, not the document: grow the viewport to it for a full-page shot.
_SCROLL_HEIGHT = """() => Math.max(document.documentElement.scrollHeight,
  ...Array.from(document.querySelectorAll('[data-testid="stMain"], section')).map((e) => e.scrollHeight))"""


def _shot(page: Page, name: str) -> None:
    """A full-page PNG in test-results/screenshots, to look at (not compared)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1440, "height": int(page.evaluate(_SCROLL_HEIGHT))})
    page.wait_for_timeout(500)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    page.set_viewport_size({"width": 1440, "height": 900})


def test_save_reopen_in_a_new_context_and_compare_with_today(
    browser: Browser, review_server: tuple[StreamlitServer, Path]
) -> None:
    server, data_dir = review_server
    url = f"{server.url}/reviews"

    # 1. First browser context: save the current scenario as a review.
    page = _open(browser, url)
    fill_in_form(page.get_by_label("Name", exact=True), "Browser Q4 review")
    fill_in_form(page.get_by_label("Notes", exact=True), "Saved from the browser test")
    page.get_by_role("button", name="Save review").click()
    expect(fresh(page, "stAlert").filter(has_text="Saved review #1")).to_be_visible(timeout=30_000)
    wait_for_app(page)
    assert (data_dir / "reviews.sqlite3").is_file()
    page.context.close()

    # 2. A new context (a new session, nothing shared but the store): the review is listed and reopens.
    page = _open(browser, url)
    choose(
        page, page.get_by_test_id("stSelectbox").filter(has_text="Review").first, re.compile(r"#1 · Browser Q4 review")
    )
    wait_for_app(page)
    expect(page.get_by_text("shown exactly as saved", exact=False)).to_be_visible()
    expect(page.get_by_text("Saved from the browser test", exact=False)).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)

    # 3. Compare it with today's catalog prices (the default comparison): the chart names both sides.
    today = dt.date.today().isoformat()
    chart = fresh(page, "stPlotlyChart").filter(has_text=f"prices as of {today}")
    expect(chart).to_have_count(1, timeout=30_000)
    expect(chart).to_contain_text("Browser Q4 review")
    flipped = fresh(page, "stMetric").filter(has_text="Routes that flipped")
    expect(flipped).to_contain_text("of 5")
    _shot(page, "reviews_reopened_compared")


BAD_CSV = b"offer_id,item,value,as_of,source\nmercury-api,api_discount,abc,,\nnope,api_discount,0.1,,\n"
GOOD_CSV = b"offer_id,item,value,as_of,source\nmercury-api,api_discount,20%,2026-11-01,MSA 7\n"


def test_price_book_csv_import_lists_bad_rows_then_applies_a_clean_file(
    browser: Browser, review_server: tuple[StreamlitServer, Path]
) -> None:
    server, _ = review_server
    page = _open(browser, f"{server.url}/price_book")
    expect(fresh(page, "stMetric").filter(has_text="Negotiated")).to_contain_text("0")
    page.get_by_role("tab", name="Import a CSV").click()

    page.get_by_test_id("stTabs").locator('input[type="file"]').set_input_files(
        files=[{"name": "bad.csv", "mimeType": "text/csv", "buffer": BAD_CSV}]
    )
    expect(fresh(page, "stAlert").filter(has_text="2 problems; nothing was applied")).to_be_visible(timeout=30_000)
    problems = fresh(page, "stDataFrame").last
    expect(problems).to_contain_text("not a number: 'abc'")
    expect(problems).to_contain_text("unknown offer id 'nope'")
    expect(fresh(page, "stMetric").filter(has_text="Negotiated")).to_contain_text("0")
    _shot(page, "price_book_bad_csv")

    page.get_by_test_id("stTabs").locator('input[type="file"]').set_input_files(
        files=[{"name": "good.csv", "mimeType": "text/csv", "buffer": GOOD_CSV}]
    )
    expect(fresh(page, "stAlert").filter(has_text="all valid")).to_be_visible(timeout=30_000)
    page.get_by_role("button", name=re.compile("Apply the 1 imported price")).click()
    expect(fresh(page, "stAlert").filter(has_text="Imported 1 negotiated price")).to_be_visible(timeout=30_000)
    expect(fresh(page, "stMetric").filter(has_text="Negotiated")).to_contain_text("2")  # input and output price
    expect(page.get_by_test_id("stException")).to_have_count(0)
