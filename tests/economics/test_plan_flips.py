"""Flip thresholds on the fleet plan (issue 10): the API price in use, the target-utilization flip."""

from __future__ import annotations

import re

import numpy as np
import pytest

from economics.evaluate import evaluate
from economics.io.scenarios import PRESET_DIR, default_scenario, load_scenario
from economics.plan import PlanSolution, solve_plan
from economics.plan_utilization import utilization_flips
from economics.price_book import NegotiatedPrice, apply_negotiated
from economics.result import FlipThreshold, Result
from tests.economics.test_plan import problem


def _flip(result: Result, workload_id: str, driver: str) -> FlipThreshold:
    d = next(x for x in result.decisions if x.workload_id == workload_id)
    return next(f for f in d.flips if f.driver == driver)


def test_the_api_price_flip_reads_the_negotiated_price_in_use() -> None:
    # The bank's analyst workload runs on the frontier API at a list output price of $15/Mtok (no batch
    # tier: it is latency-bound). With a negotiated 20% discount the price paid is 15 × 0.8 = $12/Mtok.
    # A negotiated output rate of $12 replaces the list price alone; J depends on the price paid, so the price
    # paid at which the plan moves the workload is the same as without it. The discount also cuts the input
    # price, which moves the threshold up a little (the input saving over T_out), never to the list-price
    # figure threshold/0.8 (25% higher) that the old list-price reading gave.
    bank = default_scenario()
    base = _flip(evaluate(bank), "analyst-research", "api_output_price")
    discount = apply_negotiated(bank, [NegotiatedPrice(offer_id="frontier-api", item="api_discount", value=0.2)])
    rate = apply_negotiated(bank, [NegotiatedPrice(offer_id="frontier-api", item="api_output_price", value=12.0)])
    with_discount = _flip(evaluate(discount), "analyst-research", "api_output_price")
    with_rate = _flip(evaluate(rate), "analyst-research", "api_output_price")
    assert base.current == pytest.approx(15.0)
    assert with_discount.current == pytest.approx(12.0)
    assert with_rate.current == pytest.approx(12.0)
    assert base.threshold is not None
    assert with_discount.threshold is not None
    assert base.threshold <= with_discount.threshold < 1.01 * base.threshold
    assert with_rate.threshold == pytest.approx(base.threshold, rel=1e-9)
    assert "$12/Mtok" in with_discount.text


# ---- the target-utilization flip ------------------------------------------------------------------------------


def _main(sol: PlanSolution) -> np.ndarray:
    return np.argmax(sol.share.sum(axis=2), axis=1)


def test_target_utilization_flip_moves_the_chat_off_the_sunk_node_below_thirty_percent() -> None:
    # The tiny fleet of tests/economics/test_plan.py: one bought 8-GPU node holding one replica of 10 req/s SLO
    # capacity; sovereign work 1 req/s, a chat 2 req/s that may also use an API at $0.001/request.
    # At a target u the shared replica carries (1 + 2)/(10·u) replicas of load: one replica (the sunk node)
    # for u ≥ 3/10; below 0.3 the chat would need a second replica, so a second node (+$10,000/month), more
    # than its API bill 2·2,628,000·$0.001 = $5,256. So the plan moves the chat to the API below u* = 0.3.
    p = problem()
    sol = solve_plan(p)
    threshold, above, new = utilization_flips(p, sol, _main(sol))
    assert threshold[1] == pytest.approx(0.3, abs=1e-6)
    assert not above[1]
    assert new[1] == 1


def test_target_utilization_flip_brings_the_chat_onto_the_node_above_eighty_percent() -> None:
    # Same fleet, the chat at 7 req/s, the API at $0.0002/request, a target of 0.5. Load (1 + 7)/(10·u): at
    # u = 0.5 that is 1.6 replicas, a second node (+$10,000) against an API bill of 7·2,628,000·$0.0002 =
    # $3,679.20, so the chat is on the API. From u ≥ 8/10 one replica carries both: the plan moves it onto
    # the sunk node above u* = 0.8.
    p = problem(
        api_cost_usd=np.array([[0.0, 0.0002], [0.0, 0.0002]]),
        capacity_rate=np.array([[1.0], [7.0]]),
        bill_rate=np.array([[1.0], [7.0]]),
        target_utilization=0.5,
    )
    sol = solve_plan(p)
    assert _main(sol)[1] == 1
    threshold, above, new = utilization_flips(p, sol, _main(sol))
    assert threshold[1] == pytest.approx(0.8, abs=1e-6)
    assert above[1]
    assert new[1] == 0
    # the sovereign workload has nowhere else to go: no target in the searched range moves it
    assert np.isnan(threshold[0])


def test_a_utilization_flip_with_no_change_says_so_with_the_searched_range() -> None:
    bank = evaluate(default_scenario())
    texts = [f.text for d in bank.decisions for f in d.flips if f.driver == "utilization" and f.threshold is None]
    assert texts
    assert all("between 1% and 100%" in t for t in texts)
    assert all(f.to_option_id is None for d in bank.decisions for f in d.flips if f.threshold is None)


def test_a_node_price_flip_beyond_a_thousand_times_today_is_reported_as_none_in_range() -> None:
    # The bank plus a second, unbought copy of its node with a 70B option on it. In the cash lens the bought
    # node's capital is sunk, so the chosen route's line is nearly flat in the node price and the crossing
    # with the second node landed at $3.4e15 per node-hour (about 2e14 × today's $17.56): a number no reader
    # can use. A threshold beyond 1,000× today's price is "none in range", said in words.
    bank = default_scenario()
    node = bank.nodes[0].model_copy(update={"id": "sg-h100-node-2", "name": "Second node", "nodes_owned": 0})
    seventy = bank.owned_options[0].model_copy(
        update={"id": "owned-70b-ar-2", "node_id": "sg-h100-node-2", "name": "70B on the second node"}
    )
    s = bank.model_copy(update={"nodes": (*bank.nodes, node), "owned_options": (*bank.owned_options, seventy)})
    result = evaluate(s)
    checked = 0
    for d in result.decisions:
        for f in d.flips:
            if f.driver in ("node_price", "api_output_price"):
                checked += 1
                if f.threshold is None:
                    continue
                assert f.threshold <= 1000 * f.current, (d.workload_id, f.driver, f.threshold, f.current)
    kyc = _flip(result, "kyc-overnight", "node_price")
    assert kyc.threshold is None
    assert "up to 1,000× today's" in kyc.text
    assert checked >= 5


def test_evaluate_without_flips_is_the_same_result_with_every_decision_s_flips_left_empty() -> None:
    """``evaluate(s, flips=False)`` (the dashboard's pages that do not show thresholds) differs from the full
    result in the decisions' ``flips`` only: the plan, the cards, the bands and the warnings are identical
    (the solver's wall-clock time aside)."""
    scenario = default_scenario()
    full = evaluate(scenario)
    lazy = evaluate(scenario, flips=False)
    assert any(d.flips for d in full.decisions)  # the bank has thresholds to leave out
    assert all(d.flips == () for d in lazy.decisions)
    refilled = lazy.model_copy(
        update={
            "decisions": tuple(
                d.model_copy(update={"flips": f.flips}) for d, f in zip(lazy.decisions, full.decisions, strict=True)
            ),
            "plan": lazy.plan.model_copy(update={"solve_time_s": full.plan.solve_time_s}),
        }
    )
    assert refilled == full


@pytest.mark.parametrize("preset", sorted(p.name for p in PRESET_DIR.glob("*.json")))
def test_a_threshold_never_reads_the_same_as_todays_value(preset: str) -> None:
    # the bank's code completion read "falls below 80% (now 80%)": rounded to three digits, a threshold at today's
    # value (or a hair from it) said nothing; it now gets the digits to differ, or says the route is on the edge
    s = load_scenario(PRESET_DIR / preset)
    for d in evaluate(s).decisions:
        for f in d.flips:
            m = re.search(r"(?:rises above|falls below) (.+) \(now (.+?)(?:, close to the edge)?\)\.$", f.text)
            if m:
                assert m.group(1) != m.group(2), f.text


def test_a_route_on_the_edge_says_so() -> None:
    texts = [f.text for d in evaluate(default_scenario()).decisions for f in d.flips]
    edge = [t for t in texts if t.startswith("The route is on the edge")]
    assert edge, texts
    assert all("at all from today's" in t for t in edge)
