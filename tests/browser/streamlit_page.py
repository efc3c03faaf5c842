"""Playwright helpers for Streamlit pages: wait for a finished run, select only non-stale elements.

During a rerun the old element (``data-stale="true"``) and the new one coexist for ~100 ms, and Playwright
does not retry strict-mode violations, so select through :func:`fresh`. After an interaction, assert with
``playwright.sync_api.expect`` (which retries) on a :func:`fresh` locator, e.g.
``expect(fresh(page, "stMetricValue")).not_to_have_text(before)``.
"""

from __future__ import annotations

import contextlib
import re

from playwright.sync_api import Download, Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

#: A leaf element container that belongs to the current script run.
FRESH_CONTAINER = '[data-testid="stElementContainer"][data-stale="false"]'
#: The app root once a script run has finished (state is "initial" before the first run).
APP_IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
#: Placeholder shown while a lazily loaded widget's code arrives.
SKELETON = '[data-testid="stSkeleton"]'


def testid(name: str) -> str:
    """CSS for a ``data-testid``; anything that already looks like CSS is returned unchanged."""
    if any(c in name for c in "[.#:> "):
        return name
    return f'[data-testid="{name}"]'


def fresh(scope: Page | Locator, selector: str) -> Locator:
    """Elements matching ``selector`` (a test id such as ``"stMetric"`` or CSS) inside non-stale containers."""
    return scope.locator(f"{FRESH_CONTAINER} {testid(selector)}")


def wait_for_app(page: Page, timeout_ms: float = 30_000) -> None:
    """Wait until the script has run to the end and rendered something.

    Health is not readiness: the script starts only when the browser connects. Waits for at least one
    non-stale element, for the app root to report ``notRunning``, then for the lazily loaded widgets to
    replace their loading skeletons.
    """
    page.locator(FRESH_CONTAINER).first.wait_for(state="attached", timeout=timeout_ms)
    page.locator(APP_IDLE).wait_for(state="attached", timeout=timeout_ms)
    page.locator(SKELETON).first.wait_for(state="detached", timeout=timeout_ms)


def goto_app(page: Page, url: str, timeout_ms: float = 30_000) -> None:
    """Open ``url`` and wait for the first script run to finish."""
    page.goto(url, timeout=timeout_ms)
    wait_for_app(page, timeout_ms)


#: The app root while a script run is under way.
APP_RUNNING = '[data-testid="stApp"][data-test-script-state="running"]'


def open_view(page: Page, label: str, timeout_ms: float = 30_000) -> None:
    """Choose the view ``label`` on a page that draws one view at a time (a horizontal ``st.radio``, as Cost per
    token's "At one utilization" / "Across all utilizations") and wait for the run it starts to draw it."""
    page.locator(f'{FRESH_CONTAINER} [data-testid="stRadio"] label').filter(has_text=label).first.click()
    with contextlib.suppress(PlaywrightTimeoutError):  # the choice reruns the page; it may be over before we look
        page.locator(APP_RUNNING).wait_for(state="attached", timeout=2_000)
    wait_for_app(page, timeout_ms)


#: Cost per token with its curves shown (the second view, drawn only when chosen).
COST_CURVES = "cost_per_token|Across all utilizations"


def goto_view(page: Page, app_url: str, view: str, timeout_ms: float = 30_000) -> None:
    """Open a page's view: ``"<path>"``, or ``"<path>|<view label>"`` for a view drawn only when chosen (Cost
    per token's curves: ``"cost_per_token|Across all utilizations"``, :func:`open_view`)."""
    path, _, label = view.partition("|")
    goto_app(page, f"{app_url}/{path.lstrip('/')}", timeout_ms)
    if label:
        open_view(page, label, timeout_ms)


def number_input(page: Page, *, key: str | None = None, label: str | None = None) -> Locator:
    """The ``<input>`` of a non-stale ``st.number_input``, found by widget ``key`` or by label."""
    if key is not None:
        return page.locator(f"{FRESH_CONTAINER}.st-key-{key} input, {FRESH_CONTAINER} .st-key-{key} input")
    if label is not None:
        return fresh(page, "stNumberInputField").and_(page.get_by_label(label, exact=True))
    raise ValueError("give key= or label=")


def set_number_input(page: Page, value: float | int | str, *, key: str | None = None, label: str | None = None) -> None:
    """Type ``value`` into a number input and press Enter (``fill`` alone does not rerun the script)."""
    field = number_input(page, key=key, label=label)
    field.fill(str(value))
    field.press("Enter")


def fill_in_form(field: Locator, text: str) -> None:
    """Type ``text`` into a text field inside an ``st.form`` and leave the field.

    A form's text field hands its value to the form when it loses focus. Left focused, the submit button's
    mouse-down blurs it and the field re-renders between mouse-down and mouse-up; on a loaded machine the
    click was then lost (no submit, one CI failure in the sign-in test). Leaving the field first makes the
    submit click a plain click.
    """
    field.fill(text)
    field.blur()


def choose(page: Page, select: Locator, option: str | re.Pattern[str], attempts: int = 3) -> None:
    """Open a select box and click the option named ``option``, opening it again (after the app is idle) when
    the option never shows.

    A click that lands while the script is still running opens the dropdown of the element the run then
    replaces: the list closes before its option can be clicked (a 30 s timeout in one CI run of the team test,
    on a loaded 2-core machine, never locally). A person would open it again; so does this helper, up to
    ``attempts`` times, and fails as before when the option never appears.
    """
    for attempt in range(attempts):
        wait_for_app(page)
        select.click()
        item = page.get_by_role("option", name=option)
        try:
            item.wait_for(state="visible", timeout=10_000)
        except PlaywrightTimeoutError:
            if attempt == attempts - 1:
                raise
            page.keyboard.press("Escape")
            continue
        item.click()
        return


def download(page: Page, button: Locator, attempts: int = 3, timeout_ms: float = 15_000) -> Download:
    """Click a download button and return the download, clicking again (after the app is idle) when none starts.

    A click that lands while the script is still running can reach the button of the run before, whose file
    the server has already dropped: the browser then gets no file and fires no download event (seen once in
    ~4 CI runs on a loaded 2-core machine, never locally). A person would click again; so does this helper,
    up to ``attempts`` times, and fails as before when no click downloads anything.
    """
    for attempt in range(attempts):
        wait_for_app(page)
        try:
            with page.expect_download(timeout=timeout_ms) as info:
                button.click()
            return info.value
        except PlaywrightTimeoutError:
            if attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")


def type_in_grid(page: Page, keys: list[str]) -> None:
    """Press ``keys`` in a data editor whose cell is selected (arrow keys, then the characters to type), leaving
    the commit (Enter) to the caller.

    The grid's cell editor opens on the first typed key: keys pressed before it is open each open it anew, so
    "1 2" entered 2. The first typed key therefore waits for it, and the commit waits too: an Enter pressed
    before the editor took the text moves the selection instead of committing.
    """
    opened = False
    for key in keys:
        page.keyboard.press(key)
        if not opened and not key.startswith("Arrow"):
            opened = True
            page.wait_for_timeout(250)
    page.wait_for_timeout(250)
