"""Regression (issue 15): a deep link to /overview opens the Overview in every session, never a "Page not
found" dialog (it did in every session after the first, because the default page is served at "/" only)."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from tests.browser.streamlit_page import wait_for_app


def test_deep_link_to_overview_in_several_sessions(browser: Browser, app_url: str) -> None:
    for path in ("/overview", "/overview", "/", "/overview"):
        context = browser.new_context()
        page = context.new_page()
        page.goto(app_url + path)
        wait_for_app(page, timeout_ms=60_000)
        page.wait_for_timeout(500)  # the dialog appeared just after the first run
        expect(page.get_by_text("Page not found")).to_have_count(0)
        expect(page.get_by_test_id("stException")).to_have_count(0)
        expect(page.get_by_role("heading", level=1).first).to_be_visible()
        context.close()
