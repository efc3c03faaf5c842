"""What a finance reader sees, in a real browser at 1,440 and 1,024 px: no field paths, no option or price ids,
no None / nan, no float noise, no "(s)" on any page; every money axis carries $ on every tick (S$ in SGD)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page

from economics.io.scenarios import default_scenario
from economics.price_book import NEGOTIABLE_ITEMS
from tests.browser.streamlit_page import COST_CURVES, goto_view

PAGES = ("", "cost_per_token", COST_CURVES, "break_even", "batching", "workloads", "argument", "price_book", "reviews")
WIDTHS = (1440, 1024)
_S = default_scenario()
IDS = sorted(
    {o.id for o in _S.owned_options}
    | {a.id for a in _S.apis}
    | {n.id for n in _S.nodes}
    | {w.id for w in _S.workloads}
    | {a.price_id for a in _S.apis if a.price_id}
    | set(NEGOTIABLE_ITEMS)
    | {"api_input", "api_output", "api_cached_input", "gpu_hour"},
    key=len,
    reverse=True,
)
BAD: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("field path", re.compile(r"\b(?:nodes|apis|owned_options|workloads|gpus|models)\.\d+")),
    ("option or price id", re.compile(r"(?<![\w/.-])(?:" + "|".join(map(re.escape, IDS)) + r")(?![\w-])")),
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


def _open(page: Page, app_url: str, path: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    goto_view(page, app_url, path)
    page.wait_for_timeout(400)  # plotly draws after the script run


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", PAGES)
def test_visible_text_is_in_a_finance_readers_words(page: Page, app_url: str, path: str, width: int) -> None:
    _open(page, app_url, path, width)
    assert page.get_by_test_id("stException").count() == 0
    text = page.get_by_test_id("stApp").inner_text()
    found = [
        (what, m.group(0), text[max(0, m.start() - 40) : m.end() + 40]) for what, p in BAD for m in p.finditer(text)
    ]
    assert not found, found


@pytest.mark.parametrize("path", PAGES)
def test_every_money_axis_tick_carries_a_dollar_sign(page: Page, app_url: str, path: str) -> None:
    _open(page, app_url, path, 1440)
    axes = page.evaluate(MONEY_AXES_JS)
    bad = [(a["chart"], a["axis"], t) for a in axes for t in a["ticks"] if "$" not in t]
    assert not bad, bad
