"""Predicted vs measured AR throughput on both calibration sets (192 rows; docs/calibration.md#golden-values extension).

Usage: ``.venv/bin/python benchmarks/calibration_report.py [--rows] [--excluded] [--worst N]``

Reads ``tests/data/calibration_ar_throughput.csv`` (74 rows) and ``tests/data/measured_throughput_2026-12.csv``
(118 rows), copies of ``shared/reference/`` with their source columns, predicts every representable row with
the default efficiency factors (:class:`economics.hardware.Efficiency`, engine defaults of
``data/catalog/engines.csv``) and prints the median and 90th-percentile absolute percentage error overall,
per regime (batch 1 / concurrency / saturation), GPU family, dense vs MoE and precision, then (optionally)
every row, and every excluded row with its reason.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from economics.calibration_report import calibration_report, held_out_split  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", action="store_true", help="also print every predicted row")
    parser.add_argument(
        "--by-source",
        action="store_true",
        help="also print the split-by-source check (rows whose source set no parameter)",
    )
    parser.add_argument("--excluded", action="store_true", help="also print every excluded row with its reason")
    parser.add_argument(
        "--worst",
        type=int,
        default=0,
        metavar="N",
        help="also print the N rows with the largest absolute error, worst first (docs/calibration.md#rows-above-35)",
    )
    args = parser.parse_args(argv)
    report = calibration_report()
    pd.set_option("display.width", 220)
    pd.set_option("display.max_colwidth", 90)
    pd.set_option("display.max_rows", 500)
    n_rows = len(report.table) + len(report.excluded)
    print(f"{n_rows} rows: {len(report.table)} predicted, {len(report.excluded)} excluded\n")
    print("Absolute percentage error |predicted − measured| / measured (signed median: > 0 = optimistic)")
    print(report.breakdown.round(1).to_string(index=False))
    if args.by_source:
        print("\nSplit by source: rows whose source set no default parameter (held out) vs the rest, and per source")
        split = held_out_split(report.table)
        print(split[["split", "dimension", "group", "n", "median_ape_pct", "p90_ape_pct", "median_error_pct"]]
              .round(1).to_string(index=False))  # fmt: skip
    if args.rows:
        cols = ["dataset", "row", "label", "regime", "measured_tokens_per_s", "predicted_tokens_per_s", "error_pct"]
        print("\nRows")
        print(report.table[cols].round(1).to_string(index=False))
    if args.worst > 0:
        cols = ["dataset", "row", "label", "regime", "engine", "measured_tokens_per_s", "predicted_tokens_per_s",
                "error_pct"]  # fmt: skip
        worst = report.table.assign(size=report.table["error_pct"].abs()).nlargest(args.worst, "size")
        print(f"\nWorst {len(worst)} rows (error > 0 = model optimistic)")
        print(worst[cols].round(1).to_string(index=False))
    if args.excluded:
        print("\nExcluded")
        for dataset, e in report.excluded:
            print(f"  {dataset} row {e.row} ({e.label}): {e.reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
