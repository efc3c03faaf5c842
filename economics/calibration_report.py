"""The accuracy report over both shared calibration sets: one function the benchmark script, the README
section and the Accuracy page share (so they cannot disagree)."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from economics.calibration import Exclusion, error_breakdown, evaluate, map_row
from economics.calibration_rows import map_measured_row
from economics.catalog import load_catalog
from economics.hardware import Efficiency

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
SETS = (
    ("ar-74", DATA / "calibration_ar_throughput.csv", map_row),
    ("2026-12", DATA / "measured_throughput_2026-12.csv", map_measured_row),
)


@dataclass(frozen=True)
class AccuracyReport:
    """Per-row errors of every predicted row, their breakdown and the excluded rows with reasons."""

    table: pd.DataFrame  # error_table() rows of both sets, with a ``dataset`` column
    breakdown: pd.DataFrame  # error_breakdown() of that table
    excluded: tuple[tuple[str, Exclusion], ...]  # (dataset, exclusion)


def calibration_report(efficiency: Efficiency | None = None) -> AccuracyReport:
    """Predict and score both shared calibration sets with ``efficiency`` (default factors when None)."""
    catalog = load_catalog()
    tables, excluded = [], []
    for name, path, mapper in SETS:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        rep = evaluate(rows, catalog.gpus, catalog.models, efficiency, mapper=mapper)
        tables.append(rep.table.assign(dataset=name))
        excluded += [(name, e) for e in rep.excluded]
    table = pd.concat(tables, ignore_index=True)
    return AccuracyReport(table=table, breakdown=error_breakdown(table), excluded=tuple(excluded))
