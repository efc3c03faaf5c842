"""Meeting-pack benchmark: rendering the Singapore bank's pack as HTML, and the CSV bundle.

What it measures (single thread, median of ``--repeats`` timed runs after one warm-up)
    html       ``render_html(pack)``: the narrative, every table and chart (plotly.js inline), the template.
    csv        ``csv_bundle(pack)``: every table as CSV in one zip.
The pack itself (evaluate, surrogate, 2,000 draws) is built once, outside the timings.

Usage
    .venv/bin/python benchmarks/bench_report.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Callable

import _harness  # noqa: F401  (first: one core before numpy loads)
from _harness import median_s

from economics.io.scenarios import default_scenario
from reporting.meeting_pack import build_pack, csv_bundle, render_html


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="timed runs per case (median reported)")
    args = parser.parse_args()
    pack = build_pack(default_scenario(), draws=2000, generated_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC))
    cases: dict[str, Callable[[], object]] = {"html": lambda: render_html(pack), "csv": lambda: csv_bundle(pack)}
    for name, fn in cases.items():
        print(f"{name:6s} {median_s(fn, args.repeats) * 1e3:8.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
