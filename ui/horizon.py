"""The Horizon page's inputs, cached computation and tables (the page itself only lays them out)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from economics.currency import DisplayRate, to_display
from economics.finance.horizon import Horizon, crossover_sensitivity, horizon, price_trends
from economics.finance.settings import FinanceSettings, HorizonSettings
from economics.io.catalog import load_catalog
from economics.io.scenarios import canonical_json
from economics.offers import OwnedNode
from economics.scenario import Scenario
from ui.format import md_escape
from ui.state import with_item

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
        format="%.1f",  # the default is rounded to 0.1 point; "%.2f" showed -40.30
        key="horizon_api",
        help=f"Default {trends.api_basis}.",
    )
    rental = c3.number_input(
        "Rented GPU prices, change per year [%]",
        -95.0,
        500.0,
        round(100 * r_default, 1),
        step=5.0,
        format="%.1f",
        key="horizon_rental",
        help=f"Default {trends.rental_basis}. Reservations keep their price for their term.",
    )
    growth = c4.number_input(
        "Demand growth per year [%]",
        -95.0,
        500.0,
        round(100 * h.demand_growth_per_year, 1),
        step=5.0,
        format="%.1f",
        key="horizon_growth",
        help="every workload's requests per second grow by this each year",
    )
    new_h = h.model_copy(
        update={
            "years": int(years),
            # an input left at its (rounded) default keeps the exact default, so the page matches the CLI
            "api_price_change_per_year": _unless_default(api, a_default, h.api_price_change_per_year),
            "rental_price_change_per_year": _unless_default(rental, r_default, h.rental_price_change_per_year),
            "demand_growth_per_year": growth / 100.0,
        }
    )
    return s.model_copy(
        update={"finance": settings.model_copy(update={"horizon": HorizonSettings.model_validate(new_h.model_dump())})}
    )


def books_inputs(s: Scenario) -> Scenario:
    """Resale value, book life and maintenance contract of each owned node; returns the edited scenario."""
    for node in s.nodes:
        if not isinstance(node, OwnedNode):
            continue
        c1, c2, c3 = st.columns(3)
        name = md_escape(node.name)  # a widget label is markdown; the name was typed by whoever made the link
        resale = c1.number_input(
            f"{name}: resale at end of life [% of purchase price]",
            0.0,
            99.0,
            round(100 * node.residual_fraction, 1),
            step=5.0,
            format="%.1f",
            key=f"horizon_resale_{node.id}",
            help="what the node sells for when it is replaced; lowers both the book and the economic cost",
        )
        book_life = c2.number_input(
            f"{name}: book life [years]",
            0.5,
            15.0,
            float(node.book_life_years or node.economic_life_years),
            step=0.5,
            format="%.1f",  # "4.00 years" read as false precision
            key=f"horizon_book_life_{node.id}",
            help="straight-line depreciation period in the books (Microsoft and Alphabet: 6 years, Meta: 5)",
        )
        maintenance = c3.number_input(
            f"{name}: maintenance contract [USD/year]",
            0.0,
            1e7,
            float(node.maintenance_usd_per_year),
            step=1000.0,
            key=f"horizon_maintenance_{node.id}",
            help="support contract on top of the operations share of CapEx",
        )
        edited = node.model_copy(
            update={
                "residual_fraction": resale / 100.0,
                "book_life_years": None if book_life == node.economic_life_years else book_life,
                "maintenance_usd_per_year": maintenance,
            }
        )
        if edited != node:
            s = with_item(s, "nodes", OwnedNode.model_validate(edited.model_dump()))
    return s


def _unless_default(percent: float, default: float, stored: float | None) -> float | None:
    """``percent``/100, or what the scenario had when the input still shows the rounded default [1/year]."""
    return stored if percent == round(100 * default, 1) else percent / 100.0


@st.cache_resource(max_entries=32, show_spinner="Re-planning every year…")
def _horizon(key: str, _s: Scenario) -> tuple[Horizon, Sensitivity]:
    h = horizon(_s)
    return h, crossover_sensitivity(_s, known=h)


def compute(s: Scenario) -> tuple[Horizon, Sensitivity]:
    """:func:`economics.finance.horizon.horizon` and its sensitivity, cached per scenario."""
    return _horizon(canonical_json(s), s)


def npv_frame(h: Horizon, rate: DisplayRate) -> pd.DataFrame:
    """One row per plan: its bill per year and its NPV, in the display currency. A plan's name in parentheses
    ("Rent reserved instead of owning (GCP a3-highgpu-8g reserved-1y, in-country)") is split: the pinned first
    column held all of it and, at 1,024 px, left no room for the years."""
    rows = []
    for p in h.plans:
        name, _, detail = p.name.partition(" (")
        row: dict[str, object] = {"Plan": name, f"NPV [{rate.code}]": round(to_display(p.npv_usd, rate))}
        for b in p.bills:
            row[f"{b.year} [{rate.code}]"] = round(to_display(b.total_usd, rate))
        row["Serves every workload"] = "yes" if p.serves_everything else "no"
        row["Which offer"] = detail.removesuffix(")")
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty or frame["Which offer"].astype(bool).any():
        return frame
    return frame.drop(columns="Which offer")


def same_bills(h: Horizon) -> str | None:
    """A sentence naming the plans whose bills are the same in every year (to the dollar), or None.

    In a scenario with no owned node whose APIs win every workload, "Rent only", each rental mode and "APIs
    only" all re-plan to the same APIs: five identical rows and one line on the chart, with nothing to say
    they coincide rather than repeat by mistake."""
    groups: dict[tuple[int, ...], list[str]] = {}
    for p in h.plans:
        groups.setdefault(tuple(round(b.total_usd) for b in p.bills), []).append(p.name)
    alike = [names for names in groups.values() if len(names) > 1]
    if not alike:
        return None
    if len(alike) == 1 and len(alike[0]) == len(h.plans):
        return (
            "All the plans come to the same bill every year: each re-plans to the same options, so the choice "
            "between them does not change the cost here."
        )
    groups_text = "; ".join(f"{', '.join(n[:-1])} and {n[-1]}" for n in alike)
    return f"{groups_text} come to the same bill every year: they re-plan to the same options."


def books_frame(h: Horizon, rate: DisplayRate) -> pd.DataFrame:
    """Book (straight-line) and economic (capital recovery) cost of each owned node, one column per node."""
    # (label, per, field of each owned node's books). Short labels: the caption above says what each view holds,
    # and at 1,024 px the long ones ("… capital recovery net of resale + maintenance") pushed the node's figures
    # out of view behind the pinned first column
    measures = (
        ("Book view (straight-line)", "/year", "book_usd_per_year"),
        ("Economic view (capital recovery)", "/year", "economic_usd_per_year"),
        ("Difference: cost of money tied up", "/year", "interest_usd_per_year"),
        ("Resale value at end of life", "", "residual_usd"),
    )
    rows = []
    for label, per, field in measures:
        row: dict[str, object] = {"Measure": f"{label} [{rate.code}{per}]"}
        for b in h.books:
            row[b.node_name or b.node_id] = round(to_display(float(getattr(b, field)), rate))
        rows.append(row)
    return pd.DataFrame(rows)
