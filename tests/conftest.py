"""Test-session setup shared by every test: the one hypothesis profile (see :mod:`tests.strategies`), and the
work units that ``pytest -n N --dist loadgroup`` (pytest-xdist, as ``scripts/test`` runs it) hands to its workers.

Work units. The browser tests share one Streamlit server and one chromium per worker and already keep two cores
busy, so they are one unit, run by one worker while the others run everything else. The store tests are one unit,
so one PostgreSQL server is started, not one per worker. Every other test module is a unit of its own, so a
module's fixtures are built once. The browser unit is collected first, so (with ``--no-loadscope-reorder``) it
starts at once; a worker lowers its own CPU priority when it first runs any other test, so the browser, the
server and their waits are not slowed by the unit tests beside them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

import tests.strategies  # noqa: F401  (registers the profiles)
from tests.fuzz import counts as fuzz_counts

settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "house"))

_ROOT = Path(__file__).resolve().parents[1]
#: Folders under tests/ whose modules run as one work unit, and the unit's name.
_ONE_UNIT = {"browser": "browser", "storage": "postgresql"}


def work_unit(path: Path) -> str:
    """The name of the work unit a test file belongs to: a folder's unit, or the file itself.

    >>> work_unit(_ROOT / "tests" / "browser" / "test_team.py")
    'browser'
    >>> work_unit(_ROOT / "tests" / "economics" / "test_plan.py")
    'tests/economics/test_plan.py'
    >>> work_unit(_ROOT / "economics" / "units.py")
    'economics/units.py'
    """
    try:
        relative = path.resolve().relative_to(_ROOT)
    except ValueError:  # a test file outside the repository: a unit of its own
        return path.as_posix()
    if len(relative.parts) > 2 and relative.parts[0] == "tests" and relative.parts[1] in _ONE_UNIT:
        return _ONE_UNIT[relative.parts[1]]
    return relative.as_posix()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its work unit (read by ``--dist loadgroup``; without pytest-xdist it does nothing)."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        item.add_marker(pytest.mark.xdist_group(work_unit(item.path)))
    items.sort(key=lambda item: work_unit(item.path) != "browser")  # stable: the browser unit first


def pytest_runtest_setup(item: pytest.Item) -> None:
    """On an xdist worker, before its first test outside the browser unit: lower this worker's CPU priority
    (once: ``os.nice(0)`` reads the current niceness; a worker started niced is left as it is)."""
    if hasattr(item.config, "workerinput") and work_unit(item.path) != "browser" and os.nice(0) == 0:
        os.nice(10)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On an xdist worker: hand this worker's fuzz counts to the controller."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["fuzz_counts"] = json.dumps(fuzz_counts.rows())


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """On the xdist controller: add up a finished worker's fuzz counts."""
    text = getattr(node, "workeroutput", {}).get("fuzz_counts")
    if text:
        fuzz_counts.add(json.loads(text))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The fuzz suite's counts, all workers' together (written to test-results/fuzz_counts.json too)."""
    lines = fuzz_counts.summary_lines()
    if lines:
        terminalreporter.write_sep("-", "fuzz counts (tried / failed / lost)")
        for line in lines:
            terminalreporter.write_line(line)
