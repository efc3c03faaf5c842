"""Input-to-chart latency in a real browser: one of our pages against a trivial Streamlit page.

What it measures
    The time, inside headless chromium, from the key press that commits an input (Enter after typing a
    number, or an arrow key on a slider) to the moment the watched elements of the *new* script run are in
    the DOM with changed content. Both timestamps are ``performance.now()`` in the page: a capture-phase
    ``keydown`` listener takes t0, a ``MutationObserver`` takes t1 as soon as every watched element is
    non-stale (``data-stale="false"``), none is empty (a chart mounts empty, then draws) and their text
    differs from before the change (or contains the text given by ``--expect``). Playwright's own round
    trips are not counted.

    The trivial page (``benchmarks/trivial_app.py``: one number input, one plotly chart) sets the floor that
    Streamlit itself imposes (~140-170 ms on the reference machine); the ratio target/trivial says what our
    page adds. Both are served by their own ``streamlit run`` in the same run and measured one after the
    other, after ``--warmup`` unmeasured changes each.

Usage
    .venv/bin/python benchmarks/browser_latency.py                      # app.py "/", input key "batch"
    .venv/bin/python benchmarks/browser_latency.py --app app.py --page-url-path pricing \\
        --input-label "Batch size" --values 8,16,32 --watch '[data-testid="stPlotlyChart"]' --expect "{value}"
    .venv/bin/python benchmarks/browser_latency.py --input-key tp --keys ArrowRight,ArrowLeft   # a slider

Options that pick the input (first given wins): ``--input-key`` (the widget's ``key=``),
``--input-label`` (its label), ``--input-selector`` (CSS). ``--values`` are typed in turn (fill + Enter);
by default the current value +1, +2, ... . ``--keys`` instead focuses the input and presses the keys in turn.
``--watch`` is CSS for the elements whose update ends the measurement (default: every plotly chart);
``--compare html`` also catches changes that do not show in the text, such as a moved line. ``--expect``
may contain ``{value}``. ``--json FILE`` writes all samples. Exit code 1 if an update never arrives.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from playwright.sync_api import Locator, Page, sync_playwright  # noqa: E402

from tests.browser.chromium import launch_chromium  # noqa: E402
from tests.browser.server import running_server  # noqa: E402
from tests.browser.streamlit_page import FRESH_CONTAINER, goto_app, wait_for_app  # noqa: E402

TRIVIAL_APP = ROOT / "benchmarks" / "trivial_app.py"
PLOTLY = '[data-testid="stPlotlyChart"]'

#: Installed before each change; resolves nothing, leaves ``window.__latency`` for polling.
_INSTALL_JS = """
([fresh, watch, expect, compare, trigger]) => {
  const select = () => Array.from(document.querySelectorAll(`${fresh} ${watch}`));
  const all = () => document.querySelectorAll(watch).length;
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


@dataclass(frozen=True)
class Target:
    """One page to measure and how to drive it."""

    name: str
    app: Path
    url_path: str
    input_key: str | None
    input_label: str | None
    input_selector: str | None
    values: list[str] | None
    keys: list[str] | None
    watch: str
    expect: str | None
    compare: str


@dataclass
class Result:
    name: str
    samples_ms: list[float]

    @property
    def median_ms(self) -> float:
        return statistics.median(self.samples_ms)

    @property
    def p90_ms(self) -> float:
        if len(self.samples_ms) < 2:
            return self.samples_ms[0]
        return statistics.quantiles(self.samples_ms, n=10, method="inclusive")[-1]


def locate_input(page: Page, target: Target) -> Locator:
    if target.input_key is not None:
        inner = ':is(input, textarea, [role="slider"])'
        return page.locator(f"{FRESH_CONTAINER}.st-key-{target.input_key} {inner}").first
    if target.input_label is not None:
        return page.locator(FRESH_CONTAINER).get_by_label(target.input_label, exact=True).first
    if target.input_selector is not None:
        return page.locator(f"{FRESH_CONTAINER} {target.input_selector}").first
    raise ValueError("no input given")


def one_change(page: Page, target: Target, step: int, timeout_ms: float) -> float:
    """Make change number ``step`` and return its latency [ms]."""
    field = locate_input(page, target)
    if target.keys:
        trigger, value = target.keys[step % len(target.keys)], ""
    else:
        trigger = "Enter"
        current = field.input_value()
        value = target.values[step % len(target.values)] if target.values else str(int(float(current)) + 1)
    expect = target.expect.format(value=value) if target.expect is not None else None
    count = page.evaluate(_INSTALL_JS, [FRESH_CONTAINER, target.watch, expect, target.compare, trigger])
    if count == 0:
        raise RuntimeError(f"{target.name}: nothing matches --watch {target.watch!r}")
    if target.keys:
        field.focus()
    else:
        field.fill(value)
    field.press(trigger)
    page.wait_for_function("window.__latency.t1 !== null", timeout=timeout_ms, polling="raf")
    t0, t1 = page.evaluate("[window.__latency.t0, window.__latency.t1]")
    wait_for_app(page, timeout_ms)
    return float(t1) - float(t0)


def measure(page: Page, base_url: str, target: Target, reps: int, warmup: int, timeout_ms: float) -> Result:
    goto_app(page, f"{base_url}/{target.url_path.lstrip('/')}", timeout_ms)
    samples = [one_change(page, target, i, timeout_ms) for i in range(warmup + reps)]
    return Result(target.name, samples[warmup:])


def run(targets: list[Target], reps: int, warmup: int, timeout_ms: float) -> list[Result]:
    results = []
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            for target in targets:
                with running_server(target.app) as server:
                    page = browser.new_page(viewport={"width": 1440, "height": 900})
                    results.append(measure(page, server.url, target, reps, warmup, timeout_ms))
                    page.close()
        finally:
            browser.close()
    return results


def report(results: list[Result], reps: int) -> str:
    lines = [f"{'page':<50} {'median':>8} {'p90':>8} {'min':>8} {'max':>8}   [ms, n={reps}]"]
    for r in results:
        lines.append(
            f"{r.name:<50} {r.median_ms:8.1f} {r.p90_ms:8.1f} {min(r.samples_ms):8.1f} {max(r.samples_ms):8.1f}"
        )
    if len(results) == 2:
        ratio = results[1].median_ms / results[0].median_ms
        lines.append(f"ratio of medians {results[1].name} / {results[0].name}: {ratio:.2f}")
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--app", default="app.py", help="Streamlit script of the target, relative to the repo root")
    p.add_argument("--page-url-path", default="", help="URL path of the page, e.g. 'pricing' (default: '/')")
    p.add_argument("--input-key", help="the input widget's key= (default: 'batch' if no other input option)")
    p.add_argument("--input-label", help="the input widget's label")
    p.add_argument("--input-selector", help="CSS of the input element (inside a non-stale element container)")
    p.add_argument("--values", help="comma-separated values to type in turn (fill + Enter)")
    p.add_argument("--keys", help="comma-separated keys to press in turn instead of typing, e.g. ArrowRight,ArrowLeft")
    p.add_argument("--watch", default=PLOTLY, help=f"CSS of the elements whose update ends a sample (default {PLOTLY})")
    p.add_argument("--expect", help="text the watched elements must contain after the change; may use {value}")
    p.add_argument("--compare", choices=["text", "html"], default="text", help="what counts as a change")
    p.add_argument("-n", "--repetitions", type=int, default=15, help="measured changes per page (default 15)")
    p.add_argument("--warmup", type=int, default=2, help="unmeasured changes per page first (default 2)")
    p.add_argument("--timeout-s", type=float, default=30.0, help="give up on one change after this long")
    p.add_argument("--skip-trivial", action="store_true", help="measure the target page only")
    p.add_argument("--json", type=Path, help="write the samples to this JSON file")
    args = p.parse_args(argv)
    if args.input_label is None and args.input_selector is None and args.input_key is None:
        args.input_key = "batch"
    if args.repetitions < 1 or args.warmup < 0:
        p.error("--repetitions must be >= 1 and --warmup >= 0")
    return args


def _split(text: str | None) -> list[str] | None:
    return [v.strip() for v in text.split(",") if v.strip()] if text else None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    trivial = Target(
        name="trivial (benchmarks/trivial_app.py)",
        app=TRIVIAL_APP,
        url_path="",
        input_key="value",
        input_label=None,
        input_selector=None,
        values=None,
        keys=None,
        watch=PLOTLY,
        expect="value = {value}",
        compare="text",
    )
    target = Target(
        name=f"target ({args.app} /{args.page_url_path.lstrip('/')})",
        app=(ROOT / args.app).resolve(),
        url_path=args.page_url_path,
        input_key=args.input_key,
        input_label=args.input_label,
        input_selector=args.input_selector,
        values=_split(args.values),
        keys=_split(args.keys),
        watch=args.watch,
        expect=args.expect,
        compare=args.compare,
    )
    targets = [target] if args.skip_trivial else [trivial, target]
    try:
        results = run(targets, args.repetitions, args.warmup, args.timeout_s * 1000)
    except Exception as exc:  # report any failure as one line plus the exit code
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(report(results, args.repetitions))
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = [{**asdict(r), "median_ms": r.median_ms, "p90_ms": r.p90_ms} for r in results]
        args.json.write_text(json.dumps(payload, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
