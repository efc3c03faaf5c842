"""The meeting pack's narrative follows the scenario it exports: counts, units and words of the app, and a
modified scenario says so. Scenarios are built by hand here; expected sentences are written out from the
numbers the test puts in (derivations in comments), never produced by the narrative code."""

from __future__ import annotations

import dataclasses
import datetime as dt
import html
import re

import pandas as pd
import pytest

from economics.evaluate import evaluate
from economics.io.scenarios import default_scenario, load_preset
from economics.offers import OwnedNode
from economics.uncertainty import MonteCarlo
from economics.workload import Workload
from reporting.meeting_pack import build_pack, render_html
from reporting.narrative import Baseline, duration, find_baseline, narrative, scenario_changes, show_description
from tests.reviews.factories import small_result, small_scenario

BANK = default_scenario()


def _text(sentences: tuple[str, ...]) -> str:
    return " ".join(sentences)


def _seven_workloads_dearer_power() -> tuple[object, ...]:
    """The bank preset with two more workloads (7 in all) and electricity at $0.30/kWh instead of $0.20."""
    extra = (
        Workload(
            id="claims",
            name="Claims triage",
            avg_requests_per_s=0.2,
            peak_requests_per_s=1,
            input_tokens=1500,
            output_tokens=200,
            deadline_s=28_800,  # 8 hours
            sovereign=True,
        ),
        Workload(
            id="faq",
            name="FAQ bot",
            avg_requests_per_s=0.5,
            peak_requests_per_s=2,
            input_tokens=800,
            output_tokens=150,
            ttft_slo_s=0.3,  # 300 ms
            tpot_slo_s=0.03,  # 30 ms
        ),
    )
    nodes = tuple(
        n.model_copy(update={"electricity_usd_per_kwh": 0.30}) if isinstance(n, OwnedNode) else n for n in BANK.nodes
    )
    return (*BANK.workloads, *extra), nodes


def test_durations_are_in_the_unit_a_person_uses() -> None:
    # 28,800 s = 8 h; 0.3 s = 300 ms; 0.008 s = 8 ms; 90 s = 1.5 min
    assert [duration(x) for x in (28_800, 0.3, 0.008, 90)] == ["8 h", "300 ms", "8 ms", "1.5 min"]


def test_a_hand_built_scenario_reads_in_the_apps_units_and_words() -> None:
    scenario = small_scenario(
        workloads=(
            small_scenario().workloads[0].model_copy(update={"ttft_slo_s": 0.3, "tpot_slo_s": 0.03}),
            small_scenario().workloads[1].model_copy(update={"deadline_s": 28_800.0}),
        )
    )
    text = _text(narrative(scenario, small_result(scenario)))
    assert "with prices as of 30 September 2025." in text
    assert "It has 2 workloads: “Chat” and “KYC check”. 1 workload must stay on owned infrastructure" in text
    assert "“Chat” first token within 300 ms and 30 ms per token; “KYC check” done within 8 h." in text
    assert "frontier API: “Chat”; owned GPUs, one request at a time: “KYC check”." in text
    # fleet of the hand-made result: 8 GPUs in 1 node at 10% utilization, $10,006.1 of idle cost
    # (a hand-made result has no plan: its fleet's idle cost is the figure; the scenario's lens is cash)
    assert (
        "8 GPUs in 1 node, busy 10% of the paid hours; the idle hours' share of its full cost is $10,006/month "
        "(paid whatever the plan does, so not a new spend in the cash view)." in text
    )
    # default owned node: capex 9.65 + power 0.93 + facility 2.10 + ops 2.56 = $15.23/h; / 8 GPUs = $1.90
    assert "“H100 owned” costs $15.23 an hour all-in ($1.90 per GPU-hour), with electricity at $0.10 per kWh" in text
    assert "“H100 rented” is rented at $2.50 per GPU-hour." in text
    assert "modified" not in text  # a scenario of the user's own has no preset to differ from
    assert not re.search(r"\(s\)|\bNone\b|\bnan\b|\d\.\d{7,}", text)
    assert "28800" not in text
    assert "28,800" not in text
    assert "0.3 s" not in text


def test_a_preset_taken_as_is_says_so_and_keeps_its_description() -> None:
    baseline = find_baseline(BANK)
    assert baseline is not None
    text = _text(narrative(BANK, evaluate(BANK), baseline=baseline))
    assert f"it is the preset “{BANK.name}”, unchanged." in text
    assert f"It has {len(BANK.workloads)} workloads" in text
    assert show_description(BANK, baseline)


def test_a_modified_preset_says_what_changed_and_drops_the_stale_description() -> None:
    workloads, nodes = _seven_workloads_dearer_power()
    scenario = BANK.model_copy(update={"workloads": workloads, "nodes": nodes})
    pack = build_pack(scenario, uncertainty=False, generated_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC))
    text = _text(narrative(scenario, pack.result, baseline=pack.baseline))
    assert f"It is modified from the preset “{BANK.name}”: workloads added: “Claims triage” and “FAQ bot”" in text
    assert "node prices changed: “Owned 8×H100 node (Singapore)”" in text
    assert "It has 7 workloads" in text
    assert "Five workloads" not in text
    assert "with electricity at $0.30 per kWh" in text
    assert "“Claims triage” done within 8 h" in text
    assert "“FAQ bot” first token within 300 ms and 30 ms per token" in text
    # everything a reader sees before the scenario's JSON appendix
    page = html.unescape(render_html(pack).split('id="scenario"')[0])
    assert "The preset's description no longer matches these numbers" in page
    assert BANK.description[:60] not in page
    assert "Five workloads" not in page


def test_scenario_changes_lists_nothing_for_the_same_scenario() -> None:
    assert scenario_changes(BANK, BANK) == []
    later = BANK.model_copy(update={"review_date": dt.date(2027, 3, 1)})
    assert scenario_changes(BANK, later) == ["review date moved from 1 December 2026 to 1 March 2027"]


def _draws(workloads: pd.DataFrame, p05: float, p50: float, p95: float) -> MonteCarlo:
    """A Monte Carlo of 1,000 draws with the given route table and savings percentiles [USD/month]."""
    return MonteCarlo(
        draws=1000,
        seed=0,
        workloads=workloads,
        options=pd.DataFrame(),
        savings_p05_usd_per_month=p05,
        savings_p50_usd_per_month=p50,
        savings_p95_usd_per_month=p95,
    )


def test_uncertainty_band_is_stated_in_dollars_per_month() -> None:
    scenario = small_scenario()
    mc = _draws(pd.DataFrame(), 1000.0, 2000.0, 3000.0)
    text = _text(narrative(scenario, small_result(scenario), monte_carlo=mc))
    assert "Across 1,000 draws of the uncertain inputs, the saving against the best APIs lies between" in text
    assert "between $1,000/month" in text
    assert "and $3,000/month in 90% of the draws (median $2,000/month)." in text
    assert "least settled" not in text  # no route table: nothing named


def test_the_summary_names_the_least_settled_route_and_scopes_the_model_error_sentence() -> None:
    # A pack said "Every route stays the better one across the likely range of the throughput model's error"
    # while its draws table gave a route a 44% chance of holding: the first sentence is now about the model's
    # error only, and the draws' least settled route is named (holding in under 90% of draws).
    scenario = small_scenario()
    rows = [("chat", "Chat", 0.4395), ("kyc", "KYC check", 0.97), ("x", "Gone", float("nan"))]
    mc = _draws(pd.DataFrame(rows, columns=["workload_id", "workload_name", "prob_route_unchanged"]), 0.0, 0.0, 746.0)
    text = _text(narrative(scenario, small_result(scenario), monte_carlo=mc))
    assert "The least settled route is “Chat”'s: it holds in 44% of the draws." in text
    assert "KYC" not in text.split("least settled")[1]
    settled = mc.workloads.assign(prob_route_unchanged=[0.95, 0.97, float("nan")])
    calm = _text(narrative(scenario, small_result(scenario), monte_carlo=dataclasses.replace(mc, workloads=settled)))
    assert "least settled" not in calm


@pytest.mark.parametrize("name", ["<script>alert(1)</script>", 'A & B "quoted"'])
def test_names_from_the_scenario_are_text_in_the_html(name: str) -> None:
    scenario = small_scenario(name=name, description="<b>bold?</b>")
    pack = build_pack(scenario, result=small_result(scenario), uncertainty=False, baseline=None)
    page = render_html(pack)
    assert name not in page  # never raw markup
    assert f"<h1>{html.escape(name)}".replace("&quot;", "&#34;") in page.replace("Price review: ", "")
    assert "&lt;b&gt;bold?&lt;/b&gt;" in page


def test_a_baseline_can_be_given_explicitly() -> None:
    scenario = small_scenario()
    other = small_scenario(workloads=small_scenario().workloads[:1])
    text = _text(narrative(scenario, small_result(scenario), baseline=Baseline("review “Q3”", other)))
    assert "It is modified from review “Q3”: workloads added: “KYC check”." in text


def test_a_rented_offer_the_plan_leaves_is_not_said_to_be_rented() -> None:
    # the startup preset: every workload on the GPT-5 API (its evaluated plan rents no node), yet the pack
    # said "“RunPod Secure H100 (per GPU-hour)” is rented at $3.49 per GPU-hour" for every rented offer
    startup = load_preset("startup-rented")
    result = evaluate(startup)
    assert result.plan is not None
    assert not [n for n in result.plan.nodes if n.kind == "rented" and n.nodes_used]
    text = _text(narrative(startup, result))
    assert "is rented at" not in text
    assert (
        "“Rented 8× H100 (RunPod Secure Cloud, per GPU-hour)” would rent at $3.49 per GPU-hour; "
        "the plan rents none of it." in text
    )


def test_a_comparison_with_nothing_different_says_so() -> None:
    # "Against Q4 2026 proposal (2026-12-01), the monthly bill is unchanged and 0 workloads change route" read as
    # the review compared with itself; with the same prices, routes and bill the sentence says exactly that
    from economics.compare import Snapshot, compare

    scenario = small_scenario()
    result = small_result(scenario)
    side = Snapshot(label="Q4 2026 proposal (2026-12-01)", scenario=scenario, result=result, prices=())
    now = Snapshot(label="current scenario", scenario=scenario, result=result, prices=())
    text = _text(narrative(scenario, result, comparison=compare(side, now)))
    assert "Current scenario and Q4 2026 proposal (2026-12-01) have the same prices, routes and monthly bill." in text
    assert "0 workloads change route" not in text
