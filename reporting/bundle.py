"""The meeting pack's CSV bundle: one zip with every table as CSV (numbers, units in column names), the
scenario JSON and a README that lists the files. Money is in the pack's display currency, named in the column
names (``[SGD/month]``) or in a ``Unit`` column; the README states the rate. Headers, prices and options are in
words, as the pages show them (issue 12): no ids or model field names."""

from __future__ import annotations

import io
import zipfile

import pandas as pd

from economics.io.safe_io import csv_text
from economics.io.scenarios import scenario_json
from reporting import tables
from reporting.pack import MeetingPack

__all__ = ["bundle_files", "csv_bundle"]


def bundle_files(pack: MeetingPack) -> dict[str, pd.DataFrame]:
    """File name → table, for every table the pack has, money in the pack's display currency."""
    rate = pack.rate
    files = {
        "decisions.csv": tables.decisions_with_bands(pack),
        "options.csv": tables.options_frame(pack.result, pack.scenario, rate),
        "flip_thresholds.csv": tables.flips_frame(pack),
        "fleet.csv": tables.fleet_display(pack),
        "price_book.csv": tables.price_book_display(pack, numbers=True),
        "workloads.csv": tables.workloads_frame(pack),
        "assumptions.csv": tables.assumptions_frame(pack),
    }
    if pack.comparison is not None:
        c = pack.comparison
        files["changes_prices.csv"] = tables.price_changes_display(c, rate)
        files["changes_workloads.csv"] = tables.workload_changes_display(c, rate)
        files["changes_fleet.csv"] = tables.fleet_changes_display(c, rate)
    if pack.tornado is not None:
        files["tornado.csv"] = tables.tornado_display(pack)
    if pack.monte_carlo is not None:
        files["monte_carlo_workloads.csv"] = tables.bands_display(pack.monte_carlo, rate, pack.scenario.gpu_side())
        files["monte_carlo_options.csv"] = tables.option_bands_display(pack.monte_carlo, rate)
    return files


def csv_bundle(pack: MeetingPack) -> bytes:
    """The zip file as bytes (deterministic order; timestamps are the pack's generation time)."""
    stamp = pack.generated_at.timetuple()[:6]
    buffer = io.BytesIO()
    files = bundle_files(pack)
    readme = [
        pack.title,
        f"Scenario: {pack.scenario.name}; prices as of {pack.scenario.review_date.isoformat()}; "
        f"generated {pack.generated_at.isoformat()}",
        "" if pack.share_url is None else f"Dashboard link: {pack.share_url}",
        pack.currency_statement or "",
        "",
        "Files (UTF-8 CSV, one header row; units in brackets in the column names, symbols in docs/glossary.md):",
        *(f"  {name}" for name in files),
        "  scenario.json  the full scenario, to reproduce every number",
    ]
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:

        def add(name: str, text: str) -> None:
            zf.writestr(zipfile.ZipInfo(name, date_time=stamp), text.encode("utf-8"), zipfile.ZIP_DEFLATED)

        add("README.txt", "\n".join(readme) + "\n")
        for name, frame in files.items():
            add(name, csv_text(frame))
        add("scenario.json", scenario_json(pack.scenario))
    return buffer.getvalue()
