"""The dashboard in a real browser: pages load clean, inputs redraw charts, links reproduce numbers in a fresh
browser context, bad links explain themselves, downloads parse and uploads are checked before they apply."""

from __future__ import annotations

import base64
import io
import json
import zlib
from pathlib import Path

import pandas as pd
from playwright.sync_api import Browser, Page, expect

from economics.io.scenarios import default_scenario
from economics.scenario import Scenario
from tests.browser.streamlit_page import FRESH_CONTAINER, download, fresh, goto_app, set_number_input, wait_for_app

#: Sidebar label → the page's heading, to know the new page (not the previous one) is on screen.
HEADINGS = {
    "Overview": "Where each workload should run",
    "Cost per token": "Cost per token",
    "Break-even": "Break-even: when owning beats the API",
    "Batching and the memory wall": "Batching and the memory wall",
    "Workloads and routing": "Workloads and routing",
    "Horizon": "Horizon: the next five years",
}
PAGES = tuple(HEADINGS)


def open_page(page: Page, title: str) -> None:
    """Navigate with the sidebar (same browser session, no reload) and wait for the new page's run to end."""
    page.get_by_test_id("stSidebarNav").get_by_text(title, exact=True).click()
    expect(page.locator(f"{FRESH_CONTAINER} h1").first).to_contain_text(HEADINGS[title])
    wait_for_app(page)


def numbers(page: Page) -> list[str]:
    """What a reviewer reads: every metric, key-figures table and chart title on the page, in order."""
    charts = page.locator(f"{FRESH_CONTAINER} .js-plotly-plot")
    expect(charts.first).to_be_visible()
    expect(page.locator(f"{FRESH_CONTAINER} .js-plotly-plot .gtitle")).to_have_count(charts.count())
    metrics = fresh(page, "stMetricValue").all_inner_texts()
    metrics += page.locator(f"{FRESH_CONTAINER} [data-testid=stMarkdownContainer] table").all_inner_texts()
    titles = page.locator(f"{FRESH_CONTAINER} .js-plotly-plot .gtitle").all_inner_texts()
    return metrics + titles


#: For every drawn chart, the y-axis title and tick labels that stick out of the chart's left edge.
_CUT_OFF_JS = """
(sel) => Array.from(document.querySelectorAll(sel)).flatMap(gd => {
  const left = gd.querySelector('svg.main-svg').getBoundingClientRect().left;
  const title = gd.querySelector('.gtitle')?.textContent || '?';
  return Array.from(gd.querySelectorAll('.g-ytitle text, .yaxislayer-above .ytick text'))
    .filter(t => t.textContent && t.getBoundingClientRect().left < left - 0.5)
    .map(t => `${title}: "${t.textContent}"`);
})
"""


def cut_off_labels(page: Page) -> list[str]:
    """Y-axis labels drawn past the chart's left edge: margins are sized by ``ui.theme``, not by plotly."""
    return list(page.evaluate(_CUT_OFF_JS, f"{FRESH_CONTAINER} .js-plotly-plot"))


def test_batch_size_redraws_the_cost_chart(page: Page, app_url: str) -> None:
    goto_app(page, app_url)
    open_page(page, "Batching and the memory wall")
    chart = fresh(page, "stPlotlyChart").filter(has_text="Cost per token while busy")
    expect(chart).to_contain_text("batch 32")
    history = page.evaluate("history.length")
    set_number_input(page, 64, key="v_bt_batch")
    expect(fresh(page, "stPlotlyChart").filter(has_text="Cost per token while busy")).to_contain_text("batch 64")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    # a fragment rerun leaves the address bar alone (no history entry per step); the next full run writes it
    assert page.evaluate("history.length") == history
    open_page(page, "Overview")
    assert "bt_batch=64" in page.url


def test_share_link_reproduces_every_page_in_a_new_context(browser: Browser, app_url: str) -> None:
    """Also the page-load test: context A visits every page (no error element, charts drawn)."""
    a = browser.new_page(viewport={"width": 1440, "height": 900})
    goto_app(a, app_url)
    expect(a).to_have_title("LLM unit economics")
    open_page(a, "Cost per token")
    set_number_input(a, 350000, key="node_sg-h100-node_capex_usd")
    # $20.609/h (tests/ui/test_pages.py) in the bank's SGD at 1.30: S$26.79
    expect(a.locator(".st-key-cost_node_lines")).to_contain_text("S$26.79 per node-hour")
    open_page(a, "Batching and the memory wall")
    set_number_input(a, 48, key="v_bt_batch")
    expect(fresh(a, "stPlotlyChart").filter(has_text="Cost per token while busy")).to_contain_text("batch 48")
    a.get_by_test_id("stSidebar").get_by_text("Share this scenario").click()
    link = a.get_by_test_id("stDialog").get_by_test_id("stCode").inner_text().strip()
    a.keyboard.press("Escape")
    assert link.startswith(app_url)
    assert "s=v1." in link
    assert "bt_batch=48" in link
    seen_a = {}
    for title in PAGES:  # every page loads in the browser without an error, with its charts
        open_page(a, title)
        expect(a.get_by_test_id("stException")).to_have_count(0)
        assert "s=v1." in a.url, "the URL carries the scenario on every page"
        seen_a[title] = numbers(a)
        assert seen_a[title], title
        assert cut_off_labels(a) == [], title

    context = browser.new_context(viewport={"width": 1440, "height": 900})  # no cookies, no session
    try:
        b = context.new_page()
        goto_app(b, link)
        # the link opened whole (no notice about it), and says what it was modified from, as the sender saw it
        expect(b.get_by_test_id("stAlert").filter(has_text="link")).to_have_count(0)
        expect(b.get_by_test_id("stSidebar")).to_contain_text("Modified from the preset")
        expect(b.get_by_test_id("stAlert").filter(has_text="Compared with the preset")).to_have_count(1)
        for title in PAGES:
            open_page(b, title)
            assert numbers(b) == seen_a[title], title
    finally:
        context.close()
        a.close()


def test_tampered_link_explains_itself_and_shows_the_default(page: Page, app_url: str) -> None:
    not_json = base64.urlsafe_b64encode(zlib.compress(b"hello")).decode().rstrip("=")  # valid zlib, not JSON
    goto_app(page, f"{app_url}/?s=v1.{not_json}")
    expect(fresh(page, "stAlert")).to_contain_text("could not be opened")
    expect(fresh(page, "stAlert")).to_contain_text("JSON")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    goto_app(page, f"{app_url}/batching?s=v1.AAAA")
    expect(fresh(page, "stAlert")).to_contain_text("damaged")
    expect(fresh(page, "stPlotlyChart").first).to_be_visible()


def test_downloads_parse_and_uploads_are_checked(page: Page, app_url: str, tmp_path: Path) -> None:
    goto_app(page, app_url)
    page.get_by_test_id("stSidebar").get_by_text("Share this scenario").click()
    got = download(page, page.get_by_test_id("stDialog").get_by_text("Download scenario [JSON]"))
    page.keyboard.press("Escape")
    page.get_by_test_id("stSidebar").get_by_text("Load or reset a scenario").click()
    downloaded = Scenario.model_validate(json.loads(Path(got.path()).read_text(encoding="utf-8")))
    assert downloaded == default_scenario()

    page.get_by_text("Routes as a table").click()
    got = download(page, fresh(page, "stDownloadButton").filter(has_text="CSV").first)
    table = pd.read_csv(io.BytesIO(Path(got.path()).read_bytes()))
    assert list(table["Workload"]) == [w.name for w in default_scenario().workloads]
    assert "Cost of route [SGD/month]" in table.columns

    bad = tmp_path / "bad.json"
    data = json.loads(downloaded.model_dump_json())
    data["workloads"][0]["peak_requests_per_s"] = 0.0001
    bad.write_text(json.dumps(data), encoding="utf-8")
    page.get_by_test_id("stSidebar").get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(bad))
    expect(page.get_by_test_id("stSidebar").get_by_test_id("stAlert")).to_contain_text("nothing changed")
    first = default_scenario().workloads[0].name
    expect(page.get_by_test_id("stSidebar")).to_contain_text(f"Workload 1 “{first}”: peak requests per second")
    expect(page.get_by_test_id("stSidebar")).not_to_contain_text("workloads.0")

    good = tmp_path / "renamed.json"
    good.write_text(downloaded.model_copy(update={"name": "Renamed bank"}).model_dump_json(), encoding="utf-8")
    page.get_by_test_id("stSidebar").get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(good))
    expect(page.get_by_test_id("stSidebar")).to_contain_text("Renamed bank")
    expect(page.get_by_test_id("stException")).to_have_count(0)
