"""What one Plotly chart costs the browser to draw: our page figures against the trivial page's, feature by feature.

Why
    Streamlit 1.67 keys a plotly chart's element id on its spec, and its ``PlotlyChart`` component keeps the
    figure in React state initialised once per id: a changed figure arrives as a new element, remounts, and
    is drawn from scratch (``Plotly.react`` on an empty div, i.e. a full ``newPlot``). So a scenario input's
    latency in the browser is about the sum of the draw costs of the charts it changes, and the trivial page's
    is the draw cost of its one small chart (``benchmarks/browser_latency.py`` measures the whole path).

What it measures
    Headless Debian chromium loads the ``plotly.min.js`` of the installed plotly package (plotly.js 4.1.1;
    Streamlit 1.67 bundles 4.2.0, the closest available) and, per figure, times ``JSON.parse`` of the spec,
    ``Plotly.newPlot`` into an empty div of the chart's width and a forced style and layout pass, with the
    modebar configuration Streamlit passes. The figure's cost is the main thread's CPU time per draw (read
    from ``/proc`` over a batch of draws: wall time on this shared machine measures the neighbours too),
    median over ``-n`` batches; wall time is shown beside it. Every figure is drawn in turn, round by round.
    The figures are the specs Streamlit sends (``st.plotly_chart`` protos read through ``AppTest`` on the
    default scenario), with the same template and data encoding; the trivial page's figure comes from
    ``trivial_app.py`` the same way (Streamlit's theme template included, not its frontend's colour swap).

    ``--in-page`` draws each figure inside its own page as the app serves it (a large DOM makes every layout
    that plotly forces dearer: the cost chart took ~45 ms there against ~32 ms in an empty document).
    ``--ablate`` also draws each figure with one feature taken away (the legend, hover templates, text, the
    likely-range bands, …), so the table shows where the milliseconds of each figure go.

Usage
    PYTHONPATH=$PWD .venv/bin/python benchmarks/plotly_draw_cost.py                  # empty document
    PYTHONPATH=$PWD .venv/bin/python benchmarks/plotly_draw_cost.py --in-page --ablate -n 5   # in the pages
    PYTHONPATH=$PWD .venv/bin/python benchmarks/plotly_draw_cost.py --pages 2_cost_per_token --json out.json
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import os
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import plotly  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from tests.browser.chromium import launch_chromium  # noqa: E402
from tests.browser.server import running_server  # noqa: E402
from tests.browser.streamlit_page import goto_app  # noqa: E402

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
APP = ROOT / "app.py"
TRIVIAL_APP = ROOT / "benchmarks" / "trivial_app.py"
#: The pages whose scenario inputs the latency suite drives.
PAGES = ("2_cost_per_token", "5_workloads")
#: Chart widths [px] in the latency suite's 1,440 px window: the trivial page is Streamlit's centred layout,
#: our app its wide layout beside the sidebar (read from the DOM of both pages).
TRIVIAL_WIDTH_PX = 704
APP_WIDTH_PX = 1040
#: What Streamlit's frontend passes as config (PlotlyChart: the fullscreen button added, select tools removed).
CONFIG: dict[str, Any] = {
    "displaylogo": False,
    "showSendToCloud": False,
    "modeBarButtonsToRemove": ["lasso2d", "select2d", "sendChartToCloud"],
}

_DRAW_JS = """
async ([spec, width, config, reps]) => {
  const div = document.getElementById("g");
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) {
    Plotly.purge(div);
    div.innerHTML = "";
    const fig = JSON.parse(spec);
    fig.layout = { ...(fig.layout || {}), width };
    await Plotly.newPlot(div, fig.data, fig.layout, config);
    div.getBoundingClientRect();  // style and layout of what was drawn
    document.body.offsetHeight;
  }
  return (performance.now() - t0) / reps;
}
"""


#: ``--in-page``: a div for the figures at the end of the page's main block, as a chart of the page would be.
_HOST_JS = """
() => {
  const main = document.querySelector('[data-testid="stMainBlockContainer"]') || document.body;
  const div = document.createElement("div");
  div.id = "g";
  main.appendChild(div);
}
"""


def page_specs(page: str | None) -> list[tuple[str, str]]:
    """(short title, spec JSON as Streamlit sends it) of every plotly chart on ``pages/<page>.py``, or on the
    trivial page when ``page`` is None."""
    at = AppTest.from_file(str(TRIVIAL_APP if page is None else APP), default_timeout=60)
    at.run()
    if page is not None:
        at.switch_page(f"pages/{page}.py").run()
    if at.exception:
        raise RuntimeError([e.value for e in at.exception])
    out = []
    for chart in at.get("plotly_chart"):
        spec = chart.proto.spec
        title = json.loads(spec).get("layout", {}).get("title", {}).get("text", "")
        out.append((str(title).split("<br>")[0][:44], spec))
    return out


def _without_legend(fig: dict[str, Any]) -> None:
    fig["layout"]["showlegend"] = False


def _without_hover(fig: dict[str, Any]) -> None:
    for trace in fig["data"]:
        for name in ("hovertemplate", "customdata", "hoverinfo"):
            trace.pop(name, None)
        trace["hoverinfo"] = "none"
    fig["layout"]["hovermode"] = False


def _without_text(fig: dict[str, Any]) -> None:
    fig["layout"].pop("annotations", None)
    for trace in fig["data"]:
        trace.pop("text", None)
        trace.pop("texttemplate", None)
        if isinstance(trace.get("mode"), str):
            trace["mode"] = trace["mode"].replace("+text", "").replace("text+", "")


def _without_fills(fig: dict[str, Any]) -> None:
    """The likely-range bands (filled shapes) of the cost curves."""
    fig["data"] = [t for t in fig["data"] if not t.get("fill") and "likely range" not in str(t.get("name", ""))]


def _without_shapes(fig: dict[str, Any]) -> None:
    fig["layout"].pop("shapes", None)


def _without_modebar(fig: dict[str, Any]) -> None:
    fig["layout"]["modebar"] = {"remove": []}
    fig["__config__"] = {"displayModeBar": False}


def _without_template(fig: dict[str, Any]) -> None:
    fig["layout"].pop("template", None)


def _without_title(fig: dict[str, Any]) -> None:
    fig["layout"].pop("title", None)


def _automargin(fig: dict[str, Any]) -> None:
    for name, axis in fig["layout"].items():
        if name.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
            axis["automargin"] = True


def _with_legend_one_trace(fig: dict[str, Any]) -> None:
    """Only the first legend entry shown: what the legend's size costs beyond its existence."""
    shown = 0
    for trace in fig["data"]:
        if trace.get("showlegend") is not False:
            shown += 1
            if shown > 1:
                trace["showlegend"] = False


#: Feature → how to take it away from a figure (a deep copy).
ABLATIONS: dict[str, Callable[[dict[str, Any]], None]] = {
    "no legend": _without_legend,
    "one legend entry": _with_legend_one_trace,
    "no hover": _without_hover,
    "no text/annot.": _without_text,
    "no likely-range fills": _without_fills,
    "no shapes": _without_shapes,
    "no title": _without_title,
    "no template": _without_template,
    "no modebar": _without_modebar,
    "automargin on": _automargin,
}


def ablated(spec: str, feature: str) -> tuple[str, dict[str, Any]]:
    """The spec without ``feature``, and the config to draw it with."""
    fig = copy.deepcopy(json.loads(spec))
    ABLATIONS[feature](fig)
    config = {**CONFIG, **fig.pop("__config__", {})}
    return json.dumps(fig), config


class MainThreadClock:
    """CPU time of the renderers' main threads (in ``/proc``) [s]: on a shared 2-core
    machine, wall time measures the neighbours as much as the figure; CPU time measures the figure (at the
    kernel's 10 ms tick, so it is read over a batch of draws)."""

    def __init__(self, browser: Any) -> None:
        info = browser.new_browser_cdp_session().send("SystemInfo.getProcessInfo")["processInfo"]
        self.pids = [p["id"] for p in info if p["type"] == "renderer"]
        self.tick = os.sysconf("SC_CLK_TCK")

    def __call__(self) -> float:
        total = 0
        for pid in self.pids:  # the main thread is the task whose id is the process id
            with contextlib.suppress(OSError):
                fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])  # utime, stime [ticks]
        return total / self.tick


def draw_ms(
    clock: MainThreadClock, plan: list[tuple[Any, str, int, dict[str, Any]]], rounds: int, batch: int
) -> list[tuple[list[float], list[float]]]:
    """Per (tab, spec, width [px], config): main-thread CPU and wall time per draw [ms], one sample per batch
    of ``batch`` draws; the figures are drawn in turn, ``rounds`` times, so all see the same load."""
    out: list[tuple[list[float], list[float]]] = [([], []) for _ in plan]
    for r in range(rounds + 1):
        for (page, spec, width, config), (cpu, wall) in zip(plan, out, strict=True):
            page.bring_to_front()
            before = clock()
            per_draw = float(page.evaluate(_DRAW_JS, [spec, width, config, batch]))
            if r:  # round 0 warms up
                cpu.append(1000 * (clock() - before) / batch)
                wall.append(per_draw)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--pages", default=",".join(PAGES), help="comma-separated pages/<name>.py (default: %(default)s)")
    p.add_argument("-n", "--rounds", type=int, default=7, help="batches per figure, drawn in turn (default 7)")
    p.add_argument("--batch", type=int, default=6, help="draws per batch (default 6)")
    p.add_argument("--ablate", action="store_true", help="also draw each figure without one feature at a time")
    p.add_argument(
        "--in-page",
        action="store_true",
        help="draw each figure inside its own page as the app serves it (the trivial figure in the trivial page), "
        "not in an empty document: a large DOM makes every layout plotly forces dearer",
    )
    p.add_argument("--json", type=Path, help="write the table to this JSON file")
    args = p.parse_args(argv)
    figures = [("trivial page", title, spec, TRIVIAL_WIDTH_PX) for title, spec in page_specs(None)]
    for name in args.pages.split(","):
        figures += [(name, title, spec, APP_WIDTH_PX) for title, spec in page_specs(name)]
    features = list(ABLATIONS) if args.ablate else []
    with sync_playwright() as pw, contextlib.ExitStack() as servers:
        browser = launch_chromium(pw)
        tabs: dict[str, Any] = {}
        for source, *_ in figures:
            if source not in tabs:
                tabs[source] = browser.new_page(viewport={"width": 1440, "height": 900})
                if args.in_page:
                    app = TRIVIAL_APP if source == "trivial page" else APP
                    url = servers.enter_context(running_server(app)).url
                    goto_app(tabs[source], f"{url}/{'' if app == TRIVIAL_APP else source.split('_', 1)[1]}", 120_000)
                    tabs[source].evaluate(_HOST_JS)
                else:
                    tabs[source].set_content('<html><body style="margin:0"><div id="g"></div></body></html>')
                tabs[source].add_script_tag(path=str(PLOTLY_JS))
        plan = []
        for source, _, spec, width in figures:
            plan.append((tabs[source], spec, width, CONFIG))
            for feature in features:
                changed, config = ablated(spec, feature)
                plan.append((tabs[source], changed, width, config))
        samples = draw_ms(MainThreadClock(browser), plan, args.rounds, args.batch)
        browser.close()
    rows = table(figures, features, samples)
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


def table(
    figures: list[tuple[str, str, str, int]], features: list[str], samples: list[tuple[list[float], list[float]]]
) -> list[dict[str, Any]]:
    """Print and return one row per figure: median CPU and wall time per draw, ratio to the trivial figure,
    and the CPU time without each feature [ms]."""
    step = 1 + len(features)
    floor = statistics.median(samples[0][0])
    rows = []
    print(f"{'page':<18} {'figure':<44} {'spec':>9} {'CPU ms':>7} {'wall ms':>7} {'ratio':>6}" +
          "".join(f" | {f}" for f in features))  # fmt: skip
    for i, (source, title, spec, _) in enumerate(figures):
        cpu, wall = (statistics.median(v) for v in samples[i * step])
        row: dict[str, Any] = {"page": source, "figure": title, "bytes": len(spec), "cpu_ms": cpu, "wall_ms": wall,
                               "ratio": cpu / floor}  # fmt: skip
        for j, feature in enumerate(features, start=1):
            row[feature] = statistics.median(samples[i * step + j][0])
        rows.append(row)
        print(
            f"{source:<18} {title:<44} {len(spec):>7,} B {cpu:7.1f} {wall:7.1f} {cpu / floor:5.2f}×"
            + "".join(f" | {row[f]:.1f}" for f in features),
            flush=True,
        )
    return rows


if __name__ == "__main__":
    sys.exit(main())
