"""AppTest helpers: run the real app on one page, read metrics and plotly specs as numbers."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


def run_page(page: str | None = None, query: dict[str, str] | None = None) -> AppTest:
    """The app after its first run, switched to ``pages/<page>.py`` when given; fails on any exception."""
    at = AppTest.from_file(APP, default_timeout=60)
    if query:
        at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    if page is not None:
        at.switch_page(f"pages/{page}.py").run()
        assert not at.exception, [e.value for e in at.exception]
    return at


def metrics(at: AppTest) -> dict[str, str]:
    """Metric label → displayed value."""
    return {m.label: m.value for m in at.metric}


def number(text: str) -> float:
    """The number in a displayed value such as '$1,234.50/Mtok', '÷14.9' or '1,540 tok/s'."""
    cleaned = "".join(c for c in text if c.isdigit() or c in ".-−").replace("−", "-")
    return float(cleaned)


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and "bdata" in value and "dtype" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).tolist()
    if isinstance(value, dict):
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def plotly_specs(at: AppTest) -> list[dict[str, Any]]:
    """Every plotly chart on the page as a decoded figure dict (plotly 7 stores arrays as base64)."""
    return [_decode(json.loads(chart.proto.spec)) for chart in at.get("plotly_chart")]


def chart(at: AppTest, title_part: str) -> dict[str, Any]:
    """The one chart whose title contains ``title_part``."""
    found = [s for s in plotly_specs(at) if title_part in str(s.get("layout", {}).get("title", {}).get("text", ""))]
    assert len(found) == 1, [s.get("layout", {}).get("title") for s in plotly_specs(at)]
    return found[0]


def trace(spec: dict[str, Any], name_part: str) -> dict[str, Any]:
    """The first trace whose name contains ``name_part``."""
    return next(t for t in spec["data"] if name_part in str(t.get("name", "")))
