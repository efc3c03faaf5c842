"""What a reader sees on an open page, checked in a real browser (issue 12, items 1, 7 and 8). Each check is a
function of the page that returns what it found wrong; ``test_page_reads.py`` runs them all on one load of each
page at each width, ``test_reader_charts.py`` on the other presets.

- Plain words: no field paths, option or price ids, None / nan, float noise or "(s)" in the visible text.
- Money axes: every tick of an axis titled in money carries $ (S$ in SGD).
- Chart text: no tick label, axis title, legend entry or annotation over another or past the chart's edges
  (found in the screenshots: the roofline's axis ran to 1e+7 FLOP/byte, the concurrency panels' titles
  overlapped, the Horizon legend and the ridge label were cut; later the Reviews Monte Carlo panel titles, the
  Cost per token bar labels and the quadrant's axis labels standing on end over its title).
- Chart titles inside their charts; the routing quadrant's workload names neither over each other, nor off its
  plot, nor over a workload's point.
- KPI values in a row on one line (two per line at 1,024 px).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from playwright.sync_api import Page

from economics.io.scenarios import default_scenario
from economics.price_book import NEGOTIABLE_ITEMS
from economics.scenario import Scenario


def scenario_ids(s: Scenario) -> set[str]:
    """The ids of a scenario's options, APIs, nodes, workloads and API prices: none may show where people read."""
    return (
        {o.id for o in s.owned_options}
        | {a.id for a in s.apis}
        | {n.id for n in s.nodes}
        | {w.id for w in s.workloads}
        | {a.price_id for a in s.apis if a.price_id}
    )


def id_pattern(ids: Iterable[str]) -> re.Pattern[str]:
    """Any of ``ids`` as a word of its own (the longest first, so "a-b" is not read as "a")."""
    return re.compile(r"(?<![\w/.-])(?:" + "|".join(map(re.escape, sorted(ids, key=len, reverse=True))) + r")(?![\w-])")


IDS = scenario_ids(default_scenario()) | set(NEGOTIABLE_ITEMS) | {"api_input", "api_output", "api_cached_input",
                                                                  "gpu_hour"}  # fmt: skip
BAD: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("field path", re.compile(r"\b(?:nodes|apis|owned_options|workloads|gpus|models)\.\d+")),
    ("option or price id", id_pattern(IDS)),
    ("Python None", re.compile(r"\bNone\b")),
    ("nan", re.compile(r"\bnan\b", re.IGNORECASE)),
    ("float noise", re.compile(r"\d\.\d{7,}")),
    ("(s)", re.compile(r"\w\(s\)")),
)
#: Plotly's own axis tick labels and titles for every axis whose title names a money unit.
MONEY_AXES_JS = """
() => Array.from(document.querySelectorAll('.js-plotly-plot')).flatMap((el) => {
  const L = el._fullLayout || {};
  const title = (L.title && L.title.text) || '';
  return Object.keys(L).filter((k) => /^[xy]axis\\d*$/.test(k)).map((k) => ({
    chart: title, axis: k, title: (L[k].title && L[k].title.text) || '',
    visible: L[k].visible !== false, ticks: (L[k]._vals || []).map((v) => v.text),
  })).filter((a) => a.visible && /USD|SGD|\\$/.test(a.title) && !/÷|ratio/.test(a.title));
})
"""


def unreadable_words(page: Page, ids: Iterable[str] = ()) -> list[tuple[str, str, str]]:
    """Each field path, option or price id (the default scenario's, and ``ids``: another scenario's), None, nan,
    float noise or "(s)" in the page's visible text, with the words around it."""
    text = page.get_by_test_id("stApp").inner_text()
    checks = [*BAD, ("its scenario's id", id_pattern(ids))] if ids else BAD
    return [
        (what, m.group(0), text[max(0, m.start() - 40) : m.end() + 40]) for what, p in checks for m in p.finditer(text)
    ]


def money_ticks_without_a_sign(page: Page) -> list[tuple[str, str, str]]:
    """Each tick of a money axis that does not carry the currency's sign: (chart, axis, tick)."""
    axes = page.evaluate(MONEY_AXES_JS)
    return [(a["chart"], a["axis"], t) for a in axes for t in a["ticks"] if "$" not in t]


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


#: Per row of KPIs, each value's column top and value top: columns wrapped onto one line share their top.
KPI_TOPS_JS = """
() => Array.from(document.querySelectorAll('[data-testid="stHorizontalBlock"]'))
  .map((row) => Array.from(row.querySelectorAll(':scope > [data-testid="stColumn"]'))
    .filter((col) => col.querySelector('[data-testid="stMetricValue"]'))
    .map((col) => [Math.round(col.getBoundingClientRect().top),
                   Math.round(col.querySelector('[data-testid="stMetricValue"]').getBoundingClientRect().top)]))
  .filter((pairs) => pairs.length > 1)
"""


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
}).filter((l) => l.text && !l.text.startsWith('1 at a time'))
"""
#: Bounding boxes [px] of the scatter points (the workloads' markers) of the chart with the given key.
POINTS_JS = """
(key) => Array.from(document.querySelectorAll(`.st-key-${key} .scatterlayer .point`)).map((p) => {
  const b = p.getBoundingClientRect();
  return [b.left, b.top, b.right, b.bottom];
}).filter((b) => b[2] > b[0])
"""


def chart_text_over_other_text(page: Page) -> list[str]:
    """Each chart text drawn over another, or past its chart's left or right edge."""
    return list(page.evaluate(OVERLAPS_JS))


def titles_past_their_chart(page: Page) -> list[str]:
    """Each chart title that runs past its chart's left or right edge."""
    charts = page.evaluate(TITLES_JS)
    return [
        c["title"]
        for c in charts
        if c["text"] and (c["text"][0] < c["chart"][0] - 1 or c["text"][1] > c["chart"][1] + 1)
    ]


def kpi_rows_not_on_one_line(page: Page, width: int) -> list[object]:
    """Each row of KPIs whose values, wrapped onto one line, do not share their top; in a wide window (over
    1,280 px), each row that wrapped at all. At 1,440 px "Recommended, SGD/month" wrapped to two lines and "API
    baseline, SGD/month" did not: the values beside each other stood 14 px apart."""
    bad: list[object] = []
    for pairs in page.evaluate(KPI_TOPS_JS):
        lines: dict[int, set[int]] = {}
        for column_top, value_top in pairs:
            lines.setdefault(column_top, set()).add(value_top)
        if not all(len(tops) == 1 for tops in lines.values()) or (width > 1280 and len(lines) != 1):
            bad.append(pairs)
    return bad


def quadrant_labels_unreadable(page: Page, key: str = "chart_quadrant") -> list[object]:
    """On the routing quadrant: fewer than five workload names, two names over each other, a name off the plot,
    or a name over a workload's point (at 1,024 px "Analyst research (frontier reasoning)" ran through the
    letter-of-credit point; a name touching its own point's edge is allowed by a 2 px inset)."""
    labels = page.evaluate(LABELS_JS, key)
    if len(labels) < 5:  # every workload of the bank scenario is named
        return [("workload names drawn", [a["text"] for a in labels])]

    def over(a: list[float], b: list[float], inset: float = 0.0) -> bool:
        return a[0] < b[2] - inset and b[0] + inset < a[2] and a[1] < b[3] - inset and b[1] + inset < a[3]

    bad: list[object] = [("over", a["text"], b["text"]) for i, a in enumerate(labels) for b in labels[i + 1 :]
                         if over(a["box"], b["box"])]  # fmt: skip
    plot = page.evaluate(PLOT_JS, key)
    bad += [("off the plot", a["text"]) for a in labels if a["box"][0] < plot[0] - 1 or a["box"][2] > plot[2] + 1]
    points = page.evaluate(POINTS_JS, key)
    if len(points) != len(labels):
        bad.append(("points and names", len(points), len(labels)))
    bad += [("over a point", a["text"], p) for a in labels for p in points if over(a["box"], p, inset=2)]
    return bad
