"""The "Add or take out GPUs" dialog in a real browser: a reader on the API-only preset rents GPUs for a model and
sees the node priced on the page and on the Overview, then takes them out again."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect

from economics.io.scenarios import PRESET_DIR, encode, load_scenario
from tests.browser.streamlit_page import choose, goto_app, wait_for_app


def test_rent_gpus_for_a_model_and_take_them_out(browser: Browser, app_url: str) -> None:
    page = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
    link = encode(load_scenario(PRESET_DIR / "api-only.json"))
    goto_app(page, f"{app_url}/cost_per_token?s={link}", timeout_ms=60_000)
    expect(page.get_by_text("This scenario has no owned or rented node")).to_be_visible()
    page.get_by_role("button", name="Add or take out GPUs").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Where the GPUs come from", timeout=30_000)
    # some fifty instances: the list shows the first; typing narrows it, as a reader would
    instance = dialog.get_by_test_id("stSelectbox").filter(has_text="Instance")
    wait_for_app(page)
    instance.click()
    page.keyboard.type("p5.48xlarge · 8")
    page.get_by_role("option", name=re.compile(r"^AWS p5\.48xlarge · .*on-demand")).click()
    choose(
        page,
        dialog.get_by_test_id("stSelectbox").filter(has_text=re.compile("^Model")),
        "Llama 3.1 70B (also Llama 3.3 70B)",
    )
    # the suggested replica for 70B in BF16 on 80 GB H100s: 4 GPUs (half their memory left to requests)
    expect(dialog.get_by_role("combobox", name="GPUs per model replica")).to_have_value("4")
    wait_for_app(page)
    dialog.get_by_role("button", name="Add to the scenario").click()
    expect(page.get_by_text("Added Llama 3.1 70B, AR (4 GPUs, rented H100 SXM5 80GB)")).to_be_visible(timeout=30_000)
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(page.get_by_text("This scenario has no owned or rented node")).to_have_count(0)
    # the node's cost line: AWS's $55.04 an hour for 8 GPUs is $6.88 a GPU-hour, shown in the scenario's S$ (×1.3)
    expect(page.get_by_text(re.compile(r"Rented 8× H100 SXM5 80GB \(AWS p5\.48xlarge, on-demand\):"))).to_be_visible()
    expect(page.get_by_text("S$8.94 per GPU-hour", exact=False)).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)

    # the add's own run must have ended: a click while it runs can be answered by a dialog that run then closes
    wait_for_app(page)
    page.get_by_role("button", name="Add or take out GPUs").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Where the GPUs come from", timeout=30_000)
    dialog.get_by_role("tab", name="Take an option out").click()
    expect(dialog).to_contain_text("goes too: no other option runs there")
    wait_for_app(page)
    dialog.get_by_role("button", name="Take it out").click()
    expect(page.get_by_text("This scenario has no owned or rented node")).to_be_visible(timeout=30_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.context.close()
