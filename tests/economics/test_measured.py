"""Measured throughput in the scenario: it replaces the model's capacity in evaluate(), links carry it, and
scenarios without it are unchanged."""

from __future__ import annotations

import pytest

from economics import evaluate
from economics.io import scenarios
from economics.io.scenarios import default_scenario
from economics.measured import MeasuredThroughput
from economics.scenario import Scenario


def _with_benchmark(s: Scenario, option_id: str, tok_s: float) -> Scenario:
    options = [
        o.model_copy(update={"measured": MeasuredThroughput(output_tokens_per_s=tok_s)}) if o.id == option_id else o
        for o in s.owned_options
    ]
    return Scenario.model_validate({**s.model_dump(), "owned_options": [o.model_dump() for o in options]})


def test_measured_tokens_set_the_capacity_of_a_speculative_option_for_every_workload() -> None:
    s = _with_benchmark(default_scenario(), "owned-70b-ar", 500.0)
    assert s.owned_options[0].speculation is not None
    result = evaluate(s)
    caps = {o.workload_id: o.capacity_requests_per_s for o in result.options if o.option_id == "owned-70b-ar"}
    # λ_max = 500 tok/s ÷ T_out: KYC 800 tokens → 0.625 req/s; code completion 40 tokens → 12.5 req/s (by hand)
    assert caps["kyc-overnight"] == pytest.approx(0.625)
    assert caps["code-completion"] == pytest.approx(12.5)


def test_a_scenario_without_a_benchmark_serializes_as_before() -> None:
    s = default_scenario()
    assert '"measured"' not in scenarios.scenario_json(s)
    assert scenarios.decode(scenarios.encode(s), s).scenario == s


def test_a_link_carries_the_benchmark() -> None:
    s = _with_benchmark(default_scenario(), "owned-8b-ar", 1234.0)
    back = scenarios.decode(scenarios.encode(s), default_scenario())
    assert back.status == "ok"
    assert back.scenario.owned_options[1].measured == MeasuredThroughput(output_tokens_per_s=1234.0)
