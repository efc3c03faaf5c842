"""The workloads table in a real browser: a cell typed into the grid is in the table the page then downloads.

A cell edit reruns only the live parts of the page (ui.live); the download button sits in the editor's own
fragment, which used to build its file from the scenario as it was before the edit: the CSV lagged one edit
behind the table on screen until the next full run.
"""

from __future__ import annotations

import csv
import io
import time
from pathlib import Path

from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.browser.streamlit_page import FRESH_CONTAINER, download, fresh, goto_app, type_in_grid, wait_for_app

FAILURE_COST = "Failure cost [USD/task]"


def _type_failure_cost(page: Page, digits: str, attempts: int = 3) -> None:
    """Type ``digits`` into the first row's failure cost: click its Name cell, five cells right, type, Enter;
    then wait until the grid holds the number and the page ran. A keystroke the grid dropped on a loaded machine
    (the cell kept its old value) is typed again, as a person would, up to ``attempts`` times."""
    grid = page.locator(f"{FRESH_CONTAINER}.st-key-workloads_editor").first
    cell = grid.locator("#glide-cell-5-0")  # the grid's accessible copy of the first row's failure cost
    # the first row's Name selected, not any cell: Enter after the last edit left the row below selected, and
    # a click that only focused the grid then typed the digits into that row (a CI run read 77 in two rows)
    selected = grid.locator('[data-testid="data-grid-canvas"] #glide-cell-0-0[aria-selected="true"]')
    for attempt in range(attempts):
        grid.evaluate("e => e.scrollIntoView({block: 'center'})")  # a download scrolled it out of view
        box = grid.bounding_box()
        assert box is not None, "the workloads table is not on screen"
        page.mouse.click(box["x"] + 60, box["y"] + 52)  # below the 35 px header: the first row's Name
        try:  # after a download the grid's first click only focused it
            selected.first.wait_for(state="attached", timeout=2_000)
        except PlaywrightTimeoutError:
            continue
        type_in_grid(page, ["ArrowRight"] * 5 + list(digits))
        page.keyboard.press("Enter")
        try:
            expect(cell).to_have_text(digits, timeout=3_000)
        except AssertionError:
            if attempt == attempts - 1:
                raise
            continue
        page.wait_for_timeout(500)  # the grid sends an edit 150 ms after it (its frontend debounces), then it runs
        wait_for_app(page)
        return
    raise AssertionError(f"the grid never took {digits!r}")


def _downloaded_failure_costs(page: Page) -> list[float]:
    button = fresh(page, "stDownloadButton").filter(has_text="Download the workloads")
    rows = list(csv.DictReader(io.StringIO(Path(download(page, button).path()).read_text(encoding="utf-8"))))
    return [float(r[FAILURE_COST]) for r in rows]


def _download_until(page: Page, expected: list[float], timeout_s: float = 10.0) -> list[float]:
    """The downloaded failure costs once they equal ``expected``, or the last ones read after ``timeout_s``: the
    grid sends an edit after a debounce, so a click can land before the run that redraws the button. A
    download reruns nothing, so a file that lags the edit (the old code) still lags after the wait."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = _downloaded_failure_costs(page)
        if got == expected or time.monotonic() > deadline:
            return got
        page.wait_for_timeout(500)


def test_a_typed_cell_is_in_the_downloaded_workloads(page: Page, app_url: str) -> None:
    page.set_viewport_size({"width": 1440, "height": 900})  # the key columns whole: no sideways scroll to undo
    goto_app(page, f"{app_url}/workloads")
    before = _downloaded_failure_costs(page)
    assert before[0] != 1234
    _type_failure_cost(page, "1234")
    assert _download_until(page, [1234.0, *before[1:]]) == [1234.0, *before[1:]]
    _type_failure_cost(page, "77")  # a second edit: the file follows it too, not the one before
    assert _download_until(page, [77.0, *before[1:]]) == [77.0, *before[1:]]
