"""Browser tests: one real Streamlit server per session, driven by Debian's chromium through Playwright.

Fixtures
    ``streamlit_server``  the running :class:`~tests.browser.server.StreamlitServer` (session scope).
    ``app_url``           its base URL, e.g. ``http://127.0.0.1:41234`` (no trailing slash).
    ``base_url``          the same, so ``page.goto("/")`` and ``page.goto("/pricing")`` work.
    ``page``              pytest-playwright's page, launched from the system chromium.
Helpers (import from ``tests.browser.streamlit_page``): ``goto_app``, ``wait_for_app``, ``fresh``,
``number_input``, ``set_number_input``.

Every test under tests/browser gets the ``browser`` marker (deselect with ``-m "not browser"``). A missing
chromium fails these tests with a clear message; they never skip.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.chromium import ChromiumNotFoundError, launch_options
from tests.browser.server import ROOT, ServerStartError, StreamlitServer, start_server

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in item.path.resolve().parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def streamlit_server() -> Iterator[StreamlitServer]:
    try:
        server = start_server(ROOT / "app.py")
    except ServerStartError as exc:
        raise pytest.fail.Exception(f"could not start the Streamlit server: {exc}", pytrace=False) from None
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def app_url(streamlit_server: StreamlitServer) -> str:
    return streamlit_server.url


@pytest.fixture(scope="session")
def base_url(app_url: str) -> str:
    return app_url


@pytest.fixture(scope="session")
def browser_type_launch_args(pytestconfig: pytest.Config, browser_name: str | None) -> dict[str, object]:
    """Always launch the system chromium; Playwright must never look for (or download) its own browsers."""
    if browser_name not in (None, "chromium"):
        pytest.fail(f"only chromium is installed on this machine, not {browser_name!r}", pytrace=False)
    try:
        options = launch_options(headless=not pytestconfig.getoption("--headed"))
    except ChromiumNotFoundError as exc:
        raise pytest.fail.Exception(str(exc), pytrace=False) from None
    slowmo = pytestconfig.getoption("--slowmo")
    if slowmo:
        options["slow_mo"] = slowmo
    return options
