"""Load benchmark: N concurrent browser sessions against the team deployment, one replica vs two behind nginx.

What it measures (``deploy.team``: PostgreSQL, R Streamlit replicas, nginx in front; R = 1 and 2)
    Each of N sessions (a chromium page in its own browser context, all in one headless chromium) opens its
    *own* share link on the Cost per token page (the bank with a session-specific name and node price), then
    every ``--interval`` seconds changes the node's capital cost and waits until the node-cost chart shows the
    new hourly cost, for ``--seconds`` seconds.

    input→chart   time from pressing Enter in the number input to the new chart title in the DOM [ms]
                  (p50, p95 over every change of every session)
    errors        changes that did not reach the chart within 30 s, pages with a Streamlit exception
    leaks         a session whose sidebar shows another session's scenario name (checked after every change)
    memory        server RSS (all replicas, from /proc) after the sessions connected minus before, per session

Targets (issue 15): 0 errors, 0 leaks, p95 at N = 30 ≤ 2 × p95 at N = 1 on two replicas.

This is heavy: chromium renders all N pages on the same machine as the servers, so on a small machine the
browser's own CPU use is part of what is measured. Usage::

    .venv/bin/python benchmarks/load.py [--sessions 1 10 30] [--replicas 1 2] [--seconds 60] [--interval 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import _harness  # noqa: F401  (first: one core before numpy loads)
from playwright.async_api import Browser, Page, async_playwright

from deploy.team import Team, start_team
from economics.io import scenarios
from economics.io.scenarios import load_preset
from tests.browser.chromium import LAUNCH_ARGS, find_chromium

ROOT = Path(__file__).resolve().parents[1]
CAPEX_KEY = "node_sg-h100-node_capex_usd"
_CHART_CHANGED = """(before) => {
    const c = document.querySelector('[data-stale="false"] [data-testid="stPlotlyChart"]');
    return c && /\\$[\\d,.]+ per node-hour/.test(c.innerText) && !c.innerText.includes(before);
}"""
TITLE = re.compile(r"\$[\d,.]+ per node-hour")


@dataclass
class Stats:
    latencies_ms: list[float] = field(default_factory=list)
    errors: int = 0
    leaks: int = 0
    changes: int = 0


def _rss_bytes(pid: int) -> int:
    """Resident memory of a process and its children [B] (a Streamlit replica is one process)."""
    total = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            total += int(line.split()[1]) * 1024
    return total


def _server_rss(team: Team) -> int:
    return sum(_rss_bytes(r.process.pid) for r in team.replicas if r.process is not None)


async def _title(page: Page) -> str:
    text = await page.locator('[data-stale="false"] [data-testid="stPlotlyChart"]').first.inner_text()
    match = TITLE.search(text)
    return match.group(0) if match else ""


async def _session(
    browser: Browser,
    team: Team,
    index: int,
    seconds: float,
    interval: float,
    stats: Stats,
    connected: asyncio.Event,
    ready: list[int],
) -> None:
    bank = load_preset("singapore-bank")
    marker = f"Load session {index:03d}"
    node = bank.nodes[0].model_copy(update={"capex_usd": 250_000.0 + 1_000 * index})  # type: ignore[union-attr]
    scenario = bank.model_copy(update={"name": marker, "nodes": (node,)})
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    try:
        await page.goto(f"{team.url}/cost_per_token?s={scenarios.encode(scenario)}", timeout=120_000)
        await page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=120_000)
        await page.locator('[data-testid="stPlotlyChart"]').first.wait_for(timeout=120_000)
        ready.append(index)
        await connected.wait()
        field_ = page.locator(f".st-key-{CAPEX_KEY} input").first
        deadline = time.monotonic() + seconds
        step = 0
        while time.monotonic() < deadline:
            step += 1
            await page.wait_for_function(_CHART_CHANGED, arg="\u0000", timeout=60_000)  # a title is drawn
            before = await _title(page)
            await field_.fill(str(250_000 + 1_000 * index + 5_000 * (step % 7 + 1)))
            start = time.perf_counter()
            await field_.press("Enter")
            stats.changes += 1
            try:
                await page.wait_for_function(
                    _CHART_CHANGED,
                    arg=before,
                    timeout=30_000,
                )
                stats.latencies_ms.append(1000 * (time.perf_counter() - start))
            except Exception:  # a timeout is counted, the session goes on
                stats.errors += 1
            sidebar = await page.get_by_test_id("stSidebar").inner_text()
            others = set(re.findall(r"Load session \d{3}", sidebar)) - {marker}
            stats.leaks += int(bool(others) or marker not in sidebar)
            stats.errors += await page.get_by_test_id("stException").count()
            await asyncio.sleep(max(0.0, interval - (time.perf_counter() - start)))
    except Exception:
        stats.errors += 1
        ready.append(index)
    finally:
        await context.close()


async def _run(team: Team, sessions: int, seconds: float, interval: float) -> dict[str, float]:
    stats = Stats()
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=find_chromium(), headless=True, args=list(LAUNCH_ARGS))
        for replica in team.replicas:  # warm-up: first script run and caches of each replica, not measured
            warm = await browser.new_page()
            await warm.goto(f"{replica.url}/cost_per_token", timeout=120_000)
            await warm.locator('[data-testid="stPlotlyChart"]').first.wait_for(timeout=120_000)
            await warm.close()
        base_rss = _server_rss(team)
        connected, ready = asyncio.Event(), []
        tasks = [
            asyncio.create_task(_session(browser, team, i, seconds, interval, stats, connected, ready))
            for i in range(sessions)
        ]
        while len(ready) < sessions:
            await asyncio.sleep(0.2)
        rss = _server_rss(team)
        connected.set()
        await asyncio.gather(*tasks)
        await browser.close()
    lat = sorted(stats.latencies_ms)
    return {
        "sessions": sessions,
        "replicas": len(team.replicas),
        "changes": stats.changes,
        "errors": stats.errors,
        "leaks": stats.leaks,
        "p50_ms": statistics.median(lat) if lat else float("nan"),
        "p95_ms": lat[min(len(lat) - 1, int(0.95 * len(lat)))] if lat else float("nan"),
        "memory_mb_per_session": (rss - base_rss) / sessions / 1e6,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 10, 30])
    parser.add_argument("--replicas", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--interval", type=float, default=3.0)
    parser.add_argument("--json", type=Path, default=ROOT / "test-results" / "load.json")
    args = parser.parse_args()
    rows = []
    for replicas in args.replicas:
        team = start_team(replicas, fsync=False)
        try:
            for n in args.sessions:
                row = asyncio.run(_run(team, n, args.seconds, args.interval))
                rows.append(row)
                print(
                    f"replicas {row['replicas']}  sessions {n:>3}  changes {row['changes']:>4}  errors {row['errors']}"
                    f"  leaks {row['leaks']}  p50 {row['p50_ms']:7.0f} ms  p95 {row['p95_ms']:7.0f} ms"
                    f"  memory {row['memory_mb_per_session']:6.1f} MB/session",
                    flush=True,
                )
        finally:
            team.stop()
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(rows, indent=2) + "\n")
    two = {r["sessions"]: r for r in rows if r["replicas"] == 2}
    if 1 in two and 30 in two:
        ratio = two[30]["p95_ms"] / two[1]["p95_ms"]
        print(f"p95 at N=30 / p95 at N=1 on two replicas: {ratio:.2f} (target ≤ 2)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
