"""AppTest helpers: run the real app on one page, read metrics and plotly specs as numbers."""

from __future__ import annotations

import base64
import json
import re
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


def compare_reviews(subject_id: str, baseline_id: str) -> AppTest:
    """The Reviews page comparing saved review ``subject_id`` with saved review ``baseline_id``."""
    at = run_page("7_reviews")
    at.selectbox(key="rv_subject").set_value(subject_id).run()
    at.radio(key="rv_compare_how").set_value("another saved review").run()
    at.selectbox(key="rv_baseline").set_value(baseline_id).run()
    return at


def metrics(at: AppTest) -> dict[str, str]:
    """Label → displayed value of every ``st.metric`` and every key-figures table (``ui.widgets.key_figures``)."""
    found = {m.label: m.value for m in at.metric}
    for md in at.markdown:
        lines = str(md.value).splitlines()
        if len(lines) < 3 or not lines[0].startswith("| ") or not lines[1].startswith("|:--"):
            continue
        if lines[1] == "|:--|--:|":  # one figure per row: label | value
            pairs = [_cells(line) for line in lines[2:]]
        else:  # labels over one row of values
            pairs = list(zip(_cells(lines[0]), _cells(lines[2]), strict=True))
        found.update((label, value.removeprefix("**").removesuffix("**")) for label, value in pairs)
    return found


def _cells(row: str) -> list[str]:
    """The cells of a markdown table row, markdown escapes removed (an escaped pipe stays in its cell)."""
    cells = re.split(r"(?<!\\)\|", row.strip().strip("|"))
    return [re.sub(r"\\(.)", r"\1", c.strip()) for c in cells]


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
