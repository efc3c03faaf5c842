"""A scenario's finance settings: display currency and FX rate, cost of capital, carbon, the multi-year horizon.

They ride on :class:`economics.scenario.Scenario` as the optional ``finance`` field; a scenario without it
(every file saved before issue 14) behaves exactly as before: USD, no carbon price, a 5-year horizon with
the default rates derived from the catalog's price history.
"""

from __future__ import annotations

import datetime as dt

from pydantic import Field, ValidationInfo, field_validator

from economics._base import Frozen

__all__ = ["FinanceSettings", "HorizonSettings"]


class HorizonSettings(Frozen):
    """How the world changes year by year over the planning horizon."""

    years: int = Field(default=5, ge=1, le=5, description="years planned, each re-planned [years]")
    demand_growth_per_year: float = Field(
        default=0.0, ge=-0.95, le=5.0, description="growth of every workload's demand [1/year]"
    )
    demand_growth_by_workload: dict[str, float] = Field(
        default_factory=dict, description="workload id → its own demand growth, overriding the default [1/year]"
    )
    api_price_change_per_year: float | None = Field(
        default=None,
        ge=-0.95,
        le=5.0,
        description="API list-price change; None = derived from the catalog's history [1/year]",
    )
    rental_price_change_per_year: float | None = Field(
        default=None,
        ge=-0.95,
        le=5.0,
        description="rented GPU price change; None = derived from the catalog's history [1/year]",
    )
    hardware_price_change_per_year: float | None = Field(
        default=None,
        ge=-0.95,
        le=5.0,
        description="price of a replacement node at refresh; None = the rental price change [1/year]",
    )


class FinanceSettings(Frozen):
    """Money the way finance books it: the display currency, the discount rate, carbon and the horizon."""

    display_currency: str = Field(default="USD", pattern=r"^[A-Z]{3}$", description="ISO 4217 code shown [-]")
    fx_units_per_usd: float | None = Field(
        default=None,
        gt=0,
        le=1e6,
        description="display-currency units per US dollar; None = the catalog's newest rate on the review date "
        "[currency/USD]",
    )
    fx_as_of: dt.date | None = Field(default=None, description="date of the FX rate [-]")

    @field_validator("fx_units_per_usd")
    @classmethod
    def _a_dollar_is_a_dollar(cls, rate: float | None, info: ValidationInfo) -> float | None:
        """A rate of 5 with money shown in USD multiplied every amount by 5 and still called it USD."""
        if rate is not None and rate != 1.0 and info.data.get("display_currency") == "USD":
            raise ValueError(f"money shown in US dollars needs a rate of 1 (or none), not {rate:g}")
        return rate

    fx_source: str = Field(default="", max_length=500, description="where the FX rate comes from [-]")
    cost_of_capital_per_year: float | None = Field(
        default=None,
        ge=0,
        le=0.5,
        description="discount rate for NPV; None = the owned nodes' cost of capital (8% without one) [1/year]",
    )
    grid_region: str | None = Field(
        default=None, max_length=64, description="region of the owned nodes' grid, e.g. 'sg' [-]"
    )
    grid_kg_co2e_per_kwh: float | None = Field(
        default=None, ge=0, le=2, description="grid emission factor; None = the catalog's for grid_region [kg/kWh]"
    )
    carbon_price_usd_per_tonne: float = Field(
        default=0.0, ge=0, le=10_000, description="carbon price added to owned electricity; 0 = none [USD/t CO2e]"
    )
    horizon: HorizonSettings = Field(default_factory=HorizonSettings)
