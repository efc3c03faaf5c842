"""Static PNGs of the pack's charts through kaleido and the system chromium (never a downloaded browser).

The browser is ``$CHROMIUM_BIN`` if set, else Debian's ``/usr/lib/chromium/chromium`` or a ``chromium`` on
the PATH; it is handed to kaleido explicitly, and MathJax (a CDN download) is switched off. One kaleido
server renders every chart of a pack (~2 s to start, ~0.1–0.2 s per chart after).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from reporting.html import figures
from reporting.pack import MeetingPack

__all__ = ["ChromiumNotFoundError", "find_chromium", "write_pngs"]

_CANDIDATES = ("/usr/lib/chromium/chromium", "/usr/bin/chromium", "chromium", "chromium-browser")


class ChromiumNotFoundError(RuntimeError):
    """No chromium binary: PNG export needs one (``apt-get install chromium`` or ``CHROMIUM_BIN``)."""


def find_chromium() -> str:
    """Absolute path of the chromium binary, honouring ``CHROMIUM_BIN``."""
    override = os.environ.get("CHROMIUM_BIN", "").strip()
    for candidate in (override,) if override else _CANDIDATES:
        path = shutil.which(candidate)
        if path is not None:
            return path
    raise ChromiumNotFoundError(
        "chromium not found: install it (apt-get install -y chromium) or set CHROMIUM_BIN=/path/to/chromium"
    )


def write_pngs(pack: MeetingPack, out_dir: Path, *, width: int = 1200, scale: float = 1.0) -> list[Path]:
    """Write one PNG per chart of the pack into ``out_dir`` (created if needed); returns the files."""
    import kaleido  # imported here: only PNG export needs kaleido

    browser = find_chromium()
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    kaleido.start_sync_server(path=browser, mathjax=False, silence_warnings=True)
    try:
        for name, fig in figures(pack).items():
            height = int(fig.layout.height or 450)
            data = kaleido.calc_fig_sync(fig, opts={"format": "png", "width": width, "height": height, "scale": scale})
            path = out_dir / f"{name}.png"
            path.write_bytes(data)
            written.append(path)
    finally:
        kaleido.stop_sync_server(silence_warnings=True)
    return written
