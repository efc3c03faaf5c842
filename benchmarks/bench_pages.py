"""Server-side rerun time of every dashboard page (target: ≤ 150 ms), measured in-process with AppTest.

For each page two numbers, medians over ``--repetitions`` runs after one warm-up:

* ``rerun``: the script runs again with nothing changed (what Streamlit does on every widget interaction
  that does not change the scenario, e.g. opening an expander): cached results, all rendering.
* ``change``: one input of the page changes to a value not computed before (caches of unrelated work,
  such as the SLO capacities a price edit does not touch, stay warm): what a user meets when typing.
* ``cold``: the same with every cache of the process emptied first: the worst case.

For the Overview, which has no input of its own, ``change`` and ``cold`` are a new session opening a link to
a scenario not seen before (decode, evaluate, draw). They include AppTest's own cost of starting a session,
measured in the same loop on the trivial one-chart page and printed beside them; the target applies to what
remains.

    .venv/bin/python benchmarks/bench_pages.py             # all pages, 7 repetitions
    .venv/bin/python benchmarks/bench_pages.py -n 15 --json test-results/bench_pages.json

AppTest runs the page script without the browser, the websocket or ``app.py``'s sidebar (AppTest's page
switch runs the page on its own), so these times are the script's own cost; the browser latency benchmark
(``benchmarks/browser_latency.py``) measures the whole round trip.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

from economics.io import scenarios
from economics.io.scenarios import default_scenario
from ui import compute

ROOT = Path(__file__).resolve().parents[1]

TARGET_MS = 150.0
TRIVIAL_APP = ROOT / "benchmarks" / "trivial_app.py"


@dataclass(frozen=True)
class PageCase:
    """A page, how to change one of its inputs (step ``i``), and the page's own result cache: a select box
    returns to values seen before, so that cache is emptied to time a value computed for the first time."""

    name: str
    script: str
    change: Callable[[AppTest, int], None]
    own_cache: str | None = None


def _number(key: str, start: float, step: float) -> Callable[[AppTest, int], None]:
    def change(at: AppTest, i: int) -> None:
        at.number_input(key=key).set_value(start + step * i)

    return change


def _selectbox_cycle(key: str) -> Callable[[AppTest, int], None]:
    def change(at: AppTest, i: int) -> None:
        box = at.selectbox(key=key)
        box.set_value(box.options[i % len(box.options)])

    return change


CASES: tuple[PageCase, ...] = (
    PageCase("Overview (open a link to a new scenario)", "1_overview", _number("unused", 0, 0)),
    PageCase("Cost per token (node CapEx)", "2_cost_per_token", _number("node_sg-h100-node_capex_usd", 250_000, 1000)),
    PageCase("Break-even (API compared)", "3_break_even", _selectbox_cycle("v_be_api"), "_break_even"),
    PageCase("Batching (batch size)", "4_batching", _number("v_bt_batch", 20, 1)),
    PageCase("Workloads (region workload)", "5_workloads", _selectbox_cycle("v_rt_workload"), "_quadrant"),
)


def cold(own_cache: str | None = None) -> None:
    """Empty the identity memos and one result cache of :mod:`ui.compute`, or every cache when None."""
    if own_cache is None:
        st.cache_resource.clear()
    else:
        getattr(compute, own_cache).clear()
    compute.clear_memos()


def _timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return 1000 * (time.perf_counter() - t0)


def measure(case: PageCase, reps: int) -> dict[str, float]:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page(f"pages/{case.script}.py").run()
    if at.exception:
        raise RuntimeError(f"{case.name}: {at.exception[0].value}")
    at.run()  # warm-up
    rerun = [_timed(at.run) for _ in range(reps)]
    changes: list[float] = []
    colds: list[float] = []
    trivial: list[float] = []
    if case.script == "1_overview":
        # The Overview has no input of its own: open a link to a scenario not seen before (a new session
        # whose first run decodes the link and evaluates it cold).
        # A new AppTest session has a set-up cost of its own (~100 ms for the one-chart trivial page), which a
        # running server does not pay per link: it is measured in the same loop and reported beside it.
        base = default_scenario()
        node = base.nodes[0]
        for i in range(reps):
            fresh = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
            dearer = base.model_copy(update={"nodes": (node.model_copy(update={"capex_usd": 281_000.0 + i}),)})
            fresh.query_params["s"] = scenarios.encode(dearer)
            changes.append(_timed(fresh.run))
            trivial.append(_timed(AppTest.from_file(str(TRIVIAL_APP), default_timeout=120).run))
        colds = changes
    else:
        for i in range(1, reps + 1):
            case.change(at, i)
            if case.own_cache is not None:
                cold(case.own_cache)
            changes.append(_timed(at.run))
        for i in range(reps + 1, 2 * reps + 1):
            case.change(at, i)
            cold()  # worst case: nothing computed or drawn before in this process
            colds.append(_timed(at.run))
        if at.exception:
            raise RuntimeError(f"{case.name}: {at.exception[0].value}")
    return {
        "rerun_ms": statistics.median(rerun),
        "change_ms": statistics.median(changes),
        "cold_ms": statistics.median(colds),
        "new_session_overhead_ms": statistics.median(trivial) if trivial else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Server-side rerun time per dashboard page (AppTest).")
    parser.add_argument("-n", "--repetitions", type=int, default=7)
    parser.add_argument("--json", type=Path, help="write the medians to this JSON file")
    args = parser.parse_args(argv)
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    results = {}
    print(
        f"{'page':<42} {'rerun':>8} {'change':>8} {'cold':>8}   "
        f"[ms, median of {args.repetitions}; target ≤ {TARGET_MS:.0f} for rerun and change]"
    )
    ok = True
    for case in CASES:
        r = measure(case, args.repetitions)
        results[case.name] = r
        overhead = r["new_session_overhead_ms"]
        flag = "" if max(r["rerun_ms"], r["change_ms"] - overhead) <= TARGET_MS else "  over target"
        ok &= not flag
        note = f"  (incl. {overhead:.0f} ms new AppTest session, trivial page)" if overhead else ""
        print(f"{case.name:<42} {r['rerun_ms']:8.1f} {r['change_ms']:8.1f} {r['cold_ms']:8.1f}{flag}{note}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
