"""Predicted vs measured AR decode throughput on the calibration set (docs/calibration.md#golden-values extension).

Usage: ``.venv/bin/python benchmarks/calibration_report.py [--csv PATH] [--rows]``

Reads ``tests/data/calibration_ar_throughput.csv`` (a copy of ``shared/reference/``, source columns kept) and
the catalog, predicts every row with the default efficiency factors of :class:`economics.hardware.Efficiency`
(docs/inputs.md#efficiency; not fitted to these rows), and prints the median and 90th-percentile absolute percentage
error overall, per regime (batch 1, offline saturation) and per framework, then every row and every
excluded row with its reason.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import pandas as pd

from economics.calibration import evaluate
from economics.catalog import load_catalog

ROOT = Path(__file__).resolve().parents[1]

DEFAULT_CSV = ROOT / "tests" / "data" / "calibration_ar_throughput.csv"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", type=Path, default=DEFAULT_CSV, help="calibration CSV")
    parser.add_argument("--rows", action="store_true", help="also print every predicted row")
    args = parser.parse_args(argv)
    with args.csv.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    catalog = load_catalog()
    report = evaluate(rows, catalog.gpus, catalog.models)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_colwidth", 80)
    pd.set_option("display.max_rows", 500)
    print(f"Calibration set: {args.csv.relative_to(ROOT) if args.csv.is_relative_to(ROOT) else args.csv}")
    print(f"{len(rows)} rows: {len(report.table)} predicted, {len(report.excluded)} excluded\n")
    print("Absolute percentage error |predicted − measured| / measured (signed median: > 0 = optimistic)")
    print(report.summary.round(1).to_string(index=False))
    table = report.table.assign(framework=report.table["framework"].str.split(" ").str[0])
    for keys, title in ((["regime", "framework"], "Per framework"), (["regime", "model_id"], "Per model")):
        part = (
            table.groupby(keys)
            .agg(n=("ape_pct", "size"), median_ape_pct=("ape_pct", "median"),
                 p90_ape_pct=("ape_pct", lambda s: s.quantile(0.9)), median_error_pct=("error_pct", "median"))
            .reset_index()
        )  # fmt: skip
        print(f"\n{title}")
        print(part.round(1).to_string(index=False))
    if args.rows:
        cols = ["row", "label", "measured_tokens_per_s", "predicted_tokens_per_s", "error_pct"]
        print("\nRows")
        print(report.table[cols].round(1).to_string(index=False))
    print("\nExcluded")
    for e in report.excluded:
        print(f"  row {e.row} ({e.label}): {e.reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
