"""Quality-adjusted cost: turning "per-token value" into money (docs/quality.md#expected-cost,
docs/diffusion.md#quality-vs-parallelism).

An option that is cheaper per request but fails more often is not cheaper per task. With ``q`` the
probability an output is acceptable and ``C_fail`` the business cost of a failed task, the expected cost per
task is ``J = c + (1 − q)·C_fail``, and with retries on detectable failures the cost of the extra attempts
enters too. All functions broadcast over numpy arrays and return float64 arrays.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]


def _f(x: ArrayLike) -> FloatArray:
    return np.asarray(x, dtype=np.float64)


def expected_attempts(quality: ArrayLike, max_attempts: ArrayLike = 1) -> FloatArray:
    """Mean attempts when a failed attempt is detected and retried, at most m times [count].

    ``g(q, m) = Σ_{k<m} (1−q)^k = (1 − (1−q)^m)/q``, and ``g(0, m) = m`` (every attempt fails) in its own branch.

    >>> float(expected_attempts(0.5, 3))
    1.75
    >>> float(expected_attempts(0.0, 3))
    3.0
    """
    q, m = np.broadcast_arrays(_f(quality), _f(max_attempts))
    with np.errstate(divide="ignore", invalid="ignore"):
        g = -np.expm1(m * np.log1p(-q)) / q
    return np.where(q > 0, g, m).astype(np.float64)


def failure_probability(quality: ArrayLike, max_attempts: ArrayLike = 1) -> FloatArray:
    """Probability the task still fails after m attempts: ``(1 − q)^m`` [1]."""
    return _f(np.power(1.0 - _f(quality), _f(max_attempts)))


def expected_cost_per_task(
    cost_usd_per_request: ArrayLike,
    quality: ArrayLike,
    failure_cost_usd: ArrayLike,
    max_attempts: ArrayLike = 1,
) -> FloatArray:
    """Expected cost of a task: inference plus expected failure cost (docs/quality.md#expected-cost) [USD].

    ```
    J = c + (1 − q)·C_fail                                     (m = 1: no retry)
    J = c·(1 − (1−q)^m)/q + (1 − q)^m·C_fail                   (failures detected, at most m attempts)
    ```
    An infeasible option (``c = inf``) has ``J = inf``.

    Example (docs/routing.md#routing-rule, "high-value agent", 8000 in / 1000 out, C_fail = $5): the frontier API at
    $0.0390 and q = 0.97 has J = $0.189; an owned 8B at $0.0021 and q = 0.90 has J = $0.502.

    >>> round(float(expected_cost_per_task(0.0390, 0.97, 5.0)), 4)
    0.189
    >>> round(float(expected_cost_per_task(0.0021, 0.90, 5.0)), 4)
    0.5021
    """
    c = _f(cost_usd_per_request)
    attempts = expected_attempts(quality, max_attempts)
    with np.errstate(invalid="ignore"):
        inference = np.where(np.isinf(c), np.inf, c * attempts)
    return _f(inference + failure_probability(quality, max_attempts) * _f(failure_cost_usd))


def break_even_failure_cost(
    cost_high_usd: ArrayLike,
    quality_high: ArrayLike,
    cost_low_usd: ArrayLike,
    quality_low: ArrayLike,
    max_attempts: ArrayLike = 1,
) -> FloatArray:
    """Failure cost at which a higher-quality option h and a lower-quality option l cost the same [USD].

    ```
    C_fail* = (c_h − c_l)/(q_h − q_l)                                 (m = 1, docs/quality.md#expected-cost)
    C_fail* = (c_h·g_h − c_l·g_l) / ((1−q_l)^m − (1−q_h)^m)           (m attempts, g = expected attempts)
    ```
    Choose h iff ``C_fail > C_fail*``. A negative value means h is also cheaper, so it wins at every
    failure cost. Equal qualities make the choice independent of ``C_fail``: ``+inf`` when h costs more
    (never chosen for quality), ``−inf`` when it costs less, 0 when both cost the same.

    Example (docs/quality.md#expected-cost): frontier API $0.0390 at q = 0.97 vs owned 8B $0.0021 at q = 0.90 gives
    C_fail* = $0.53; for a 1000 in / 500 out task (API $0.0105) it drops to about $0.12.

    >>> round(float(break_even_failure_cost(0.0390, 0.97, 0.0021, 0.90)), 3)
    0.527
    >>> float(break_even_failure_cost(0.02, 0.9, 0.01, 0.9))
    inf
    """
    numerator = _f(cost_high_usd) * expected_attempts(quality_high, max_attempts) - _f(
        cost_low_usd
    ) * expected_attempts(quality_low, max_attempts)
    denominator = failure_probability(quality_low, max_attempts) - failure_probability(quality_high, max_attempts)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = numerator / denominator
    equal = np.where(numerator > 0, np.inf, -np.inf)
    return np.where(denominator != 0, ratio, np.where(numerator == 0, 0.0, equal)).astype(np.float64)


def break_even_value_per_token(break_even_failure_cost_usd: ArrayLike, output_tokens: ArrayLike) -> FloatArray:
    """``v* = C_fail* / T_out``: the break-even money at risk per output token [USD/token].

    >>> round(float(break_even_value_per_token(0.527, 1000)), 6)
    0.000527
    """
    return _f(break_even_failure_cost_usd) / _f(output_tokens)


def diffusion_quality(
    tokens_per_forward: ArrayLike,
    max_quality: ArrayLike,
    free_tokens_per_forward: ArrayLike = 2.0,
    penalty_per_token_per_forward: ArrayLike = 0.01,
) -> FloatArray:
    """Default accuracy–parallelism trade-off of a text-diffusion model (docs/diffusion.md#quality-vs-parallelism) [1].

    ``q(TPF) = q_max − κ · max(0, TPF − TPF_free)``, clipped to [0, 1], with TPF = K/S tokens unmasked per
    pass. Defaults ``TPF_free = 2`` and ``κ = 0.01`` per unit of TPF are **[assumption]**; replace them
    with tabulated (TPF, accuracy) points from task evals when available. Non-increasing in TPF.

    Example: K = 32, S = 8 (TPF 4) on a model with q_max = 0.91 gives 0.89.

    >>> round(float(diffusion_quality(32 / 8, 0.91)), 4)
    0.89
    """
    excess = np.maximum(0.0, _f(tokens_per_forward) - _f(free_tokens_per_forward))
    return np.clip(_f(max_quality) - _f(penalty_per_token_per_forward) * excess, 0.0, 1.0)
