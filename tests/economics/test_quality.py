"""Quality-adjusted cost (docs/quality.md#expected-cost) and the diffusion quality model
(docs/diffusion.md#quality-vs-parallelism)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from economics.quality import (
    break_even_failure_cost,
    break_even_value_per_token,
    diffusion_quality,
    expected_attempts,
    expected_cost_per_task,
)
from tests.strategies import PROPERTIES

PROPS = settings(PROPERTIES, max_examples=80)
cost = st.floats(min_value=0.0, max_value=10.0, allow_nan=False)
quality = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
fail = st.floats(min_value=0.0, max_value=1e4, allow_nan=False)
attempts = st.integers(1, 6)


def test_break_even_failure_cost_example() -> None:
    # docs/quality.md#expected-cost: (0.0390 − 0.0021)/(0.97 − 0.90) = 0.0369/0.07 = $0.527 ≈ $0.53; v* ≈ $0.53 per 1000
    # tokens.
    c_star = float(break_even_failure_cost(0.0390, 0.97, 0.0021, 0.90))
    assert c_star == pytest.approx(0.527, abs=0.001)
    assert float(break_even_value_per_token(c_star, 1000)) == pytest.approx(0.000527, abs=1e-6)
    # 1000 in / 500 out (API $0.0105): (0.0105 − 0.0021)/0.07 = $0.12.
    assert float(break_even_failure_cost(0.0105, 0.97, 0.0021, 0.90)) == pytest.approx(0.12, abs=0.001)


def test_expected_cost_examples() -> None:
    # docs/routing.md#routing-rule "high-value agent": 0.0390 + 0.03·5 = 0.189 and 0.0021 + 0.10·5 = 0.5021.
    assert float(expected_cost_per_task(0.0390, 0.97, 5.0)) == pytest.approx(0.189, rel=1e-12)
    assert float(expected_cost_per_task(0.0021, 0.90, 5.0)) == pytest.approx(0.5021, rel=1e-12)


def test_retry_formula_by_hand() -> None:
    # q = 0.5, m = 3: attempts 1 + 0.5 + 0.25 = 1.75; failure 0.125. c = 0.1, C = 2 → 0.175 + 0.25.
    assert float(expected_attempts(0.5, 3)) == pytest.approx(1.75)
    assert float(expected_cost_per_task(0.1, 0.5, 2.0, 3)) == pytest.approx(0.425, rel=1e-12)
    # q = 0: every attempt runs and the task fails.
    assert float(expected_cost_per_task(0.1, 0.0, 2.0, 3)) == pytest.approx(2.3, rel=1e-12)


def test_infeasible_option_costs_infinity() -> None:
    assert math.isinf(float(expected_cost_per_task(np.inf, 1.0, 0.0)))
    assert math.isinf(float(expected_cost_per_task(np.inf, 0.0, 5.0, 3)))


@PROPS
@given(c=cost, q=quality, f=fail, m=attempts, d=st.floats(min_value=0.0, max_value=10.0))
def test_expected_cost_monotone(c: float, q: float, f: float, m: int, d: float) -> None:
    base = float(expected_cost_per_task(c, q, f, m))
    assert float(expected_cost_per_task(c, q, f + d, m)) >= base - 1e-12
    assert float(expected_cost_per_task(c + d, q, f, m)) >= base - 1e-12
    assert float(expected_cost_per_task(c, min(1.0, q + d / 10), f, m)) <= base + 1e-12


@PROPS
@given(c=cost, q=quality, f=fail, dq=st.floats(min_value=0.0, max_value=1.0))
def test_expected_cost_non_increasing_in_quality_without_retries(c: float, q: float, f: float, dq: float) -> None:
    assert float(expected_cost_per_task(c, min(1.0, q + dq), f)) <= float(expected_cost_per_task(c, q, f)) + 1e-12


@PROPS
@given(c=cost, q=quality, f=fail)
def test_one_attempt_is_the_base_formula(c: float, q: float, f: float) -> None:
    assert float(expected_cost_per_task(c, q, f, 1)) == pytest.approx(c + (1 - q) * f, rel=1e-12, abs=1e-15)


@PROPS
@given(c=cost, q=st.floats(min_value=1e-3, max_value=1.0), f=fail, m=attempts)
def test_retries_help_when_an_attempt_costs_less_than_its_expected_saving(c: float, q: float, f: float, m: int) -> None:
    if c < q * f:
        assert float(expected_cost_per_task(c, q, f, m + 1)) <= float(expected_cost_per_task(c, q, f, m)) + 1e-12


@PROPS
@given(c_h=cost, c_l=cost, q=quality, f1=fail, f2=fail)
def test_equal_quality_makes_the_choice_independent_of_failure_cost(
    c_h: float, c_l: float, q: float, f1: float, f2: float
) -> None:
    def h_wins(f: float) -> bool:
        return bool(expected_cost_per_task(c_h, q, f) < expected_cost_per_task(c_l, q, f))

    assert h_wins(f1) == h_wins(f2)


@PROPS
@given(
    c_h=cost,
    c_l=cost,
    q_l=st.floats(min_value=0.0, max_value=0.98),
    dq=st.floats(min_value=0.01, max_value=1.0),
    m=attempts,
)
def test_at_break_even_failure_cost_both_options_cost_the_same(
    c_h: float, c_l: float, q_l: float, dq: float, m: int
) -> None:
    q_h = min(1.0, q_l + dq)
    c_star = float(break_even_failure_cost(c_h, q_h, c_l, q_l, m))
    if not math.isfinite(c_star) or c_star < 0:
        return
    j_h = float(expected_cost_per_task(c_h, q_h, c_star, m))
    j_l = float(expected_cost_per_task(c_l, q_l, c_star, m))
    assert j_h == pytest.approx(j_l, rel=1e-9, abs=1e-12)
    # Above C_fail* the higher-quality option wins.
    assert float(expected_cost_per_task(c_h, q_h, c_star * 1.1 + 1e-6, m)) <= float(
        expected_cost_per_task(c_l, q_l, c_star * 1.1 + 1e-6, m)
    )


def test_break_even_failure_cost_degenerate_cases() -> None:
    assert float(break_even_failure_cost(0.02, 0.9, 0.01, 0.9)) == math.inf  # same q, h dearer: never
    assert float(break_even_failure_cost(0.01, 0.9, 0.02, 0.9)) == -math.inf  # same q, h cheaper: always
    assert float(break_even_failure_cost(0.01, 0.9, 0.01, 0.9)) == 0.0
    assert float(break_even_failure_cost(0.01, 0.95, 0.02, 0.9)) < 0  # better and cheaper: always


def test_diffusion_quality_default_model() -> None:
    # q_max − 0.01·max(0, TPF − 2): TPF 4 → 0.91 − 0.02; TPF ≤ 2 → q_max; clipped at 0.
    np.testing.assert_allclose(diffusion_quality([1.0, 2.0, 4.0, 32.0], 0.91), [0.91, 0.91, 0.89, 0.61], atol=1e-12)
    assert float(diffusion_quality(1000.0, 0.5)) == 0.0


@PROPS
@given(tpf=st.floats(min_value=1.0, max_value=512), d=st.floats(min_value=0.0, max_value=100), q=quality)
def test_diffusion_quality_non_increasing_and_bounded(tpf: float, d: float, q: float) -> None:
    a, b = float(diffusion_quality(tpf, q)), float(diffusion_quality(tpf + d, q))
    assert 0.0 <= b <= a <= 1.0
