"""What goes into a meeting pack: a scenario, its result, optional comparison and uncertainty, the share link.

:func:`build_pack` computes everything (one ``evaluate``, the uncertainty surrogate, the comparison); the
renderers in :mod:`reporting.html`, :mod:`reporting.bundle` and :mod:`reporting.png` only format it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from economics import DEFAULT_SENSITIVITY_RATES
from economics.compare import Comparison, Snapshot, compare
from economics.currency import USD, DisplayRate, currency_statement, display_rate
from economics.evaluate import evaluate
from economics.io import scenarios
from economics.io.safe_io import http_url
from economics.io.scenarios import ScenarioError
from economics.price_book import price_book
from economics.result import Result
from economics.scenario import Scenario
from economics.uncertainty import MonteCarlo, Tornado, UncertaintyRanges, build_surrogate, monte_carlo, tornado
from reporting.finance import finance_data
from reporting.narrative import Baseline, find_baseline

DEFAULT_APP_URL = "http://localhost:8501/"


@dataclass(frozen=True)
class MeetingPack:
    """Everything a meeting pack shows, computed once."""

    title: str
    scenario: Scenario
    result: Result
    generated_at: dt.datetime  # UTC
    share_url: str | None  # None when the scenario is too large for a link
    notes: str = ""
    comparison: Comparison | None = None
    tornado: Tornado | None = None
    monte_carlo: MonteCarlo | None = None
    ranges: UncertaintyRanges | None = None
    baseline: Baseline | None = None  # what the scenario is compared with to say it was modified
    finance: dict[str, Any] | None = None  # issue 14: currency, horizon, NPV, crossover, books, carbon

    @property
    def rate(self) -> DisplayRate:
        """The display currency every money figure of the pack is shown in: the scenario's rate, which a saved
        review pinned when it was saved (:func:`economics.currency.pin_display_rate`). A currency without a
        rate falls back to US dollars (the finance section names the missing field)."""
        try:
            return display_rate(self.scenario)
        except ScenarioError:
            return USD

    @property
    def currency_statement(self) -> str | None:
        """The sentence stating the currency, its rate, date and source (once, at the top of the pack), or None
        when the scenario's currency has no rate."""
        try:
            return currency_statement(display_rate(self.scenario))
        except ScenarioError:
            return None


def share_url(scenario: Scenario, app_url: str = DEFAULT_APP_URL) -> str | None:
    """The dashboard link that reopens ``scenario`` (``?s=`` share token), or None if it is too long."""
    token = scenarios.encode(scenario)
    if not scenarios.fits_in_link(token):
        return None
    return f"{http_url(app_url).rstrip('/')}/?s={token}"  # http(s) only: never javascript: in a pack


def build_pack(
    scenario: Scenario,
    *,
    result: Result | None = None,
    title: str | None = None,
    notes: str = "",
    before: Snapshot | None = None,
    comparison: Comparison | None = None,
    tornado_result: Tornado | None = None,
    monte_carlo_result: MonteCarlo | None = None,
    app_url: str = DEFAULT_APP_URL,
    ranges: UncertaintyRanges | None = None,
    draws: int = 10_000,
    seed: int = 0,
    uncertainty: bool = True,
    generated_at: dt.datetime | None = None,
    baseline: Baseline | None = None,
    finance: bool = True,
    progress: Callable[[str], None] | None = None,
) -> MeetingPack:
    """Evaluate (unless ``result`` is given: a saved review is shown as saved) and gather the pack.

    ``before``, when given, is compared with this scenario ("what changed since"); or pass a ready
    ``comparison``. ``tornado_result`` and ``monte_carlo_result`` reuse results the page already has;
    otherwise they are computed with ``ranges``, ``draws`` and ``seed``. ``uncertainty=False`` leaves both out.
    ``baseline`` is what the narrative compares the scenario with ("modified from …"); by default the shipped
    preset of the same name, if any. ``finance=False`` leaves out the finance section (the multi-year horizon
    re-plans the scenario every year, so it is the pack's slowest part). ``progress``, if given, is told each
    step before it starts, in words ("planning the fleet"): a large portfolio takes a minute or more.
    """
    say = progress or (lambda _: None)
    if result is None:
        say(f"planning the fleet ({len(scenario.workloads):,} workloads)")
        result = evaluate(scenario)
    if comparison is None and before is not None:
        after = Snapshot(
            label=f"{scenario.name} ({scenario.review_date})",
            scenario=scenario,
            result=result,
            prices=price_book(scenario),
        )
        comparison = compare(before, after)
    tor, mc = (tornado_result, monte_carlo_result) if uncertainty else (None, None)
    if uncertainty and (tor is None or mc is None):
        say(f"the uncertain inputs ({draws:,} draws)")
        surrogate = build_surrogate(scenario, ranges)
        tor = tor or tornado(surrogate)
        mc = mc or monte_carlo(surrogate, draws, seed)
    if finance:
        say(f"the multi-year horizon (every year re-planned, at {len(DEFAULT_SENSITIVITY_RATES)} API price declines)")
    return MeetingPack(
        title=title or f"Price review: {scenario.name}",
        scenario=scenario,
        result=result,
        generated_at=generated_at or dt.datetime.now(dt.UTC),
        share_url=share_url(scenario, app_url),
        notes=notes,
        comparison=comparison,
        tornado=tor,
        monte_carlo=mc,
        ranges=(ranges or UncertaintyRanges()) if uncertainty else None,
        baseline=baseline if baseline is not None else find_baseline(scenario),
        finance=finance_data(scenario, result) if finance else None,
    )
