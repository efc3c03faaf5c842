"""What drawing a changed chart in place would save: ``Plotly.react`` on the mounted plot against a fresh draw.

Why
    A scenario edit changes a chart's spec. Streamlit 1.67 keys a plotly chart's element id on its spec, so
    the changed chart remounts and Plotly draws it from scratch. The obvious lever is a stable id (the key
    alone), so that the mounted chart updates with ``Plotly.react``. In 1.67 that draws the *old* figure:
    the frontend's ``PlotlyChart`` keeps the figure in React state initialised once per id (``useState`` in
    ``static/js/PlotlyChart.*.js``) and never reads a later spec for the same id, which is why the spec is in
    the id. (Checked in a browser: the plot's DOM node survives the edit, its data and title stay the old
    ones.) Only a chart component of our own could call ``Plotly.react`` on the mounted plot; this measures
    what the in-place draw itself would win. A remount also draws each chart twice, first before its width is
    measured, then at it (``browser_latency.py --breakdown`` counts the draws): an own component would save
    that first draw too.

What it measures
    For each figure of the pages whose scenario inputs the latency suite drives, the spec Streamlit sends for
    the default scenario (A) and after one scenario edit made through ``AppTest`` (B: the node purchase price
    on Cost per token, a workload's failure cost on Workloads; the trivial page's number input). In headless
    chromium, inside the page as the app serves it (``--in-page`` of ``plotly_draw_cost.py``), the figure is
    drawn A, B, A, B, ... either from scratch (``Plotly.purge`` and ``Plotly.newPlot``, what a remount does)
    or with ``Plotly.react`` on the mounted plot, each followed by a forced style and layout pass. The Plotly
    is the page's own (Streamlit's bundle sets ``window.Plotly`` once a chart has loaded): a fresh plot also
    pays for copying that bundle's default config into the new div's context. Main-thread
    CPU per draw (``/proc``, as in ``plotly_draw_cost.py``), median over ``-n`` batches, both modes in turn.

Usage
    PYTHONPATH=$PWD .venv/bin/python benchmarks/plotly_react_cost.py -n 6
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from benchmarks.plotly_draw_cost import (  # noqa: E402
    _HOST_JS,
    APP,
    APP_WIDTH_PX,
    CONFIG,
    TRIVIAL_APP,
    TRIVIAL_WIDTH_PX,
    MainThreadClock,
)
from tests.browser.chromium import launch_chromium  # noqa: E402
from tests.browser.server import running_server  # noqa: E402
from tests.browser.streamlit_page import goto_app  # noqa: E402

_SETUP_JS = """
async ([a, width, config]) => {
  const div = document.getElementById("g");
  const fig = JSON.parse(a);
  Plotly.purge(div);
  div.innerHTML = "";
  await Plotly.newPlot(div, fig.data, { ...(fig.layout || {}), width }, config);
}
"""

_DRAW_JS = """
async ([a, b, width, config, reps, inPlace]) => {
  const div = document.getElementById("g");
  for (let i = 1; i <= reps; i++) {
    const fig = JSON.parse(i % 2 ? b : a);  // a fresh object each time, as a new spec from the server
    fig.layout = { ...(fig.layout || {}), width };
    if (inPlace) {
      await Plotly.react(div, fig.data, fig.layout, config);
    } else {
      Plotly.purge(div);
      div.innerHTML = "";
      await Plotly.newPlot(div, fig.data, fig.layout, config);
    }
    div.getBoundingClientRect();
    document.body.offsetHeight;
  }
}
"""

#: (label, app, page, widget key, new value): one scenario edit per page, as the latency suite makes it.
EDITS: tuple[tuple[str, Path, str | None, str, Any], ...] = (
    ("trivial page", TRIVIAL_APP, None, "value", 2),
    ("cost_per_token", APP, "2_cost_per_token", "node_sg-h100-node_capex_usd", "$281,000"),
)


def _specs(app: Path, page: str | None, key: str | None, value: Any) -> list[str]:
    at = AppTest.from_file(str(app), default_timeout=60)
    at.run()
    if page is not None:
        at.switch_page(f"pages/{page}.py").run()
    if key is not None:
        widget = at.number_input(key=key) if isinstance(value, int) else at.text_input(key=key)
        widget.set_value(value).run()
    if at.exception:
        raise RuntimeError([e.value for e in at.exception])
    return [chart.proto.spec for chart in at.get("plotly_chart")]


def _title(spec: str) -> str:
    title = json.loads(spec).get("layout", {}).get("title", {})
    return str(title.get("text", "") if isinstance(title, dict) else title).split("<br>")[0][:44]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("-n", "--rounds", type=int, default=6, help="batches per figure and mode (default 6)")
    p.add_argument("--batch", type=int, default=6, help="draws per batch (default 6)")
    args = p.parse_args(argv)
    plan = []
    for label, app, page, key, value in EDITS:
        before, after = _specs(app, page, None, None), _specs(app, page, key, value)
        width = TRIVIAL_WIDTH_PX if page is None else APP_WIDTH_PX
        plan += [(label, app, page, a, b, width) for a, b in zip(before, after, strict=True) if a != b]
    with sync_playwright() as pw, contextlib.ExitStack() as servers:
        browser = launch_chromium(pw)
        tabs: dict[str, Any] = {}
        for label, app, page, *_ in plan:
            if label not in tabs:
                tab = tabs[label] = browser.new_page(viewport={"width": 1440, "height": 900})
                url = servers.enter_context(running_server(app)).url
                goto_app(tab, f"{url}/{'' if page is None else page.split('_', 1)[1]}", 120_000)
                tab.evaluate(_HOST_JS)
                tab.wait_for_function("() => window.Plotly !== undefined")  # Streamlit's own bundle
        clock = MainThreadClock(browser)
        samples: list[dict[bool, list[float]]] = [{False: [], True: []} for _ in plan]
        for r in range(args.rounds + 1):
            for (label, _, _, a, b, width), sample in zip(plan, samples, strict=True):
                for in_place in (False, True):
                    tabs[label].bring_to_front()
                    tabs[label].evaluate(_SETUP_JS, [a, width, CONFIG])  # A drawn, not timed
                    start = clock()
                    tabs[label].evaluate(_DRAW_JS, [a, b, width, CONFIG, args.batch, in_place])
                    if r:  # round 0 warms up
                        sample[in_place].append(1000 * (clock() - start) / args.batch)
        browser.close()
    print(f"{'page':<16} {'figure':<44} {'fresh draw':>10} {'in place':>9} {'saved':>6}  [main-thread CPU ms per draw]")
    for (label, _, _, a, _, _), sample in zip(plan, samples, strict=True):
        fresh, react = statistics.median(sample[False]), statistics.median(sample[True])
        print(f"{label:<16} {_title(a):<44} {fresh:10.1f} {react:9.1f} {fresh - react:6.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
