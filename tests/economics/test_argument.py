"""The essay's claims recomputed from a scenario: the figures behind them and a plain "does not hold"."""

from __future__ import annotations

from economics import evaluate
from economics.argument import argument
from economics.io.scenarios import default_scenario
from economics.scenario import Scenario


def test_the_bank_case_supports_every_claim() -> None:
    claims = argument(default_scenario(), evaluate(default_scenario()))
    assert len(claims) == 9
    assert all(c.holds for c in claims), [(c.claim, c.figure) for c in claims if not c.holds]
    # bf16 decode at batch 1: 2 FLOP per parameter over 2 bytes per parameter = 1 FLOP/byte (by hand)
    assert claims[0].figure.startswith("1.0 FLOP/byte at batch 1")
    # LLaDA 8B with 32-token blocks is still memory-bound at batch one, and the page says so
    assert "still memory-bound" in claims[3].figure


def test_a_claim_that_does_not_hold_says_so() -> None:
    s = default_scenario()
    one = Scenario.model_validate({**s.model_dump(), "workloads": [s.workloads[0].model_dump()]})
    routing = next(c for c in argument(one, evaluate(one)) if c.claim.startswith("Route each workload"))
    assert routing.holds is False  # one workload, one route: nothing to route between
    assert routing.figure.startswith("1 workload on 1 route")
