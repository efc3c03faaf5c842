"""Display currency: converted only at the display edge, dated, stored with the scenario."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from economics.currency import USD, DisplayRate, currency_statement, display_rate, pin_display_rate, to_display
from economics.evaluate import evaluate
from economics.finance.settings import FinanceSettings
from economics.io.scenarios import ScenarioError, load_preset, parse_scenario, preset_json
from tests.strategies import PROPERTIES
from ui.format import money, usd


def test_the_bank_is_shown_in_sgd_at_a_dated_rate() -> None:
    rate = display_rate(load_preset("singapore-bank"))
    assert (rate.code, rate.units_per_usd, rate.as_of) == ("SGD", 1.3, dt.date(2026, 12, 1))
    assert "1.3 SGD per US dollar" in currency_statement(rate)
    # S$ 1.30 per USD: $15,398.67 → S$20,018
    assert money(15_398.67, "SGD", 1.3) == "S$20,018"


def test_fx_rate_one_changes_nothing() -> None:
    bank = load_preset("singapore-bank")
    at_one = bank.model_copy(update={"finance": FinanceSettings(display_currency="USD", fx_units_per_usd=1.0)})
    assert display_rate(at_one) == USD
    assert evaluate(at_one).fleet == evaluate(bank).fleet  # the model never sees the display currency


@PROPERTIES
@given(st.floats(-1e9, 1e9, allow_nan=False))
def test_money_at_rate_one_is_usd(x: float) -> None:
    assert money(x) == usd(x)
    assert money(x, "USD", 1.0) == usd(x)


def test_money_edge_cases() -> None:
    assert money(float("inf"), "SGD", 1.3) == "not reachable"
    assert money(None, "SGD", 1.3) == "—"
    assert money(-100.0, "EUR", 0.9) == "−€90.00"
    assert money(100.0, "CHF", 0.8) == "CHF 80.00"
    # small amounts written out, never in scientific notation; float noise below a millionth of a dollar is $0
    assert [usd(x) for x in (0.00052, 5.289e-05, 0.004, -0.0000013, 1e-09, -4e-7)] == [
        "$0.00052", "$0.000053", "$0.004", "−$0.000001", "$0", "$0"
    ]  # fmt: skip
    assert to_display(100.0, DisplayRate("SGD", 1.3, None, "x")) == pytest.approx(130.0)


def test_catalog_rate_is_used_and_pinned_for_a_review() -> None:
    startup = load_preset("startup-rented")
    sgd = startup.model_copy(update={"finance": FinanceSettings(display_currency="SGD")})
    rate = display_rate(sgd)
    assert rate.units_per_usd == 1.3  # data/prices/fx_rates.csv, as of 2026-12-01
    pinned = pin_display_rate(sgd)
    assert pinned.finance is not None
    assert pinned.finance.fx_units_per_usd == 1.3
    assert pinned.finance.fx_as_of == dt.date(2026, 12, 1)
    # a stored review keeps the rate through a JSON round trip
    assert parse_scenario(preset_json(pinned)).finance == pinned.finance


def test_unknown_currency_without_a_rate_names_the_field() -> None:
    startup = load_preset("startup-rented")
    chf = startup.model_copy(update={"finance": FinanceSettings(display_currency="CHF")})
    with pytest.raises(ScenarioError, match=r"finance\.fx_units_per_usd: no CHF rate"):
        display_rate(chf)


def test_old_scenarios_without_finance_still_load() -> None:
    data = load_preset("startup-rented").model_dump(mode="json")
    del data["finance"]
    for node in data["nodes"]:
        node.pop("billing")
    assert parse_scenario(data).finance is None
