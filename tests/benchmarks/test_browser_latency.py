"""The latency benchmark's pure parts: where a profile sample is counted, and its multi-page reference page."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from benchmarks.browser_latency import (
    CPU_COLUMNS,
    MULTIPAGE_APP,
    SERVER_PROBE,
    SUITE,
    Result,
    chart_timeline,
    cpu_column,
    parse_sends,
    report,
)

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


# --timeline: the chart's message, from the server's log to the page's tasks (times in ms; the key press at 1000)
SENDS = [
    (1010.0, 1312, "new_session", ""),
    (1020.0, 350, "slider", "$$ID-aa-v_cost_util"),
    (1021.5, 2637, "plotly_chart", "$$ID-bb-chart_cost_at_u"),
    (1030.0, 4590, "arrow_data_frame", "$$ID-cc-cost_curves"),
]


def test_the_server_log_is_read_line_by_line() -> None:
    text = "1010.000 1312 new_session \n1021.500 2637 plotly_chart $$ID-bb-chart_cost_at_u\nbroken\n"
    assert parse_sends(text) == [(1010.0, 1312, "new_session", ""), (1021.5, 2637, "plotly_chart", SENDS[2][3])]


def test_the_chart_waits_for_the_renders_of_the_page_before_it() -> None:
    tasks = [
        ("react", 2.0, 0.4, 0),  # housekeeping: under RENDER_MIN_MS
        ("message", 11.0, 0.1, 1312),
        ("react", 12.0, 14.0, 0),
        ("message", 27.0, 0.1, 350),
        ("react", 28.0, 20.0, 0),
        ("message", 49.0, 0.1, 2637),  # the chart, 27.5 ms after it was sent
        ("react", 50.0, 18.0, 0),  # after it: not counted
    ]
    row = chart_timeline(1000.0, 70.0, tasks, SENDS, ("chart_cost_at_u",))
    assert row == [21.5, 49.0, 70.0, 2.0, 34.0, 20.0]


def test_a_message_of_another_size_is_not_the_chart() -> None:
    tasks = [("message", 25.0, 0.1, 350), ("message", 30.0, 0.1, 2637)]
    assert chart_timeline(1000.0, 40.0, tasks, SENDS, ("chart_cost_at_u",))[:2] == [21.5, 30.0]


def test_without_the_servers_side_the_renders_are_counted_up_to_the_drawing() -> None:
    tasks = [("react", 5.0, 3.0, 0), ("react", 30.0, 9.0, 0), ("react", 61.0, 2.0, 0)]
    assert chart_timeline(1000.0, 60.0, tasks, [], ("chart_cost_at_u",)) == [None, None, 60.0, 2.0, 12.0, 9.0]
    # a chart sent before the key press belongs to an earlier change
    early = [(990.0, 2637, "plotly_chart", "$$ID-bb-chart_cost_at_u")]
    assert chart_timeline(1000.0, 60.0, tasks, early, ("chart_cost_at_u",))[:2] == [None, None]


def test_only_the_watched_chart_counts() -> None:
    other = [(1005.0, 900, "plotly_chart", "$$ID-dd-chart_cost_curve"), *SENDS]
    assert chart_timeline(1000.0, 70.0, [], other, ("chart_cost_at_u",))[0] == 21.5
    assert chart_timeline(1000.0, 70.0, [], SENDS, ("at_u",))[0] is None  # a key is matched whole


def test_the_timeline_report_shows_each_columns_median() -> None:
    rows = [[20.0, 50.0, 90.0, 3.0, 30.0, 15.0], [30.0, None, 110.0, 4.0, 40.0, 20.0]]
    text = report([Result("page", [10.0], timeline_ms=rows)], reps=1)
    assert text.splitlines()[-1].split()[1:] == ["25.0", "50.0", "100.0", "3.5", "35.0", "17.5"]


def test_the_server_probe_is_python_that_logs_each_send() -> None:
    compile(SERVER_PROBE, "sitecustomize.py", "exec")
    assert "Runtime._send_message = _send_message" in SERVER_PROBE
    assert '\\n")' in SERVER_PROBE  # one line per message (the log is read line by line)
