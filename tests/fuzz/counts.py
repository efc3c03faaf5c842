"""Counts of the fuzz suite: per area, examples tried, properties failed, data lost. Written at the end of the
session to ``test-results/fuzz_counts.json`` and printed in the terminal summary (for the issue's report; the
hooks that do it are in ``tests/conftest.py``, which pytest-xdist's controller loads too).

Under pytest-xdist each worker counts its own examples and hands them to the controller when it finishes; the
controller adds them up.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COUNTS: defaultdict[str, Counter[str]] = defaultdict(Counter)
KINDS = ("tried", "failed", "lost")


def record(area: str, *, failed: bool = False, lost: bool = False) -> None:
    """Count one example of ``area`` (call before asserting, so a failing example is counted too)."""
    COUNTS[area]["tried"] += 1
    COUNTS[area]["failed"] += int(failed)
    COUNTS[area]["lost"] += int(lost)


def rows() -> dict[str, dict[str, int]]:
    """This process's counts, ``{area: {"tried": n, "failed": n, "lost": n}}``, areas in order."""
    return {area: {k: c[k] for k in KINDS} for area, c in sorted(COUNTS.items())}


def add(more: dict[str, dict[str, int]]) -> None:
    """Add another process's :func:`rows` to this process's counts."""
    for area, row in more.items():
        for kind in KINDS:
            COUNTS[area][kind] += int(row.get(kind, 0))


def summary_lines() -> list[str]:
    """Write ``test-results/fuzz_counts.json``; the lines of the terminal summary (none when nothing was counted)."""
    if not COUNTS:
        return []
    counted = rows()
    out = ROOT / "test-results" / "fuzz_counts.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(counted, indent=2) + "\n")
    lines = [f"{area:<28} {c['tried']:>6} / {c['failed']} / {c['lost']}" for area, c in counted.items()]
    total = sum(c["tried"] for c in counted.values())
    return [*lines, f"{'total':<28} {total:>6}"]
