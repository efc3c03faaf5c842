"""Load benchmark: N concurrent sessions against the team deployment, one replica vs two behind nginx.

What it measures (``deploy.team``: PostgreSQL, R Streamlit replicas, nginx in front; R = 1 and 2)
    N sessions, each on its *own* share link of the Cost per token page (the bank with a session-specific name
    and node price), each changing the node's purchase price every ``--interval`` seconds (staggered) for
    ``--seconds`` seconds:

    * 1 *probe*: a real chromium page. input→chart is the time from pressing Enter in the price field to the
      new node-cost chart title in the DOM [ms]: what a person sees.
    * N − 1 *protocol sessions* (:mod:`st_protocol`): the browser's websocket protocol (the same
      ``BackMsg``/``ForwardMsg`` protobufs), no rendering, so 30 sessions do not need 30 browsers on the
      server's cores. input→delta is the time from sending the change to receiving the new chart's delta [ms]:
      the server's part of the probe's figure.

    probe n  the probe's measured changes; p95 is the nearest-rank 95th percentile, so of a 20 s row's 7 changes
             it is the slowest, of a 60 s row's 20 the second slowest: use 60 s rows for the target's ratio
    errors   changes that did not reach the chart (timeouts, closed streams, an exception element)
    leaks    a change after which a session's page carried another session's scenario name, or not its own
    CPU      server CPU time (all replicas, /proc) during the run ÷ changes [ms per rerun]
    memory   server RSS after the sessions connected minus before, ÷ N [MB per session]
    load     the 1-minute load average at the end of the row (the machine, not only this benchmark)

Targets (issue 15): 0 errors, 0 leaks, probe p95 at N = 30 ≤ 2 × probe p95 at N = 1 on two replicas.

Usage (from the repository root; prints a markdown table, writes ``test-results/load.json``)::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/load.py            # R = 1, 2 × N = 1, 10, 30, 60 s each
    PYTHONPATH=$PWD .venv/bin/python benchmarks/load.py --short    # the same rows, 20 s each (~7 min)
    PYTHONPATH=$PWD .venv/bin/python benchmarks/load.py --replicas 2 --sessions 1 30   # the target's rows, 60 s
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import re
import statistics
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import _harness  # noqa: F401  (first: one core before numpy loads)
from playwright.async_api import Browser, Page, async_playwright
from st_protocol import ProtocolError, StreamlitSession

from deploy.team import Team, start_team
from economics.io import scenarios
from economics.io.scenarios import load_preset
from economics.scenario import Scenario
from tests.browser.chromium import LAUNCH_ARGS, find_chromium

ROOT = Path(__file__).resolve().parents[1]
PAGE = "cost_per_token"
CAPEX_KEY = "node_sg-h100-node_capex_usd"
CHART = "per node-hour"  # the node-cost chart's title ends "$X per node-hour (...)"
MARKER = re.compile(r"Load session \d{3}")
_CHART_CHANGED = """(before) => {
    const c = document.querySelector('[data-stale="false"] [data-testid="stPlotlyChart"]');
    return c && /\\$[\\d,.]+ per node-hour/.test(c.innerText) && !c.innerText.includes(before);
}"""
_TITLE = re.compile(r"\$[\d,.]+ per node-hour")


@dataclass
class Stats:
    """Changes of one kind of session (probe or protocol)."""

    latencies_ms: list[float] = field(default_factory=list)
    changes: int = 0
    errors: int = 0
    leaks: int = 0

    def percentile(self, q: float) -> float:
        """The median, or the nearest-rank ``q``-th percentile: the smallest latency with at least q % of them
        at or below it (of 20 changes the 19th, of 7 the largest) [ms]."""
        lat = sorted(self.latencies_ms)
        if not lat:
            return float("nan")
        return statistics.median(lat) if q == 50 else lat[max(0, math.ceil(q / 100 * len(lat)) - 1)]


def _scenario(index: int) -> tuple[str, Scenario]:
    bank = load_preset("singapore-bank")
    marker = f"Load session {index:03d}"
    node = bank.nodes[0].model_copy(update={"capex_usd": float(_price(index, 0))})  # type: ignore[union-attr]
    return marker, bank.model_copy(update={"name": marker, "nodes": (node,)})


def _price(index: int, step: int) -> int:
    """A price no session typed before [USD]: every change is a new scenario, so no change is served from the
    result cache (sessions are 37 steps of $1,000 apart; a row has at most ~20 steps). +$1,000 moves the
    node-hour cost by ~$0.02, which the chart title shows."""
    return 250_000 + 37_000 * index + 1_000 * step


def _leaked(texts: list[str] | str, marker: str) -> bool:
    found = set(MARKER.findall(" ".join(texts) if isinstance(texts, list) else texts))
    return bool(found - {marker}) or marker not in found


# ---- the sessions ------------------------------------------------------------------------------------------


@dataclass
class Clock:
    """Sessions report ``ready`` once their page ran; then ``start`` is set and every session runs until
    ``until`` (monotonic seconds)."""

    start: asyncio.Event = field(default_factory=asyncio.Event)
    ready: list[int] = field(default_factory=list)
    until: float = 0.0


async def _protocol_session(url: str, index: int, clock: Clock, interval: float, stats: Stats) -> None:
    marker, scenario = _scenario(index)
    session = StreamlitSession(url, timeout_s=120)
    try:
        try:
            run = await session.open(f"s={scenarios.encode(scenario)}", PAGE)
        finally:
            clock.ready.append(index)
        before = run.chart_containing(CHART)
        await clock.start.wait()
        await asyncio.sleep(random.uniform(0, interval))  # staggered, as people are
        step = 0
        while time.monotonic() < clock.until:
            step += 1
            started = time.monotonic()
            stats.changes += 1
            run = await session.change_text(CAPEX_KEY, f"${_price(index, step):,}")
            after = run.chart_containing(CHART)
            if after is None or (before is not None and after[0] == before[0]):
                stats.errors += 1  # the change did not reach the chart
            else:
                stats.latencies_ms.append(1000 * after[1])
            stats.leaks += int(_leaked(run.texts, marker))
            before = after
            await asyncio.sleep(max(0.0, interval - (time.monotonic() - started)))
    except (ProtocolError, OSError):
        stats.errors += 1  # the session ends: its later changes are not made (and not counted)
    finally:
        await session.close()


async def _title(page: Page) -> str:
    text = await page.locator('[data-stale="false"] [data-testid="stPlotlyChart"]').first.inner_text()
    match = _TITLE.search(text)
    return match.group(0) if match else ""


async def _probe(browser: Browser, url: str, clock: Clock, interval: float, stats: Stats) -> None:
    """The chromium probe: session 0."""
    marker, scenario = _scenario(0)
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    try:
        try:
            await page.goto(f"{url}/{PAGE}?s={scenarios.encode(scenario)}", timeout=120_000)
            await page.wait_for_function(_CHART_CHANGED, arg="\u0000", timeout=120_000)
        finally:
            clock.ready.append(0)
        field_ = page.locator(f".st-key-{CAPEX_KEY} input").first
        await clock.start.wait()
        step = 0
        while time.monotonic() < clock.until:
            step += 1
            await page.wait_for_function(_CHART_CHANGED, arg="\u0000", timeout=60_000)  # a title is drawn
            before = await _title(page)
            await field_.fill(f"${_price(0, step):,}")
            started = time.perf_counter()
            await field_.press("Enter")
            stats.changes += 1
            try:
                await page.wait_for_function(_CHART_CHANGED, arg=before, timeout=30_000)
                stats.latencies_ms.append(1000 * (time.perf_counter() - started))
            except Exception:  # a timeout is counted, the probe goes on
                stats.errors += 1
            stats.leaks += int(_leaked(await page.get_by_test_id("stSidebar").inner_text(), marker))
            stats.errors += await page.get_by_test_id("stException").count()
            await asyncio.sleep(max(0.0, interval - (time.perf_counter() - started)))
    except Exception:
        stats.errors += 1
    finally:
        await context.close()


# ---- the server's side ---------------------------------------------------------------------------------------


def _proc(pid: int) -> tuple[int, float]:
    """(resident memory [B], CPU time user + system [s]) of one process."""
    rss = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) * 1024
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return rss, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _server(team: Team) -> tuple[int, float]:
    """(RSS [B], CPU [s]) summed over the replicas."""
    both = [_proc(r.process.pid) for r in team.replicas if r.process is not None]
    return sum(b[0] for b in both), sum(b[1] for b in both)


async def _warm(team: Team) -> None:
    """First script run and caches of every replica, not measured."""
    for replica in team.replicas:
        session = StreamlitSession(replica.url, timeout_s=180)
        _marker, scenario = _scenario(0)
        await session.open(f"s={scenarios.encode(scenario)}", PAGE)
        await session.change_text(CAPEX_KEY, f"${_price(0, 0) + 500:,}")  # a price no session types
        await session.close()


async def _row(team: Team, sessions: int, seconds: float, interval: float) -> dict[str, float | int]:
    probe, protocol = Stats(), Stats()
    await _warm(team)
    rss_before, _cpu = _server(team)
    clock = Clock()
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=find_chromium(), headless=True, args=list(LAUNCH_ARGS))
        tasks = [asyncio.create_task(_probe(browser, team.url, clock, interval, probe))]
        for index in range(1, sessions):
            tasks.append(asyncio.create_task(_protocol_session(team.url, index, clock, interval, protocol)))
            await asyncio.sleep(0.05)  # people do not open their links in the same millisecond
        deadline = time.monotonic() + 300
        while len(clock.ready) < sessions and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        rss_loaded, cpu_start = _server(team)
        clock.until = time.monotonic() + seconds
        clock.start.set()
        await asyncio.gather(*tasks)
        _rss, cpu_end = _server(team)
        await browser.close()
    changes = probe.changes + protocol.changes
    return {
        "replicas": len(team.replicas),
        "sessions": sessions,
        "changes": changes,
        "probe_changes": len(probe.latencies_ms),
        "errors": probe.errors + protocol.errors,
        "leaks": probe.leaks + protocol.leaks,
        "probe_p50_ms": probe.percentile(50),
        "probe_p95_ms": probe.percentile(95),
        "protocol_p50_ms": protocol.percentile(50),
        "protocol_p95_ms": protocol.percentile(95),
        "cpu_ms_per_change": 1000 * (cpu_end - cpu_start) / max(changes, 1),
        "memory_mb_per_session": (rss_loaded - rss_before) / sessions / 1e6,
        "load_average_1min": os.getloadavg()[0],
    }


# ---- report --------------------------------------------------------------------------------------------------

_COLUMNS = (
    ("replicas", "replicas", "{:d}"),
    ("sessions", "N", "{:d}"),
    ("changes", "changes", "{:d}"),
    ("probe_changes", "probe n", "{:d}"),
    ("errors", "errors", "{:d}"),
    ("leaks", "leaks", "{:d}"),
    ("probe_p50_ms", "probe p50 [ms]", "{:,.0f}"),
    ("probe_p95_ms", "probe p95 [ms]", "{:,.0f}"),
    ("protocol_p50_ms", "protocol p50 [ms]", "{:,.0f}"),
    ("protocol_p95_ms", "protocol p95 [ms]", "{:,.0f}"),
    ("cpu_ms_per_change", "server CPU [ms/change]", "{:,.0f}"),
    ("memory_mb_per_session", "memory [MB/session]", "{:.1f}"),
    ("load_average_1min", "load avg", "{:.1f}"),
)


def _cell(fmt: str, value: float | int) -> str:
    if isinstance(value, float) and value != value:  # NaN: no measurement (no protocol session at N = 1)
        return "–"
    return fmt.format(value)


def markdown(rows: list[dict[str, float | int]]) -> str:
    """The rows as a markdown table, and the target's ratio when both rows were measured."""
    lines = [
        "| " + " | ".join(title for _k, title, _f in _COLUMNS) + " |",
        "|" + "---|" * len(_COLUMNS),
        *("| " + " | ".join(_cell(f, row[k]) for k, _t, f in _COLUMNS) + " |" for row in rows),
    ]
    two = {r["sessions"]: r for r in rows if r["replicas"] == 2}
    if 1 in two and 30 in two:
        ratio = float(two[30]["probe_p95_ms"]) / float(two[1]["probe_p95_ms"])
        lines.append(f"\nprobe p95 at N = 30 ÷ p95 at N = 1 on two replicas: {ratio:.2f} (target ≤ 2)")
    return "\n".join(lines)


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 10, 30])
    parser.add_argument("--replicas", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--interval", type=float, default=3.0)
    parser.add_argument("--short", action="store_true", help="20 s per row instead of --seconds")
    parser.add_argument("--json", type=Path, default=ROOT / "test-results" / "load.json")
    args = parser.parse_args()
    seconds = 20.0 if args.short else args.seconds
    print(f"before: {_uptime()}", flush=True)
    rows = []
    for replicas in args.replicas:
        team = start_team(replicas, fsync=False)
        try:
            for n in args.sessions:
                rows.append(asyncio.run(_row(team, n, seconds, args.interval)))
                print(markdown(rows[-1:]).splitlines()[-1], flush=True)
        finally:
            team.stop()
    print(f"after: {_uptime()}\n\n{markdown(rows)}", flush=True)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"uptime": _uptime(), "seconds": seconds, "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
