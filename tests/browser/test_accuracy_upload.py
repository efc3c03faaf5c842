"""The Accuracy page's upload in the real browser: a benchmark file that ran another model is refused with both
names, and once the file's model is chosen the fit is made and its runs show in the chart at once (they used to
appear only after the next interaction, the chart being drawn before the upload was read), its legend clear of
the axis title in a 1,024 px window."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect

from tests.browser.reading import OVERLAPS_JS
from tests.browser.streamlit_page import choose, fresh, goto_app, wait_for_app

VLLM = Path(__file__).resolve().parents[1] / "data" / "benchmarks" / "vllm_bench_serve.json"


def test_another_models_file_is_refused_then_fitted_once_its_model_is_chosen(browser: Browser, app_url: str) -> None:
    page = browser.new_context(viewport={"width": 1024, "height": 900}).new_page()
    goto_app(page, f"{app_url}/accuracy", timeout_ms=60_000)
    model = page.get_by_test_id("stSelectbox").filter(has_text="Model").first
    choose(page, model, "Llama 3.1 70B (also Llama 3.3 70B)")
    wait_for_app(page)
    page.get_by_test_id("stMainBlockContainer").locator('input[type="file"]').set_input_files(
        files=[{"name": "run.json", "mimeType": "application/json", "buffer": VLLM.read_bytes()}]
    )
    refused = fresh(page, "stAlert").filter(has_text="Could not use this file")
    expect(refused).to_contain_text(
        "run.json: model: the file ran meta-llama/Llama-3.1-8B-Instruct (Llama 3.1 8B in the catalog), "
        "not Llama 3.1 70B (also Llama 3.3 70B): choose the file's model",
        timeout=30_000,
    )
    chart = page.get_by_test_id("stPlotlyChart").first
    expect(chart).not_to_contain_text("your runs (fitted)")

    choose(page, model, "Llama 3.1 8B")  # the uploaded file stays; the page reads it again
    fitted = fresh(page, "stAlert").filter(has_text="Fitted on 1 run")
    expect(fitted).to_be_visible(timeout=30_000)
    # one run fits the two settings exactly: the spread is an assumption, and the page says so
    expect(fitted).to_contain_text("leave nothing to measure the spread with, so its likely range assumes 30%")
    expect(page.get_by_test_id("stPlotlyChart").first).to_contain_text("your runs (fitted)", timeout=10_000)
    page.wait_for_timeout(600)  # plotly draws after the script run
    # the legend's extra row ("your runs") ran over the x-axis title at 1,024 px
    problems = page.evaluate(OVERLAPS_JS)
    assert not problems, problems
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.context.close()


def test_a_refused_files_name_is_shown_as_typed_not_as_markdown(browser: Browser, app_url: str) -> None:
    page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
    goto_app(page, f"{app_url}/accuracy", timeout_ms=60_000)
    name = "**q4**_[see](https://example.com)_run.json"
    page.get_by_test_id("stMainBlockContainer").locator('input[type="file"]').set_input_files(
        files=[{"name": name, "mimeType": "application/json", "buffer": b"{not json"}]
    )
    refused = fresh(page, "stAlert").filter(has_text="Could not use this file")
    expect(refused).to_contain_text("not valid JSON", timeout=30_000)
    expect(refused.locator("a, strong, em")).to_have_count(0)  # no bold, no link (not even the bare address)
    # the name reads as typed (word joiners, U+2060, are invisible: they only stop the address becoming a link)
    assert f"{name}: " in refused.inner_text().replace("\u2060", "")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.context.close()
