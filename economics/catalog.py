"""The catalog: GPUs, models, decoding-scheme presets and dated prices, as the domain sees them.

:class:`Catalog` is what the repository's ``data/`` holds, validated and in SI units; it is read by
:func:`economics.io.catalog.load_catalog` (the loader lives in the I/O package, with the CSV row models), and
:class:`CatalogError` lists every bad cell of the files by file, line and column.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field

from economics._base import Frozen
from economics.hardware import GPU, Precision
from economics.model import ModelSpec
from economics.prices import (
    ApiPrice,
    Confidence,
    InstancePrice,
    OwnedInput,
    PriceLookupError,
    in_force,
    is_in_force,
    sorted_periods,
)
from economics.schemes import DiffusionScheme, SpeculativeScheme
from economics.words import plural

__all__ = [
    "Catalog",
    "CatalogError",
    "CatalogKind",
    "CatalogProblem",
    "ModelReference",
    "PriceKind",
    "PriceLookupError",
    "Provenance",
]

CatalogKind = Literal["gpus", "models", "speculative", "diffusion"]
PriceKind = Literal["instances", "api", "owned"]


# ---- public side tables --------------------------------------------------------------------------------------
class Provenance(Frozen):
    """Where a catalog row comes from."""

    source: str = Field(min_length=1, max_length=1000, description="where the numbers were read [-]")
    as_of: dt.date = Field(description="date the source was published or read [-]")
    confidence: Confidence = Field(description="how far the row can be trusted [-]")
    notes: str = Field(default="", max_length=2000, description="assumptions and caveats [-]")


class ModelReference(Frozen):
    """Published parameter counts of a model (to check the architecture against) and its shipped precision."""

    native_precision: Precision = Field(description="precision the official checkpoint ships in [-]")
    published_total_params: float = Field(gt=0, description="total parameters the developer publishes [count]")
    published_active_params: float = Field(gt=0, description="active parameters per token, as published [count]")
    published_active_basis: Literal["all_weights", "excl_input_embedding"] = Field(
        description="whether the published active count includes the input-embedding lookup [-]"
    )
    published_params_source: str = Field(min_length=1, max_length=1000, description="where the counts come from")


# ---- errors ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CatalogProblem:
    """One bad cell, row, header or file. ``line`` is 1-based (1 = the header; 0 = the file as a whole)."""

    file: str
    line: int
    column: str
    message: str

    def __str__(self) -> str:
        column = f", column '{self.column}'" if self.column else ""
        return f"{self.file}, line {self.line}{column}: {self.message}"


class CatalogError(ValueError):
    """Every problem found in the catalog files, one per line of the message."""

    def __init__(self, problems: Iterable[CatalogProblem]) -> None:
        self.problems: tuple[CatalogProblem, ...] = tuple(problems)
        lines = "\n".join(f"  {p}" for p in self.problems)
        super().__init__(f"{plural(len(self.problems), 'problem')} in the catalog:\n{lines}")


# ---- the catalog -------------------------------------------------------------------------------------------
class Catalog(Frozen):
    """Everything in ``data/``, validated. Treat the dicts as read-only: the object is cached and shared."""

    data_dir: Path = Field(description="directory the catalog was read from")
    gpus: dict[str, GPU] = Field(description="GPUs by id, in file order")
    models: dict[str, ModelSpec] = Field(description="model architectures by id (BF16 byte widths)")
    model_references: dict[str, ModelReference] = Field(description="published counts and native precision")
    speculative: dict[str, SpeculativeScheme] = Field(description="speculative-decoding presets by id")
    diffusion: dict[str, DiffusionScheme] = Field(description="text-diffusion presets by id")
    provenance: dict[CatalogKind, dict[str, Provenance]] = Field(description="kind -> id -> source, as_of, notes")
    instance_prices: tuple[InstancePrice, ...] = Field(description="rented-instance price history")
    api_prices: tuple[ApiPrice, ...] = Field(description="API price history")
    owned_inputs: tuple[OwnedInput, ...] = Field(description="owned-hardware inputs and defaults")

    def ids(self) -> dict[CatalogKind, tuple[str, ...]]:
        """Ids of the non-price tables, in file order."""
        return {
            "gpus": tuple(self.gpus),
            "models": tuple(self.models),
            "speculative": tuple(self.speculative),
            "diffusion": tuple(self.diffusion),
        }

    def price_ids(self) -> dict[PriceKind, tuple[str, ...]]:
        """Series ids of the price tables, in file order (a series may have several dated rows)."""
        return {
            "instances": tuple(dict.fromkeys(r.id for r in self.instance_prices)),
            "api": tuple(dict.fromkeys(r.id for r in self.api_prices)),
            "owned": tuple(dict.fromkeys(r.id for r in self.owned_inputs)),
        }

    def instance_price_as_of(self, instance_id: str, date: dt.date) -> InstancePrice:
        """The instance price in force on ``date``; :class:`PriceLookupError` if none."""
        return in_force(self.instance_prices, instance_id, date, "instance price")

    def api_price_as_of(self, api_id: str, date: dt.date) -> ApiPrice:
        """The API price in force on ``date``; :class:`PriceLookupError` if none."""
        return in_force(self.api_prices, api_id, date, "API price")

    def owned_input_as_of(self, owned_id: str, date: dt.date) -> OwnedInput:
        """The owned-hardware input in force on ``date``; :class:`PriceLookupError` if none."""
        return in_force(self.owned_inputs, owned_id, date, "owned input")

    def instance_price_history(self, instance_id: str) -> tuple[InstancePrice, ...]:
        """Every row of one instance series, oldest first."""
        return tuple(sorted_periods([r for r in self.instance_prices if r.id == instance_id]))

    def api_price_history(self, api_id: str) -> tuple[ApiPrice, ...]:
        """Every row of one API series, oldest first."""
        return tuple(sorted_periods([r for r in self.api_prices if r.id == api_id]))

    def instance_prices_in_force(self, date: dt.date) -> tuple[InstancePrice, ...]:
        """One row per instance series that has a price on ``date``, in file order."""
        return tuple(r for r in self.instance_prices if is_in_force(r, date))

    def api_prices_in_force(self, date: dt.date) -> tuple[ApiPrice, ...]:
        """One row per API series that has a price on ``date``, in file order."""
        return tuple(r for r in self.api_prices if is_in_force(r, date))
