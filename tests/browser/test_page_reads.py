"""Every page of the default scenario as a finance reader opens it, in a real browser at 1,440 and 1,024 px
(issue 12, items 1, 7 and 8): each check of ``reading.py`` on one load of the page. The checks used to open the
same page once each (65 loads for these 22 views); they now share the load, which took ~4 minutes off the suite
on a slow machine, and a failure still names each check that found something."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.browser.reading import (
    chart_text_over_other_text,
    kpi_rows_not_on_one_line,
    money_ticks_without_a_sign,
    quadrant_labels_unreadable,
    titles_past_their_chart,
    unreadable_words,
)
from tests.browser.streamlit_page import COST_CURVES, goto_view

WIDTHS = (1440, 1024)
#: "" is the landing page (the Overview). Each page that draws charts, and each that shows a row of KPIs, is
#: named in the sets below: the check then also fails when the page draws none.
PAGES = ("", "cost_per_token", COST_CURVES, "break_even", "batching", "workloads", "argument", "price_book",
         "reviews", "accuracy", "horizon")  # fmt: skip
CHARTS = frozenset({"", "cost_per_token", COST_CURVES, "break_even", "batching", "workloads", "accuracy", "horizon",
                    "reviews"})  # fmt: skip
KPIS = frozenset({"", "reviews", "price_book", "accuracy"})


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", PAGES)
def test_every_page_reads_cleanly(page: Page, app_url: str, path: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    goto_view(page, app_url, path)
    page.wait_for_timeout(600)  # plotly draws after the script run
    assert page.get_by_test_id("stException").count() == 0
    found: dict[str, object] = {
        "words a finance reader does not use": unreadable_words(page),
        "money axis ticks without a currency sign": money_ticks_without_a_sign(page),
        "chart text over other text or cut": chart_text_over_other_text(page),
        "chart titles past their chart": titles_past_their_chart(page),
    }
    if path in CHARTS and page.locator(".js-plotly-plot").count() == 0:
        found["charts"] = "none drawn"
    if path in KPIS:
        found["KPI rows"] = kpi_rows_not_on_one_line(page, width)
        if page.locator('[data-testid="stMetricValue"]').count() < 2:
            found["KPIs"] = "fewer than two drawn"
    if path == "workloads":
        found["routing quadrant's names"] = quadrant_labels_unreadable(page)
    problems = {check: what for check, what in found.items() if what}
    assert not problems, problems
