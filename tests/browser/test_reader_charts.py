"""Issue 12, items 7-8, on the presets other than the default: in a real browser at 1,024 px, no chart prints a
tick label, axis title, legend entry or annotation over another or past the chart's edges, every money axis
tick carries its currency's sign, and the visible text names no option, node or workload by its id. The checks
are in ``reading.py``; the default preset's pages are read at both widths in ``test_page_reads.py``."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from economics.io.scenarios import encode, load_preset
from tests.browser.reading import (
    chart_text_over_other_text,
    money_ticks_without_a_sign,
    scenario_ids,
    unreadable_words,
)
from tests.browser.streamlit_page import COST_CURVES, goto_view

#: The other presets: rented offers with long names, an API-only scenario, owned nodes in US dollars.
OTHER_PRESETS = ("api-only", "batch-shop", "startup-rented")


@pytest.mark.parametrize(
    "path", ["overview", "cost_per_token", COST_CURVES, "break_even", "batching", "workloads", "reviews"]
)
@pytest.mark.parametrize("preset", OTHER_PRESETS)
def test_other_presets_read_cleanly_at_1024_px(page: Page, app_url: str, preset: str, path: str) -> None:
    # found by opening every preset: a rented option's name took a Monte Carlo chart's whole width as margin, its
    # legend entries ran past the Overview's edge, and money ticks on a slant sat over their axis titles
    scenario = load_preset(preset)
    page.set_viewport_size({"width": 1024, "height": 900})
    where, _, tab = path.partition("|")
    goto_view(page, app_url, f"{where}?s={encode(scenario)}" + (f"|{tab}" if tab else ""))
    page.wait_for_timeout(600)
    assert page.get_by_test_id("stException").count() == 0
    problems = chart_text_over_other_text(page)
    assert not problems, problems
    assert not money_ticks_without_a_sign(page)
    found = unreadable_words(page, scenario_ids(scenario))
    assert not found, found
