"""A shared link's names drawn in the real browser: plotly turns ``<a href=…>`` in any text into a link, and a
scenario's names are typed by whoever made the link; widget labels and captions are markdown, which links
``[x](https://…)`` and bare addresses. With such names on every workload, API and node, no page that shows them
has a link to the address, and the chart or label shows the name as characters."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from economics.io.scenarios import encode
from tests.browser.streamlit_page import COST_CURVES, goto_view
from tests.ui.test_chart_text_inert import hostile_scenario

LINKS_TO_EVIL = """() => [...document.querySelectorAll('a')]
    .filter(a => (a.getAttribute('href') || a.getAttribute('xlink:href') || '').includes('evil.example')).length"""


@pytest.mark.parametrize(
    ("path", "charts_name_them"),
    [
        *(("overview", True), (COST_CURVES, True), ("workloads", True), ("reviews", True)),
        *(("horizon", False), ("cost_per_token", False)),
    ],
)
def test_a_name_with_a_link_in_it_is_shown_not_followed(
    browser: Browser, app_url: str, path: str, charts_name_them: bool
) -> None:
    page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
    where, _, view = path.partition("|")
    goto_view(page, app_url, f"{where}?s={encode(hostile_scenario())}" + (f"|{view}" if view else ""), 60_000)
    charts = page.get_by_test_id("stPlotlyChart")
    expect(charts.first).to_be_visible()
    if charts_name_them:
        expect(charts.locator("svg text").filter(has_text='<a href="https://evil.example">').first).to_be_attached(
            timeout=10_000
        )
    else:  # the Horizon page names the nodes in its input labels, Cost per token in its cost line (markdown)
        expect(page.get_by_text("[pay](https://evil.example/md)").first).to_be_attached()
    assert page.evaluate(LINKS_TO_EVIL) == 0
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.context.close()
