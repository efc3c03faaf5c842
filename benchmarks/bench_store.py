"""Review store benchmark: save, list and load latency of the SQLite store, and concurrent saves.

What it measures (median of ``--repeats`` timed operations after one warm-up, in a temporary directory)
    save       ``save_review`` of the Singapore bank (scenario + result JSON, its price list) in one
               transaction, fsync included (synchronous=FULL in WAL mode).
    load       ``load_review``: read and parse the scenario, result and prices back into models.
    list       ``list_reviews`` with ``--reviews`` reviews in the store.
    parallel   wall time for 10 processes saving 5 reviews each at once (spawned pool, start-up excluded).

Usage
    .venv/bin/python benchmarks/bench_store.py [--repeats 21] [--reviews 200]
"""

from __future__ import annotations

import argparse
import multiprocessing
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _harness  # noqa: F401  (first: one core before numpy loads)
from _harness import median_s

from economics.evaluate import evaluate
from economics.io.scenarios import default_scenario
from storage import reviews as store

_WORKER: dict[str, Any] = {}


def _warm() -> None:
    """Pool initializer: evaluate once per worker, so the timed part is only saving."""
    scenario = default_scenario()
    _WORKER["scenario"], _WORKER["result"] = scenario, evaluate(scenario)


def _ready(_: int) -> None:
    """Block until every worker has run its initializer (one task each)."""
    time.sleep(0.2)


def _save_five(path: str) -> int:
    scenario, result = _WORKER["scenario"], _WORKER["result"]
    for i in range(5):
        store.save_review(scenario, result, name=f"parallel {i}", path=Path(path))
    return 5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21, help="timed operations per case (median reported)")
    parser.add_argument("--reviews", type=int, default=200, help="reviews in the store for the list case")
    args = parser.parse_args()
    bank = default_scenario()
    result = evaluate(bank)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "reviews.sqlite3"
        first = store.save_review(bank, result, name="first", path=db)
        size = len(store.load_review(first.id, path=db).scenario_json) + len(
            store.load_review(first.id, path=db).result_json
        )
        cases: dict[str, Callable[[], object]] = {
            "save": lambda: store.save_review(bank, result, name="bench", path=db),
            "load": lambda: store.load_review(first.id, path=db),
        }
        print(f"bank review: {size / 1e3:,.0f} kB of JSON, {first.price_count} prices")
        print(f"{'case':<9} {'median ms':>10}")
        for name, fn in cases.items():
            print(f"{name:<9} {1e3 * median_s(fn, args.repeats):>10.2f}")
        while len(store.list_reviews(path=db)) < args.reviews:
            store.save_review(bank, result, name="filler", path=db)
        print(
            f"{'list':<9} {1e3 * median_s(lambda: store.list_reviews(path=db), args.repeats):>10.2f}"
            f"   ({args.reviews} reviews)"
        )
        par = Path(tmp) / "parallel.sqlite3"
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(10, initializer=_warm) as pool:
            pool.map(_ready, range(10))
            t0 = time.perf_counter()
            saved = sum(pool.map(_save_five, [str(par)] * 10))
            wall = time.perf_counter() - t0
        kept = len(store.list_reviews(path=par))
        print(f"{'parallel':<9} {1e3 * wall:>10.0f}   (10 processes × 5 saves; {kept}/{saved} reviews kept)")
        return 0 if kept == saved else 1


if __name__ == "__main__":
    raise SystemExit(main())
