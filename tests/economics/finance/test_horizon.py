"""The multi-year horizon: identities, hand-derived rates and NPV, and the crossover's monotonicity."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from economics.evaluate import evaluate
from economics.finance.horizon import crossover_sensitivity, horizon, price_trends, year_scenario
from economics.finance.npv import npv_usd
from economics.finance.settings import FinanceSettings, HorizonSettings
from economics.io.catalog import load_catalog
from economics.io.scenarios import ScenarioError, load_preset
from economics.offers import RentedNode
from economics.scenario import Scenario
from tests.strategies import PROPERTIES

SLOW = settings(PROPERTIES, max_examples=5)


def with_finance(scenario: Scenario, **horizon_fields: object) -> Scenario:
    return scenario.model_copy(update={"finance": FinanceSettings(horizon=HorizonSettings(**horizon_fields))})


def test_npv_closed_form() -> None:
    # level bill B = 1000 over n = 5 years at r = 8%: B·(1 − 1.08^−5)/0.08 = 1000 · 3.992710 = 3992.71
    assert npv_usd([1000.0] * 5, 0.08) == pytest.approx(3992.7100, abs=1e-3)
    assert npv_usd([1000.0] * 5, 0.0) == 5000.0


def test_zero_change_horizon_is_the_one_year_plan_repeated() -> None:
    bank = with_finance(
        load_preset("singapore-bank"),
        api_price_change_per_year=0.0,
        rental_price_change_per_year=0.0,
        hardware_price_change_per_year=0.0,
    )
    # the horizon bills every year in the full-cost lens (the bought node carries its capital recovery)
    full = bank.model_copy(update={"policy": bank.policy.model_copy(update={"lens": "full"})})
    one_year = evaluate(full).fleet.total_cost_usd_per_month * 12
    h = horizon(bank)
    own = next(p for p in h.plans if p.plan_id == "own")
    assert [b.total_usd for b in own.bills] == pytest.approx([one_year] * 5, rel=1e-12)
    assert own.npv_usd == pytest.approx(one_year * (1 - 1.08**-5) / 0.08, rel=1e-12)
    assert h.years == (2027, 2028, 2029, 2030, 2031)


def test_default_api_decline_is_derived_from_the_catalog_history() -> None:
    # 3:1 blends from first price to the price in force on 2026-12-01, annualised (days/365):
    #   gpt-4o 7.5 → 4.375 over 932 d: −19.0%;   o3 17.5 → 3.5 over 594 d: −62.8%
    #   gpt-5.6-terra 5.625 → 4.5 over 158 d: −40.3%;   gpt-5.6-luna 2.25 → 0.45 over 158 d: −97.6%
    #   claude-sonnet-5 4 → 6 over 154 d: +161%.   Median: −40.3%.
    trends = price_trends(load_catalog(), dt.date(2026, 12, 1))
    assert trends.api_change_per_year == pytest.approx(-0.403, abs=0.002)
    assert "median" in trends.api_basis
    assert "5 API price series" in trends.api_basis
    # rented: p5 98.32 → 55.04 over 1224 d: −15.9%; p5en 84.8 → 63.296 over 729 d: −13.6%;
    # p4d 32.77 → 21.96 over 2220 d: −6.4%; p4de 40.97 → 27.45 over 1795 d: −7.8%. Median −10.7%.
    assert trends.rental_change_per_year == pytest.approx(-0.107, abs=0.003)


def test_year_scenario_grows_demand_and_renews_reservations() -> None:
    startup = load_preset("startup-rented")
    data = startup.model_dump()
    data["nodes"][0].update(pricing_type="reserved-3y", price_usd_per_gpu_hour=2.0)
    s = with_finance(Scenario.model_validate(data), demand_growth_by_workload={"agent-steps": 0.5})
    y2 = year_scenario(s, 2, -0.4, -0.1, 0.0)
    y3 = year_scenario(s, 3, -0.4, -0.1, 0.0)
    # agent-steps 1.0 req/s · 1.5² = 2.25; the others keep their demand (default growth 0)
    assert y2.workloads[1].avg_requests_per_s == pytest.approx(2.25)
    assert y2.workloads[0].avg_requests_per_s == pytest.approx(3.0)
    # API prices · 0.6²: GPT-5 output $10 → $3.60
    assert y2.apis[0].output_usd_per_mtok == pytest.approx(3.6)
    # the 3-year reservation keeps $2.00 through year 3 (k = 2) and renews at 2 · 0.9³ = $1.458 in year 4
    n2, n3 = y2.nodes[0], y3.nodes[0]
    assert isinstance(n2, RentedNode)
    assert isinstance(n3, RentedNode)
    assert n2.price_usd_per_gpu_hour == pytest.approx(2.0)
    assert n3.price_usd_per_gpu_hour == pytest.approx(1.458)
    # on-demand AWS p5 falls every year: 6.88 · 0.9² = 5.5728
    assert y2.nodes[1].price_usd_per_gpu_hour == pytest.approx(5.5728)  # type: ignore[union-attr]


def test_bad_horizon_input_names_the_field() -> None:
    s = with_finance(load_preset("startup-rented"), demand_growth_by_workload={"nope": 0.1})
    with pytest.raises(ScenarioError, match="demand_growth_by_workload: unknown workload 'nope'"):
        horizon(s)
    with pytest.raises(ScenarioError, match="years: the horizon is 1 to 5 years"):
        horizon(load_preset("startup-rented"), years=7)


def _contested() -> Scenario:
    """The bank with nothing sovereign, 12× the demand, no failure cost and no node bought yet: owning pays at
    today's API prices and stops paying as they fall."""
    data = load_preset("singapore-bank").model_dump()
    for w in data["workloads"]:
        w.update(sovereign=False, failure_cost_usd=0.0, avg_requests_per_s=w["avg_requests_per_s"] * 12)
        w["peak_requests_per_s"] *= 12
    data["nodes"][0]["nodes_owned"] = 0
    return with_finance(Scenario.model_validate(data), rental_price_change_per_year=-0.1)


def test_crossover_exists_at_steep_declines_only() -> None:
    s = _contested()
    assert horizon(s, api_change_per_year=0.0).crossover_year is None
    steep = horizon(s, api_change_per_year=-0.6)
    assert steep.crossover_year is not None
    assert str(steep.crossover_year) in steep.crossover_text


@SLOW
@given(st.floats(-0.7, 0.0), st.floats(0.05, 0.3))
def test_a_cheaper_api_never_moves_the_crossover_later(a: float, steeper: float) -> None:
    s = _contested()
    never = 10_000
    slow = horizon(s, api_change_per_year=a).crossover_year or never
    fast = horizon(s, api_change_per_year=max(-0.95, a - steeper)).crossover_year or never
    assert fast <= slow


def _whole_horizons(s: Scenario, rates: tuple[float, ...]) -> tuple[tuple[float, int | None], ...]:
    """The crossover year at each rate from a whole horizon each: what the sensitivity must agree with."""
    return tuple((a, horizon(s, api_change_per_year=a).crossover_year) for a in rates)


@pytest.mark.parametrize("years", [2, 5])
def test_the_sensitivity_gives_the_crossover_of_a_whole_horizon_at_every_rate(years: int) -> None:
    # the sensitivity re-plans only the plans and years its crossover needs: it must find the same years
    s = _contested().model_copy(update={"finance": FinanceSettings(horizon=HorizonSettings(years=years))})
    rates = (0.0, -0.2, -0.35, -0.5, -0.6, -0.8)
    whole = _whole_horizons(s, rates)
    assert crossover_sensitivity(s, rates) == whole
    assert len({y for _, y in whole}) >= 2  # the rates reach different answers, so the comparison can fail
    assert crossover_sensitivity(s, rates[::-1]) == whole[::-1]  # the first rate is not special


def test_the_sensitivity_beside_a_known_horizon_gives_the_same_years() -> None:
    # a page or report already holds the horizon at the scenario's own rate: its plans and first year are reused
    s = _contested()
    rates = (0.0, -0.2, -0.35, -0.5, -0.6, -0.8)
    shown = horizon(s, api_change_per_year=-0.35)
    assert crossover_sensitivity(s, rates, known=shown) == _whole_horizons(s, rates)
    with pytest.raises(ValueError, match="covers 5 years"):
        crossover_sensitivity(s, rates, years=2, known=shown)


@SLOW
@given(st.sampled_from(["singapore-bank", "batch-shop", "single-workload"]), st.floats(0.2, 5.0))
def test_the_sensitivity_agrees_with_whole_horizons_on_presets(preset: str, api_factor: float) -> None:
    data = load_preset(preset).model_dump()
    for a in data["apis"]:  # dearer or cheaper APIs move the crossover between years
        for key in ("input_usd_per_mtok", "output_usd_per_mtok", "cached_input_usd_per_mtok"):
            if a.get(key) is not None:
                a[key] *= api_factor
    s = Scenario.model_validate(data)
    rates = (0.0, -0.3, -0.6)
    whole = _whole_horizons(s, rates)
    assert crossover_sensitivity(s, rates) == whole
    assert crossover_sensitivity(s, rates, known=horizon(s)) == whole


def test_demand_beyond_the_model_bounds_is_a_clear_message() -> None:
    data = with_finance(load_preset("startup-rented"), demand_growth_per_year=5.0).model_dump()
    data["workloads"][0].update(avg_requests_per_s=900_000.0, peak_requests_per_s=900_000.0)
    # year 2: 900,000 · 6 = 5.4 million req/s, above the 1 million a workload may have
    with pytest.raises(ScenarioError) as info:
        horizon(Scenario.model_validate(data))
    name = data["workloads"][0]["name"]
    assert info.value.problems[0] == (
        f"In year 2 of the horizon the average demand of “{name}” would reach 5,400,000 requests per second, above "
        "the 1,000,000 requests per second the model accepts: lower the demand growth or plan fewer years"
    )


def test_a_scenario_with_nothing_to_compare_is_still_planned() -> None:
    data = load_preset("singapore-bank").model_dump()
    data.update(nodes=[], owned_options=[])
    for w in data["workloads"]:
        w["quality_overrides"] = {k: v for k, v in w["quality_overrides"].items() if not k.startswith("owned")}
    h = horizon(Scenario.model_validate(data), years=2)
    assert [p.plan_id for p in h.plans] == ["as-planned"]
    assert not h.plans[0].serves_everything  # the sovereign workloads have nowhere to go
    assert h.crossover_year is None
