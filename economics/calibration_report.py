"""The accuracy report over both shared calibration sets: one function the benchmark script, the README
section and the Accuracy page share (so they cannot disagree)."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from economics.calibration import Exclusion, error_breakdown, evaluate, map_row
from economics.calibration_rows import map_measured_row
from economics.hardware import Efficiency
from economics.io.catalog import load_catalog

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


#: Plain names of the breakdown's dimensions and groups, for readers of the README and the Accuracy page.
DIMENSION_NAMES = {"all": "all rows", "regime": "regime", "gpu_family": "GPU family", "moe": "architecture",
                   "precision": "precision"}  # fmt: skip
GROUP_NAMES = {"batch-1": "one request at a time (batch 1)", "concurrency": "fixed number of clients",
               "saturation": "saturated (all requests queued / latency target)",
               "int4/q4": "4-bit weights on 16-bit compute (int4/GGUF/MXFP4)",
               "MoE": "mixture of experts (MoE)", "dense": "dense"}  # fmt: skip


def accuracy_markdown(report: AccuracyReport) -> str:
    """The README's accuracy table, generated from :func:`calibration_report` (the Accuracy page shows the
    same breakdown)."""
    n_rows = len(report.table) + len(report.excluded)
    lines = [
        f"Predicted vs measured output tokens/s on all {n_rows} shared measured rows (74 in "
        "`tests/data/calibration_ar_throughput.csv`, 118 in `tests/data/measured_throughput_2026-12.csv`), "
        f"default factors, nothing fitted per row, GPU or model: {len(report.table)} rows predicted, "
        f"{len(report.excluded)} excluded with their reason (`benchmarks/calibration_report.py --excluded`: "
        "speculative decoding, text diffusion, hybrid Mamba, sparse attention, unpublished architectures, unstated "
        "lengths).",
        "",
        "| group | rows | median error | 90th-percentile error | typical bias (+ = model optimistic) |",
        "|---|---|---|---|---|",
    ]
    for _, r in report.breakdown.iterrows():
        dim = DIMENSION_NAMES.get(str(r["dimension"]), str(r["dimension"]))
        group = "" if r["dimension"] == "all" else GROUP_NAMES.get(str(r["group"]), str(r["group"]))
        name = f"**{dim}**" if r["dimension"] == "all" else f"{dim}: {group}"
        lines.append(f"| {name} | {int(r['n'])} | {r['median_ape_pct']:.0f}% | {r['p90_ape_pct']:.0f}% | "
                     f"{r['median_error_pct']:+.0f}% |")  # fmt: skip
    return "\n".join(lines) + "\n"
