"""Dated price rows of the catalog and the "row in force on a date" lookup.

Three tables live under ``data/prices/``: rented instances (:class:`InstancePrice`), API list prices
(:class:`ApiPrice`) and owned-hardware inputs (:class:`OwnedInput`). A table keeps its history: one *series*
(an ``id``) has one row per period, ``[effective_from, effective_to)``, with ``effective_to`` empty while the
price is still the latest one known. Periods of a series never overlap (the loader checks it), so at most
one row is in force on any date. ``as_of`` is when the source was read; how stale a price is comes from
``as_of``, not from the period.

Money stays in the units people quote: USD per instance-hour, USD per million tokens, USD per kW-month.
Every such field carries its unit in its name.

>>> import datetime as dt
>>> row = ApiPrice(id="x", provider="p", model_label="X", tier="mid", input_usd_per_mtok=1.0,
...     output_usd_per_mtok=4.0, effective_from=dt.date(2025, 1, 1), source="s", as_of=dt.date(2025, 1, 1),
...     confidence="high")
>>> in_force([row], "x", dt.date(2025, 6, 1)).output_usd_per_mtok
4.0
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from typing import Annotated, Any, Literal, Protocol, TypeVar

from pydantic import BeforeValidator, ConfigDict, Field, model_validator

from economics._base import Frozen
from economics.offers import ApiTier, PricingType

__all__ = [
    "ApiPrice",
    "Confidence",
    "InstancePrice",
    "IsoDate",
    "OwnedInput",
    "OwnedParameter",
    "PriceLookupError",
    "in_force",
    "is_in_force",
    "parse_iso_date",
    "sorted_periods",
]

Confidence = Literal["high", "medium-high", "medium", "low-medium", "low"]

#: Owned-hardware inputs; the names are the fields of :class:`economics.offers.OwnedNode` they feed.
OwnedParameter = Literal[
    "capex_usd",
    "node_power_kw",
    "power_fraction_busy",
    "power_fraction_idle",
    "pue",
    "electricity_usd_per_kwh",
    "colocation_usd_per_kw_month",
    "economic_life_years",
    "cost_of_capital_per_year",
    "ops_fraction_of_capex_per_year",
]

#: Plausible range of each owned parameter, inclusive [unit in the parameter's name].
OWNED_BOUNDS: dict[str, tuple[float, float]] = {
    "capex_usd": (1_000.0, 1e8),
    "node_power_kw": (0.05, 200.0),
    "power_fraction_busy": (0.0, 1.0),
    "power_fraction_idle": (0.0, 1.0),
    "pue": (1.0, 3.0),
    "electricity_usd_per_kwh": (0.0, 2.0),
    "colocation_usd_per_kw_month": (0.0, 2_000.0),
    "economic_life_years": (0.5, 15.0),
    "cost_of_capital_per_year": (0.0, 0.5),
    "ops_fraction_of_capex_per_year": (0.0, 1.0),
}

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_iso_date(value: Any) -> Any:
    """Accept only ``YYYY-MM-DD`` text (or a date); anything else is left for pydantic to reject.

    >>> parse_iso_date("2025-06-10")
    datetime.date(2025, 6, 10)
    """
    if isinstance(value, str):
        if not _ISO_DATE.fullmatch(value):
            raise ValueError(f"expected an ISO date YYYY-MM-DD, got {value!r}")
        return dt.date.fromisoformat(value)
    return value


IsoDate = Annotated[dt.date, BeforeValidator(parse_iso_date)]
_Id = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9._-]*$")]


class _Dated(Frozen):
    """Fields shared by every dated row: the series id, the period and the provenance."""

    model_config = ConfigDict(allow_inf_nan=False)

    id: _Id = Field(description="series id; rows of one series are periods of the same offer [-]")
    effective_to: IsoDate | None = Field(default=None, description="first day no longer in force; None = open [-]")
    source: str = Field(min_length=1, max_length=1000, description="where the number was read [-]")
    as_of: IsoDate = Field(description="date the source was published or read [-]")
    confidence: Confidence = Field(description="how far the number can be trusted [-]")
    notes: str = Field(default="", max_length=2000, description="assumptions and caveats [-]")


class InstancePrice(_Dated):
    """A rented instance (cloud or neocloud) price for one period."""

    provider: str = Field(min_length=1, max_length=64, description="cloud or neocloud [-]")
    sku: str = Field(min_length=1, max_length=120, description="the provider's instance name [-]")
    gpu_id: str = Field(min_length=1, max_length=64, description="id of a catalog GPU [-]")
    gpus_per_instance: int = Field(ge=1, le=72, description="GPUs in the priced unit [count]")
    pricing_type: PricingType = Field(description="on-demand, reserved-1y, reserved-3y, spot, capacity-block [-]")
    region: str = Field(min_length=1, max_length=64, description="region, or 'unspecified' [-]")
    usd_per_instance_hour: float = Field(gt=0, le=10_000, description="price of the whole instance [USD/h]")
    effective_from: IsoDate = Field(description="first day in force [-]")

    @model_validator(mode="after")
    def _validate_period(self) -> InstancePrice:
        _check_period(self.effective_from, self.effective_to)
        return self

    @property
    def usd_per_gpu_hour(self) -> float:
        """``usd_per_instance_hour / gpus_per_instance`` [USD/GPU-h]."""
        return self.usd_per_instance_hour / self.gpus_per_instance

    def node_price_fields(self) -> dict[str, object]:
        """The fields of a ``RentedNode`` this row prices: its price per GPU-hour, pricing type, price id, source
        and date (a node re-read at a review, rented instead of bought over a horizon, or added from the catalog)."""
        return {
            "price_usd_per_gpu_hour": self.usd_per_gpu_hour,
            "pricing_type": self.pricing_type,
            "price_id": self.id,
            "source": self.source,
            "as_of": self.as_of.isoformat(),
        }


class ApiPrice(_Dated):
    """An API list price per million tokens for one period."""

    provider: str = Field(min_length=1, max_length=64, description="vendor [-]")
    model_label: str = Field(min_length=1, max_length=120, description="the vendor's model name [-]")
    tier: ApiTier = Field(description="frontier, reasoning, mid, small, hosted-open, diffusion [-]")
    model_id: str | None = Field(
        default=None, max_length=64, description="catalog model served, for open-weights models [-]"
    )
    input_usd_per_mtok: float = Field(ge=0, le=1000, description="input tokens [USD/Mtok]")
    cached_input_usd_per_mtok: float | None = Field(
        default=None, ge=0, le=1000, description="prompt-cache hits; None = not published [USD/Mtok]"
    )
    output_usd_per_mtok: float = Field(ge=0, le=1000, description="output tokens [USD/Mtok]")
    batch_discount_fraction: float | None = Field(
        default=None, gt=0, lt=1, description="discount of the provider's batch tier; None = none [1]"
    )
    effective_from: IsoDate = Field(description="first day in force [-]")

    @model_validator(mode="after")
    def _validate_period(self) -> ApiPrice:
        _check_period(self.effective_from, self.effective_to)
        return self


class OwnedInput(_Dated):
    """One input of owned-node economics (CapEx, power, colocation, lives, defaults) with its range.

    ``effective_from`` is empty for inputs that are not tied to a period (a spec such as maximum node
    power, or a default): such a row is in force on every date.
    """

    parameter: OwnedParameter = Field(description="the OwnedNode field this feeds; its name carries the unit [-]")
    gpu_id: str | None = Field(default=None, max_length=64, description="catalog GPU, for hardware rows [-]")
    gpus: int | None = Field(default=None, ge=1, le=72, description="GPUs the value covers [count]")
    low: float | None = Field(default=None, description="low end of the range [unit of parameter]")
    value: float = Field(description="value or default [unit of parameter]")
    high: float | None = Field(default=None, description="high end of the range [unit of parameter]")
    effective_from: IsoDate | None = Field(default=None, description="first day in force; None = always [-]")
    assumption: bool = Field(description="True for a default chosen without a source [-]")

    @model_validator(mode="after")
    def _validate_range(self) -> OwnedInput:
        lo, hi = OWNED_BOUNDS[self.parameter]
        for name in ("low", "value", "high"):
            x = getattr(self, name)
            if x is not None and not lo <= x <= hi:
                raise ValueError(f"{name} = {x} is outside [{lo}, {hi}] for {self.parameter}")
        if self.low is not None and self.low > self.value:
            raise ValueError("low must not exceed value")
        if self.high is not None and self.high < self.value:
            raise ValueError("high must not be below value")
        if self.effective_from is not None:
            _check_period(self.effective_from, self.effective_to)
        elif self.effective_to is not None:
            raise ValueError("effective_to needs an effective_from")
        return self


def _check_period(start: dt.date, end: dt.date | None) -> None:
    if end is not None and end <= start:
        raise ValueError(f"effective_to ({end}) must be after effective_from ({start})")


class PriceLookupError(LookupError):
    """No row of a series is in force on the requested date, or the series id is unknown."""


class DatedRow(Protocol):
    """What :func:`in_force` needs of a row."""

    @property
    def id(self) -> str: ...
    @property
    def effective_from(self) -> dt.date | None: ...
    @property
    def effective_to(self) -> dt.date | None: ...


RowT = TypeVar("RowT", bound=DatedRow)


def is_in_force(row: DatedRow, date: dt.date) -> bool:
    """Whether ``date`` lies in ``[effective_from, effective_to)``; an empty start means "always"."""
    start_ok = row.effective_from is None or row.effective_from <= date
    return start_ok and (row.effective_to is None or date < row.effective_to)


def in_force(rows: Iterable[RowT], series_id: str, date: dt.date, kind: str = "price") -> RowT:
    """The row of ``series_id`` whose period ``[effective_from, effective_to)`` contains ``date``.

    Raises :class:`PriceLookupError` naming the id and, when the id exists, the periods it does cover.
    """
    series = [r for r in rows if r.id == series_id]
    if not series:
        raise PriceLookupError(f"unknown {kind} id {series_id!r}")
    for row in series:
        if is_in_force(row, date):
            return row
    raise PriceLookupError(
        f"no {kind} for {series_id!r} is in force on {date.isoformat()}; its rows cover "
        + ", ".join(_period(r) for r in sorted_periods(series))
    )


def sorted_periods(rows: Sequence[RowT]) -> list[RowT]:
    """Rows sorted by start date, undated (always in force) rows first."""
    return sorted(rows, key=lambda r: r.effective_from or dt.date.min)


def _period(row: DatedRow) -> str:
    start = row.effective_from.isoformat() if row.effective_from else "always"
    end = row.effective_to.isoformat() if row.effective_to else "open"
    return f"[{start}, {end})"
