"""Every money column of every dashboard table carries its currency sign (issue 12, item 1).

The energy table's "Cost at this workload's load [USD/Mtok output]", the Overview's per-option costs and the
Reviews page's stand-alone costs read 12.93 and 0.009375: bare numbers under a dollar header, beside tables
whose money read $12.93.
"""

from __future__ import annotations

import json
import re

import pytest

from economics.io.scenarios import PRESET_DIR, encode, load_scenario
from reporting.html import _number as _pack_number
from tests.ui.helpers import run_page
from ui.widgets.table import money_formats

PAGES = ("1_overview", "2_cost_per_token", "3_break_even", "5_workloads", "7_reviews", "8_horizon")


def test_a_money_header_gets_its_currency_sign_by_its_unit() -> None:
    formats = money_formats(
        ["Option", "Cost [USD/Mtok output]", "Cost [USD/task]", "NPV [USD]", "Energy [kWh/Mtok output]", "Cost [SGD/h]"]
    )
    assert set(formats) == {"Cost [USD/Mtok output]", "Cost [USD/task]", "NPV [USD]", "Cost [SGD/h]"}
    assert formats["Cost [USD/Mtok output]"]["type_config"]["format"] == "dollar"
    assert formats["NPV [USD]"]["type_config"]["format"] == "dollar"
    assert formats["Cost [USD/task]"]["type_config"]["format"] == "$%.4g"  # $0.009375 a task, not $0.01
    # in another currency its sign, thousands separators and cents: "S$1,817,589.46", not a bare "17.23"
    assert formats["Cost [SGD/h]"]["type_config"]["format"] == "S$%,.2f"


def test_a_currency_added_to_the_fx_table_is_money_too() -> None:
    # the FX table (data/prices/fx_rates.csv) is the user's to extend: a display currency with no sign of its own
    # is still money, written with its code, in the tables and in the pack (which read it before this change)
    formats = money_formats(["Cost [CHF/task]", "Bill [AUD/month]", "Why [GPU]"])  # "[GPU]" is no currency
    assert formats["Cost [CHF/task]"]["type_config"]["format"] == "CHF %.4g"
    assert formats["Bill [AUD/month]"]["type_config"]["format"] == "AUD %,.2f"
    assert _pack_number("Bill [AUD/month]", 2665.0) == "AUD 2,665/month"


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize(
    ("preset", "code", "signs"), [("startup-rented", "USD", ("dollar", "$")), ("singapore-bank", "SGD", ("S$",))]
)
def test_every_money_column_on_a_page_shows_its_currency(
    page: str, preset: str, code: str, signs: tuple[str, ...]
) -> None:
    # the rented preset shows money in US dollars, the bank in Singapore dollars: the energy table's "17.23" under
    # "[SGD/Mtok output]" sat beside a chart reading "S$6.96"
    at = run_page(page, {"s": encode(load_scenario(PRESET_DIR / f"{preset}.json"))})
    header = re.compile(rf"\[{code}[/\]]")
    bare = []
    for frame in at.dataframe:
        config = json.loads(frame.proto.columns or "{}")
        for column in map(str, frame.value.columns):
            if header.search(column):
                fmt = config.get(column, {}).get("type_config", {}).get("format", "")
                if not fmt.startswith(signs):
                    bare.append((column, fmt))
    assert not bare, bare


@pytest.mark.parametrize("page", [*(p for p in PAGES if p != "3_break_even"), "6_price_book", "8_accuracy"])
def test_a_missing_value_in_any_table_is_not_shown_as_none(page: str) -> None:
    # Streamlit draws a missing cell as the word "None" unless told otherwise; the Workloads routes table showed
    # it under "On its best API" for every sovereign workload. A read-only table shows a dash, an editor an empty
    # cell to type into.
    at = run_page(page)
    tables = list(at.dataframe)
    assert tables
    for t in tables:
        editor = bool(t.proto.editing_mode)
        assert t.proto.HasField("placeholder"), (page, list(t.value.columns)[:3])
        assert t.proto.placeholder == ("" if editor else "—")
