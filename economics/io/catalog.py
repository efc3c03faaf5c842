"""Reading the catalog (:class:`~economics.catalog.Catalog`) from the repository's ``data/`` CSV files.

One loader, :func:`load_catalog`, reads every CSV under ``data/catalog/`` and ``data/prices/``, converts the
human units of the files (TFLOP/s, TB/s, GB, GB/s, ms) to the SI units of the domain models with the
constants of :mod:`economics.units`, validates every row, checks ids and cross-references (a price's
``gpu_id`` must be a catalog GPU), and raises a single :class:`CatalogError` that lists every bad cell by
file, line and column. Nothing is read from outside ``data/``; ``data/README.md`` documents each file.

>>> catalog = load_catalog()
>>> catalog.gpus["h100-sxm"].hbm_capacity_bytes, catalog.gpus["h100-sxm"].peak_flops_bf16_per_s
(80000000000.0, 989400000000000.0)
>>> import datetime as dt
>>> catalog.instance_price_as_of("aws-p5.48xlarge-on-demand", dt.date(2025, 1, 1)).usd_per_instance_hour
98.32
"""

from __future__ import annotations

import csv
import datetime as dt
import functools
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from economics.catalog import Catalog, CatalogError, CatalogProblem
from economics.io._catalog_rows import (
    GPU_COLUMNS,
    SPECULATIVE_COLUMNS,
    DiffusionRow,
    GpuRow,
    ModelRow,
    SpeculativeRow,
)
from economics.prices import ApiPrice, InstancePrice, OwnedInput

__all__ = ["DATA_DIR", "FILES", "load_catalog"]

#: The repository's data directory (a sibling of the ``economics`` package).
DATA_DIR = Path(__file__).resolve().parent.parent.parent / "data"

FILES: dict[str, str] = {
    "gpus": "catalog/gpus.csv",
    "models": "catalog/models.csv",
    "speculative": "catalog/speculative.csv",
    "diffusion": "catalog/diffusion.csv",
    "instances": "prices/instances.csv",
    "api": "prices/api.csv",
    "owned": "prices/owned.csv",
}


def load_catalog(data_dir: Path | None = None) -> Catalog:
    """Read and validate every catalog and price file under ``data_dir`` (default: the repository's ``data/``).

    Results are cached per resolved directory. Raises :class:`CatalogError` listing every problem.
    """
    return _load_cached(Path(data_dir if data_dir is not None else DATA_DIR).resolve())


@functools.lru_cache(maxsize=16)
def _load_cached(data_dir: Path) -> Catalog:
    return _Loader(data_dir).load()


# ---- the loader ----------------------------------------------------------------------------------------------
RowT = TypeVar("RowT", bound=BaseModel)
OutT = TypeVar("OutT")


@dataclass
class _Loader:
    data_dir: Path
    problems: list[CatalogProblem] = field(default_factory=list)
    ids_seen: dict[str, set[str]] = field(default_factory=dict)  # every id cell, even of invalid rows

    def load(self) -> Catalog:
        gpu_rows = self._rows("gpus", GpuRow)
        model_rows = self._rows("models", ModelRow)
        spec_rows = self._rows("speculative", SpeculativeRow)
        diff_rows = self._rows("diffusion", DiffusionRow)
        instances = self._rows("instances", InstancePrice)
        api = self._rows("api", ApiPrice)
        owned = self._rows("owned", OwnedInput)

        gpus = self._convert("gpus", gpu_rows, GpuRow.to_domain, GPU_COLUMNS)
        models = self._convert("models", model_rows, ModelRow.to_domain, {})
        speculative = self._convert("speculative", spec_rows, SpeculativeRow.to_domain, SPECULATIVE_COLUMNS)
        diffusion = self._convert("diffusion", diff_rows, DiffusionRow.to_domain, {})

        gpu_ids, model_ids = self.ids_seen.get("gpus", set()), self.ids_seen.get("models", set())
        self._references("instances", instances, "gpu_id", gpu_ids)
        self._references("api", api, "model_id", model_ids)
        self._references("owned", owned, "gpu_id", gpu_ids)
        self._series("instances", instances, ("provider", "sku", "gpu_id", "gpus_per_instance", "pricing_type"))
        self._series("api", api, ("provider", "tier", "model_id"))
        self._series("owned", owned, ("parameter", "gpu_id", "gpus"))
        if self.problems:
            raise CatalogError(self.problems)
        return Catalog(
            data_dir=self.data_dir,
            gpus=gpus,
            models=models,
            model_references={row.id: row.reference() for _, row in model_rows},
            speculative=speculative,
            diffusion=diffusion,
            provenance={
                "gpus": {row.id: row.provenance() for _, row in gpu_rows},
                "models": {row.id: row.provenance() for _, row in model_rows},
                "speculative": {row.id: row.provenance() for _, row in spec_rows},
                "diffusion": {row.id: row.provenance() for _, row in diff_rows},
            },
            instance_prices=tuple(row for _, row in instances),
            api_prices=tuple(row for _, row in api),
            owned_inputs=tuple(row for _, row in owned),
        )

    def _path(self, kind: str) -> Path:
        return self.data_dir / FILES[kind]

    def _problem(self, kind: str, line: int, column: str, message: str) -> None:
        self.problems.append(CatalogProblem(str(self._path(kind)), line, column, message))

    def _rows(self, kind: str, row_model: type[RowT]) -> list[tuple[int, RowT]]:
        """Parse one CSV into validated row models, with the line each row ends on."""
        path = self._path(kind)
        columns = set(row_model.model_fields)
        try:
            # utf-8-sig: a spreadsheet's byte-order mark must not become part of the first column name
            with path.open(newline="", encoding="utf-8-sig") as handle:
                reader = csv.reader(handle)
                try:
                    header = [cell.strip() for cell in next(reader, [])]
                    if not self._header_ok(kind, header, columns):
                        return []
                    records = [(reader.line_num, record) for record in reader]
                except csv.Error as exc:
                    self._problem(kind, reader.line_num, "", f"malformed CSV: {exc}")
                    return []
        except FileNotFoundError:
            self._problem(kind, 0, "", "file not found")
            return []
        except (OSError, UnicodeDecodeError) as exc:
            self._problem(kind, 0, "", f"cannot read the file: {exc}")
            return []
        rows: list[tuple[int, RowT]] = []
        for line, record in records:
            if not any(cell.strip() for cell in record):
                continue  # blank line
            if len(record) != len(header):
                self._problem(kind, line, "", f"expected {len(header)} fields, found {len(record)}")
                continue
            cells = {c: v.strip() for c, v in zip(header, record, strict=True) if c in columns and v.strip()}
            self.ids_seen.setdefault(kind, set()).add(cells.get("id", ""))
            try:
                rows.append((line, row_model.model_validate(cells)))
            except ValidationError as exc:
                self._validation_problems(kind, line, exc, {})
        self._unique_ids(kind, rows)
        return rows

    def _header_ok(self, kind: str, header: list[str], columns: set[str]) -> bool:
        if not header:
            self._problem(kind, 1, "", "empty file: the header row is missing")
            return False
        for column in sorted({c for c in header if header.count(c) > 1}):
            self._problem(kind, 1, column, "duplicate column")
        for column in sorted(set(header) - columns):
            self._problem(kind, 1, column, "unknown column")
        missing = sorted(columns - set(header))
        for column in missing:
            self._problem(kind, 1, column, "missing column")
        return not missing and len(set(header)) == len(header)

    def _validation_problems(self, kind: str, line: int, exc: ValidationError, columns: Mapping[str, str]) -> None:
        for error in exc.errors():
            name = str(error["loc"][0]) if error["loc"] else ""
            value = error.get("input")
            # a converted (SI) value would not match the cell, so show the input only for unconverted columns
            raw = isinstance(value, str | int | float) and name and name not in columns
            shown = f" (got {value!r})" if raw else ""
            message = "a value is required" if error["type"] == "missing" else error["msg"]
            message = message.removeprefix("Value error, ")
            self._problem(kind, line, columns.get(name, name), message + shown)

    def _unique_ids(self, kind: str, rows: list[tuple[int, RowT]]) -> None:
        if kind in ("instances", "api", "owned"):
            return  # price series repeat their id once per period; _series checks the periods
        first: dict[str, int] = {}
        for line, row in rows:
            row_id = str(getattr(row, "id", ""))
            if row_id in first:
                self._problem(kind, line, "id", f"duplicate id {row_id!r} (first on line {first[row_id]})")
            first.setdefault(row_id, line)

    def _convert(
        self,
        kind: str,
        rows: list[tuple[int, RowT]],
        to_domain: Callable[[RowT], OutT],
        columns: Mapping[str, str],
    ) -> dict[str, OutT]:
        out: dict[str, OutT] = {}
        for line, row in rows:
            try:
                out[str(getattr(row, "id", ""))] = to_domain(row)
            except ValidationError as exc:
                self._validation_problems(kind, line, exc, columns)
        return out

    def _references(self, kind: str, rows: list[tuple[int, RowT]], column: str, known: set[str]) -> None:
        for line, row in rows:
            ref = getattr(row, column)
            if ref is not None and ref not in known:
                target = "gpus" if column == "gpu_id" else "models"
                self._problem(kind, line, column, f"unknown id {ref!r}: not in {FILES[target]}")

    def _series(self, kind: str, rows: list[tuple[int, RowT]], identity: tuple[str, ...]) -> None:
        """Rows of one series describe the same offer, and their periods do not overlap."""
        by_id: dict[str, list[tuple[int, RowT]]] = {}
        for line, row in rows:
            by_id.setdefault(str(getattr(row, "id", "")), []).append((line, row))
        for series in by_id.values():
            first_line, first = series[0]
            for line, row in series[1:]:
                for name in identity:
                    if getattr(row, name) != getattr(first, name):
                        self._problem(kind, line, name, f"differs from line {first_line} of the same series")
            ordered = sorted(series, key=lambda lr: getattr(lr[1], "effective_from", None) or dt.date.min)
            for (prev_line, prev), (line, row) in itertools.pairwise(ordered):
                prev_end = getattr(prev, "effective_to", None)
                start = getattr(row, "effective_from", None)
                if start is None or prev_end is None or start < prev_end:
                    self._problem(
                        kind, line, "effective_from", f"period overlaps the row on line {prev_line} of the same series"
                    )
