"""The meeting pack: the entry point the CLI (``cli.report``) and the Reviews page use.

    pack = build_pack(scenario, before=Snapshot.from_review(last_quarter))
    Path("pack.html").write_text(render_html(pack), encoding="utf-8")
    Path("pack.zip").write_bytes(csv_bundle(pack))
    write_pngs(pack, Path("charts"))          # optional: needs the system chromium

:func:`write_report` does all of it for the CLI and returns the files it wrote.
"""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from economics.scenario import Scenario
from reporting.bundle import bundle_files, csv_bundle
from reporting.html import LIMITATIONS, figures, render_html
from reporting.pack import DEFAULT_APP_URL, MeetingPack, build_pack, share_url
from reporting.png import ChromiumNotFoundError, find_chromium, write_pngs

__all__ = [
    "DEFAULT_APP_URL",
    "LIMITATIONS",
    "ChromiumNotFoundError",
    "MeetingPack",
    "PackDownloads",
    "ReportFiles",
    "build_pack",
    "bundle_files",
    "csv_bundle",
    "figures",
    "find_chromium",
    "pack_downloads",
    "render_html",
    "share_url",
    "write_pngs",
    "write_report",
]


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`write_report` wrote."""

    html: Path
    csv_zip: Path | None
    pngs: tuple[Path, ...]


def write_report(
    pack: MeetingPack, html_path: Path, *, csv_zip: Path | None = None, png_dir: Path | None = None
) -> ReportFiles:
    """Write the HTML (and optionally the CSV bundle and PNGs); parent directories are created.

    Both documents are rendered before anything is written, and each file is written beside its target and
    then renamed over it: a failure (a full disk, a rendering error) leaves an earlier pack at that path whole,
    never a truncated one."""
    html = render_html(pack).encode("utf-8")
    files = [(html_path, html)] + ([(csv_zip, csv_bundle(pack))] if csv_zip is not None else [])
    _replace_all(files)
    pngs = tuple(write_pngs(pack, png_dir)) if png_dir is not None else ()
    return ReportFiles(html=html_path, csv_zip=csv_zip, pngs=pngs)


def _replace_all(files: list[tuple[Path, bytes]]) -> None:
    """Write every ``(path, data)`` to a temporary file beside its path, then rename each over its path; when
    any write fails, the temporary files are removed and no path has changed."""
    staged: list[tuple[str, Path]] = []
    try:
        for path, data in files:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
            staged.append((tmp, path))
            with os.fdopen(fd, "wb") as out:
                out.write(data)
        for tmp, path in staged:
            os.replace(tmp, path)
    finally:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)


@dataclass(frozen=True)
class PackDownloads:
    """A built pack as the two files the Reviews page offers for download."""

    title: str
    html: bytes  # the self-contained HTML document, UTF-8
    csv_zip: bytes  # every table as CSV, zipped
    generated_at: dt.datetime


def pack_downloads(scenario: Scenario, **build_options: Any) -> PackDownloads:
    """Build the pack (:func:`build_pack` with ``build_options``) and render both downloads.

    The dashboard calls this through ``pages/7_reviews.py``, which hands it to the reviews widget, so ``ui``
    never imports ``reporting`` (``reporting`` uses ``ui``'s pure chart builders and formatting).
    """
    pack = build_pack(scenario, **build_options)
    return PackDownloads(pack.title, render_html(pack).encode("utf-8"), csv_bundle(pack), pack.generated_at)
