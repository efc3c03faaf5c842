"""The remembered serving physics (:mod:`economics.serving.memo`) that a price edit re-asks."""

from __future__ import annotations

import numpy as np
import pytest

from economics.evaluate import evaluate
from economics.hardware import Efficiency
from economics.io.scenarios import default_scenario
from economics.offers import OwnedNode
from economics.schemes import ARScheme
from economics.serving import memo, slo_capacity
from tests.economics.configs import LLAMA_31_70B, h100


@pytest.fixture(autouse=True)
def _empty_memo() -> None:
    memo.clear()


def _args() -> tuple[object, ...]:
    return (LLAMA_31_70B, h100(8), Efficiency(), ARScheme())


def test_a_repeated_call_is_the_remembered_result_equal_to_a_fresh_computation() -> None:
    t_in, t_out = np.array([1000.0, 6000.0]), np.array([200.0, 800.0])
    first = memo.slo_capacity(*_args(), t_in, t_out, tpot_max_s=np.array([0.05, 0.1]))
    again = memo.slo_capacity(*_args(), t_in.copy(), t_out.copy(), tpot_max_s=np.array([0.05, 0.1]))
    assert again is first  # equal arguments (new, equal objects): remembered
    fresh = slo_capacity(*_args(), t_in, t_out, tpot_max_s=np.array([0.05, 0.1]))
    np.testing.assert_array_equal(first.max_arrival_rate_per_s, fresh.max_arrival_rate_per_s)
    np.testing.assert_array_equal(first.binding, fresh.binding)


def test_any_changed_argument_is_computed_again() -> None:
    t_in, t_out = np.array([1000.0]), np.array([200.0])
    base = memo.slo_capacity(*_args(), t_in, t_out, tpot_max_s=0.05)
    assert memo.slo_capacity(*_args(), t_in, t_out, tpot_max_s=0.04) is not base  # an SLO
    assert memo.slo_capacity(*_args(), np.array([1001.0]), t_out, tpot_max_s=0.05) is not base  # an array value
    _, deployment, efficiency, scheme = _args()
    shallower = LLAMA_31_70B.model_copy(update={"n_layers": 40})  # another model, same type
    other = memo.slo_capacity(shallower, deployment, efficiency, scheme, t_in, t_out, tpot_max_s=0.05)
    assert other.max_arrival_rate_per_s[0] != base.max_arrival_rate_per_s[0]


def test_shared_results_are_read_only_and_the_caller_s_arrays_stay_writable() -> None:
    lam = np.array([0.5, 1.0])
    cb = memo.continuous_batching(*_args(), lam, np.array([1000.0, 1000.0]), np.array([200.0, 200.0]))
    with pytest.raises(ValueError, match="read-only"):
        cb.batch[0] = 0.0
    lam[0] = 0.25  # the argument is not frozen by the memo
    assert memo.continuous_batching(*_args(), lam, np.array([1000.0, 1000.0]), np.array([200.0, 200.0])) is not cb


def test_large_sweeps_are_not_remembered() -> None:
    n = memo.MAX_ELEMENTS
    t = np.full(n, 1000.0)
    first = memo.slo_capacity(*_args(), t, t)
    assert memo.slo_capacity(*_args(), t, t) is not first


def test_a_price_edit_evaluated_with_the_physics_remembered_is_the_cold_evaluation() -> None:
    bank = default_scenario()
    node = bank.nodes[0]
    assert isinstance(node, OwnedNode)
    edited = bank.model_copy(update={"nodes": (node.model_copy(update={"capex_usd": node.capex_usd * 1.5}),)})
    evaluate(bank)  # remembers the bank's physics, which the price edit does not change
    warm = evaluate(edited)
    memo.clear()
    cold = evaluate(edited)
    assert warm.model_copy(update={"plan": cold.plan}) == cold
    assert warm.plan.model_copy(update={"solve_time_s": 0.0}) == cold.plan.model_copy(update={"solve_time_s": 0.0})
