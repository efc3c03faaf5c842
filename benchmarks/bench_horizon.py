"""Horizon benchmark: the Singapore bank over 5 years, re-planned every year (issue 14).

What it measures (single thread, median of ``--repeats`` timed runs after one warm-up)
    horizon      ``horizon(bank, years=5)``: every plan (own, rent reserved instead) re-planned with
                 ``evaluate`` in each of the 5 years, billed, discounted, crossover found (target ≤ 300 ms).
    sensitivity  ``crossover_sensitivity(bank)``: the same at 7 API price declines (no target; shown on the
                 Horizon page).

Usage
    .venv/bin/python benchmarks/bench_horizon.py [--repeats 7]
"""

from __future__ import annotations

import argparse

import _harness  # noqa: F401  (first: one core before numpy loads)
from _harness import median_s

from economics.finance.horizon import crossover_sensitivity, horizon
from economics.io.catalog import load_catalog
from economics.io.scenarios import default_scenario

TARGET_S = 0.300


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    bank = default_scenario()
    load_catalog()  # read once, as the app does
    t = median_s(lambda: horizon(bank, years=5), args.repeats)
    s = median_s(lambda: crossover_sensitivity(bank), max(1, args.repeats // 3))
    print(f"horizon      {t * 1e3:8.1f} ms  (target ≤ {TARGET_S * 1e3:.0f} ms: {'ok' if t <= TARGET_S else 'MISSED'})")
    print(f"sensitivity  {s * 1e3:8.1f} ms  (7 API declines; no target)")
    return 0 if t <= TARGET_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
