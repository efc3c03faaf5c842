"""Charts a reviewer can read, in a real browser at 1,440 and 1,024 px: no chart title runs past its chart,
and no two workload names on the routing quadrant print over each other or run off its plot."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.browser.streamlit_page import COST_CURVES, goto_view

WIDTHS = (1440, 1024)

#: Bounding boxes [px] of every chart's title and of the chart itself, as drawn.
TITLES_JS = """
() => Array.from(document.querySelectorAll('.js-plotly-plot')).map((el) => {
  const c = el.getBoundingClientRect();
  const t = el.querySelector('.gtitle');
  const b = t ? t.getBoundingClientRect() : null;
  return { title: t ? t.textContent : '', chart: [c.left, c.right],
           text: b ? [b.left, b.right] : null };
})
"""
#: The plot area's bounding box [px] of the chart with the given key.
PLOT_JS = """
(key) => { const b = document.querySelector(`.st-key-${key} .nsewdrag`).getBoundingClientRect();
  return [b.left, b.top, b.right, b.bottom]; }
"""
#: Bounding boxes [px] of the workloads' names on the chart with the given key (annotations, the "1 in flight"
#: line's label left out).
LABELS_JS = """
(key) => Array.from(document.querySelectorAll(`.st-key-${key} .annotation-text`)).map((t) => {
  const b = t.getBoundingClientRect();
  return { text: t.textContent, box: [b.left, b.top, b.right, b.bottom] };
}).filter((l) => l.text && !l.text.startsWith('1 in flight'))
"""
#: Bounding boxes [px] of the scatter points (the workloads' markers) of the chart with the given key.
POINTS_JS = """
(key) => Array.from(document.querySelectorAll(`.st-key-${key} .scatterlayer .point`)).map((p) => {
  const b = p.getBoundingClientRect();
  return [b.left, b.top, b.right, b.bottom];
}).filter((b) => b[2] > b[0])
"""


def _open(page: Page, app_url: str, path: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    goto_view(page, app_url, path)
    page.wait_for_timeout(400)  # plotly draws after the script run


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", ["overview", "cost_per_token", COST_CURVES, "workloads", "reviews"])
def test_every_chart_title_fits_inside_its_chart(page: Page, app_url: str, path: str, width: int) -> None:
    _open(page, app_url, path, width)
    charts = page.evaluate(TITLES_JS)
    assert charts, "no chart drawn"
    cut = [
        c["title"]
        for c in charts
        if c["text"] and (c["text"][0] < c["chart"][0] - 1 or c["text"][1] > c["chart"][1] + 1)
    ]
    assert not cut, cut


@pytest.mark.parametrize("width", WIDTHS)
def test_no_two_quadrant_labels_overlap(page: Page, app_url: str, width: int) -> None:
    _open(page, app_url, "workloads", width)
    labels = page.evaluate(LABELS_JS, "chart_quadrant")
    assert len(labels) >= 5, labels  # every workload of the bank scenario is named
    overlaps = [
        (a["text"], b["text"])
        for i, a in enumerate(labels)
        for b in labels[i + 1 :]
        if a["box"][0] < b["box"][2]
        and b["box"][0] < a["box"][2]
        and a["box"][1] < b["box"][3]
        and b["box"][1] < a["box"][3]
    ]
    assert not overlaps, overlaps
    plot = page.evaluate(PLOT_JS, "chart_quadrant")
    cut = [a["text"] for a in labels if a["box"][0] < plot[0] - 1 or a["box"][2] > plot[2] + 1]
    assert not cut, cut
    # no name covers a workload's point (at 1,024 px "Analyst research (frontier reasoning)" ran through the
    # letter-of-credit point); a name touching its own point's edge is allowed by a 2 px inset
    points = page.evaluate(POINTS_JS, "chart_quadrant")
    assert len(points) == len(labels), (points, labels)
    covered = [
        (a["text"], p)
        for a in labels
        for p in points
        if a["box"][0] < p[2] - 2 and p[0] + 2 < a["box"][2] and a["box"][1] < p[3] - 2 and p[1] + 2 < a["box"][3]
    ]
    assert not covered, covered
