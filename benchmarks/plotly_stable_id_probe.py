"""Can a changed plotly chart be redrawn in place by giving it a stable element id? A check in a real browser.

Streamlit 1.67 remounts a plotly chart whenever its spec changes (the spec is part of its element id), and a
remount draws the chart from scratch, twice (``browser_latency.py --breakdown``). This probe serves
``trivial_stable_id_app.py`` with the id Streamlit computes and with an id from the key alone, changes the
number input once, and reports whether the plot's DOM node survived the edit and which title and bar value
it then shows. In 1.67 the key-only id keeps the node but shows the old figure: the frontend's
``PlotlyChart`` initialises its figure state once per element id and never reads a later spec for that id.
Run it again after a Streamlit upgrade: if "new figure drawn" turns yes with "same DOM node" yes, charts can
be updated in place.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/plotly_stable_id_probe.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from tests.browser.chromium import launch_chromium  # noqa: E402
from tests.browser.server import running_server  # noqa: E402
from tests.browser.streamlit_page import goto_app, set_number_input, wait_for_app  # noqa: E402

APP = ROOT / "benchmarks" / "trivial_stable_id_app.py"
PLOT = ".st-key-chart .js-plotly-plot"


def probe(stable: bool) -> tuple[bool, str, list[int]]:
    """(same DOM node after the edit, title drawn, bar values drawn) after changing the value from 1 to 7."""
    with running_server(APP, extra_env={"STABLE_ID": "1" if stable else "0"}) as server, sync_playwright() as pw:
        browser = launch_chromium(pw)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        goto_app(page, server.url, 60_000)
        page.locator(PLOT).wait_for()
        page.evaluate(f"() => {{ window.__plot = document.querySelector('{PLOT}'); }}")
        set_number_input(page, 7, key="value")
        wait_for_app(page)
        page.wait_for_timeout(1000)  # both draws of a remounted chart are done
        same = bool(page.evaluate(f"() => window.__plot === document.querySelector('{PLOT}')"))
        title = str(page.evaluate(f"() => document.querySelector('{PLOT} .gtitle').textContent"))
        bars = [int(v) for v in page.evaluate(f"() => document.querySelector('{PLOT}').data[0].y")]
        browser.close()
    return same, title, bars


def main() -> int:
    print(f"Streamlit {streamlit.__version__}; the value changed from 1 to 7")
    print(f"{'element id':<26} {'same DOM node':>13} {'new figure drawn':>16}  title, bars")
    for stable in (False, True):
        same, title, bars = probe(stable)
        fresh = title == "value = 7" and bars == [1, 7]
        label = "key only (stable)" if stable else "Streamlit's (spec in it)"
        print(f"{label:<26} {'yes' if same else 'no':>13} {'yes' if fresh else 'no':>16}  {title!r}, {bars}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
