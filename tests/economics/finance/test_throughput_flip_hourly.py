"""The throughput flip prices an owned pivot on an offer billed per hour used (on demand, negotiated, spot) as the
option table does: each hour's replicas paid for that hour. A reserved pivot still pays the busiest hour's
replicas all day (issue 14).

The workload of ``test_standalone_hourly``: RunPod's 8×H100 instance at 8 · $3.49 = $27.92 an hour, one replica
per instance (no power term: a rented price includes it), a target utilization of 0.8, 12 req/s for 8 hours and
6 req/s for 16 hours (691,200 requests a day). With λ req/s per replica, a replica carries 0.8·λ, so the busy hours
need ceil(15/λ) replicas and the quiet ones ceil(7.5/λ). Replica-hours paid a day, by hand:

  λ in [5, 7.5)    on demand 8·3 + 16·2 = 56     reserved (busiest hour all day) 24·3 = 72
  λ in [7.5, 15)   on demand 8·2 + 16·1 = 32     reserved 24·2 = 48
  λ ≥ 15           on demand 8·1 + 16·1 = 24     reserved 24·1 = 24

A cost per request is replica-hours · 27.92 / 691,200: 32 → $0.00129259, 48 → $0.00193889, 56 → $0.00226204.

The API alternative: output at $4.50/Mtok and free input, 400 output tokens → 400 · 4.5/10⁶ = $0.0018 a request,
the same quality (0.9) as the owned option and no failure cost, so J is the cost per request. $0.0018 lies between
the 32 and 48 (and 56) levels, i.e. at most 0.0018 · 691,200 / 27.92 = 44.56 replica-hours a day:

* on demand, today (10 req/s) the owned option wins ($0.00129); the route moves to the API when the capacity
  per replica falls below **7.5 req/s** (56 replica-hours). The old flip, paying the busiest hour all day, priced
  today's owned cost at $0.00194 and put the threshold at 15 req/s, above today's value;
* reserved, today the API wins ($0.0018 < $0.00194); the route moves to the owned option when the capacity rises
  above **15 req/s** (24 replica-hours), as before.

The bisections are far finer than needed (60 halvings of log 10⁶ stand-alone, 27 on the plan: a relative error
below 1e-7), so the thresholds are checked to 1e-6.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from economics.evaluate import evaluate, evaluate_arrays
from economics.flips import _owned_cost_at_scale, throughput_flip
from economics.scenario import Scenario
from tests.economics.finance.test_standalone_hourly import (
    PER_REQUEST_ALL_DAY,
    PER_REQUEST_HOURLY,
    _one_workload_on_runpod,
)

API_USD_PER_REQUEST = 400 * 4.5 / 1e6  # $0.0018


def _with_api(**node: Any) -> Scenario:
    d = _one_workload_on_runpod(keep_apis=True, **node).model_dump()
    api = next(a for a in d["apis"] if a["id"] == "hosted-70b")
    api.update(input_usd_per_mtok=0.0, cached_input_usd_per_mtok=0.0, output_usd_per_mtok=4.5, quality=0.9)
    d["apis"] = [api]
    assert d["workloads"][0]["output_tokens"] == 400
    assert d["workloads"][0]["reasoning_tokens"] == 0
    return Scenario.model_validate(d)


@pytest.mark.parametrize(
    ("node", "expected"), [({}, PER_REQUEST_HOURLY), ({"pricing_type": "reserved-1y"}, PER_REQUEST_ALL_DAY)]
)
def test_cost_at_scale_one_is_the_option_tables_cost(node: dict[str, Any], expected: float) -> None:
    table = evaluate_arrays(_with_api(**node)).table
    assert table.cost_usd[0, 0] == pytest.approx(expected, rel=1e-9)
    at_one = _owned_cost_at_scale(table, np.array([0]), np.array([1.0]))
    assert at_one[0] == pytest.approx(expected, rel=1e-9)


def test_on_demand_threshold_is_where_the_hourly_replica_hours_exceed_the_api() -> None:
    ev = evaluate_arrays(_with_api())
    assert ev.table.cost_usd[0, 1] == pytest.approx(API_USD_PER_REQUEST, rel=1e-9)
    f = throughput_flip(ev.table, ev.route)
    assert int(ev.route.chosen[0]) == 0
    assert int(f.pivot[0]) == 0
    assert f.current[0] == pytest.approx(10.0)
    assert f.threshold[0] == pytest.approx(7.5, rel=1e-6)
    assert not f.above[0]
    assert int(f.new_option[0]) == 1


def test_reserved_threshold_is_unchanged() -> None:
    ev = evaluate_arrays(_with_api(pricing_type="reserved-1y"))
    f = throughput_flip(ev.table, ev.route)
    assert int(ev.route.chosen[0]) == 1
    assert int(f.pivot[0]) == 0
    assert f.threshold[0] == pytest.approx(15.0, rel=1e-6)
    assert f.above[0]
    assert int(f.new_option[0]) == 0


@pytest.mark.parametrize(("node", "threshold"), [({}, 7.5), ({"pricing_type": "reserved-1y"}, 15.0)])
def test_the_plans_throughput_flip_agrees(node: dict[str, Any], threshold: float) -> None:
    # alone on the offer, the workload's marginal cost in the plan is its stand-alone cost (test_standalone_hourly)
    result = evaluate(_with_api(**node))
    flip = next(f for f in result.decisions[0].flips if f.driver == "throughput")
    assert flip.current == pytest.approx(10.0)
    assert flip.threshold == pytest.approx(threshold, rel=1e-6)
