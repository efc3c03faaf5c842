"""Regression (issue 15): a 0-byte CSV or JSON upload gets a message in the real browser, and a scenario JSON
saved with a UTF-8 byte-order mark loads."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from economics.io.scenarios import PRESET_DIR, load_preset
from tests.browser.streamlit_page import fresh, goto_app


def test_empty_and_bom_uploads(browser: Browser, app_url: str) -> None:
    page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
    goto_app(page, f"{app_url}/price_book", timeout_ms=60_000)
    page.get_by_role("tab", name="Import a CSV").click()
    page.get_by_test_id("stTabs").locator('input[type="file"]').set_input_files(
        files=[{"name": "empty.csv", "mimeType": "text/csv", "buffer": b""}]
    )
    expect(fresh(page, "stAlert").filter(has_text="empty.csv: 1 problem; nothing was applied")).to_be_visible(
        timeout=30_000
    )
    expect(fresh(page, "stDataFrame").last).to_contain_text("the file is empty")

    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text("Load or reset a scenario").click()
    upload = sidebar.locator('input[type="file"]')
    upload.set_input_files(files=[{"name": "empty.json", "mimeType": "application/json", "buffer": b""}])
    expect(page.get_by_test_id("stAlert").filter(has_text="The file is empty (0 bytes)")).to_be_visible(timeout=30_000)

    bom = b"\xef\xbb\xbf" + (PRESET_DIR / "batch-shop.json").read_bytes()
    upload.set_input_files(files=[{"name": "bom.json", "mimeType": "application/json", "buffer": bom}])
    expect(sidebar).to_contain_text(load_preset("batch-shop").name, timeout=30_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.context.close()
