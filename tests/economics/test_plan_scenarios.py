"""The fleet plan through evaluate() on the presets and on the cases of issue 10 (regressions).

Expected figures come from the scenario's inputs by hand or from a second, independent solve with a
workload forced elsewhere; never from the allocation under test.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from economics.evaluate import evaluate, evaluate_arrays, plan_fleet, plan_route
from economics.io.scenarios import PRESET_DIR, default_scenario, load_scenario, parse_scenario
from economics.measured import MeasuredThroughput
from economics.offers import RentedNode
from economics.result import Result
from economics.scenario import OwnedOption, Scenario
from economics.views.breakeven import BreakEvenInputs, break_even_analysis
from economics.views.cost import CostInputs, cost_analysis, cost_at, variant_capacities
from economics.workload import DemandProfile, Workload
from tests.strategies import PROPERTIES

PRESETS = sorted(PRESET_DIR.glob("*.json"))
MONTH_S = 730 * 3600


def _lens(s: Scenario, lens: str) -> Scenario:
    return s.model_copy(update={"policy": s.policy.model_copy(update={"lens": lens})})


def _with(s: Scenario, *workloads: Workload) -> Scenario:
    return s.model_copy(update={"workloads": s.workloads + workloads})


CHATBOT = Workload(
    id="support-chat",
    name="Customer-support chatbot",
    avg_requests_per_s=3.0,
    peak_requests_per_s=6.0,
    input_tokens=1500,
    output_tokens=300,
    ttft_slo_s=1.0,
)


@pytest.mark.parametrize("lens", ["cash", "full"])
@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.stem)
def test_workload_shares_add_up_to_the_headline(path: object, lens: str) -> None:
    r = evaluate(_lens(load_scenario(path), lens))  # type: ignore[arg-type]
    p = r.plan
    assert p is not None
    assert p.solver_status == "optimal"
    shares = sum(w.cost_usd_per_month for w in p.workloads)
    assert shares + p.unallocated_usd_per_month == pytest.approx(p.total_cost_usd_per_month, rel=1e-9, abs=1e-6)
    assert sum(d.monthly_cost_usd for d in r.decisions) == pytest.approx(shares, rel=1e-12, abs=1e-9)
    assert r.fleet.total_cost_usd_per_month == p.total_cost_usd_per_month
    assert p.objective_usd_per_month == pytest.approx(p.total_cost_usd_per_month + p.failure_cost_usd_per_month)
    for w in p.workloads:
        if w.share_by_option:
            assert sum(w.share_by_option.values()) == pytest.approx(1.0)
    # the plan never costs more than the all-API baseline in money plus failures: the baseline is a plan too
    # (in money alone it can, when quality pays for it)
    if lens == "cash":
        assert p.cash_cost_usd_per_month == pytest.approx(p.total_cost_usd_per_month)
    else:
        assert p.full_cost_usd_per_month == pytest.approx(p.total_cost_usd_per_month)


def test_bank_idle_sunk_node_carries_the_non_sovereign_code_completion(bank_result: Result) -> None:
    # Before issue 10 code completion went to Mercury ($532/month) while the bought node idled. On the sunk
    # node it costs the cash plan nothing (power does not vary with load in the bank: f_idle = f_busy = 0.7).
    d = {x.workload_id: x for x in bank_result.decisions}
    assert d["code-completion"].chosen_option_id == "owned-70b-ar"
    assert d["code-completion"].monthly_cost_usd == 0.0
    p = bank_result.plan
    assert p is not None
    assert p.nodes_to_buy == 0
    # cash: only the frontier API for research, 0.02 req/s × $0.039 × 2,628,000 s = $2,049.84
    assert p.total_cost_usd_per_month == pytest.approx(0.02 * 0.039 * MONTH_S, rel=1e-12)
    # full cost adds the node: $17.557/node-hour × 730 h (docs/costs.md#node-cost with $0.20/kWh, $250/kW-month)
    g = 1.08**4
    node_h = 280_000 * 0.08 * g / (g - 1) / 8760 + 10.2 * 0.7 * 1.3 * 0.20 + 250 * 10.2 / 730 + 0.08 * 280_000 / 8760
    assert p.full_cost_usd_per_month == pytest.approx(0.02 * 0.039 * MONTH_S + node_h * 730, rel=1e-9)
    assert p.sunk_capital_usd == 280_000


@pytest.fixture(scope="module")
def bank_result() -> Result:
    return evaluate(default_scenario())


def test_bank_plus_chatbot_buys_a_second_node_only_if_the_total_says_it_pays() -> None:
    s = _with(default_scenario(), CHATBOT)
    r = evaluate(s)
    p = r.plan
    assert p is not None
    ev = evaluate_arrays(s)
    # the same scenario with the chatbot forced onto APIs (no owned option allowed for it), solved again
    forced = plan_fleet(ev)  # the plan itself, for the objective
    t = ev.table
    feasible = t.feasible.copy()
    feasible[-1, ~t.is_api] = False
    api_only = plan_fleet(dataclasses.replace(ev, table=dataclasses.replace(t, feasible=feasible)))
    assert forced.plan.objective_usd_per_month <= api_only.plan.objective_usd_per_month + 1e-6
    if p.nodes_to_buy:
        chat = next(w for w in p.workloads if w.workload_id == "support-chat")
        assert chat.nodes_to_buy == p.nodes_to_buy  # on the card of the workload that needs them
        reason = next(d.reason for d in r.decisions if d.workload_id == "support-chat")
        assert f"without it the plan would buy {p.nodes_to_buy} node" in reason.lower()
        assert any("buy" in w for w in r.warnings)
    # a card never says "saves" while its share costs more than its best API
    for d in r.decisions:
        if d.savings_vs_api_usd_per_month is not None and d.all_api_monthly_cost_usd is not None:
            assert d.savings_vs_api_usd_per_month == pytest.approx(d.all_api_monthly_cost_usd - d.monthly_cost_usd)


def test_a_twelve_hour_deadline_batch_needs_one_node_not_its_peak() -> None:
    # The bank's 70B replica: a batch at 1.2 req/s on average with bursts of 4 req/s and a 12-hour deadline.
    # Sized for the burst it would need 4/(0.8·λmax) replicas; sized for its volume, 1.2/(0.8·λmax) ≤ 1.
    bank = default_scenario()
    batch = Workload(
        id="batch-12h", name="12-hour batch", avg_requests_per_s=1.2, peak_requests_per_s=4.0,
        input_tokens=6000, output_tokens=800, deadline_s=12 * 3600.0, sovereign=True,
    )  # fmt: skip
    s = bank.model_copy(update={"workloads": (batch,)})
    lam_max = next(o.capacity_requests_per_s for o in evaluate(s).options if o.option_id == "owned-70b-ar")
    assert 4.0 / (0.8 * lam_max) > 1 >= 1.2 / (0.8 * lam_max)  # the case: the burst needs more than one
    p = evaluate(s).plan
    assert p is not None
    assert p.nodes[0].nodes_used == 1
    assert p.nodes_to_buy == 0


def test_retries_are_in_the_bill() -> None:
    # Code completion alone, no node bought, on Mercury with up to 3 attempts at q = 0.84:
    # g = 1 + 0.16 + 0.16² = 1.1856 attempts; bill = g × $0.000405 × 0.5 req/s × 2,628,000 s.
    bank = default_scenario()
    cc = next(w for w in bank.workloads if w.id == "code-completion").model_copy(update={"max_attempts": 3})
    nodes = tuple(n.model_copy(update={"nodes_owned": 0}) for n in bank.nodes)
    r = evaluate(bank.model_copy(update={"workloads": (cc,), "nodes": nodes}))
    p = r.plan
    assert p is not None
    w = p.workloads[0]
    assert w.option_id == "mercury-api"
    m = next(a for a in bank.apis if a.id == "mercury-api")
    h = cc.prompt_cache_hit_rate
    cached = m.input_usd_per_mtok if m.cached_input_usd_per_mtok is None else m.cached_input_usd_per_mtok
    t_in, t_out = cc.input_tokens, cc.output_tokens
    per_request = (t_in * ((1 - h) * m.input_usd_per_mtok + h * cached) + t_out * m.output_usd_per_mtok) / 1e6
    expected = (1 + 0.16 + 0.16**2) * per_request * 0.5 * MONTH_S
    assert w.api_cost_usd_per_month == pytest.approx(expected, rel=1e-9)
    assert p.total_cost_usd_per_month == pytest.approx(expected, rel=1e-9)


def _with_cheap_third_party(bank: Scenario) -> Scenario:
    rented = RentedNode(id="cheap-cloud", name="Cheap cloud", gpu_id="h100-sxm", price_usd_per_gpu_hour=0.01)
    option = OwnedOption(
        id="cloud-70b", name="70B on the cheap cloud", node_id="cheap-cloud", model_id="llama-3.1-70b",
        gpus_per_replica=8, quality=0.9,
    )  # fmt: skip
    nodes = (*tuple(n.model_copy(update={"nodes_owned": 0}) for n in bank.nodes), rented)
    return bank.model_copy(update={"nodes": nodes, "owned_options": (*bank.owned_options, option)})


def test_sovereign_data_never_runs_on_a_third_party_node() -> None:
    s = _with_cheap_third_party(default_scenario())
    r = evaluate(s)
    sovereign = {w.id for w in s.workloads if w.sovereign}
    for d in r.decisions:
        if d.workload_id in sovereign:
            assert d.chosen_option_id != "cloud-70b"
            assert d.chosen_kind != "api"
    reasons = {(o.workload_id, o.option_id): o.reason for o in r.options}
    assert "third-party" in reasons[("kyc-overnight", "cloud-70b")]
    # the non-sovereign work may use it (the research workload's reason is its SLO or nothing, not the data rule)
    assert "third-party" not in reasons[("analyst-research", "cloud-70b")]


def test_a_sovereign_workload_nothing_allowed_can_serve_is_named_and_the_rest_is_planned() -> None:
    # Only the third-party cloud can run anything: the sovereign workloads have no allowed option.
    bank = _with_cheap_third_party(default_scenario())
    kept = [{k: v for k, v in w.quality_overrides.items() if not k.startswith("owned")} for w in bank.workloads]
    wls = tuple(w.model_copy(update={"quality_overrides": q}) for w, q in zip(bank.workloads, kept, strict=True))
    options = tuple(o for o in bank.owned_options if o.id == "cloud-70b")
    s = bank.model_copy(update={"owned_options": options, "workloads": wls})
    r = evaluate(s)
    p = r.plan
    assert p is not None
    unserved = [w for w in p.workloads if w.option_id is None]
    assert {w.workload_id for w in unserved} == {w.id for w in s.workloads if w.sovereign}
    assert all("third-party" in w.unserved_reason for w in unserved)
    assert any("kyc-overnight" in x or "Overnight KYC" in x for x in r.warnings)
    assert next(w for w in p.workloads if w.workload_id == "code-completion").option_id is not None


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.stem)
def test_no_flip_names_a_missing_option_or_an_api_for_sovereign_data(path: object) -> None:
    s = load_scenario(path)  # type: ignore[arg-type]
    r = evaluate(_with_cheap_third_party(s) if s.name.startswith("Singapore") else s)
    ids = {o.option_id for o in r.options}
    apis = {o.option_id for o in r.options if o.kind == "api"}
    sovereign = {w.id for w in s.workloads if w.sovereign}
    for d in r.decisions:
        for f in d.flips:
            assert f.to_option_id == f.new_option_id
            if f.threshold is None:
                assert f.to_option_id is None
                assert "moves to" not in f.text
                continue
            assert f.to_option_id in ids
            assert f.to_option_id != d.chosen_option_id
            if d.workload_id in sovereign:
                assert f.to_option_id not in apis


def test_a_workload_with_a_single_allowed_option_has_no_runner_up_in_words() -> None:
    # The old bug: with no runner-up the utilization flip read index −1 and named the last option.
    bank = default_scenario()
    kyc = next(w for w in bank.workloads if w.id == "kyc-overnight")
    s = bank.model_copy(update={"workloads": (kyc,), "owned_options": bank.owned_options[:1]})
    d = evaluate(s).decisions[0]
    assert "no other allowed option" in d.reason
    for f in d.flips:
        assert f.to_option_id is None
        assert "moves to" not in f.text


def _with_reasoning(s: Scenario, reasoning_tokens: int) -> Scenario:
    """Every workload decodes ``reasoning_tokens`` hidden tokens per request besides its answer."""
    ws = tuple(w.model_copy(update={"reasoning_tokens": reasoning_tokens}) for w in s.workloads)
    return s.model_copy(update={"workloads": ws})


def _with_measured(s: Scenario, tokens_per_s: float) -> Scenario:
    """Every owned option carries a benchmark of ``tokens_per_s`` output tokens/s per replica."""
    opts = tuple(
        o.model_copy(update={"measured": MeasuredThroughput(output_tokens_per_s=tokens_per_s)}) for o in s.owned_options
    )
    return s.model_copy(update={"owned_options": opts})


@pytest.mark.parametrize("lens", ["cash", "full"])
@pytest.mark.parametrize("cost_mode", ["dedicated", "pooled"])
@pytest.mark.parametrize("reasoning_tokens", [0, 300])
@pytest.mark.parametrize("measured", [False, True])
def test_break_even_and_overview_read_the_same_owned_cost(
    lens: str, cost_mode: str, reasoning_tokens: int, measured: bool
) -> None:
    # One owned-cost path: the Break-even page's owned $/Mtok at today's demand is the stand-alone
    # comparison the Overview's option table shows, whatever the (old) cost mode or the lens, whether or not
    # the workloads decode hidden reasoning tokens (both count them as output: T_out + T_r), and whether or not
    # the options carry the user's measured throughput (issue 12: it drives capacity on every page; Break-even
    # used the model's capacity while the Overview used the benchmark).
    bank = _with_reasoning(default_scenario(), reasoning_tokens)
    bank = _with_measured(bank, 700.0) if measured else bank
    s = bank.model_copy(update={"policy": bank.policy.model_copy(update={"lens": lens, "cost_mode": cost_mode})})
    r = evaluate(s)
    api = s.apis[0].id
    checked = 0
    for wl in s.workloads:
        caps = variant_capacities(s, wl.id)
        for o in s.owned_options:
            row = next(x for x in r.options if x.workload_id == wl.id and x.option_id == o.id)
            if not row.feasible:
                continue
            a = break_even_analysis(s, BreakEvenInputs(workload_id=wl.id, option_id=o.id, api_id=api,
                                                       x="api_price", y="node_price"), caps)  # fmt: skip
            assert a.owned_usd_per_mtok == pytest.approx(row.cost_usd_per_mtok_output, rel=1e-6), (wl.id, o.id)
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize("lens", ["cash", "full"])
@pytest.mark.parametrize("cost_mode", ["dedicated", "pooled"])
@pytest.mark.parametrize("reasoning_tokens", [0, 300])
def test_cost_per_token_page_reads_the_same_owned_cost(lens: str, cost_mode: str, reasoning_tokens: int) -> None:
    # The Cost-per-token page prices a replica at utilization U with the same C_h(U) (capacity form of
    # docs/costs.md#cost-per-token); read at the stand-alone utilization the Overview's table shows, one of the option's
    # variants (plain or with speculation, whichever evaluate picked) gives exactly that table's $/Mtok.
    bank = _with_reasoning(default_scenario(), reasoning_tokens)
    s = bank.model_copy(update={"policy": bank.policy.model_copy(update={"lens": lens, "cost_mode": cost_mode})})
    r = evaluate(s)
    for wl in s.workloads:
        analysis = cost_analysis(s, CostInputs(workload_id=wl.id), variant_capacities(s, wl.id))
        for row in (x for x in r.options if x.workload_id == wl.id and x.kind != "api" and x.feasible):
            at_u = cost_at(analysis, row.utilization)
            variants = [c for c in analysis.curves if c.option_id == row.option_id and c.feasible]
            labels = {c.label for c in variants}
            got = [m for label, _, m, _ in at_u.rows if label in labels]
            assert any(m == pytest.approx(row.cost_usd_per_mtok_output, rel=1e-6) for m in got), (wl.id, row.option_id)


def test_old_files_with_a_pooled_cost_mode_still_load_and_say_it_no_longer_applies() -> None:
    data = default_scenario().model_dump(mode="json")
    data["policy"] = {"target_utilization": 0.8, "cost_mode": "pooled", "pool_utilization": 0.7}
    for w in data["workloads"]:
        w.pop("demand_profile", None)
        w.pop("data_locations", None)
    for n in data["nodes"]:
        n.pop("data_location", None)
    s = parse_scenario(data)
    r = evaluate(s)
    assert any("pooled" in w for w in r.warnings)
    assert r.plan is not None
    assert r.plan.lens == "cash"


def test_the_day_profile_of_the_bank_puts_kyc_at_night_in_singapore() -> None:
    kyc = next(w for w in default_scenario().workloads if w.id == "kyc-overnight")
    assert kyc.demand_profile == DemandProfile(
        shape="night_window", start_hour_local=22, end_hour_local=6, utc_offset_hours=8
    )


# ---- property over scenarios: no single move of one workload lowers the plan's objective ---------------------


@PROPERTIES
@given(
    scale=st.lists(st.floats(0.05, 20.0), min_size=5, max_size=5),
    owned=st.integers(0, 2),
    chatbot=st.booleans(),
)
def test_no_single_move_lowers_the_objective_of_the_bank_plan(scale: list[float], owned: int, chatbot: bool) -> None:
    # Moving one workload from its option to another allowed one changes the objective by the difference of
    # its marginal costs (everything else fixed, counts re-minimised): the plan's choice must be the cheapest.
    bank = default_scenario()
    wls = tuple(
        w.model_copy(
            update={"avg_requests_per_s": w.avg_requests_per_s * k, "peak_requests_per_s": w.peak_requests_per_s * k}
        )
        for w, k in zip(bank.workloads, scale, strict=True)
    )
    nodes = tuple(n.model_copy(update={"nodes_owned": owned}) for n in bank.nodes)
    s = bank.model_copy(update={"workloads": wls + ((CHATBOT,) if chatbot else ()), "nodes": nodes})
    ev = evaluate_arrays(s)
    fp = plan_fleet(ev)
    assert fp.solution.status == "optimal"
    _, r = plan_route(ev, fp)
    j = r.expected_cost_usd
    for w in range(len(s.workloads)):
        c = int(r.chosen[w])
        assert c >= 0
        finite = j[w][np.isfinite(j[w])]
        assert j[w, c] <= finite.min() * (1 + 1e-9) + 1e-12, (s.workloads[w].id, j[w].tolist())
    assert math.isfinite(fp.plan.objective_usd_per_month)


def test_split_through_evaluate_never_costs_more_than_whole_routes() -> None:
    # The bank with the chatbot on Singapore business hours: allowing the hourly owned/API split is a larger
    # feasible set, so the objective can only fall; the split workload's shares sum to 1 and the reason says so.
    bank = default_scenario()
    chat = CHATBOT.model_copy(
        update={"demand_profile": DemandProfile(shape="business_hours", utc_offset_hours=8, off_hours_share=0.1)}
    )
    whole = bank.model_copy(update={"workloads": (*bank.workloads, chat)})
    split = whole.model_copy(update={"policy": whole.policy.model_copy(update={"allow_split": True})})
    rw, rs = evaluate(whole), evaluate(split)
    assert rw.plan is not None
    assert rs.plan is not None
    assert rs.plan.objective_usd_per_month <= rw.plan.objective_usd_per_month * (1 + 1e-4)
    sovereign = {w.id for w in bank.workloads if w.sovereign}
    for w in rs.plan.workloads:
        assert sum(w.share_by_option.values()) == pytest.approx(1.0)
        if w.workload_id in sovereign:
            assert len(w.share_by_option) == 1
    d = {x.workload_id: x for x in rs.decisions}
    for w in rs.plan.workloads:
        if len(w.share_by_option) > 1:
            assert "Split by the hour" in d[w.workload_id].reason


def test_a_sovereign_cloud_is_allowed_for_sovereign_data_and_a_workload_rule_can_forbid_it() -> None:
    s = _with_cheap_third_party(default_scenario())
    cloud = next(n for n in s.nodes if n.id == "cheap-cloud").model_copy(update={"data_location": "sovereign_cloud"})
    s = s.model_copy(update={"nodes": tuple(cloud if n.id == "cheap-cloud" else n for n in s.nodes)})
    reasons = {(o.workload_id, o.option_id): o.reason for o in evaluate(s).options}
    assert "data rule" not in reasons[("kyc-overnight", "cloud-70b")]
    kyc = next(w for w in s.workloads if w.id == "kyc-overnight").model_copy(
        update={"data_locations": ("on_premises",)}
    )
    s2 = s.model_copy(update={"workloads": tuple(kyc if w.id == kyc.id else w for w in s.workloads)})
    r2 = evaluate(s2)
    reasons2 = {(o.workload_id, o.option_id): o.reason for o in r2.options}
    assert "sovereign cloud" in reasons2[("kyc-overnight", "cloud-70b")]
    assert next(d for d in r2.decisions if d.workload_id == "kyc-overnight").chosen_option_id != "cloud-70b"
