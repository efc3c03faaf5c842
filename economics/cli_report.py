"""``python -m economics report SCENARIO.json --out FILE.html [--as-of DATE] [--csv-zip FILE.zip] [--png-dir DIR]``.

Writes the meeting pack: one self-contained HTML file (interactive charts with plotly.js inline, tables,
assumptions, price dates, the dashboard link), optionally the CSV bundle and static PNG charts (kaleido
through the system chromium). With ``--as-of`` the scenario is repriced to the catalog prices of that date
and the pack shows what changed from the prices in the file.

Plugin boundary
    ``economics`` is the pure core and must never import plotly or streamlit (ruff TID251 and
    ``tests/test_architecture.py``). The HTML and charts are built by the top-level package ``reporting``,
    which may use plotly. This module reaches it only at run time, through
    ``importlib.import_module("reporting.meeting_pack")``, and uses it through the :class:`_MeetingPack`
    protocol below; importing ``economics`` (or this module) never loads plotly. If ``reporting`` is not
    importable (``economics`` installed on its own), the subcommand exits with status 2 and says so.

Bad input (unreadable scenario, a date with no prices, an unwritable path, no chromium for ``--png-dir``)
exits with status 2 and one line per problem on stderr; never a traceback.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import sys
from pathlib import Path
from typing import Any, Protocol, cast

from economics.safe_io import http_url

PROG = "python -m economics report"
PLUGIN = "reporting.meeting_pack"


class _Files(Protocol):
    html: Path
    csv_zip: Path | None
    pngs: tuple[Path, ...]


class _MeetingPack(Protocol):
    """The part of :mod:`reporting.meeting_pack` this command uses."""

    def build_pack(self, scenario: Any, **kwargs: Any) -> Any: ...

    def write_report(
        self, pack: Any, html_path: Path, *, csv_zip: Path | None = None, png_dir: Path | None = None
    ) -> _Files: ...


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
    p.add_argument("--title", help="title of the pack (default: 'Price review: <scenario name>')")
    p.add_argument("--notes", default="", help="notes shown under the title")
    p.add_argument(
        "--app-url",
        type=_app_url,
        default="http://localhost:8501/",
        help="dashboard address for the share link (http or https only)",
    )
    p.add_argument("--draws", type=_draws, default=10_000, metavar="N", help="Monte Carlo draws (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="Monte Carlo seed (default 0)")
    p.add_argument("--no-uncertainty", action="store_true", help="leave out the tornado and the Monte Carlo band")
    p.set_defaults(run=run)


def _problems(lines: list[str] | tuple[str, ...]) -> int:
    for line in lines:
        print(f"{PROG}: error: {line}", file=sys.stderr)
    return 2


def _plugin() -> _MeetingPack | None:
    try:
        return cast(_MeetingPack, importlib.import_module(PLUGIN))
    except ImportError:
        return None


def run(args: argparse.Namespace) -> int:
    from economics.catalog import CatalogError, load_catalog
    from economics.compare import Snapshot
    from economics.pricing import reprice
    from economics.scenarios import ScenarioError, load_scenario

    plugin = _plugin()
    if plugin is None:
        return _problems([f"the report needs the '{PLUGIN}' package (and plotly), which cannot be imported"])
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
    pack = plugin.build_pack(
        scenario,
        title=args.title,
        notes=args.notes,
        before=before,
        app_url=args.app_url,
        draws=args.draws,
        seed=args.seed,
        uncertainty=not args.no_uncertainty,
    )
    try:
        files = plugin.write_report(pack, args.out, csv_zip=args.csv_zip, png_dir=args.png_dir)
    except OSError as e:
        return _problems([f"cannot write the report: {e.strerror or e}: {e.filename or ''}".rstrip(": ")])
    except RuntimeError as e:  # no chromium for --png-dir, or kaleido failed to render
        return _problems([f"--png-dir: {e}"])
    for path in (files.html, files.csv_zip, *files.pngs):
        if path is not None:
            print(path)
    return 0
