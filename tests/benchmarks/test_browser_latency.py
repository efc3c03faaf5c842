"""The latency benchmark's pure parts: where a profile sample is counted, and its multi-page reference page."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from benchmarks.browser_latency import CPU_COLUMNS, MULTIPAGE_APP, SUITE, Result, cpu_column, report

HASHED = "http://127.0.0.1:8501/static/js/{}"


@pytest.mark.parametrize(
    ("function_name", "url", "line", "expected"),
    [
        ("(idle)", "", -1, None),
        ("(program)", "", -1, "(program)"),
        ("(garbage collector)", "", -1, "GC"),
        ("getClientRects", "", -1, "built-ins"),  # a native function: no script, no line
        ("query", "", 5866, "harness"),  # a script without a URL: Playwright's or the watcher's
        ("Ul", HASHED.format("react-dom.Dzbslgj4.js"), 7, "react-dom"),
        ("He", HASHED.format("emotion-styled.browser.esm.DdOkyKg_.js"), 0, "emotion"),
        ("T", HASHED.format("emotion-is-prop-valid.esm.CkL99N7j.js"), 0, "emotion"),
        ("L", HASHED.format("PlotlyChart.D9Z0_fxz.js"), 9, "PlotlyChart"),
        ("Fe", HASHED.format("StreamlitMarkdown.oOG-xoxw.js"), 1, "StreamlitMarkdown"),
        ("x", HASHED.format("DataFrame.-f9-1zS0.js"), 187, "DataFrame"),
        ("y", HASHED.format("index.DormvYxC.js"), 3, "other Streamlit"),
    ],
)
def test_cpu_column(function_name: str, url: str, line: int, expected: str | None) -> None:
    assert cpu_column(function_name, url, line) == expected


def test_every_column_a_sample_can_land_in_is_shown() -> None:
    names = ["(program)", "(garbage collector)", "f"]
    urls = ["", HASHED.format("react-dom.a.js"), HASHED.format("emotion-react.b.js"), HASHED.format("other.c.js")]
    landed = {cpu_column(n, u, line) for n in names for u in urls for line in (-1, 3)} - {None}
    assert landed <= set(CPU_COLUMNS)


def test_the_reference_entry_drives_the_multipage_page_like_a_price() -> None:
    (reference,) = [t for t in SUITE if t.app == MULTIPAGE_APP]
    assert reference.widget == "text"  # compared with the trivial page's text input, as typed prices are
    assert "scenario" in reference.name  # measured with the scenario inputs (--only scenario)


def test_the_multipage_reference_redraws_its_chart_from_a_callbacks_keyed_rerun() -> None:
    at = AppTest.from_file(str(MULTIPAGE_APP), default_timeout=30).run()
    assert not at.exception
    assert len(at.sidebar.selectbox) == 2  # the chrome is there
    assert len(at.sidebar.button) == 3
    at.text_input(key="text").set_value("7").run()
    assert not at.exception
    title = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["title"]["text"]
    assert title == "text = 7"


def test_the_render_report_names_the_busiest_places_per_change() -> None:
    counted = {"commits": 15.0, "renders": 5600.0, "stVerticalBlock": 2445.0, "stSidebarNav": 848.0, "x": 1.0}
    text = report([Result("page", [10.0], renders=counted)], reps=1)
    line = text.splitlines()[-1]
    assert line.split()[1:3] == ["15.0", "5600"]
    assert line.index("stVerticalBlock 2445") < line.index("stSidebarNav 848")  # busiest first
