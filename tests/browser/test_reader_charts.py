"""Issue 12, items 7-8: in a real browser at 1,440 and 1,024 px, on every page that draws charts, no chart prints
a tick label, axis title, legend entry or annotation over another, or past the chart's edges (found in the
screenshots: the roofline's axis ran to 1e+7 FLOP/byte, the concurrency panels' titles overlapped, the Horizon
legend and the ridge label were cut; later the Reviews Monte Carlo panel titles, the Cost per token bar labels
and the quadrant's axis labels standing on end over its title)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page

from economics.io.scenarios import encode, load_preset
from tests.browser.streamlit_page import COST_CURVES, goto_view
from tests.browser.test_plain_words import BAD

#: Per chart, every pair of drawn texts whose boxes overlap, and every text past the chart's left or right edge.
OVERLAPS_JS = """
() => {
  const out = [];
  document.querySelectorAll('.js-plotly-plot').forEach((el) => {
    const box = (t) => { const b = t.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
    const items = [];
    for (const sel of ['.xtick text', '.ytick text', '.y2tick text', '.g-xtitle text', '.g-ytitle text',
                       '.g-y2title text', '.legendtext', '.annotation-text', '.gtitle', '.bartext']) {
      el.querySelectorAll(sel).forEach((t) => {
        const text = (t.textContent || '').trim();
        const b = box(t);
        if (text && b[2] - b[0] >= 1) items.push({ text, box: b });
      });
    }
    const chart = box(el);
    const title = (el.querySelector('.gtitle') || {}).textContent || '';
    items.forEach((a, i) => {
      if (a.box[0] < chart[0] - 1 || a.box[2] > chart[2] + 1) out.push(`${title}: "${a.text}" is cut`);
      items.slice(i + 1).forEach((b) => {
        if (a.box[0] < b.box[2] - 1 && b.box[0] < a.box[2] - 1 && a.box[1] < b.box[3] - 1 && b.box[1] < a.box[3] - 1)
          out.push(`${title}: "${a.text}" over "${b.text}"`);
      });
    });
  });
  return out;
}
"""


@pytest.mark.parametrize("width", [1440, 1024])
@pytest.mark.parametrize(
    "path",
    [
        *("overview", "cost_per_token", COST_CURVES, "break_even", "batching", "workloads"),
        *("accuracy", "horizon", "reviews"),
    ],
)
def test_no_chart_text_overlaps_or_is_cut(page: Page, app_url: str, path: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    goto_view(page, app_url, path)
    page.wait_for_timeout(600)  # plotly draws after the script run
    assert page.locator(".js-plotly-plot").count() > 0
    problems = page.evaluate(OVERLAPS_JS)
    assert not problems, problems


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
    problems = page.evaluate(OVERLAPS_JS)
    assert not problems, problems
    text = page.get_by_test_id("stApp").inner_text()
    ids = {o.id for o in scenario.owned_options} | {a.id for a in scenario.apis} | {n.id for n in scenario.nodes}
    ids |= {w.id for w in scenario.workloads}
    words = re.compile(
        r"(?<![\w/.-])(?:" + "|".join(map(re.escape, sorted(ids, key=len, reverse=True))) + r")(?![\w-])"
    )
    found = [m.group(0) for m in words.finditer(text)] + [m.group(0) for _, p in BAD for m in p.finditer(text)]
    assert not found, found


#: Per row of KPIs, each value's column top and value top: columns wrapped onto one line share their top.
KPI_TOPS_JS = """
() => Array.from(document.querySelectorAll('[data-testid="stHorizontalBlock"]'))
  .map((row) => Array.from(row.querySelectorAll(':scope > [data-testid="stColumn"]'))
    .filter((col) => col.querySelector('[data-testid="stMetricValue"]'))
    .map((col) => [Math.round(col.getBoundingClientRect().top),
                   Math.round(col.querySelector('[data-testid="stMetricValue"]').getBoundingClientRect().top)]))
  .filter((pairs) => pairs.length > 1)
"""


@pytest.mark.parametrize("width", [1440, 1024])
@pytest.mark.parametrize("path", ["overview", "reviews", "price_book", "accuracy"])
def test_kpi_values_in_a_row_stand_on_one_line(page: Page, app_url: str, path: str, width: int) -> None:
    # at 1,440 px "Recommended, SGD/month" wrapped to two lines and "API baseline, SGD/month" did not: the values
    # beside each other stood 14 px apart; KPIs on one line (two per line at 1,024 px) now share their values' top
    page.set_viewport_size({"width": width, "height": 900})
    goto_view(page, app_url, path)
    rows = page.evaluate(KPI_TOPS_JS)
    assert rows, "no row of KPIs drawn"
    for pairs in rows:
        lines: dict[int, set[int]] = {}
        for column_top, value_top in pairs:
            lines.setdefault(column_top, set()).add(value_top)
        assert all(len(tops) == 1 for tops in lines.values()), pairs
        if width > 1280:
            assert len(lines) == 1, pairs  # no wrapping in a wide window
