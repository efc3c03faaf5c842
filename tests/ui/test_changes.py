"""The "what changed" banner: an edit states its effect on the bill, the routes and the owned nodes.

Expected values are read from the page itself (the Overview's headline before and after the edit), never
from ``economics.changes``; the moved route was found by hand: at a node price of $20,000 the owned 8B option
undercuts the Mercury 2 API for code completion, and a second owned node is needed to carry it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from economics import evaluate
from economics.io import scenarios
from economics.io.scenarios import default_scenario
from economics.scenario import Scenario
from storage import reviews as store
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


def test_an_api_rate_edit_states_the_bill_delta_against_the_preset() -> None:
    # Under the fleet plan's cash lens the bought node is sunk (a capex edit changes no cash figure); the analyst
    # research workload runs on the frontier API, so a higher frontier output rate must raise the bill.
    at = run_page()
    before = metrics(at)["Recommended, SGD/month"]
    at.switch_page("pages/2_cost_per_token.py").run()
    at.text_input(key="api_frontier-api_output_usd_per_mtok").set_value("$100").run()
    assert not at.exception
    # AppTest runs a switched-to page without app.py, which draws the banner: back to the app's own run
    at.switch_page("app.py").run()
    assert not at.exception
    text = _banner(at).replace("\\", "")
    assert "the preset" in text
    after = metrics(at)["Recommended, SGD/month"]
    # the banner's figures are the headline's own, before and after the edit, and the delta is their difference
    assert f"higher: {before} → {after}." in text
    # to the unit: the delta is the difference of the two figures as shown, not of the unrounded bills
    assert number(text.split("The monthly bill is ")[1].split(" higher")[0]) == number(after) - number(before)
    assert any("Modified from the preset" in str(c.value) for c in at.sidebar.caption)


def test_typed_api_rate_applies_with_its_source_and_a_bad_one_gets_a_message() -> None:
    at = run_page("2_cost_per_token")
    key = "api_mercury-api_output_usd_per_mtok"
    assert at.text_input(key=key).value == "$0.75"
    at.text_input(key=key).set_value("nine").run()
    assert not at.exception
    assert any("Output [USD per Mtok]: “nine” is not an amount" in str(e.value).replace("\\", "") for e in at.error)
    at.text_input(key=key).set_value("$7.50").run()
    assert not at.exception
    assert not at.error
    mercury = next(a for a in at.session_state["_scenario"].apis if a.id == "mercury-api")
    assert mercury.output_usd_per_mtok == 7.5
    assert mercury.source.startswith("entered by the user on ")
    assert mercury.price_id is None
    # the plan re-decides with the typed rate (code completion already runs on the bought node, so the bill may
    # not move); the app still runs cleanly with it
    at.switch_page("app.py").run()
    assert not at.exception


def test_a_percentage_sets_the_batch_tier() -> None:
    at = run_page("2_cost_per_token")
    at.text_input(key="api_frontier-api_batch_discount_fraction").set_value("30%").run()
    assert not at.exception
    assert not at.error
    frontier = next(a for a in at.session_state["_scenario"].apis if a.id == "frontier-api")
    assert frontier.batch_discount_fraction == 0.30


def test_measured_throughput_on_a_speculative_option_changes_the_overview() -> None:
    at = run_page()
    before = metrics(at)["Recommended, SGD/month"]
    at.switch_page("pages/2_cost_per_token.py").run()
    # owned 70B runs AR + EAGLE speculation; a benchmark of 500 output tok/s per 8-GPU replica
    field = at.number_input(key="measured_owned-70b-ar_tok_s")
    assert field.value is None  # not a "0 tok/s" measurement
    assert field.placeholder == "not measured"
    field.set_value(500.0).run()
    assert not at.exception
    at.switch_page("app.py").run()
    assert not at.exception
    assert metrics(at)["Recommended, SGD/month"] != before
    options = next(d.value for d in at.dataframe if "Throughput from" in d.value.columns)
    kyc = options[
        (options["Workload"] == "Overnight KYC document batch") & (options["Option"].str.startswith("Owned 70B"))
    ]
    # KYC: 800 output tokens → 500/800 = 0.625 req/s per replica; peak 1.4 req/s at 80% target utilization
    # needs ceil(1.4 / (0.625 × 0.8)) = ceil(2.8) = 3 replicas (by hand)
    assert kyc["Replicas"].iloc[0] == 3
    assert kyc["Throughput from"].iloc[0] == "measured"
    assert any("**measured** throughput" in str(c.value) for c in at.caption)
    # 0 takes the benchmark out again (the field opened empty, "not measured"; once set it cannot be emptied,
    # Streamlit restores a field with a value): the model's figure and the first bill come back
    at.switch_page("pages/2_cost_per_token.py").run()
    field = at.number_input(key="measured_owned-70b-ar_tok_s")
    assert field.value == 500.0
    field.set_value(0.0).run()
    assert not at.exception
    at.switch_page("app.py").run()
    assert metrics(at)["Recommended, SGD/month"] == before


def test_a_node_price_typed_as_on_the_invoice_or_badly() -> None:
    at = run_page("2_cost_per_token")
    assert at.text_input(key=CAPEX).value == "$280,000"
    at.text_input(key=CAPEX).set_value("280 thousand").run()
    assert not at.exception
    assert any("is not an amount" in str(e.value) for e in at.error)
    assert at.session_state["_scenario"].nodes[0].capex_usd == 280_000
    at.text_input(key=CAPEX).set_value("250000").run()
    node = at.session_state["_scenario"].nodes[0]
    assert node.capex_usd == 250_000
    assert node.source.startswith("entered by the user on ")


def test_the_banner_keeps_its_evaluated_reference_when_the_shared_cache_drops_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under load the shared result cache holds other sessions' newest scenarios and drops the starting ones;
    the session keeps its reference's result, so an edit evaluates the edited scenario only."""
    import ui.compute

    at = run_page()
    at.switch_page("pages/2_cost_per_token.py").run()
    at.text_input(key="api_frontier-api_output_usd_per_mtok").set_value("$100").run()
    at.switch_page("app.py").run()
    assert "the preset" in _banner(at)
    preset = default_scenario()
    evaluated: list[bool] = []  # whether each evaluation was of the preset
    real = ui.compute.evaluate_with_plan

    def counting(scenario, *, flips: bool = True):  # type: ignore[no-untyped-def]
        evaluated.append(scenario == preset)
        return real(scenario, flips=flips)

    monkeypatch.setattr(ui.compute, "evaluate_with_plan", counting)
    ui.compute._evaluate.clear()  # every result gone, the preset's included
    at.switch_page("pages/2_cost_per_token.py").run()
    at.text_input(key="api_frontier-api_output_usd_per_mtok").set_value("$120").run()
    at.switch_page("app.py").run()
    assert not at.exception
    assert "the preset" in _banner(at)
    assert evaluated  # the edited scenarios were evaluated (the cache was emptied)…
    assert not any(evaluated)  # …but not the preset again


def test_an_edit_with_no_effect_says_so() -> None:
    # a new purchase price for the bought node changes no cash figure: the banner used to stay away, so the reader
    # who typed it saw nothing happen
    at = run_page()
    headline = metrics(at)["Recommended, SGD/month"]
    at.switch_page("pages/2_cost_per_token.py").run()
    at.text_input(key=CAPEX).set_value("$350,000").run()
    at.switch_page("app.py").run()
    assert not at.exception
    text = _banner(at).replace("\\", "")
    assert f"The monthly bill is unchanged at {headline}." in text
    assert "No route moved." in text
    assert "paid whatever the plan does" in text


def _status_script() -> None:
    import datetime as dt

    import streamlit as st

    from ui import state
    from ui.defaults import default_scenario
    from ui.widgets.changes import modified_from, status_changes, status_drawn

    state.init(default_scenario)
    s = state.scenario()
    first = s.model_copy(update={"review_date": s.review_date + dt.timedelta(days=1)})
    second = s.model_copy(update={"review_date": s.review_date + dt.timedelta(days=2)})
    seen = [status_changes(s)]  # never drawn: must be drawn
    status_drawn(modified_from(s))
    seen += [status_changes(s), status_changes(first)]  # unchanged; "Modified from …" appears
    status_drawn(modified_from(first))
    seen += [status_changes(second), status_changes(s)]  # reads the same; back to the preset: it goes
    st.session_state["seen"] = seen


def test_the_sidebar_status_is_redrawn_only_when_its_text_changes() -> None:
    # a price edit's targeted rerun leaves the sidebar status as drawn when it would read the same (ui.live)
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_status_script, default_timeout=30).run()
    assert not at.exception
    assert at.session_state["seen"] == [True, False, True, False, True]


def _callback_script() -> None:
    import streamlit as st
    from streamlit.errors import StreamlitAPIException
    from streamlit.runtime.scriptrunner_utils.exceptions import RerunException

    from ui import compute, state
    from ui.defaults import default_scenario
    from ui.widgets.changes import rerun_edited

    state.init(default_scenario)
    s = state.scenario()
    node = s.nodes[0]
    state.update(state.with_item(s, "nodes", node.model_copy(update={"capex_usd": node.capex_usd + 12_345})))
    solved: list[object] = []
    real = compute._evaluate
    compute._evaluate = lambda *a, **k: solved.append(a) or real(*a, **k)  # type: ignore[assignment]
    try:
        rerun_edited("no_such_fragment")  # not drawn here: the callback falls back to a full rerun
    except (RerunException, StreamlitAPIException):
        pass
    finally:
        compute._evaluate = real  # type: ignore[assignment]
    st.session_state["solved"] = len(solved)


def test_a_price_edits_callback_does_not_solve_the_plan() -> None:
    # the callback runs before any part of the page is redrawn: solving the edited scenario's fleet plan there (to
    # see whether the banner's text changed) held back the charts, which do not need it, by 20-40 ms a new price
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_callback_script, default_timeout=30).run()
    assert not at.exception
    assert at.session_state["solved"] == 0


def _frontier_output_at(usd_per_mtok: float) -> Scenario:
    """The preset with the frontier API's output rate at ``usd_per_mtok``."""
    preset = default_scenario()
    apis = [
        a.model_copy(update={"output_usd_per_mtok": usd_per_mtok}) if a.id == "frontier-api" else a for a in preset.apis
    ]
    return preset.model_copy(update={"apis": tuple(apis)})


def test_a_shared_link_says_what_it_was_modified_from() -> None:
    # the sender raised the frontier API's output rate; whoever opens the link reads that the scenario is the
    # preset modified, and the banner states what the change does, as the sender saw it
    preset = default_scenario()
    edited = _frontier_output_at(100.0)
    at = run_page(query={"s": scenarios.encode(edited)})
    assert any("Modified from the preset" in str(c.value) for c in at.sidebar.caption)
    text = _banner(at).replace("\\", "")
    assert "the preset" in text
    assert "higher" in text
    # the preset itself, shared: nothing modified, no banner
    at = run_page(query={"s": scenarios.encode(preset)})
    assert not any("Modified from" in str(c.value) for c in at.sidebar.caption)
    assert _banner(at) == ""
    # a scenario of its own (renamed): it is its own starting point, not "modified from" anything
    at = run_page(query={"s": scenarios.encode(edited.model_copy(update={"name": "Our own plan"}))})
    assert not any("Modified from" in str(c.value) for c in at.sidebar.caption)
    assert _banner(at) == ""


def test_no_banner_while_the_scenario_is_the_last_saved_review() -> None:
    # a review of an edited scenario was saved: opening that scenario again is no change (no "unchanged, sunk"
    # sentence); a further edit is compared with the review
    edited = _frontier_output_at(100.0)
    store.save_review(edited, evaluate(edited), name="Q4 review")
    at = run_page(query={"s": scenarios.encode(edited)})
    assert _banner(at) == ""
    at.switch_page("pages/2_cost_per_token.py").run()
    at.text_input(key="api_frontier-api_output_usd_per_mtok").set_value("$120").run()
    at.switch_page("app.py").run()
    assert not at.exception
    assert "the last saved review “Q4 review”" in _banner(at).replace("\\", "")


def test_a_refused_price_stays_in_its_field_across_pages_until_fixed() -> None:
    # "1,5" does not parse: the page said so, but after the Overview and back the field read $0.75 again with no
    # message, as if the typing had been lost (or applied)
    key = "api_mercury-api_output_usd_per_mtok"
    at = run_page("2_cost_per_token")
    at.text_input(key=key).set_value("1,5").run()
    assert any("comma" in str(e.value) for e in at.error)
    at.switch_page("pages/1_overview.py").run()
    at.switch_page("pages/2_cost_per_token.py").run()
    assert not at.exception
    assert at.text_input(key=key).value == "1,5"
    assert any("comma" in str(e.value) for e in at.error)
    at.text_input(key=key).set_value("$1.50").run()
    assert not at.error
    at.switch_page("pages/1_overview.py").run()
    at.switch_page("pages/2_cost_per_token.py").run()
    assert at.text_input(key=key).value == "$1.50"
    assert not at.error
    # the same for a node's price
    at.text_input(key=CAPEX).set_value("lots").run()
    at.switch_page("pages/1_overview.py").run()
    at.switch_page("pages/2_cost_per_token.py").run()
    assert at.text_input(key=CAPEX).value == "lots"
    assert any("Purchase price per node" in str(e.value) for e in at.error)


def test_the_reviews_page_first_compares_an_edited_scenario_with_the_banners_reference() -> None:
    # The banner said the bill rose against the preset while the Reviews page, comparing with today's catalog
    # (which keeps typed prices), said no price changed. An edited scenario is now first compared with what the
    # banner compares it with, so the two agree: one price changed and the same bill delta.
    at = run_page()
    before = metrics(at)["Recommended, SGD/month"]
    at.switch_page("pages/2_cost_per_token.py").run()
    at.text_input(key="api_frontier-api_output_usd_per_mtok").set_value("$100").run()
    at.switch_page("app.py").run()
    after = metrics(at)["Recommended, SGD/month"]
    at.switch_page("pages/7_reviews.py").run()
    assert not at.exception
    how = at.radio(key="rv_compare_how")
    assert how.value == how.options[0]
    assert "the preset" in how.value
    m = metrics(at)
    assert m["Prices that changed"] == "1"
    assert number(m["Monthly bill change, SGD/month"]) == pytest.approx(number(after) - number(before), abs=1)
    # today's catalog keeps the typed rate: against it, nothing changed (the choice is still there)
    how.set_value("catalog prices as of a date").run()
    assert metrics(at)["Prices that changed"] == "0"


def test_an_unedited_scenario_is_compared_with_the_catalog_as_before() -> None:
    at = run_page("7_reviews")
    assert not [r for r in at.radio if r.key == "rv_compare_how"]  # one choice: a caption, no radio
    assert "Prices that changed" in metrics(at)


def test_the_banner_names_what_differs_and_why_each_change_leaves_the_bill() -> None:
    # A reader typed the bought node's price, then cut the Together rates: the banner still explained only the
    # node ("so this price does not move it") and never said what had been changed. In the bank's plan no route
    # runs on the Together API, and the bought node is paid whatever the plan does (cash lens): the bill is
    # unchanged, each change gets its reason, and the changed offers are named.
    at = run_page("2_cost_per_token")
    at.text_input(key="node_sg-h100-node_capex_usd").set_value("$350,000").run()
    at.switch_page("app.py").run()
    text = _banner(at).replace("\\", "")
    assert "The monthly bill is unchanged" in text
    assert "so their prices do not move it" in text
    assert "serve no chosen route" not in text
    assert "What differs: node prices changed: “Owned 8×H100 node (Singapore)”." in text
    at.switch_page("pages/2_cost_per_token.py").run()
    at.text_input(key="api_hosted-70b-api_output_usd_per_mtok").set_value("$0.50").run()
    at.switch_page("app.py").run()
    assert not at.exception
    text = _banner(at).replace("\\", "")
    assert "The monthly bill is unchanged" in text
    assert "The other offers that changed serve no chosen route, so they do not move it." in text
    assert (
        "What differs: node prices changed: “Owned 8×H100 node (Singapore)”; API prices changed: "
        "“Hosted Llama-70B API (Together)”." in text
    )
