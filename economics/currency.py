"""The display currency: money is computed in USD and converted only where it is shown.

A scenario's :class:`~economics.finance.settings.FinanceSettings` name the display currency and, optionally,
the rate; without a rate the catalog's newest dated rate on the review date is used
(``data/prices/fx_rates.csv``). :func:`display_rate` resolves it, :func:`pin_display_rate` writes the resolved
rate into the scenario so that a saved review keeps the rate it used, and :func:`currency_statement` is the
sentence the CLI, the pages and the meeting pack print.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from economics._errors import ScenarioError
from economics.finance.data import latest_fx
from economics.finance.settings import FinanceSettings
from economics.scenario import Scenario

__all__ = ["USD", "DisplayRate", "currency_statement", "display_rate", "pin_display_rate", "to_display"]


@dataclass(frozen=True)
class DisplayRate:
    """A dated rate: ``units_per_usd`` of ``code`` buy one US dollar."""

    code: str
    units_per_usd: float
    as_of: dt.date | None
    source: str

    @property
    def is_identity(self) -> bool:
        """USD at a rate of 1: nothing to convert [-]."""
        return self.code == "USD" and self.units_per_usd == 1.0


USD = DisplayRate("USD", 1.0, None, "the model's own currency")


def to_display(usd: float, rate: DisplayRate) -> float:
    """``amount = USD · rate`` [display currency].

    >>> to_display(100.0, DisplayRate("SGD", 1.3, None, "x"))
    130.0
    """
    return usd * rate.units_per_usd


def display_rate(scenario: Scenario) -> DisplayRate:
    """The scenario's display currency and rate (USD at 1 without finance settings).

    Raises :class:`~economics.io.scenarios.ScenarioError` naming ``finance.fx_units_per_usd`` when a non-USD
    currency has no rate in the scenario and none in the catalog.
    """
    s = scenario.finance
    if s is None or (s.display_currency == "USD" and s.fx_units_per_usd in (None, 1.0)):
        return USD
    if s.fx_units_per_usd is not None:
        return DisplayRate(s.display_currency, s.fx_units_per_usd, s.fx_as_of, s.fx_source or "entered in the scenario")
    row = latest_fx(s.display_currency, scenario.review_date)
    if row is None:
        raise ScenarioError(
            [
                f"finance.fx_units_per_usd: no {s.display_currency} rate in the catalog on "
                f"{scenario.review_date}; enter one"
            ]
        )
    return DisplayRate(row.currency, row.units_per_usd, row.as_of, row.source)


def pin_display_rate(scenario: Scenario) -> Scenario:
    """The scenario with its resolved rate written into ``finance`` (call before saving a review)."""
    rate = display_rate(scenario)
    if rate.is_identity and scenario.finance is None:
        return scenario
    settings = scenario.finance or FinanceSettings()
    pinned = settings.model_copy(
        update={"fx_units_per_usd": rate.units_per_usd, "fx_as_of": rate.as_of, "fx_source": rate.source[:500]}
    )
    return scenario.model_copy(update={"finance": pinned})


def currency_statement(rate: DisplayRate) -> str:
    """One sentence for a reader: which currency, which rate, of which date.

    >>> currency_statement(DisplayRate("SGD", 1.3, dt.date(2026, 12, 1), "MAS"))
    'Money is shown in SGD at 1.3 SGD per US dollar (rate of 2026-12-01, MAS); the model computes in USD.'
    >>> currency_statement(USD)
    'Money is shown in US dollars.'
    """
    if rate.is_identity:
        return "Money is shown in US dollars."
    date = f"rate of {rate.as_of.isoformat()}, " if rate.as_of else ""
    return (
        f"Money is shown in {rate.code} at {rate.units_per_usd:g} {rate.code} per US dollar ({date}{rate.source}); "
        "the model computes in USD."
    )
