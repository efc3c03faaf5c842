"""Reading the finance tables of ``data/prices/``: billing terms, FX rates, grid carbon intensity.

Each table keeps ``source``, ``as_of`` and ``confidence`` per row like the rest of the catalog. A bad cell
raises :class:`FinanceDataError` naming the file, line and problem.
"""

from __future__ import annotations

import csv
import datetime as dt
from functools import cache
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, Field, ValidationError

from economics._base import Frozen
from economics.finance.terms import RentalTerms
from economics.prices import Confidence, IsoDate

DATA_DIR = Path(__file__).resolve().parent.parent.parent / "data" / "prices"

__all__ = [
    "ApiTierRow",
    "BillingTermsRow",
    "FinanceDataError",
    "FxRateRow",
    "GridIntensityRow",
    "api_tiers",
    "billing_terms",
    "fx_rates",
    "grid_intensities",
]


class FinanceDataError(ValueError):
    """A finance table could not be read: which file, which line, what is wrong."""


class _Provenance(Frozen):
    source: str = Field(min_length=1, max_length=1000, description="where the number was read [-]")
    as_of: IsoDate = Field(description="date the source was published or read [-]")
    confidence: Confidence = Field(description="how far the number can be trusted [-]")
    notes: str = Field(default="", max_length=2000, description="assumptions and caveats [-]")


class BillingTermsRow(_Provenance):
    """The billing terms of one instance price series (``id`` as in ``instances.csv``)."""

    id: str = Field(min_length=1, max_length=64, description="instance price id [-]")
    term_days: float | None = Field(default=None, gt=0, le=1826, description="commitment term [days]")
    upfront_usd_per_gpu: float = Field(default=0.0, ge=0, description="paid at the start of the term [USD/GPU]")
    interruptions_per_hour: float = Field(default=0.0, ge=0, le=10, description="spot reclaims [1/h]")
    interruption_loss_s: float = Field(default=0.0, ge=0, description="work and time lost per reclaim [s]")
    cold_start_s: float = Field(default=0.0, ge=0, description="serverless start-up after idle [s]")
    min_billing_increment_s: float = Field(default=1.0, gt=0, description="serverless billing increment [s]")
    idle_timeout_s: float = Field(default=0.0, ge=0, description="serverless: idle time before scaling to zero [s]")

    def terms(self) -> RentalTerms:
        """These terms as the ``billing`` field of a :class:`~economics.offers.RentedNode`."""
        return RentalTerms(
            upfront_usd_per_gpu=self.upfront_usd_per_gpu,
            term_days=self.term_days,
            interruptions_per_hour=self.interruptions_per_hour,
            interruption_loss_s=self.interruption_loss_s,
            cold_start_s=self.cold_start_s,
            min_billing_increment_s=self.min_billing_increment_s,
            idle_timeout_s=self.idle_timeout_s,
        )


class FxRateRow(_Provenance):
    """Units of a currency per US dollar on a date."""

    currency: str = Field(pattern=r"^[A-Z]{3}$", description="ISO 4217 code [-]")
    units_per_usd: float = Field(gt=0, le=1e6, description="exchange rate [currency/USD]")


class GridIntensityRow(_Provenance):
    """Average CO₂ emitted per kWh of grid electricity in a region and year."""

    region: str = Field(min_length=1, max_length=64, description="region id, e.g. 'sg' [-]")
    name: str = Field(min_length=1, max_length=120, description="display name [-]")
    year: int = Field(ge=1990, le=2100, description="year the factor describes [-]")
    kg_co2e_per_kwh: float = Field(ge=0, le=2, description="grid emission factor [kg CO2e/kWh]")


class ApiTierRow(_Provenance):
    """An API price series' long-context tier and prompt-cache terms (``id`` as in ``api.csv``)."""

    id: str = Field(min_length=1, max_length=64, description="API price id [-]")
    long_context_threshold_tokens: int | None = Field(default=None, ge=1, description="tier threshold [tokens]")
    long_context_input_usd_per_mtok: float | None = Field(default=None, ge=0, le=1000, description="[USD/Mtok]")
    long_context_output_usd_per_mtok: float | None = Field(default=None, ge=0, le=1000, description="[USD/Mtok]")
    cached_input_usd_per_mtok: float | None = Field(default=None, ge=0, le=1000, description="cache read [USD/Mtok]")
    cache_write_usd_per_mtok: float | None = Field(default=None, ge=0, le=1000, description="cache write [USD/Mtok]")
    cache_lifetime_s: float | None = Field(default=None, gt=0, description="cache lifetime, refreshed on use [s]")

    def offer_fields(self) -> dict[str, float | int]:
        """The non-empty fields, named as on :class:`~economics.offers.ApiOffer`."""
        keys = (
            "long_context_threshold_tokens",
            "long_context_input_usd_per_mtok",
            "long_context_output_usd_per_mtok",
            "cached_input_usd_per_mtok",
            "cache_write_usd_per_mtok",
            "cache_lifetime_s",
        )
        return {k: v for k in keys if (v := getattr(self, k)) is not None}


RowT = TypeVar("RowT", bound=BaseModel)


def _read(name: str, model: type[RowT]) -> tuple[RowT, ...]:
    path = DATA_DIR / name
    rows: list[RowT] = []
    with path.open(newline="", encoding="utf-8") as f:
        for line, raw in enumerate(csv.DictReader(f), start=2):
            data = {k: (v if v != "" else None) for k, v in raw.items() if k is not None}
            data = {k: v for k, v in data.items() if v is not None}
            try:
                rows.append(model.model_validate(data))
            except ValidationError as e:
                first = e.errors()[0]
                column = ".".join(str(p) for p in first["loc"])
                raise FinanceDataError(f"{name}, line {line}, column '{column}': {first['msg']}") from None
    return tuple(rows)


@cache
def billing_terms() -> dict[str, BillingTermsRow]:
    """``instance price id → billing terms`` from ``data/prices/billing_terms.csv``."""
    return {r.id: r for r in _read("billing_terms.csv", BillingTermsRow)}


@cache
def api_tiers() -> dict[str, ApiTierRow]:
    """``API price id → long-context tier and cache terms`` from ``data/prices/api_tiers.csv``."""
    return {r.id: r for r in _read("api_tiers.csv", ApiTierRow)}


@cache
def fx_rates() -> tuple[FxRateRow, ...]:
    """Every dated FX rate in ``data/prices/fx_rates.csv``."""
    return _read("fx_rates.csv", FxRateRow)


@cache
def grid_intensities() -> tuple[GridIntensityRow, ...]:
    """Every dated grid emission factor in ``data/prices/grid_intensity.csv``."""
    return _read("grid_intensity.csv", GridIntensityRow)


def latest_fx(currency: str, on: dt.date) -> FxRateRow | None:
    """The newest FX row for ``currency`` published on or before ``on``; None when there is none."""
    rows = [r for r in fx_rates() if r.currency == currency and r.as_of <= on]
    return max(rows, key=lambda r: r.as_of) if rows else None


def latest_grid(region: str, on: dt.date) -> GridIntensityRow | None:
    """The newest grid factor for ``region`` describing a year up to ``on``'s; None when there is none."""
    rows = [r for r in grid_intensities() if r.region == region and r.year <= on.year]
    return max(rows, key=lambda r: r.year) if rows else None
