"""Price edits on Cost per token in a real browser, each a targeted rerun (ui.live): an edit redraws the
charts it feeds and shows what the inputs' own fragment shows: the new source caption after a first edit, a
message for a price that does not parse, and no message once it is fixed. An API rate's edit is applied in
its callback without redrawing the rate fields (ui.widgets.api_rates.live_rate_edit), which must still do
all of that."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from tests.browser.streamlit_page import FRESH_CONTAINER, fresh, goto_app, wait_for_app

NODE_PRICE = "node_sg-h100-node_capex_usd"
API_OUTPUT = "api_mercury-api_output_usd_per_mtok"


def _type(page: Page, key: str, text: str) -> None:
    field = page.locator(f"{FRESH_CONTAINER}.st-key-{key} input, {FRESH_CONTAINER} .st-key-{key} input").first
    field.fill(text)
    field.press("Enter")
    wait_for_app(page)


def _chart(page: Page, title: str) -> Locator:
    return fresh(page, "stPlotlyChart").filter(has_text=title)


def test_node_price_edits_redraw_the_charts_and_keep_messages_right(page: Page, app_url: str) -> None:
    goto_app(page, f"{app_url}/cost_per_token")
    node_chart = _chart(page, "per node-hour")  # $17.557/h in the bank's SGD at 1.30 (tests/ui/test_pages.py)
    expect(node_chart).to_contain_text("S$22.82 per node-hour")
    _type(page, NODE_PRICE, "$380,000")  # first edit: the source caption changes too
    expect(_chart(page, "per node-hour")).not_to_contain_text("S$22.82 per node-hour")
    expect(page.get_by_text("entered by the user on").first).to_be_visible()
    after_first = _chart(page, "per node-hour").inner_text()
    _type(page, NODE_PRICE, "$400,000")  # a later edit reruns the chart, not the inputs
    expect(_chart(page, "per node-hour")).not_to_have_text(after_first)
    _type(page, NODE_PRICE, "lots")  # does not parse: a message naming the field, the chart unchanged
    expect(fresh(page, "stAlert").filter(has_text="Purchase price per node")).to_have_count(1)
    _type(page, NODE_PRICE, "$390,000")  # fixed: the message goes
    expect(fresh(page, "stAlert").filter(has_text="Purchase price per node")).to_have_count(0)
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_api_rate_edits_redraw_the_curves_and_keep_messages_right(page: Page, app_url: str) -> None:
    goto_app(page, f"{app_url}/cost_per_token")
    curves = _chart(page, "Effective cost per token")
    before = curves.inner_text()
    _type(page, API_OUTPUT, "$0.80")
    expect(_chart(page, "Effective cost per token")).not_to_have_text(before)
    first = _chart(page, "Effective cost per token").inner_text()
    _type(page, API_OUTPUT, "$0.85")
    expect(_chart(page, "Effective cost per token")).not_to_have_text(first)
    _type(page, API_OUTPUT, "cheap")
    expect(fresh(page, "stAlert").filter(has_text="not applied")).to_have_count(1)
    _type(page, API_OUTPUT, "$0.90")
    expect(fresh(page, "stAlert").filter(has_text="not applied")).to_have_count(0)
    expect(page.get_by_test_id("stException")).to_have_count(0)
