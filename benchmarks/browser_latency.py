"""Input-to-chart latency in a real browser: our pages against a trivial Streamlit page.

What it measures
    The time, inside headless chromium, from the key press that commits an input (Enter after typing a
    number, Enter in an open select box, or an arrow key on a slider) to the moment the chart(s) that input
    must redraw are in the DOM with the content of the *new* script run. Both timestamps are
    ``performance.now()`` in the page: a capture-phase ``keydown`` listener takes t0, a ``MutationObserver``
    takes t1 as soon as every watched chart is non-stale (its element container has ``data-stale="false"``),
    none is empty (a chart mounts empty, then draws) and their text differs from before the change (or
    contains the text given by ``--expect``). Playwright's own round trips are not counted.

Which charts are watched, and why
    Only the chart(s) the input drives, selected by their ``st.plotly_chart`` key (Streamlit puts the class
    ``st-key-<key>`` on the chart's element container): ``--watch chart_batch_cost``. The same rule holds
    for the trivial page (its one chart has ``key="chart"``). Watching every chart of a page instead would
    (a) re-read the text of every chart on every DOM mutation, slowing the page under test by the
    harness's own work, and (b) wait for charts the input does not change, which a page that reruns only a
    fragment never redraws.

The floor, and the ratio (same widget type on both sides)
    The trivial page (``benchmarks/trivial_app.py``: one plotly chart driven by a number input, a slider
    and a select box) sets the floor that Streamlit itself imposes (~50-100 ms on a 2-core machine with
    this repo's ``.streamlit/config.toml``, and noisy). Each page is compared with the trivial page driven
    by the *same widget type* as the page's input (``Target.widget``: "number", "slider", "select", "text",
    or "grid", a data editor cell, on ``benchmarks/trivial_grid_app.py``), with the same key presses: a
    select box's open-dropdown-and-Enter, a slider's arrow key and a grid's 150 ms debounce have their own
    browser-side cost, which the trivial page pays too, so the ratio measures only what our page adds. The
    trivial page and the page under test are open in two tabs of one browser and changed in turn (trivial,
    page, trivial, page, ...) after ``--warmup`` unmeasured changes each; the ratio is the page's median
    over the trivial page's median, both taken over the same seconds of the machine's load (blocks measured
    one after the other drifted by up to ±0.2 in the ratio on this shared machine). Target (issue #4):
    ratio ≤ 1.5 for every page. The machine is shared: run it twice and look at both.

Usage
    .venv/bin/python benchmarks/browser_latency.py --suite            # every dashboard page, n=20, warmup 3
    .venv/bin/python benchmarks/browser_latency.py --suite --only scenario   # the scenario inputs finance types
    .venv/bin/python benchmarks/browser_latency.py --suite --only scenario --breakdown   # ... and where it goes
    .venv/bin/python benchmarks/browser_latency.py                    # Batching page, batch size, its cost chart
    .venv/bin/python benchmarks/browser_latency.py --page-url-path cost_per_token --input-key v_cost_util \\
        --keys ArrowRight,ArrowLeft --watch chart_cost_at_u
    .venv/bin/python benchmarks/browser_latency.py --page-url-path break_even --input-key v_be_api \\
        --keys "ArrowDown Enter,ArrowUp Enter" --watch chart_be_utilization

Options that pick the input (first given wins): ``--input-key`` (the widget's ``key=``),
``--input-label`` (its label), ``--input-selector`` (CSS). ``--values`` are typed in turn (fill + Enter);
by default the current value +1, +2, ... . ``--keys`` instead focuses the input and presses the keys in
turn; one entry may be a space-separated sequence whose last key commits (and starts the clock).
``--watch``: comma-separated chart keys, or CSS when it starts with ``[``, ``.`` or ``#``; ``--compare
html`` also catches changes that do not show in the text, such as a moved line. ``--expect`` may contain
``{value}``. ``--trivial-widget`` picks the trivial page's widget for a single target (default: "select"
when a ``--keys`` entry ends in Enter, "slider" for other ``--keys``, else "number"). ``--json FILE``
writes all samples. ``--breakdown`` also times, per change, the websocket send, the first and last server
message before the charts were drawn and how many messages came before them, the main thread's long tasks,
and the Plotly draws (``Plotly.react`` calls: their number and synchronous time before the charts were drawn,
then all of the change's: Streamlit 1.67 draws a changed chart twice, first before its width is measured, then
at it). A target whose update never arrives is reported as failed (the others are still measured); the exit
code is then 1. ``--cpu N`` then makes N more changes per tab under Chrome's sampling profiler and shows the
main thread's time per change by where it went: the frontend's bundles (React, emotion's styles, Plotly, the
markdown and table components, the rest of Streamlit), the browser's built-ins, the benchmark's own scripts,
native work outside JavaScript and garbage collection, with the page's script and style-and-layout counters.
``--renders N`` then makes N more changes per tab counting React's commits and the components each one
re-rendered, by the Streamlit element or block they sit in (a hook in React DevTools' place; it does nothing
outside those changes). ``--timeline N`` then makes N more changes per tab and shows when the watched chart's
message left the server and when the page took it in, and the renders of the page (React's tasks) the main thread
ran in between: a message waits behind them (the servers run a probe that logs each send, see ``SERVER_PROBE``).

The scenario inputs (issue 12: node price fields, API rates, utilization, a workloads-table cell typed by
keyboard) watch every chart the input changes, not only the one beside it. The suite's "Reference" entry is
not a page of ours: ``trivial_multipage_app.py`` puts the trivial chart in a multi-page app's chrome and drives
it as the price inputs are driven, so its ratio is what the chrome and that mechanism cost before our content.

The Overview has no input of its own (every chart on it follows the scenario, edited on other pages), so
the suite has no Overview case; ``benchmarks/bench_pages.py`` times its server side.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from playwright.sync_api import CDPSession, Locator, Page, sync_playwright  # noqa: E402
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError  # noqa: E402

from tests.browser.chromium import launch_chromium  # noqa: E402
from tests.browser.server import running_server  # noqa: E402
from tests.browser.streamlit_page import (  # noqa: E402
    FRESH_CONTAINER,
    goto_app,
    open_view,
    type_in_grid,
    wait_for_app,
)

TRIVIAL_APP = ROOT / "benchmarks" / "trivial_app.py"
TRIVIAL_GRID_APP = ROOT / "benchmarks" / "trivial_grid_app.py"
MULTIPAGE_APP = ROOT / "benchmarks" / "trivial_multipage_app.py"
#: A table cell: click the first row's first cell, arrow right to the sixth column, type, Enter (the grid's own
#: cell editor opens on the typed key). The same plan on our workloads table and on the trivial grid. Each change
#: types a number not typed before (3, 4, …, 302), as a price input does (:func:`fresh`).
GRID_CLICK = (60.0, 52.0)
GRID_KEYS = ["ArrowRight " * 5 + " ".join(str(n)) + " Enter" for n in range(3, 303)]
PLOTLY = '[data-testid="stPlotlyChart"]'

#: Installed before each change; resolves nothing, leaves ``window.__latency`` for polling.
_INSTALL_JS = """
([freshSel, allSel, expect, compare, trigger]) => {
  const select = () => Array.from(document.querySelectorAll(freshSel));
  // every watched element shown (a stale copy Streamlit keeps, hidden, until the run ends is not: display none)
  const all = () => Array.from(document.querySelectorAll(allSel)).filter((n) => n.getClientRects().length).length;
  const read = (nodes) => nodes.map((n) => (compare === "html" ? n.innerHTML : n.textContent)).join("\\u0000");
  const before = read(select());
  const count = all();
  const state = { t0: null, t1: null, count };
  if (window.__latencyObserver) window.__latencyObserver.disconnect();
  const check = () => {
    if (state.t0 === null || state.t1 !== null) return;
    const nodes = select();
    if (nodes.length === 0 || nodes.length !== all()) return;  // some watched element is still stale
    if (nodes.some((n) => n.textContent.trim() === "")) return;  // mounted but not drawn yet
    const now = read(nodes);
    if (expect !== null ? now.includes(expect) : now !== before) {
      state.t1 = performance.now();
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  window.__latencyObserver = observer;
  const onKey = (ev) => {
    if (ev.key === trigger && state.t0 === null) {
      state.t0 = performance.now();
      document.removeEventListener("keydown", onKey, true);
    }
  };
  document.addEventListener("keydown", onKey, true);
  window.__latency = state;
  return count;
}
"""

#: ``--breakdown``: added to every tab before the app loads. Records when the page sends on its websocket (the
#: widget change reaching the wire), when each message from the server arrives, every long task (> 50 ms of
#: the main thread) and every ``Plotly.react`` call (its start and synchronous time: Streamlit's chart draws
#: with it, also on an empty div), all in ``performance.now()`` time, so a latency splits into send, server,
#: render. Streamlit's chart bundle sets ``window.Plotly`` when it loads; the setter wraps ``react`` then.
_PROBE_JS = """
(() => {
  window.__probe = { sent: [], received: [], long: [], draws: [] };
  let plotly;
  Object.defineProperty(window, "Plotly", {
    configurable: true,
    get: () => plotly,
    set: (value) => {
      plotly = value;
      const react = value.react;
      value.react = function (...args) {
        const start = performance.now();
        try { return react.apply(this, args); }
        finally { window.__probe.draws.push([start, performance.now() - start]); }
      };
    },
  });
  const Native = window.WebSocket;
  class Probed extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", () => window.__probe.received.push(performance.now()));
    }
    send(data) {
      window.__probe.sent.push(performance.now());
      return super.send(data);
    }
  }
  window.WebSocket = Probed;
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__probe.long.push([e.startTime, e.duration]);
    }).observe({ type: "longtask", buffered: false });
  } catch (e) {}
})();
"""

#: Reads the probe for one change from t0 to t1: [ms after t0 of the first send, of the first and the last
#: message received before t1, how many messages were received before t1 (the browser handles them one by
#: one, each at the cost of redrawing the app's element tree), main-thread time in long tasks between t0 and
#: t1, Plotly draws started between t0 and t1 and their time [count, ms], then (read once the app is idle)
#: every draw since t0 [count, ms]].
_PROBE_READ_JS = """
([t0, t1]) => {
  const p = window.__probe;
  if (!p) return null;
  const sent = p.sent.filter((t) => t >= t0 && t <= t1);
  const got = p.received.filter((t) => t >= t0 && t <= t1);
  const long = p.long.filter(([s, d]) => s + d >= t0 && s <= t1)
    .reduce((acc, [s, d]) => acc + Math.min(s + d, t1) - Math.max(s, t0), 0);
  const draws = p.draws.filter(([s]) => s >= t0 && s <= t1);
  return [sent.length ? sent[0] - t0 : null, got.length ? got[0] - t0 : null,
          got.length ? got[got.length - 1] - t0 : null, got.length, long,
          draws.length, draws.reduce((acc, [, d]) => acc + d, 0)];
}
"""

#: Every Plotly draw since t0 [count, ms], read once the app has finished the change.
_DRAWS_SINCE_JS = """
(t0) => {
  const draws = window.__probe ? window.__probe.draws.filter(([s]) => s >= t0) : [];
  return [draws.length, draws.reduce((acc, [, d]) => acc + d, 0)];
}
"""


#: ``--timeline``: added to every tab before the app loads. Times the main thread's tasks that the change sets off:
#: each websocket message's handler (kind "message", with the message's size in bytes) and each task of React's
#: scheduler (kind "react": a render and commit of the page, run from a ``MessageChannel``), in
#: ``performance.now()`` time, plus the page's clock origin to line them up with the server's sends.
_TASKS_JS = """
(() => {
  window.__tasks = [];
  const timed = (kind, size, f, self, args) => {
    const start = performance.now();
    try { return f.apply(self, args); } finally { window.__tasks.push([kind, start, performance.now() - start, size]); }
  };
  const sizeOf = (e) => (e.data && (e.data.byteLength ?? e.data.size ?? e.data.length)) || 0;
  const Native = window.WebSocket;
  class Timed extends Native {
    set onmessage(h) { super.onmessage = function (e) { return timed("message", sizeOf(e), h, this, [e]); }; }
    get onmessage() { return super.onmessage; }
    addEventListener(type, h, o) {
      if (type !== "message" || typeof h !== "function") return super.addEventListener(type, h, o);
      return super.addEventListener(type, function (e) { return timed("message", sizeOf(e), h, this, [e]); }, o);
    }
  }
  window.WebSocket = Timed;
  const port = Object.getOwnPropertyDescriptor(MessagePort.prototype, "onmessage");
  const NativeChannel = window.MessageChannel;
  window.MessageChannel = class extends NativeChannel {
    constructor() {
      super();
      const p1 = this.port1;
      let handler = null;
      Object.defineProperty(p1, "onmessage", {
        configurable: true,
        get: () => handler,
        set: (f) => { handler = f; port.set.call(p1, function (e) { return timed("react", 0, f, this, [e]); }); },
      });
    }
  };
})();
"""

#: ``--timeline``: the server's side, a ``sitecustomize`` put on the benchmark servers' ``PYTHONPATH`` (and on no
#: other process): every message the server sends, with its wall-clock time [ms], size [bytes], type and, for an
#: element, its id (which ends with the element's ``key``), appended to the file named by ``LATENCY_SEND_LOG``.
#: It wraps ``Runtime._send_message`` (Streamlit 1.67) and does nothing if that is gone.
SERVER_PROBE = """
import os
import time

try:
    from streamlit.runtime import runtime as _runtime

    _log = open(os.environ["LATENCY_SEND_LOG"], "a", buffering=1)
    _send = _runtime.Runtime._send_message

    def _send_message(self, session_info, msg):
        kind, element_id = msg.WhichOneof("type"), ""
        if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            kind = msg.delta.new_element.WhichOneof("type") or "element"
            element_id = getattr(getattr(msg.delta.new_element, kind), "id", "")
        _log.write(f"{time.time() * 1000:.3f} {msg.ByteSize()} {kind} {element_id}\\n")
        return _send(self, session_info, msg)

    _runtime.Runtime._send_message = _send_message
except Exception:  # another Streamlit: no server side, the browser's side is still timed
    pass
"""

#: ``--timeline``: the columns (ms after the key press, except the counts).
TIMELINE_COLUMNS = ("chart sent", "received", "drawn", "renders", "render ms", "longest")
#: A React task shorter than this [ms] is not counted as a render of the page (scheduler housekeeping).
RENDER_MIN_MS = 1.0


def parse_sends(text: str) -> list[tuple[float, int, str, str]]:
    """The server probe's log: (wall-clock ms, bytes, type, element id) per message sent, in order."""
    out: list[tuple[float, int, str, str]] = []
    for line in text.splitlines():
        parts = line.split(" ", 3)
        if len(parts) >= 3:
            out.append((float(parts[0]), int(parts[1]), parts[2], parts[3] if len(parts) == 4 else ""))
    return out


def chart_timeline(
    t0_wall: float,
    t1: float,
    tasks: list[tuple[str, float, float, int]],
    sends: list[tuple[float, int, str, str]],
    watch_keys: tuple[str, ...],
) -> list[float | None]:
    """One change's ``TIMELINE_COLUMNS``: when the first watched chart left the server and reached the page, when
    the page showed the change (``t1``), and the renders of the page (React tasks of at least ``RENDER_MIN_MS``)
    that ran between the key press and the chart's arrival: how many, their ms in all, the longest.

    ``t0_wall``: the key press on the wall clock [ms]; ``tasks``: the page's (kind, start, duration, bytes) with
    start in ms after the key press; ``sends``: the server's log (:func:`parse_sends`). A chart whose send is not
    in the log (no server side, or it left before the key press) gives ``None`` for the first two columns and
    counts the renders up to ``t1``."""
    suffixes = tuple(f"-{k}" for k in watch_keys)
    sent = next(
        (
            wall - t0_wall
            for wall, _, kind, element_id in sends
            if wall >= t0_wall and kind == "plotly_chart" and element_id.endswith(suffixes)
        ),
        None,
    )
    size = next((n for wall, n, kind, _ in sends if sent is not None and wall - t0_wall == sent), None)
    received = None
    if sent is not None:
        received = next(
            (start for kind, start, _, n in tasks if kind == "message" and start >= sent - 1.0 and n == size), None
        )
    until = received if received is not None else t1
    renders = [d for kind, start, d, _ in tasks if kind == "react" and 0.0 <= start < until and d >= RENDER_MIN_MS]
    return [sent, received, t1, float(len(renders)), sum(renders), max(renders, default=0.0)]


@dataclass(frozen=True)
class Target:
    """One page to measure and how to drive it."""

    name: str
    app: Path
    url_path: str
    input_key: str | None = None
    input_label: str | None = None
    input_selector: str | None = None
    values: list[str] | None = None
    keys: list[str] | None = None
    watch_keys: tuple[str, ...] = ()
    watch: str | None = None
    expect: str | None = None
    compare: str = "text"
    widget: str = "number"  # the input's widget type: the trivial page it is compared with uses the same
    floor: bool = False  # the trivial page: the floor for the target after it
    click: tuple[float, float] | None = None  # a data editor: click this cell [px from its top left], then type
    watch_text_keys: tuple[str, ...] = ()  # keyed containers watched by their text (a line of figures, no chart)
    view: str | None = None  # a view to choose before measuring (drawn only when chosen, streamlit_page.open_view)


def fresh(template: str, start: float, step: float, n: int = 300) -> list[str]:
    """``n`` different values to type in turn, ``template.format(start + i * step)``: every change types a price
    the page has not seen, as a user does, so that nothing computed from it is cached (the trivial page too
    types a new value each time). Two values typed in turn measured the cached path: after the warm-up each
    price had been seen, and the fleet plan an edit solves was read from the cache."""
    return [template.format(start + i * step) for i in range(n)]


#: The floors: the trivial page's only chart, watched by its key like every chart of ours, driven by each
#: widget type exactly as the suite drives our pages' widgets of that type.
TRIVIAL: dict[str, Target] = {
    "number": Target(
        name="trivial (number input)",
        app=TRIVIAL_APP,
        url_path="",
        input_key="value",
        watch_keys=("chart",),
        expect="value = {value}",
        floor=True,
    ),
    "slider": Target(
        name="trivial (slider)",
        app=TRIVIAL_APP,
        url_path="",
        input_key="slider",
        keys=["ArrowRight", "ArrowLeft"],
        watch_keys=("chart",),
        widget="slider",
        floor=True,
    ),
    "text": Target(
        name="trivial (text input)",
        app=TRIVIAL_APP,
        url_path="",
        input_key="text",
        watch_keys=("chart",),
        expect="text = {value}",
        widget="text",
        floor=True,
    ),
    # a data editor sends an edit 150 ms after it (its frontend debounces): a cell has a floor of its own
    "grid": Target(
        name="trivial (table cell)",
        app=TRIVIAL_GRID_APP,
        url_path="",
        input_key="grid",
        click=GRID_CLICK,
        keys=GRID_KEYS,
        watch_keys=("chart",),
        widget="grid",
        floor=True,
    ),
    "select": Target(
        name="trivial (select box)",
        app=TRIVIAL_APP,
        url_path="",
        input_key="choice",
        keys=["ArrowDown Enter", "ArrowUp Enter"],
        watch_keys=("chart",),
        widget="select",
        floor=True,
    ),
}

#: ``--suite``: one representative input per dashboard page and the chart that input must redraw.
#: The Overview has no input of its own (every chart on it follows the scenario, edited on other pages).
SUITE: tuple[Target, ...] = (
    Target(
        "Cost per token (utilization slider, scenario)",
        ROOT / "app.py",
        "cost_per_token",
        input_key="v_cost_util",
        keys=["ArrowRight", "ArrowLeft"],
        watch_keys=("chart_cost_at_u",),
        widget="slider",
    ),
    Target(
        "Break-even (API compared)",
        ROOT / "app.py",
        "break_even",
        input_key="v_be_api",
        keys=["ArrowDown Enter", "ArrowUp Enter"],
        watch_keys=("chart_be_utilization",),
        widget="select",
    ),
    Target(
        "Batching (batch size)", ROOT / "app.py", "batching", input_key="v_bt_batch", watch_keys=("chart_batch_cost",)
    ),
    # a reference, not a page of ours: the trivial chart in a multi-page app's chrome (navigation, sidebar), driven
    # by a callback's keyed rerun as the price inputs are; its ratio is what the chrome and the mechanism cost
    Target(
        "Reference: multi-page chrome only (scenario)",
        MULTIPAGE_APP,
        "",
        input_key="text",
        values=["5", "6"],
        watch_keys=("chart",),
        expect="text = {value}",
        widget="text",
    ),
    # the scenario inputs finance types (issue 12): node price fields, API rates, the workloads table. Each
    # watches every chart the input changes (they are redrawn in one browser commit), and is compared with the
    # trivial page driven by the same widget type: typed prices with its text input, a number with its number
    # input, a grid cell (typed, then Enter) with a trivial grid (benchmarks/trivial_grid_app.py)
    Target(
        "Cost per token (node purchase price, scenario)",
        ROOT / "app.py",
        "cost_per_token",
        input_key="node_sg-h100-node_capex_usd",
        values=fresh("${:,.0f}", 281_000, 1_000),
        watch_keys=("chart_cost_at_u",),
        watch_text_keys=("cost_node_lines",),
        widget="text",
    ),
    Target(
        "Cost per token (node electricity price, scenario)",
        ROOT / "app.py",
        "cost_per_token",
        input_key="node_sg-h100-node_electricity_usd_per_kwh",
        values=fresh("${:.3f}", 0.21, 0.005),
        watch_keys=("chart_cost_at_u",),
        watch_text_keys=("cost_node_lines",),
        widget="text",
    ),
    Target(
        "Cost per token (node cost of capital, scenario)",
        ROOT / "app.py",
        "cost_per_token",
        input_key="node_sg-h100-node_cost_of_capital_per_year",
        values=fresh("{:.1f}", 9, 0.1),
        watch_keys=("chart_cost_at_u",),
        watch_text_keys=("cost_node_lines",),
        widget="number",
    ),
    Target(
        "Cost per token (API input rate, scenario)",
        ROOT / "app.py",
        "cost_per_token",
        input_key="api_mercury-api_input_usd_per_mtok",
        values=fresh("${:.2f}", 0.30, 0.01),
        watch_keys=("chart_cost_at_u",),
        widget="text",
    ),
    Target(
        "Cost per token (API output rate, scenario)",
        ROOT / "app.py",
        "cost_per_token",
        input_key="api_mercury-api_output_usd_per_mtok",
        values=fresh("${:.2f}", 0.80, 0.01),
        watch_keys=("chart_cost_at_u",),
        widget="text",
    ),
    # the same inputs with the curves chosen: the cost-per-token curves (15 traces) are what an edit redraws
    Target(
        "Cost per token (node purchase price, curves chosen, scenario)",
        ROOT / "app.py",
        "cost_per_token",
        input_key="node_sg-h100-node_capex_usd",
        values=fresh("${:,.0f}", 281_000, 1_000),
        watch_keys=("chart_cost_curve",),
        watch_text_keys=("cost_node_lines",),
        widget="text",
        view="Across all utilizations",
    ),
    Target(
        "Cost per token (API output rate, curves chosen, scenario)",
        ROOT / "app.py",
        "cost_per_token",
        input_key="api_mercury-api_output_usd_per_mtok",
        values=fresh("${:.2f}", 0.80, 0.01),
        watch_keys=("chart_cost_curve",),
        widget="text",
        view="Across all utilizations",
    ),
    Target(
        "Workloads (failure cost cell, scenario)",
        ROOT / "app.py",
        "workloads",
        input_key="workloads_editor",
        # the first row's Name cell (below the 35 px header), then five cells right: Failure cost [USD/task]
        click=GRID_CLICK,
        keys=GRID_KEYS,
        watch_keys=("chart_quadrant",),
        compare="html",  # the workload's point moves: attributes change, the text may not
        widget="grid",
    ),
    Target(
        "Workloads (region workload)",
        ROOT / "app.py",
        "workloads",
        input_key="v_rt_workload",
        keys=["ArrowDown Enter", "ArrowUp Enter"],
        watch_keys=("chart_quadrant",),
        widget="select",
    ),
)


def watch_selectors(target: Target) -> tuple[str, str]:
    """CSS for (the watched elements of the current run, the watched elements of any run, stale included)."""
    if target.watch_keys or target.watch_text_keys:
        keyed = [
            (f"{FRESH_CONTAINER}.st-key-{k}", f"{FRESH_CONTAINER} .st-key-{k}", f".st-key-{k}")
            for k in target.watch_keys
        ]
        fresh = [f"{own} {PLOTLY}, {inner} {PLOTLY}" for own, inner, _ in keyed]
        any_run = [f"{any_} {PLOTLY}" for _, _, any_ in keyed]
        # a keyed container is a block, not an element container: it has no stale mark, and is its own
        blocks = [f".st-key-{k}" for k in target.watch_text_keys]
        return ", ".join(fresh + blocks), ", ".join(any_run + blocks)
    watch = target.watch or PLOTLY
    return f"{FRESH_CONTAINER} {watch}", watch


@dataclass
class Result:
    name: str
    samples_ms: list[float]
    floor: bool = False
    phases_ms: list[list[float]] = field(default_factory=list)  # --breakdown: see one_change
    error: str | None = None  # why the target has no samples (an update that never arrived)
    cpu_ms: dict[str, float] = field(default_factory=dict)  # --cpu: main-thread ms per change, by column (CPU_COLUMNS)
    renders: dict[str, float] = field(default_factory=dict)  # --renders: per change, "commits", "renders", by place
    timeline_ms: list[list[float | None]] = field(default_factory=list)  # --timeline: TIMELINE_COLUMNS per change

    def phase_medians(self) -> list[float | None]:
        """Median of each phase over the changes that have it."""
        columns = zip(*self.phases_ms, strict=True) if self.phases_ms else []
        return [
            statistics.median([v for v in c if v is not None]) if any(v is not None for v in c) else None
            for c in columns
        ]

    @property
    def median_ms(self) -> float:
        return statistics.median(self.samples_ms) if self.samples_ms else math.nan

    @property
    def p90_ms(self) -> float:
        if not self.samples_ms:
            return math.nan
        if len(self.samples_ms) < 2:
            return self.samples_ms[0]
        return statistics.quantiles(self.samples_ms, n=10, method="inclusive")[-1]


def locate_input(page: Page, target: Target) -> Locator:
    if target.click is not None:  # a data editor: the grid itself
        return page.locator(f"{FRESH_CONTAINER}.st-key-{target.input_key}").first
    if target.input_key is not None:
        inner = ':is(input, textarea, [role="slider"])'
        key = f".st-key-{target.input_key}"
        return page.locator(f"{FRESH_CONTAINER}{key} {inner}, {FRESH_CONTAINER} {key} {inner}").first
    if target.input_label is not None:
        return page.locator(FRESH_CONTAINER).get_by_label(target.input_label, exact=True).first
    if target.input_selector is not None:
        return page.locator(f"{FRESH_CONTAINER} {target.input_selector}").first
    raise ValueError("no input given")


def one_change(page: Page, target: Target, step: int, timeout_ms: float) -> tuple[float, list[float] | None]:
    """Make change number ``step``; return its latency [ms] and, with ``--breakdown``, its phases [ms after
    the key press]: first websocket send, first and last message received before the chart was drawn, and
    main-thread time in long tasks."""
    field = locate_input(page, target)
    if target.keys:
        sequence, value = target.keys[step % len(target.keys)].split(), ""
        trigger = sequence[-1]
    else:
        trigger = "Enter"
        current = field.input_value()
        value = target.values[step % len(target.values)] if target.values else str(int(float(current)) + 1)
    expect = target.expect.format(value=value) if target.expect is not None else None
    fresh, any_run = watch_selectors(target)
    count = page.evaluate(_INSTALL_JS, [fresh, any_run, expect, target.compare, trigger])
    if count == 0:
        raise RuntimeError(f"{target.name}: nothing matches the watched selector {any_run!r}")
    if target.click is not None:  # a grid: the mouse at the cell (its scroller overlays the canvas), then keys
        box = field.bounding_box()
        if box is None:
            raise RuntimeError(f"{target.name}: the grid {target.input_key!r} is not on screen")
        page.mouse.click(box["x"] + target.click[0], box["y"] + target.click[1])
        page.wait_for_timeout(150)  # the grid takes focus (before the clock starts: it starts at Enter)
        type_in_grid(page, sequence[:-1])  # then the commit, which starts the clock
        page.keyboard.press(sequence[-1])
    elif target.keys:
        field.focus()
        for key in sequence:
            page.keyboard.press(key)
    else:
        field.fill(value)
        field.press(trigger)
    page.wait_for_function("window.__latency.t1 !== null", timeout=timeout_ms, polling="raf")
    t0, t1 = page.evaluate("[window.__latency.t0, window.__latency.t1]")
    phases = page.evaluate(_PROBE_READ_JS, [t0, t1])
    wait_for_app(page, timeout_ms)
    if phases is not None:
        page.wait_for_timeout(300)  # a chart's second draw follows its width's measurement (throttled 100 ms)
        phases += page.evaluate(_DRAWS_SINCE_JS, t0)
    return float(t1) - float(t0), phases


def open_target(page: Page, base_url: str, target: Target, timeout_ms: float, attempts: int = 3) -> None:
    """Open the target's page; on a shared machine a first load can outlast the timeout: try again."""
    for attempt in range(attempts):
        try:
            goto_app(page, f"{base_url}/{target.url_path.lstrip('/')}", timeout_ms)
            break
        except PlaywrightTimeoutError:
            if attempt == attempts - 1:
                raise
    if target.view is not None:
        open_view(page, target.view, timeout_ms)
    # the first load of a page may report "done" before a late chart mounts: wait for the watched one
    page.locator(watch_selectors(target)[1]).first.wait_for(state="attached", timeout=timeout_ms)


#: ``--renders``: added to every tab before the app loads, in React DevTools' place (React reports each commit to
#: ``__REACT_DEVTOOLS_GLOBAL_HOOK__``). While ``window.__renders`` is set, each commit's tree is walked and every
#: function or class component whose props or state object changed since the last commit it was in (or that is
#: new) is counted as rendered, under the nearest Streamlit element or block around it: "stElementContainer:
#: <element> st-key-<key>", "stVerticalBlock", "stSidebarNav", ... While it is not set the hook does nothing.
_RENDERS_JS = """
(() => {
  const PLACES = new Set(["stElementContainer", "stVerticalBlock", "stHorizontalBlock", "stColumn", "stSidebar",
                          "stSidebarNav", "stHeader", "stExpander", "stTabs"]);
  const where = (fiber) => {
    for (let f = fiber; f; f = f.return) {
      const n = f.stateNode;
      const id = n && n.nodeType === 1 ? n.getAttribute("data-testid") : null;
      if (id && PLACES.has(id)) {
        const key = Array.from(n.classList).find((c) => c.startsWith("st-key-"));
        const inner = id === "stElementContainer" && n.firstElementChild
          ? ":" + (n.firstElementChild.getAttribute("data-testid") || "element") : "";
        return id + inner + (key ? " " + key : "");
      }
    }
    return "(app shell)";
  };
  const COMPONENT = new Set([0, 1, 11, 14, 15]);  // function, class, forwardRef, memo, simple memo
  let seen = new WeakMap();
  let counting = false;  // a count ended: forget what it saw before the next one (and nothing per commit meanwhile)
  window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    supportsFiber: true, renderers: new Map(), isDisabled: false,
    inject(renderer) { this.renderers.set(this.renderers.size + 1, renderer); return this.renderers.size; },
    onScheduleFiberRoot() {}, onCommitFiberUnmount() {}, onPostCommitFiberRoot() {}, checkDCE() {},
    onCommitFiberRoot(_id, root) {
      const out = window.__renders;
      if (!out) {
        if (counting) { seen = new WeakMap(); counting = false; }
        return;
      }
      counting = true;
      out.commits += 1;
      const stack = [root.current];
      while (stack.length) {
        const f = stack.pop();
        const before = seen.get(f) || (f.alternate ? seen.get(f.alternate) : undefined);
        const now = { props: f.memoizedProps, state: f.memoizedState };
        seen.set(f, now);
        if (f.alternate) seen.set(f.alternate, now);
        const rendered = before === undefined || before.props !== now.props || before.state !== now.state;
        if (rendered && COMPONENT.has(f.tag) && !out.priming) {
          const place = where(f);
          out.by[place] = (out.by[place] || 0) + 1;
          out.total += 1;
        }
        if (f.sibling) stack.push(f.sibling);
        if (f.child) stack.push(f.child);
      }
    },
  };
})();
"""
#: ``--renders``: how many places (elements, blocks) the report names per target, the busiest first.
RENDERS_TOP = 6


def settled_changes(page: Page, target: Target, first_step: int, reps: int, timeout_ms: float) -> None:
    """``reps`` changes, each followed by the end of its script run and the chart's second, sized draw (what
    ``--cpu`` and ``--renders`` count is the whole of each change, not only the part before the chart)."""
    for i in range(reps):
        one_change(page, target, first_step + i, timeout_ms)
        wait_for_app(page, timeout_ms)
        page.wait_for_timeout(300)


def count_renders(page: Page, target: Target, first_step: int, reps: int, timeout_ms: float) -> dict[str, float]:
    """React commits and component renders per change, in all and by place (``_RENDERS_JS``), over ``reps``
    changes after one that only records what each component was (so the first counted commit is not all new)."""
    page.evaluate("window.__renders = {commits: 0, total: 0, by: {}, priming: true}")
    settled_changes(page, target, first_step, 1, timeout_ms)
    page.evaluate("window.__renders = {commits: 0, total: 0, by: {}, priming: false}")
    settled_changes(page, target, first_step + 1, reps, timeout_ms)
    counted = page.evaluate("(() => { const r = window.__renders; window.__renders = undefined; return r; })()")
    out = {"commits": counted["commits"] / reps, "renders": counted["total"] / reps}
    out.update({place: n / reps for place, n in counted["by"].items()})
    return out


def timelines(
    page: Page, target: Target, first_step: int, reps: int, timeout_ms: float, send_log: Path | None
) -> list[list[float | None]]:
    """``TIMELINE_COLUMNS`` for each of ``reps`` more changes (:func:`chart_timeline`); ``send_log`` is the server
    probe's log (None: the browser's side only)."""
    rows: list[list[float | None]] = []
    for i in range(reps):
        page.evaluate("window.__tasks = []")
        one_change(page, target, first_step + i, timeout_ms)
        wait_for_app(page, timeout_ms)
        page.wait_for_timeout(200)  # the server's log is flushed per line; its last lines are in
        t0, t1, origin, tasks = page.evaluate(
            "[window.__latency.t0, window.__latency.t1, performance.timeOrigin, window.__tasks]"
        )
        sends = parse_sends(send_log.read_text()) if send_log is not None and send_log.exists() else []
        shifted = [(kind, start - t0, duration, size) for kind, start, duration, size in tasks]
        rows.append(chart_timeline(origin + t0, t1 - t0, shifted, sends, target.watch_keys))
    return rows


#: ``--cpu``: the columns of the profile table. Self time of the page's JavaScript, grouped by the frontend bundle
#: it runs in (Streamlit's build names each chunk after its component: ``react-dom.<hash>.js``, ...), then the
#: browser's own work: DOM and built-in functions called from JavaScript, the benchmark's scripts (its watcher
#: and Playwright's queries), ``(program)`` (native work outside JavaScript: parsing, style, layout, paint) and
#: garbage collection. Then the page's own counters (CDP ``Performance.getMetrics``) for the same changes.
CPU_BUNDLES = ("react-dom", "emotion", "PlotlyChart", "StreamlitMarkdown", "DataFrame")
CPU_COLUMNS = (
    "total",
    *CPU_BUNDLES,
    "other Streamlit",
    "built-ins",
    "harness",
    "(program)",
    "GC",
    "script",
    "style+layout",
)
#: Sampling interval of the profile [µs]: fine enough for ~1 ms functions, coarse enough not to slow the page.
CPU_SAMPLING_US = 200


def cpu_column(function_name: str, url: str, line: int) -> str | None:
    """The ``CPU_COLUMNS`` entry one profile sample is counted in (None: idle, not counted)."""
    if function_name == "(idle)":
        return None
    if function_name == "(program)":
        return "(program)"
    if function_name == "(garbage collector)":
        return "GC"
    if not url:  # native functions have no line; scripts without a URL are the harness's (page.evaluate)
        return "built-ins" if line < 0 else "harness"
    bundle = url.rsplit("/", 1)[-1].split(".", 1)[0]
    bundle = "emotion" if bundle.startswith("emotion") else bundle
    return bundle if bundle in CPU_BUNDLES else "other Streamlit"


def _perf_counters(cdp: CDPSession) -> dict[str, float]:
    metrics = {m["name"]: float(m["value"]) for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {
        "script": metrics.get("ScriptDuration", 0.0),
        "style+layout": metrics.get("RecalcStyleDuration", 0.0) + metrics.get("LayoutDuration", 0.0),
    }


def cpu_profile(page: Page, target: Target, first_step: int, reps: int, timeout_ms: float) -> dict[str, float]:
    """Main-thread CPU per change [ms] by ``CPU_COLUMNS``, over ``reps`` changes of ``target`` made while a
    sampling profiler runs (a pass of its own, after the timed one: the profiler's own cost stays out of the
    latencies)."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Performance.enable")
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": CPU_SAMPLING_US})
        wait_for_app(page, timeout_ms)
        page.wait_for_timeout(300)
        before = _perf_counters(cdp)
        cdp.send("Profiler.start")
        settled_changes(page, target, first_step, reps, timeout_ms)
        profile = cdp.send("Profiler.stop")["profile"]
        after = _perf_counters(cdp)
    finally:
        cdp.detach()
    frames = {node["id"]: node["callFrame"] for node in profile["nodes"]}
    us: dict[str, float] = dict.fromkeys(CPU_COLUMNS, 0.0)
    for node_id, delta_us in zip(profile["samples"], profile["timeDeltas"], strict=True):
        frame = frames[node_id]
        column = cpu_column(frame["functionName"], frame["url"], int(frame["lineNumber"]))
        if column is not None:
            us[column] += delta_us
            us["total"] += delta_us
    out = {k: v / 1000.0 / reps for k, v in us.items()}
    out.update({k: (after[k] - before[k]) * 1000.0 / reps for k in before})  # the counters are in seconds
    return out


def measure(
    pages: list[Page],
    urls: list[str],
    group: list[Target],
    reps: int,
    warmup: int,
    timeout_ms: float,
    cpu_reps: int = 0,
    render_reps: int = 0,
    timeline_reps: int = 0,
    send_log: Path | None = None,
) -> list[Result]:
    """The targets of ``group`` in tabs of their own, changed in turn (trivial, target, trivial, ...): the
    medians come from the same seconds of the same machine's load, not from blocks a minute apart."""
    for page, url, target in zip(pages, urls, group, strict=True):
        page.bring_to_front()
        open_target(page, url, target, timeout_ms)
    samples: list[list[float]] = [[] for _ in group]
    phases: list[list[list[float] | None]] = [[] for _ in group]
    for i in range(warmup + reps):
        for page, target, out, probe in zip(pages, group, samples, phases, strict=True):
            page.bring_to_front()  # a background tab gets no animation frames
            latency, phase = one_change(page, target, i, timeout_ms)
            out.append(latency)
            probe.append(phase)
    cpu: list[dict[str, float]] = [{} for _ in group]
    if cpu_reps:  # one tab at a time: tabs of one site share a renderer, whose profiler would see both
        for page, target, slot in zip(pages, group, cpu, strict=True):
            page.bring_to_front()
            slot.update(cpu_profile(page, target, warmup + reps, cpu_reps, timeout_ms))
    renders: list[dict[str, float]] = [{} for _ in group]
    if render_reps:
        for page, target, slot in zip(pages, group, renders, strict=True):
            page.bring_to_front()
            slot.update(count_renders(page, target, warmup + reps + cpu_reps, render_reps, timeout_ms))
    lines: list[list[list[float | None]]] = [[] for _ in group]
    if timeline_reps:
        first = warmup + reps + cpu_reps + (render_reps + 1 if render_reps else 0)
        for page, target, rows in zip(pages, group, lines, strict=True):
            page.bring_to_front()
            rows.extend(timelines(page, target, first, timeline_reps, timeout_ms, send_log))
    return [
        Result(
            t.name,
            out[warmup:],
            t.floor,
            [p for p in probe[warmup:] if p is not None],
            cpu_ms=c,
            renders=r,
            timeline_ms=tl,
        )
        for t, out, probe, c, r, tl in zip(group, samples, phases, cpu, renders, lines, strict=True)
    ]


def groups(targets: list[Target]) -> list[list[Target]]:
    """Each trivial floor with the target after it (measured together); any other target on its own."""
    out: list[list[Target]] = []
    for target in targets:
        if out and out[-1][-1].floor and not target.floor:
            out[-1].append(target)
        else:
            out.append([target])
    return out


def run(
    targets: list[Target],
    reps: int,
    warmup: int,
    timeout_ms: float,
    breakdown: bool = False,
    cpu_reps: int = 0,
    render_reps: int = 0,
    timeline_reps: int = 0,
) -> list[Result]:
    """Measure the targets in order on fresh tabs, one server per distinct app, kept for the run; a trivial
    floor and the target after it are measured interleaved (:func:`measure`). With ``timeline_reps`` the
    servers run the send probe (``SERVER_PROBE``), from a temporary directory on their ``PYTHONPATH``."""
    results: list[Result] = []
    with sync_playwright() as pw, contextlib.ExitStack() as servers:
        env, send_log = _server_probe(servers) if timeline_reps else (None, None)
        browser = launch_chromium(pw)
        urls: dict[Path, str] = {}
        try:
            for group in groups(targets):
                for target in group:
                    if target.app not in urls:
                        urls[target.app] = servers.enter_context(running_server(target.app, extra_env=env)).url
                tabs = [browser.new_page(viewport={"width": 1440, "height": 900}) for _ in group]
                scripts = [(breakdown, _PROBE_JS), (render_reps, _RENDERS_JS), (timeline_reps, _TASKS_JS)]
                for tab in tabs:
                    for wanted, script in scripts:
                        if wanted:
                            tab.add_init_script(script)
                try:
                    results += measure(
                        tabs,
                        [urls[t.app] for t in group],
                        group,
                        reps,
                        warmup,
                        timeout_ms,
                        cpu_reps,
                        render_reps,
                        timeline_reps,
                        send_log,
                    )
                except PlaywrightTimeoutError as exc:  # one target's failure must not lose the others' results
                    first = str(exc).splitlines()[0]
                    results += [Result(t.name, [], t.floor, error=first) for t in group]
                for tab in tabs:
                    tab.close()
        finally:
            browser.close()
    return results


def _server_probe(stack: contextlib.ExitStack) -> tuple[dict[str, str], Path]:
    """The environment that puts ``SERVER_PROBE`` on a server's path (in a directory ``stack`` removes), and the
    log it writes."""
    probe_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="latency-probe-")))
    (probe_dir / "sitecustomize.py").write_text(SERVER_PROBE)
    send_log = probe_dir / f"sends-{time.time_ns()}.log"
    path = os.pathsep.join(p for p in (str(probe_dir), os.environ.get("PYTHONPATH", "")) if p)
    return {"PYTHONPATH": path, "LATENCY_SEND_LOG": str(send_log)}, send_log


def report(results: list[Result], reps: int) -> str:
    """One line per measurement; every target measured with a trivial page gets its ratio to it."""
    lines = [f"{'page':<50} {'median':>8} {'p90':>8} {'min':>8} {'max':>8} {'ratio':>6}   [ms, n={reps}]"]
    floor: Result | None = None
    for r in results:
        is_floor = r.floor
        if r.error is not None:
            lines.append(f"{r.name:<50} failed: {r.error[:70]}")
            floor = r if is_floor else floor
            continue
        ratio = "" if is_floor or floor is None or floor.error else f"{r.median_ms / floor.median_ms:6.2f}"
        lines.append(
            f"{r.name:<50} {r.median_ms:8.1f} {r.p90_ms:8.1f} {min(r.samples_ms):8.1f} "
            f"{max(r.samples_ms):8.1f} {ratio:>6}"
        )
        floor = r if is_floor else floor
    if any(r.phases_ms for r in results):
        lines.append("")
        lines.append(
            f"{'breakdown, median ms after the key press':<50} {'send':>8} {'1st msg':>8} {'last msg':>8} "
            f"{'msgs':>8} {'long tsk':>8} {'draws':>8} {'draw ms':>8} {'all drws':>8} {'all ms':>8}"
        )
        for r in results:
            if r.error is not None:
                continue
            cells = [f"{v:8.1f}" if v is not None else f"{'-':>8}" for v in r.phase_medians()]
            lines.append(f"{r.name:<50} " + " ".join(cells))
    return "\n".join(lines + _cpu_lines(results) + _render_lines(results) + _timeline_lines(results))


def _timeline_lines(results: list[Result]) -> list[str]:
    """``--timeline``: one line per target, the median of each ``TIMELINE_COLUMNS`` over its changes."""
    if not any(r.timeline_ms for r in results):
        return []
    head = f"{'--timeline: median ms after the key press':<50} " + " ".join(f"{c[:10]:>10}" for c in TIMELINE_COLUMNS)
    lines = ["", head]
    for r in results:
        if not r.timeline_ms:
            continue
        cells = []
        for column in zip(*r.timeline_ms, strict=True):
            known = [v for v in column if v is not None]
            cells.append(f"{statistics.median(known):10.1f}" if known else f"{'-':>10}")
        lines.append(f"{r.name:<50} " + " ".join(cells))
    return lines


def _cpu_lines(results: list[Result]) -> list[str]:
    """``--cpu``: one line per target, the main thread's ms per change by ``CPU_COLUMNS``."""
    if not any(r.cpu_ms for r in results):
        return []
    head = f"{'--cpu: main-thread ms per change':<50} " + " ".join(f"{c[:8]:>8}" for c in CPU_COLUMNS)
    rows = [
        f"{r.name:<50} " + " ".join(f"{r.cpu_ms.get(c, 0.0):8.1f}" for c in CPU_COLUMNS) for r in results if r.cpu_ms
    ]
    return ["", head, *rows]


def _render_lines(results: list[Result]) -> list[str]:
    """``--renders``: one line per target, React's commits and component renders per change, busiest places."""
    if not any(r.renders for r in results):
        return []
    lines = ["", f"{'--renders: per change':<50} {'commits':>8} {'renders':>8}   busiest places (renders)"]
    for r in results:
        if r.renders:
            places = sorted(((n, p) for p, n in r.renders.items() if p not in ("commits", "renders")), reverse=True)
            busiest = ", ".join(f"{p} {n:.0f}" for n, p in places[:RENDERS_TOP])
            lines.append(f"{r.name:<50} {r.renders['commits']:8.1f} {r.renders['renders']:8.0f}   {busiest}")
    return lines


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--suite", action="store_true", help="every dashboard page with its representative input")
    p.add_argument("--only", help="with --suite: only the entries whose name contains this text, e.g. 'scenario'")
    p.add_argument("--app", default="app.py", help="Streamlit script of the target, relative to the repo root")
    p.add_argument("--page-url-path", default="", help="URL path of the page, e.g. 'pricing' (default: '/')")
    p.add_argument("--input-key", help="the input widget's key= (default: 'v_bt_batch' if no other input option)")
    p.add_argument("--input-label", help="the input widget's label")
    p.add_argument("--input-selector", help="CSS of the input element (inside a non-stale element container)")
    p.add_argument("--values", help="comma-separated values to type in turn (fill + Enter)")
    p.add_argument(
        "--keys",
        help="comma-separated key presses to use in turn instead of typing; a press may be a space-separated "
        "sequence whose last key commits, e.g. 'ArrowRight,ArrowLeft' or 'ArrowDown Enter,ArrowUp Enter'",
    )
    p.add_argument(
        "--watch",
        default="chart_batch_cost",
        help="comma-separated keys (st.plotly_chart key=) of the charts the input must redraw, or CSS when it "
        "starts with '[', '.' or '#' (default chart_batch_cost)",
    )
    p.add_argument("--expect", help="text the watched elements must contain after the change; may use {value}")
    p.add_argument("--compare", choices=["text", "html"], default="text", help="what counts as a change")
    p.add_argument("-n", "--repetitions", type=int, default=20, help="measured changes per page (default 20)")
    p.add_argument("--warmup", type=int, default=3, help="unmeasured changes per page first (default 3)")
    p.add_argument("--timeout-s", type=float, default=30.0, help="give up on one change after this long")
    p.add_argument(
        "--trivial-widget",
        choices=sorted(TRIVIAL),
        help="widget of the trivial page to compare a single target with (default: from --keys, see header)",
    )
    p.add_argument("--skip-trivial", action="store_true", help="measure the target page only")
    p.add_argument("--json", type=Path, help="write the samples to this JSON file")
    p.add_argument(
        "--breakdown",
        action="store_true",
        help="also time, per change, the websocket send, the server's first and last message before the chart "
        "was drawn, the main thread's long tasks and the Plotly draws (where the time goes)",
    )
    p.add_argument(
        "--cpu",
        type=int,
        default=0,
        metavar="N",
        help="after the timed changes, make N more per tab under a CPU profiler and show where the main thread's "
        "time goes, by frontend bundle (React, emotion styles, Plotly, ...) and the browser's own work",
    )
    p.add_argument(
        "--renders",
        type=int,
        default=0,
        metavar="N",
        help="then make N more changes per tab counting React's commits and component renders, by the Streamlit "
        "element or block they are in (how much of the page each change makes the browser redo)",
    )
    p.add_argument(
        "--timeline",
        type=int,
        default=0,
        metavar="N",
        help="then make N more changes per tab and time when the watched chart left the server and reached the "
        "page, and the renders of the page the main thread ran before it (what the chart's message waited for)",
    )
    args = p.parse_args(argv)
    if args.input_label is None and args.input_selector is None and args.input_key is None:
        args.input_key = "v_bt_batch"
        args.page_url_path = args.page_url_path or "batching"
    if args.repetitions < 1 or min(args.warmup, args.cpu, args.renders, args.timeline) < 0:
        p.error("--repetitions must be >= 1, --warmup, --cpu, --renders and --timeline >= 0")
    return args


def _split(text: str | None) -> list[str] | None:
    return [v.strip() for v in text.split(",") if v.strip()] if text else None


def _widget_of(keys: list[str] | None) -> str:
    """The widget type a ``--keys`` plan drives: Enter commits a select box, bare arrows move a slider."""
    if not keys:
        return "number"
    return "select" if any(k.split()[-1] == "Enter" for k in keys) else "slider"


def targets_from(args: argparse.Namespace) -> list[Target]:
    """The measurement plan: the trivial page before every target (unless skipped), measured interleaved
    with it, so each ratio compares two medians taken over the same seconds of the same machine's load."""
    if args.suite:
        pages = [t for t in SUITE if args.only is None or args.only in t.name]
    else:
        css = args.watch.startswith(("[", ".", "#"))
        pages = [
            Target(
                name=f"target ({args.app} /{args.page_url_path.lstrip('/')})",
                app=(ROOT / args.app).resolve(),
                url_path=args.page_url_path,
                input_key=args.input_key,
                input_label=args.input_label,
                input_selector=args.input_selector,
                values=_split(args.values),
                keys=_split(args.keys),
                watch_keys=() if css else tuple(_split(args.watch) or ()),
                watch=args.watch if css else None,
                expect=args.expect,
                compare=args.compare,
                widget=args.trivial_widget or _widget_of(_split(args.keys)),
            )
        ]
    if args.skip_trivial:
        return pages
    return [t for page in pages for t in (TRIVIAL[page.widget], page)]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        results = run(
            targets_from(args),
            args.repetitions,
            args.warmup,
            args.timeout_s * 1000,
            args.breakdown,
            args.cpu,
            args.renders,
            args.timeline,
        )
    except Exception as exc:  # report any failure as one line plus the exit code
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(report(results, args.repetitions))
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = [{**asdict(r), "median_ms": r.median_ms, "p90_ms": r.p90_ms} for r in results]
        args.json.write_text(json.dumps(payload, indent=2))
    return 1 if any(r.error is not None for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
