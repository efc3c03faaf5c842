"""The "what changed" banner: an edit states its effect on the bill, the routes and the owned nodes.

Expected values are read from the page itself (the Overview's headline before and after the edit), never
from ``economics.changes``; the moved route was found by hand: at a node price of $20,000 the owned 8B option
undercuts the Mercury 2 API for code completion, and a second owned node is needed to carry it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from economics import store
from tests.ui.helpers import metrics, number, run_page

CAPEX = "node_sg-h100-node_capex_usd"


@pytest.fixture(autouse=True)
def _empty_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No saved review: the banner compares with the preset the session started from."""
    monkeypatch.setenv(store.DATA_DIR_ENV, str(tmp_path))


def _banner(at: object) -> str:
    texts = [str(i.value) for i in at.info if "Compared with" in str(i.value)]  # type: ignore[attr-defined]
    return texts[0] if texts else ""


def test_no_banner_before_any_edit() -> None:
    at = run_page("2_cost_per_token")
    assert _banner(at) == ""


def test_node_price_edit_states_delta_moved_route_and_nodes() -> None:
    at = run_page()
    before = metrics(at)["Recommended, $/month"]
    at.switch_page("pages/2_cost_per_token.py").run()
    at.number_input(key=CAPEX).set_value(20_000).run()
    assert not at.exception
    # AppTest runs a switched-to page without app.py, which draws the banner: back to the app's own run
    at.switch_page("app.py").run()
    assert not at.exception
    text = _banner(at).replace("\\", "")
    assert "the preset" in text
    assert "1 route moved: Code completion for 300 developers moves from Mercury 2 API (diffusion) to Owned 8B" in text
    assert "1 more owned node to buy (1 → 2)" in text
    after = metrics(at)["Recommended, $/month"]
    # the banner's figures are the headline's own, before and after the edit, and the delta is their difference
    assert f"lower: {before} → {after}." in text
    assert abs(number(text.split("The monthly bill is ")[1].split(" lower")[0]) - (number(before) - number(after))) <= 1
    assert any("Modified from the preset" in str(c.value) for c in at.sidebar.caption)
