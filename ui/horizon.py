"""The Horizon page's inputs, cached computation and tables (the page itself only lays them out)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from economics.catalog import load_catalog
from economics.currency import DisplayRate, to_display
from economics.finance.horizon import Horizon, crossover_sensitivity, horizon, price_trends
from economics.finance.settings import FinanceSettings, HorizonSettings
from economics.scenario import Scenario
from economics.share import canonical_json

Sensitivity = tuple[tuple[float, int | None], ...]


def horizon_inputs(s: Scenario) -> Scenario:
    """Years, API and rental price change and demand growth; returns the scenario with them in ``finance``."""
    settings = s.finance or FinanceSettings()
    h = settings.horizon
    trends = price_trends(load_catalog(), s.review_date)
    a_default = h.api_price_change_per_year if h.api_price_change_per_year is not None else trends.api_change_per_year
    r_default = (
        h.rental_price_change_per_year if h.rental_price_change_per_year is not None else trends.rental_change_per_year
    )
    c1, c2, c3, c4 = st.columns(4)
    years = c1.slider("Years", 1, 5, h.years, key="horizon_years", help="each year is re-planned from scratch")
    api = c2.number_input(
        "API prices, change per year [%]",
        -95.0,
        500.0,
        round(100 * a_default, 1),
        step=5.0,
        key="horizon_api",
        help=f"Default {trends.api_basis}.",
    )
    rental = c3.number_input(
        "Rented GPU prices, change per year [%]",
        -95.0,
        500.0,
        round(100 * r_default, 1),
        step=5.0,
        key="horizon_rental",
        help=f"Default {trends.rental_basis}. Reservations keep their price for their term.",
    )
    growth = c4.number_input(
        "Demand growth per year [%]",
        -95.0,
        500.0,
        round(100 * h.demand_growth_per_year, 1),
        step=5.0,
        key="horizon_growth",
        help="every workload's requests per second grow by this each year",
    )
    new_h = h.model_copy(
        update={
            "years": int(years),
            "api_price_change_per_year": api / 100.0,
            "rental_price_change_per_year": rental / 100.0,
            "demand_growth_per_year": growth / 100.0,
        }
    )
    return s.model_copy(
        update={"finance": settings.model_copy(update={"horizon": HorizonSettings.model_validate(new_h.model_dump())})}
    )


@st.cache_resource(max_entries=32, show_spinner="Re-planning every year…")
def _horizon(key: str, _s: Scenario) -> tuple[Horizon, Sensitivity]:
    return horizon(_s), crossover_sensitivity(_s)


def compute(s: Scenario) -> tuple[Horizon, Sensitivity]:
    """:func:`economics.finance.horizon.horizon` and its sensitivity, cached per scenario."""
    return _horizon(canonical_json(s), s)


def npv_frame(h: Horizon, rate: DisplayRate) -> pd.DataFrame:
    """One row per plan: its bill per year and its NPV, in the display currency."""
    rows = []
    for p in h.plans:
        row: dict[str, object] = {"Plan": p.name, "Serves every workload": "yes" if p.serves_everything else "no"}
        for b in p.bills:
            row[f"{b.year} [{rate.code}]"] = round(to_display(b.total_usd, rate))
        row[f"NPV [{rate.code}]"] = round(to_display(p.npv_usd, rate))
        rows.append(row)
    return pd.DataFrame(rows)


def books_frame(h: Horizon, rate: DisplayRate) -> pd.DataFrame:
    """Book (straight-line) and economic (capital recovery) cost of each owned node, per year."""
    return pd.DataFrame(
        [
            {
                "Owned node": b.node_id,
                f"Book: straight-line depreciation + maintenance [{rate.code}/year]": round(
                    to_display(b.book_usd_per_year, rate)
                ),
                f"Economic: capital recovery net of resale + maintenance [{rate.code}/year]": round(
                    to_display(b.economic_usd_per_year, rate)
                ),
                f"Cost of the money tied up [{rate.code}/year]": round(to_display(b.interest_usd_per_year, rate)),
                f"Resale at end of life [{rate.code}]": round(to_display(b.residual_usd, rate)),
            }
            for b in h.books
        ]
    )
