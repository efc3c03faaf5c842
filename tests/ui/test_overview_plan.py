"""The Overview reads the fleet plan: lens, sunk capital, nodes to buy, and cards paged for large portfolios."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from economics.io import scenarios
from economics.io.scenarios import default_scenario
from economics.workload import Workload
from tests.ui.helpers import APP, metrics
from ui import state


def _open(scenario: object) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.session_state[state._SCENARIO] = scenario
    at.session_state[state._LINK] = scenarios.encode(scenario)  # type: ignore[arg-type]
    at.switch_page("pages/1_overview.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_cards_are_paged_and_the_headline_shows_lens_and_sunk_capital() -> None:
    bank = default_scenario()
    extra = tuple(
        Workload(
            id=f"chat-{i}",
            name=f"chat {i}",
            avg_requests_per_s=0.01,
            peak_requests_per_s=0.02,
            input_tokens=500,
            output_tokens=100,
            ttft_slo_s=2.0,
        )
        for i in range(55)
    )
    at = _open(bank.model_copy(update={"workloads": bank.workloads + extra}))
    assert at.number_input(key="ov_page").value == 1  # 60 workloads: 3 pages of 25
    assert "cash lens" in at.caption[0].value
    assert metrics(at)["Sunk capital"] == "$280,000"
    at.number_input(key="ov_page").set_value(3).run()
    assert not at.exception
    # a smaller scenario keeps the page in range
    at.session_state[state._SCENARIO] = bank
    at.session_state[state._LINK] = scenarios.encode(bank)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
