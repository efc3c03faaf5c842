"""Counts of the fuzz suite: per area, examples tried, properties failed, data lost. Written at the end of the
session to ``test-results/fuzz_counts.json`` and printed in the terminal summary (for the issue's report)."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COUNTS: defaultdict[str, Counter[str]] = defaultdict(Counter)


def record(area: str, *, failed: bool = False, lost: bool = False) -> None:
    """Count one example of ``area`` (call before asserting, so a failing example is counted too)."""
    COUNTS[area]["tried"] += 1
    COUNTS[area]["failed"] += int(failed)
    COUNTS[area]["lost"] += int(lost)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not COUNTS:
        return
    rows = {area: {k: c[k] for k in ("tried", "failed", "lost")} for area, c in sorted(COUNTS.items())}
    out = ROOT / "test-results" / "fuzz_counts.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rows, indent=2) + "\n")
    terminalreporter.write_sep("-", "fuzz counts (tried / failed / lost)")
    for area, c in rows.items():
        terminalreporter.write_line(f"{area:<28} {c['tried']:>6} / {c['failed']} / {c['lost']}")
    total = sum(c["tried"] for c in rows.values())
    terminalreporter.write_line(f"{'total':<28} {total:>6}")
