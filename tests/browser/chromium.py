"""Where the system chromium is and how Playwright must launch it (see /work/shared/design/TESTING.md).

Playwright never downloads a browser here: we always hand it Debian's ``chromium`` through
``executable_path``. ``CHROMIUM_BIN`` overrides the binary on other machines.
"""

from __future__ import annotations

import os
import shutil

from playwright.sync_api import Browser, Playwright

#: Checked in order when ``CHROMIUM_BIN`` is not set. The first is Debian's real binary; the others are
#: wrapper scripts or other distributions' names.
CANDIDATES: tuple[str, ...] = (
    "/usr/lib/chromium/chromium",
    "/usr/bin/chromium",
    "chromium",
    "chromium-browser",
)

#: Flags that make headless chromium work as root, in containers and offline.
LAUNCH_ARGS: tuple[str, ...] = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


class ChromiumNotFoundError(RuntimeError):
    """No usable chromium binary: browser tests must fail, never skip."""


def find_chromium() -> str:
    """Absolute path of the chromium binary, honouring ``CHROMIUM_BIN``; raise with a fix if there is none."""
    override = os.environ.get("CHROMIUM_BIN", "").strip()
    if override:
        path = shutil.which(override)
        if path is None:
            raise ChromiumNotFoundError(
                f"CHROMIUM_BIN={override!r} is not an executable file. Point it at a chromium binary."
            )
        return path
    for candidate in CANDIDATES:
        path = shutil.which(candidate)
        if path is not None:
            return path
    raise ChromiumNotFoundError(
        "chromium not found (looked for CHROMIUM_BIN, then "
        + ", ".join(CANDIDATES)
        + "). Install it with `apt-get install -y chromium` (bash scripts/test does this when run as root) "
        "or set CHROMIUM_BIN=/path/to/chromium. Never run `playwright install`: downloads fail here."
    )


def launch_options(headless: bool = True) -> dict[str, object]:
    """Keyword arguments for ``playwright.chromium.launch`` using the system chromium."""
    args = [a for a in LAUNCH_ARGS if headless or a != "--headless"]
    return {"executable_path": find_chromium(), "headless": headless, "args": args}


def launch_chromium(playwright: Playwright, headless: bool = True) -> Browser:
    """Launch the system chromium through Playwright (for scripts; tests use the ``browser`` fixture)."""
    args = [a for a in LAUNCH_ARGS if headless or a != "--headless"]
    return playwright.chromium.launch(executable_path=find_chromium(), headless=headless, args=args)
