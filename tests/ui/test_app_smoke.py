"""The home page runs in-process (AppTest) without an exception and reacts to its batch-size input."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def _tok_per_s(at: AppTest) -> float:
    return float(at.metric[0].value.removesuffix(" tok/s").replace(",", ""))


def test_home_page_runs_and_throughput_grows_with_batch() -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30).run()
    assert not at.exception
    assert at.title[0].value == "LLM unit economics"
    batch_1 = _tok_per_s(at)
    assert 10 < batch_1 < 1_000  # MODEL_SPEC §3.3: ≈190 tok/s at ideal efficiency, less with real MBU

    at.number_input(key="batch").set_value(64).run()

    assert not at.exception
    assert "batch 64" in at.metric[0].label
    assert _tok_per_s(at) > 10 * batch_1
    assert at.get("plotly_chart")
