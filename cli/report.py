"""``python -m economics report SCENARIO.json --out FILE.html [--as-of DATE] [--csv-zip FILE.zip] [--png-dir DIR]``.

Writes the meeting pack: one self-contained HTML file (interactive charts with plotly.js inline, tables,
assumptions, price dates, the dashboard link), optionally the CSV bundle and static PNG charts (kaleido
through the system chromium). With ``--as-of`` the scenario is repriced to the catalog prices of that date
and the pack shows what changed from the prices in the file.

The pack is built by the top-level package ``reporting`` (plotly, Jinja2), imported directly inside
:func:`run`, so the other subcommands and ``--help`` never load plotly (``tests/reviews/test_report.py``).

Bad input (unreadable scenario, a date with no prices, an unwritable path, no chromium for ``--png-dir``)
exits with status 2 and one line per problem on stderr; never a traceback.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from economics.io.safe_io import http_url

PROG = "python -m economics report"


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date as YYYY-MM-DD, got {text!r}") from None


def _app_url(text: str) -> str:
    try:
        return http_url(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _draws(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 1 <= n <= 1_000_000:
        raise argparse.ArgumentTypeError(f"must be between 1 and 1,000,000, got {n}")
    return n


def _seed(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number of 0 or more, got {n}")
    return n


def _text(text: str) -> str:
    """Text written into the pack; a byte that is not UTF-8 (a Latin-1 terminal) arrives as a surrogate that
    cannot be written, so it is refused here, before the HTML file is opened."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        what = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"character U+{code:04X}"
        raise argparse.ArgumentTypeError(
            f"is not UTF-8 text ({what} at position {exc.start + 1}); type it in a UTF-8 terminal"
        ) from None
    return text


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    p = subparsers.add_parser(
        "report",
        help="write the meeting pack (HTML, optional CSV bundle and PNG charts)",
        description="Write a self-contained HTML meeting pack for a scenario: where each workload runs, what "
        "would change it, how sure we are, the price book with dates, assumptions and the dashboard link.",
    )
    p.add_argument("scenario", metavar="SCENARIO.json", help="scenario file (see `python -m economics schema`)")
    p.add_argument("--out", required=True, type=Path, metavar="FILE.html", help="HTML file to write")
    p.add_argument("--as-of", type=_date, metavar="DATE", help="reprice with the catalog prices of DATE and compare")
    p.add_argument("--csv-zip", type=Path, metavar="FILE.zip", help="also write every table as CSV in a zip")
    p.add_argument("--png-dir", type=Path, metavar="DIR", help="also write PNG charts (needs the system chromium)")
    p.add_argument("--title", type=_text, help="title of the pack (default: 'Price review: <scenario name>')")
    p.add_argument("--notes", type=_text, default="", help="notes shown under the title")
    p.add_argument(
        "--app-url",
        type=_app_url,
        default="http://localhost:8501/",
        help="dashboard address for the share link (http or https only)",
    )
    p.add_argument("--draws", type=_draws, default=10_000, metavar="N", help="Monte Carlo draws (default 10000)")
    p.add_argument("--seed", type=_seed, default=0, help="Monte Carlo seed (default 0)")
    p.add_argument("--no-uncertainty", action="store_true", help="leave out the tornado and the Monte Carlo band")
    p.set_defaults(run=run)


def _problems(lines: list[str] | tuple[str, ...]) -> int:
    for line in lines:
        print(f"{PROG}: error: {line}", file=sys.stderr)
    return 2


def _progress() -> Callable[[str], None] | None:
    """Each step of a long report on standard error, in a terminal only: scripts keep a quiet standard error."""
    if not sys.stderr.isatty():
        return None
    return lambda step: print(f"{PROG}: {step}…", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    from economics.catalog import CatalogError
    from economics.compare import Snapshot
    from economics.io.catalog import load_catalog
    from economics.io.scenarios import ScenarioError, load_scenario
    from economics.pricing import reprice
    from reporting.meeting_pack import build_pack, write_report

    if args.out.suffix.lower() not in (".html", ".htm"):
        return _problems([f"--out: expected an .html file, got {str(args.out)!r}"])
    try:
        scenario = load_scenario(args.scenario)
        before = None
        if args.as_of is not None:
            before = Snapshot.evaluated(scenario, f"prices in the file ({scenario.review_date.isoformat()})")
            scenario = reprice(scenario, load_catalog(), args.as_of)
    except ScenarioError as e:
        return _problems(e.problems)
    except CatalogError as e:
        return _problems([str(p) for p in e.problems])
    pack = build_pack(
        scenario,
        title=args.title,
        notes=args.notes,
        before=before,
        app_url=args.app_url,
        draws=args.draws,
        seed=args.seed,
        uncertainty=not args.no_uncertainty,
        progress=_progress(),
    )
    try:
        files = write_report(pack, args.out, csv_zip=args.csv_zip, png_dir=args.png_dir)
    except OSError as e:
        return _problems([f"cannot write the report: {e.strerror or e}: {e.filename or ''}".rstrip(": ")])
    except RuntimeError as e:  # no chromium for --png-dir, or kaleido failed to render
        return _problems([f"--png-dir: {e}"])
    for path in (files.html, files.csv_zip, *files.pngs):
        if path is not None:
            print(path)
    return 0
