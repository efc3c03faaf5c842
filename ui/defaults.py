"""The scenario the dashboard opens on (the essay's Singapore bank), read once per process."""

from __future__ import annotations

from functools import cache

from economics.io.scenarios import default_scenario as _load_default
from economics.scenario import Scenario


@cache
def default_scenario() -> Scenario:
    """The default scenario; frozen, so one shared instance is safe."""
    return _load_default()
