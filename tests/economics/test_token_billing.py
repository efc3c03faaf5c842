"""Tokens as billed: long-context tier boundary, cache writes with a lifetime, reasoning tokens, owned prefix cache."""

from __future__ import annotations

import math

import pytest

from economics.costs import api_offer_cost_per_request
from economics.evaluate import evaluate
from economics.finance.data import api_tiers
from economics.io.scenarios import load_preset
from economics.offers import ApiOffer
from economics.scenario import Scenario

SONNET = ApiOffer(
    id="sonnet",
    name="Claude Sonnet 4.5",
    input_usd_per_mtok=3.0,
    output_usd_per_mtok=15.0,
    **api_tiers()["anthropic-claude-sonnet-4.5"].offer_fields(),  # type: ignore[arg-type]
)


def test_long_context_tier_boundary() -> None:
    # 200,000 prompt tokens are still ≤ 200k: 0.2 Mtok · $3 + 0.001 Mtok · $15 = $0.615
    # 200,001 are above: the whole request at $6/$22.5: 0.200001 · 6 + 0.001 · 22.5 = $1.222506
    at, above = api_offer_cost_per_request(SONNET, [200_000, 200_001], 1_000)
    assert float(at) == pytest.approx(0.615)
    assert float(above) == pytest.approx(1.222506)


def test_cache_writes_at_one_request_per_lifetime() -> None:
    # h = 0.5 of 20,000 prompt tokens cached, λ = 1 request per 300 s lifetime: w = e^−1 = 0.367879 rewrite
    # input $/Mtok: 0.5·3 + 0.5·(1 − w)·0.30 + 0.5·w·3.75 = 1.5 + 0.094818 + 0.689773 = 2.284591
    # cost = 0.02 Mtok · 2.284591 + 0.0005 Mtok · 15 = 0.0456918 + 0.0075 = $0.0531918
    cost = api_offer_cost_per_request(SONNET, 20_000, 500, 0.5, False, 1.0 / 300.0)
    assert float(cost) == pytest.approx(0.0531918, rel=1e-6)
    # busy traffic keeps the cache warm: all hits at $0.30 → 0.02 · (1.5 + 0.15) + 0.0075 = $0.0405
    assert float(api_offer_cost_per_request(SONNET, 20_000, 500, 0.5, False, 10.0)) == pytest.approx(0.0405)
    # without an arrival rate (or without write terms) the flat model is unchanged
    assert float(api_offer_cost_per_request(SONNET, 20_000, 500, 0.5)) == pytest.approx(0.0405)


def _startup_with(**workload_update: object) -> Scenario:
    data = load_preset("startup-rented").model_dump()
    data["workloads"][1].update(workload_update)  # agent-steps: 8,000 in / 300 out, 70% cached
    return Scenario.model_validate(data)


def _option(result: object, workload_id: str, option_id: str) -> object:
    return next(o for o in result.options if o.workload_id == workload_id and o.option_id == option_id)  # type: ignore[attr-defined]


def test_reasoning_tokens_are_billed_as_output() -> None:
    plain = evaluate(_startup_with())
    thinking = evaluate(_startup_with(reasoning_tokens=1_000))
    # GPT-5 bills 1,000 hidden tokens at $10/Mtok: + $0.01 per request (no discount, no batch tier)
    a = _option(plain, "agent-steps", "gpt-5")
    b = _option(thinking, "agent-steps", "gpt-5")
    assert b.cost_usd_per_request - a.cost_usd_per_request == pytest.approx(0.01)  # type: ignore[attr-defined]
    # on an owned GPU they cost decode time: a 70B replica carries fewer requests per second (1,300 generated
    # tokens each instead of 300) and holds more of them in flight
    o_a = _option(plain, "agent-steps", "runpod-70b-ar")
    o_b = _option(thinking, "agent-steps", "runpod-70b-ar")
    assert o_b.capacity_requests_per_s < o_a.capacity_requests_per_s  # type: ignore[attr-defined]
    assert o_b.achieved_batch > o_a.achieved_batch  # type: ignore[attr-defined]


def test_owned_prefix_caching_shortens_ttft() -> None:
    data = _startup_with().model_dump()
    for o in data["owned_options"]:
        o["prefix_caching"] = True
    cached = evaluate(Scenario.model_validate(data))
    plain = evaluate(_startup_with())
    a = _option(plain, "agent-steps", "runpod-8b-ar")
    b = _option(cached, "agent-steps", "runpod-8b-ar")
    # 70% of 8,000 prompt tokens are cached: prefill covers 2,400 tokens instead of 8,000
    assert b.ttft_s < a.ttft_s  # type: ignore[attr-defined]
    assert b.cost_usd_per_request <= a.cost_usd_per_request  # type: ignore[attr-defined]
    # the batch workload has no cached share: nothing changes
    c, d = _option(plain, "ticket-summaries", "runpod-8b-ar"), _option(cached, "ticket-summaries", "runpod-8b-ar")
    assert math.isclose(c.cost_usd_per_request, d.cost_usd_per_request)  # type: ignore[attr-defined]
