"""The workloads table is safe to edit: a new workload is appended through a form (it cannot overwrite a row),
a blank failure cost is asked for, and every change can be undone."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from economics.io.scenarios import default_scenario
from tests.ui.helpers import run_page

PRESET = default_scenario().workloads


def _workloads(at: AppTest) -> tuple[str, ...]:
    return tuple(w.name for w in at.session_state["_scenario"].workloads)


def _add(at: AppTest, name: str, failure: str) -> None:
    at.text_input(key="wl_add_name").set_value(name)
    at.number_input(key="wl_add_avg").set_value(1.0)
    at.number_input(key="wl_add_peak").set_value(3.0)
    at.text_input(key="wl_add_failure").set_value(failure)
    next(b for b in at.button if "Add this workload" in b.label).click().run()
    assert not at.exception


def test_adding_through_the_form_appends_and_keeps_every_row() -> None:
    at = run_page("5_workloads")
    _add(at, "Chat assistant", "$2.50")
    assert _workloads(at) == (*(w.name for w in PRESET), "Chat assistant")
    added = at.session_state["_scenario"].workloads[-1]
    assert (added.failure_cost_usd, added.peak_requests_per_s) == (2.5, 3.0)
    # the first row is exactly as before
    assert at.session_state["_scenario"].workloads[0] == PRESET[0]


def test_a_blank_failure_cost_is_asked_for() -> None:
    at = run_page("5_workloads")
    _add(at, "Chat assistant", "")
    assert _workloads(at) == tuple(w.name for w in PRESET)
    assert any("enter what a failed task costs" in str(e.value) for e in at.error)


def test_undo_restores_the_table() -> None:
    at = run_page("5_workloads")
    _add(at, "Chat assistant", "0")
    assert len(_workloads(at)) == len(PRESET) + 1
    at.button(key="wl_undo__1").click().run()
    assert not at.exception
    assert _workloads(at) == tuple(w.name for w in PRESET)


def _editor_columns(at: AppTest) -> list[str]:
    return list(at.dataframe[0].proto.column_order)


def test_key_columns_first_engineering_details_behind_a_toggle() -> None:
    at = run_page("5_workloads")
    assert _editor_columns(at) == [
        "Name",
        "Average [req/s]",
        "Peak [req/s]",
        "Prompt [tokens]",
        "Output [tokens]",
        "Failure cost [USD/task]",
        "Sovereign data",
    ]
    at.toggle(key="wl_details").set_value(True).run()
    assert not at.exception
    assert "Per-token target [ms/token]" in _editor_columns(at)
    assert "First-token target [s]" in _editor_columns(at)
