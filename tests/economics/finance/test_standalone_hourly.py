"""The stand-alone cost per request of an option on an offer billed per hour used (on demand, negotiated, spot)
pays each hour's replicas for that hour, like the fleet plan; a reservation still pays the busiest hour's
replicas all day (issue 14, gap 2).

The example, derived by hand: RunPod's 8×H100 instance on demand at 8 · $3.49 = $27.92 an hour, one 70B
replica per instance, a measured 10 req/s per replica, a target utilization of 0.8 (a replica carries 8 req/s).
The workload runs 12 req/s for 8 hours (12/8 = 1.5 → 2 replicas) and 6 req/s for 16 hours (6/8 = 0.75 → 1):
  per day     8 · 2 · 27.92 + 16 · 1 · 27.92 = 32 · 27.92 = $893.44
  requests    mean rate (8·12 + 16·6)/24 = 8 req/s → 8 · 86,400 = 691,200 a day
  per request 893.44 / 691,200 = $0.00129259…
  per month   32/24 replicas on average · 27.92 · 730 h = $27,175.47 (the plan's bill)
Sized for the busiest hour and paid all day it was 48 · 27.92 = $1,340.16 a day, $0.00193889 a request.
"""

from __future__ import annotations

from typing import Any

import pytest

from economics.evaluate import evaluate
from economics.scenario import Scenario
from economics.views.breakeven import BreakEvenInputs, break_even_analysis
from economics.views.cost import variant_capacities
from tests.economics.finance.test_rental import _cost_only_startup

INSTANCE_USD_PER_HOUR = 8 * 3.49  # $27.92
PER_REQUEST_HOURLY = 893.44 / 691_200  # 32 replica-hours a day
PER_REQUEST_ALL_DAY = 1_340.16 / 691_200  # 48 replica-hours a day
PLAN_USD_PER_MONTH = 27_175.47


def _one_workload_on_runpod(*, keep_apis: bool = False, **node: Any) -> Scenario:
    d = _cost_only_startup().model_dump()
    d["nodes"] = [{**n, **node} for n in d["nodes"] if n["id"] == "runpod"]
    option = next(o for o in d["owned_options"] if o["id"] == "runpod-70b-ar")
    w = next(w for w in d["workloads"] if w["id"] == "assistant-chat")
    # a benchmark of 10 req/s per replica at the workload's own shape replaces the model's capacity
    option.update(
        speculation=None,
        measured={
            "output_tokens_per_s": 10.0 * w["output_tokens"],
            "output_tokens": w["output_tokens"],
            "input_tokens": w["input_tokens"],
        },
    )
    shares = [12.0] * 8 + [6.0] * 16  # 12 req/s in UTC hours 0–7, 6 req/s in the rest
    w.update(
        avg_requests_per_s=8.0,
        peak_requests_per_s=12.0,
        demand_profile={"shape": "hourly", "hourly_shares": shares},
        max_attempts=1,
        quality_overrides={},
    )
    d.update(owned_options=[option], workloads=[w], apis=d["apis"] if keep_apis else [])
    return Scenario.model_validate(d)


def test_on_demand_stand_alone_cost_pays_each_hours_replicas_and_agrees_with_the_plan() -> None:
    result = evaluate(_one_workload_on_runpod())
    option = result.options[0]
    assert option.capacity_requests_per_s == pytest.approx(10.0)
    assert option.cost_usd_per_request == pytest.approx(PER_REQUEST_HOURLY, rel=1e-9)
    assert option.replicas == 2  # the busiest hour's, as the plan's line shows
    assert option.utilization == pytest.approx(8.0 / (32 / 24 * 10.0))  # over the replica-hours paid: 0.6
    # the plan, alone on the offer, bills the same
    assert result.plan.solver_status == "optimal"
    assert result.plan.total_cost_usd_per_month == pytest.approx(PLAN_USD_PER_MONTH, abs=0.01)
    standalone_month = option.cost_usd_per_request * 8.0 * 3600 * 730
    assert standalone_month == pytest.approx(PLAN_USD_PER_MONTH, abs=0.01)


def test_a_reservation_still_pays_the_busiest_hours_replicas_all_day() -> None:
    # the same price reserved (paid every hour): 2 replicas · 24 h = 48 replica-hours a day
    result = evaluate(_one_workload_on_runpod(pricing_type="reserved-1y"))
    assert result.options[0].cost_usd_per_request == pytest.approx(PER_REQUEST_ALL_DAY, rel=1e-9)
    assert result.options[0].utilization == pytest.approx(8.0 / (2 * 10.0))  # 0.4


def test_flat_demand_on_demand_is_unchanged() -> None:
    # no profile: one period at the peak, 12 req/s → 2 replicas every hour, 48 replica-hours a day
    data = _one_workload_on_runpod().model_dump()
    data["workloads"][0]["demand_profile"] = None
    result = evaluate(Scenario.model_validate(data))
    assert result.options[0].cost_usd_per_request == pytest.approx(PER_REQUEST_ALL_DAY, rel=1e-9)


def test_break_even_prices_the_current_demand_like_the_stand_alone_cost() -> None:
    # The Break-even page sizes with the model's capacity (it does not read the benchmark), λ_max between 5 and
    # 7.5 req/s (checked): 12/(0.8·λ) → 3 replicas in the 8 busy hours, 6/(0.8·λ) → 2 in the other 16, whatever
    # λ is in that range. Per day 8·3 + 16·2 = 56 replica-hours · $27.92 = $1,563.52 over 691,200 requests =
    # $0.00226204 a request (72 replica-hours, $0.00290833, if paid all day), and evaluate() agrees.
    data = _one_workload_on_runpod(keep_apis=True).model_dump()
    data["owned_options"][0]["measured"] = None
    s = Scenario.model_validate(data)
    w = s.workloads[0]
    inputs = BreakEvenInputs(
        workload_id=w.id, option_id="runpod-70b-ar", api_id=s.apis[0].id, x="demand", y="api_price"
    )
    caps = variant_capacities(s, w.id)
    lam_max = caps[0].output_tokens_per_s / w.decoded_output_tokens
    assert 5.0 <= lam_max < 7.5
    per_mtok = 1_563.52 / 691_200 / w.decoded_output_tokens * 1e6
    a = break_even_analysis(s, inputs, caps)
    assert a.owned_usd_per_mtok == pytest.approx(per_mtok, rel=1e-9)
    option = next(o for o in evaluate(s).options if o.option_id == "runpod-70b-ar")
    assert option.cost_usd_per_mtok_output == pytest.approx(per_mtok, rel=1e-9)
