"""Full-page PNGs of the dashboard's pages, to look at before calling a page done.

    .venv/bin/python scripts/screenshots.py                   # "/" → test-results/screenshots/home@1440x900.png …
    .venv/bin/python scripts/screenshots.py / pricing fleet   # several URL paths
    .venv/bin/python scripts/screenshots.py "cost_per_token|Across all utilizations"   # a page with a tab open
    .venv/bin/python scripts/screenshots.py --app benchmarks/trivial_app.py --out /tmp/shots

Starts its own ``streamlit run`` on a free port (tests/browser/server.py), opens every path in
headless chromium at 1440×900 and 1024×768 (the narrow window finance uses), waits until the script
run has finished and the charts are drawn, and
saves one PNG per path and viewport. Prints the files it wrote; exit code 1 if a page shows an exception.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from playwright.sync_api import Page, sync_playwright  # noqa: E402

from tests.browser.chromium import launch_chromium  # noqa: E402
from tests.browser.server import running_server  # noqa: E402
from tests.browser.streamlit_page import goto_view  # noqa: E402

VIEWPORTS: tuple[tuple[int, int], ...] = ((1440, 900), (1024, 768))
#: Streamlit scrolls inside this element, not the document; full-page shots must grow the viewport to it.
SCROLLER_JS = """
() => Math.max(
  document.documentElement.scrollHeight,
  ...Array.from(document.querySelectorAll('[data-testid="stMain"], [data-testid="stAppViewContainer"], section'))
    .map((e) => e.scrollHeight))
"""


def slug(url_path: str) -> str:
    """File-name stem of a URL path: "/" → "home", "/pricing?x=1" → "pricing_x_1"; a long one (a shared link's
    scenario) keeps its first 60 characters and a short hash of the rest, so the name fits the file system."""
    cleaned = re.sub(r"[^A-Za-z0-9]+", "_", url_path).strip("_")
    if len(cleaned) > 80:
        cleaned = f"{cleaned[:60]}_{hashlib.sha256(cleaned.encode()).hexdigest()[:10]}"
    return cleaned or "home"


def shoot(page: Page, base_url: str, view: str, out: Path, width: int, height: int) -> bool:
    """Save a full-page PNG of ``view`` ("<path>" or "<path>|<tab label>", ``goto_view``); return False if the
    page shows a Streamlit exception."""
    page.set_viewport_size({"width": width, "height": height})
    goto_view(page, base_url, view)
    page.wait_for_timeout(300)  # let plotly finish its transitions
    full_height = int(page.evaluate(SCROLLER_JS))
    if full_height > height:
        page.set_viewport_size({"width": width, "height": full_height})
        page.wait_for_timeout(300)
    page.screenshot(path=str(out), full_page=True)
    page.set_viewport_size({"width": width, "height": height})
    return page.get_by_test_id("stException").count() == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Full-page screenshots of the dashboard's pages.")
    parser.add_argument("paths", nargs="*", default=["/"], help="URL paths to visit (default: /)")
    parser.add_argument("--app", default="app.py", help="Streamlit script, relative to the repo root")
    parser.add_argument("--out", type=Path, default=ROOT / "test-results" / "screenshots", help="output folder")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    ok = True
    with running_server(ROOT / args.app) as server, sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            page = browser.new_page()
            for url_path in args.paths:
                for width, height in VIEWPORTS:
                    out = args.out / f"{slug(url_path)}@{width}x{height}.png"
                    clean = shoot(page, server.url, url_path, out, width, height)
                    ok &= clean
                    print(f"{out}{'' if clean else '  (shows an exception!)'}")
        finally:
            browser.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
