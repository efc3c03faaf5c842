"""Showing money in another currency changes every money figure of a chart or table by the rate, and nothing else.

The Break-even utilization curve kept its US dollar prices on an SGD axis (its marker and limit line were
converted): each chart test checked the traces it named. This one checks every trace of every chart on the
pages, in SGD and in US dollars, from the same scenario: on an axis whose title names the currency each number
is 1.30 times its US dollar value (the bank's rate, data/prices/fx_rates.csv, 2026-12-01); on any other axis it
is the same number. The tables' money columns (named with the currency) likewise, to their rounding.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.ui.helpers import plotly_specs, run_page

SGD_PER_USD = 1.3


def _numbers(values: Any) -> list[float] | None:
    """The values as floats (None: NaN), or None when any is not a number (categories, labels)."""
    if not isinstance(values, list) or not values or isinstance(values[0], list):
        return None
    out: list[float] = []
    for v in values:
        if v is None:
            out.append(math.nan)
        elif isinstance(v, int | float) and not isinstance(v, bool):
            out.append(float(v))
        else:
            return None
    return out


def _axis(layout: dict[str, Any], trace: dict[str, Any], letter: str) -> tuple[str, bool]:
    """The title of the axis a trace is drawn on, and whether it holds log10 values on a linear axis labelled
    like a log one (the routing quadrant's: there a currency adds log10(rate) instead of multiplying)."""
    ref = str(trace.get(f"{letter}axis", letter))  # "x", "x2", ...
    axis = layout.get(f"{letter}axis{ref[1:]}", {})
    title = axis.get("title", {})
    text = str(title.get("text", "") if isinstance(title, dict) else title)
    return text, "(log)" in text and axis.get("type") != "log"


def _mismatches(sgd: list[dict[str, Any]], usd: list[dict[str, Any]]) -> list[str]:
    found: list[str] = []
    assert len(sgd) == len(usd)
    for chart_sgd, chart_usd in zip(sgd, usd, strict=True):
        title = str(chart_sgd.get("layout", {}).get("title", {}).get("text", ""))[:60]
        assert len(chart_sgd["data"]) == len(chart_usd["data"]), title
        for t_sgd, t_usd in zip(chart_sgd["data"], chart_usd["data"], strict=True):
            for letter in ("x", "y"):
                a, b = _numbers(t_sgd.get(letter)), _numbers(t_usd.get(letter))
                if a is None or b is None:
                    continue
                title_text, log10_values = _axis(chart_sgd["layout"], t_sgd, letter)
                money = "SGD" in title_text
                k = SGD_PER_USD if money else 1.0
                expected = [u + math.log10(k) if log10_values else k * u for u in b]
                if len(a) != len(b) or any(
                    not (math.isnan(e) and math.isnan(s)) and not math.isclose(s, e, rel_tol=1e-9, abs_tol=1e-9)
                    for s, e in zip(a, expected, strict=True)
                ):
                    found.append(f"{title} · {t_sgd.get('name')} · {letter} ({'money' if money else 'not money'})")
    return found


@functools.cache
def _run_in(currency: str, page: str, view: str | None = None, query: tuple[tuple[str, str], ...] = ()) -> AppTest:
    """``pages/<page>.py`` with money shown in ``currency``, chosen in the sidebar first (a page run after
    ``switch_page`` has no sidebar: AppTest runs the page's script alone); ``query``: view settings of a link,
    such as the open tab. Run once per argument set: the chart and the table tests read the same runs."""
    at = run_page(None, dict(query) or None)
    at.selectbox(key="scenario_currency").set_value(currency).run()
    assert not at.exception
    at.switch_page(f"pages/{page}.py").run()
    if view is not None:
        at.radio(key="cost_view").set_value(view).run()
    assert not at.exception
    return at


def _page_in(
    currency: str, page: str, view: str | None = None, query: tuple[tuple[str, str], ...] = ()
) -> list[dict[str, Any]]:
    specs = plotly_specs(_run_in(currency, page, view, query))
    assert specs, "no chart on the page"
    return specs


def _table_mismatches(sgd: list[pd.DataFrame], usd: list[pd.DataFrame]) -> list[str]:
    """Numeric money cells (their column's name, or a label in their row, says SGD) that are not 1.3 times the
    dollar cell, to the rounding shown (whole units or cents), and other numeric cells that differ."""
    found: list[str] = []
    assert len(sgd) == len(usd)
    for frame_sgd, frame_usd in zip(sgd, usd, strict=True):
        money_rows = [any(isinstance(v, str) and "[SGD" in v for v in row) for row in frame_sgd.itertuples(index=False)]
        for col_sgd, col_usd in zip(frame_sgd.columns, frame_usd.columns, strict=True):
            cells = zip(frame_sgd[col_sgd].tolist(), frame_usd[col_usd].tolist(), money_rows, strict=True)
            for s, u, money_row in cells:
                k = SGD_PER_USD if "SGD" in str(col_sgd) or money_row else 1.0
                if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in (s, u)):
                    continue
                whole = float(s).is_integer() and float(u).is_integer()
                if not math.isclose(s, k * u, rel_tol=1e-9, abs_tol=(1.0 if whole else 0.01) * (1 + k) / 2 + 1e-9):
                    found.append(f"{col_sgd}: {s} against {u}")
                    break
    return found


@pytest.mark.parametrize(
    "page", ["1_overview", "2_cost_per_token", "3_break_even", "4_batching", "5_workloads", "8_horizon", "8_accuracy"]
)
def test_every_chart_changes_only_its_money_by_the_rate(page: str) -> None:
    assert _mismatches(_page_in("SGD", page), _page_in("USD", page)) == []


@pytest.mark.parametrize(
    "page", ["1_overview", "2_cost_per_token", "5_workloads", "6_price_book", "8_horizon", "8_accuracy"]
)
def test_every_table_changes_only_its_money_by_the_rate(page: str) -> None:
    sgd = [d.value for d in _run_in("SGD", page).dataframe]
    usd = [d.value for d in _run_in("USD", page).dataframe]
    assert sgd, "no table on the page"
    assert _table_mismatches(sgd, usd) == []


def test_the_table_check_catches_a_column_left_in_dollars() -> None:
    usd = [pd.DataFrame({"Cost [USD/Mtok]": [10.0, 2.25], "Share [%]": [40.0, 60.0]})]
    left = [pd.DataFrame({"Cost [SGD/Mtok]": [10.0, 2.25], "Share [%]": [40.0, 60.0]})]
    converted = [pd.DataFrame({"Cost [SGD/Mtok]": [13.0, 2.93], "Share [%]": [40.0, 60.0]})]  # 2.925 to cents
    assert _table_mismatches(left, usd) == ["Cost [SGD/Mtok]: 10.0 against 10.0"]
    assert _table_mismatches(converted, usd) == []
    by_row_usd = [pd.DataFrame({"Measure": ["Book view [USD/year]", "Share [%]"], "Node": [70000, 40]})]
    by_row_sgd = [pd.DataFrame({"Measure": ["Book view [SGD/year]", "Share [%]"], "Node": [91000, 40]})]
    assert _table_mismatches(by_row_sgd, by_row_usd) == []  # the unit in the row's label


@pytest.mark.parametrize("tab", ["demand", "map"])
def test_the_other_break_even_charts_change_only_their_money_by_the_rate(tab: str) -> None:
    # AppTest draws only the open tab; a link's view setting opens the others
    query = (("be_chart", tab),)
    assert _mismatches(_page_in("SGD", "3_break_even", query=query), _page_in("USD", "3_break_even", query=query)) == []


def test_the_cost_curves_change_only_their_money_by_the_rate() -> None:
    view = "Across all utilizations"
    assert _mismatches(_page_in("SGD", "2_cost_per_token", view), _page_in("USD", "2_cost_per_token", view)) == []


def test_the_check_catches_a_curve_left_in_dollars() -> None:
    layout = {
        "xaxis": {"title": {"text": "API price [SGD per Mtok]"}, "type": "log"},
        "yaxis": {"title": {"text": "utilization"}},
    }
    usd = [{"layout": layout, "data": [{"name": "curve", "x": [10.0, 20.0], "y": [50.0, 25.0]}]}]
    left_in_dollars = [{"layout": layout, "data": [{"name": "curve", "x": [10.0, 20.0], "y": [50.0, 25.0]}]}]
    converted = [{"layout": layout, "data": [{"name": "curve", "x": [13.0, 26.0], "y": [50.0, 25.0]}]}]
    assert _mismatches(left_in_dollars, usd) == [" · curve · x (money)"]  # no chart title, the trace, its axis
    assert _mismatches(converted, usd) == []


def test_the_check_reads_log10_values_on_a_linear_axis_as_shifted() -> None:
    layout = {"yaxis": {"title": {"text": "cost of a failed answer [SGD per 1,000 tokens] (log)"}, "type": "linear"}}
    usd = [{"layout": layout, "data": [{"name": "points", "x": [0.0, 1.0], "y": [1.0, 2.0]}]}]
    shifted = [{"layout": layout, "data": [{"name": "points", "x": [0.0, 1.0], "y": [1.1139433523, 2.1139433523]}]}]
    assert _mismatches(shifted, usd) == []  # log10(1.3) = 0.11394...
    assert _mismatches(usd, usd) == [" · points · y (money)"]
