"""The home page loads in a real browser, shows no exception and reacts to its batch-size input."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.streamlit_page import fresh, goto_app, set_number_input


def test_home_page_renders_and_reacts_to_batch_size(page: Page, app_url: str) -> None:
    goto_app(page, app_url)
    expect(page).to_have_title("LLM unit economics")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    metric = fresh(page, "stMetricValue")
    expect(metric).to_have_count(1)
    before = metric.inner_text()

    set_number_input(page, 64, key="batch")

    expect(fresh(page, "stMetricLabel")).to_contain_text("batch 64")
    expect(fresh(page, "stMetricValue")).not_to_have_text(before)
    expect(fresh(page, "stPlotlyChart")).to_contain_text("selected: 64")
    expect(page.get_by_test_id("stException")).to_have_count(0)
