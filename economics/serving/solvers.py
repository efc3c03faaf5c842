"""Vectorised solvers with a fixed number of iterations, shared by the serving models (docs/conventions.md#units,
docs/serving.md#serving-and-queues).

Both work element-wise on arrays: every data point advances together, and the only Python loops are the
fixed iteration counts the vectorisation contract allows (fixed point ≤ 300, bisection ≤ 60).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from economics.model import FloatArray

MAX_FIXED_POINT_ITERATIONS = 300
BISECTION_ITERATIONS = 60
_CERTIFICATE_RTOL = 1e-10


def least_fixed_point(
    func: Callable[[FloatArray], FloatArray],
    start: FloatArray,
    cap: float | FloatArray,
    *,
    max_iterations: int = MAX_FIXED_POINT_ITERATIONS,
    bisection_iterations: int = BISECTION_ITERATIONS,
    rtol: float = 1e-13,
) -> FloatArray:
    """Smallest ``t ≥ start`` with ``t = func(t)``, element-wise; ``inf`` where none exists below ``cap``.

    Parameters
    ----------
    func : monotone non-decreasing map with ``func(t)/t`` non-increasing in ``t`` (see Notes).
    start : a lower bound of the fixed point, e.g. ``func(0)``.
    cap : largest admissible fixed point; above it the point is reported as ``inf`` (overload).

    Returns
    -------
    The least fixed point, within ``1e-10`` relative (an upper bound where bisection was needed).

    Notes
    -----
    1. Monotone iteration ``t_{k+1} = func(t_k)`` from ``start`` rises to the least fixed point ``t*``
       (docs/serving.md#continuous-batching). It converges geometrically with ratio ``func'(t*)``, which tends to 1 near
       saturation, so 300 steps are not always enough.
    2. Certificate: for a monotone map the least fixed point is ``inf{t : func(t) ≤ t}`` (Knaster–Tarski),
       so ``func(u) ≤ u`` at ``u = t_k·(1 + 1e-10)`` proves ``t_k ≤ t* ≤ u``.
    3. Where the certificate fails, 60 bisection steps on ``[t_k, cap]`` with the test ``func(m) > m``
       finish the job. The test is valid because ``func(t)/t`` is non-increasing: every iteration time in
       this package is a sum of terms that are either maxima of affine functions with non-negative
       intercepts or concave with a non-negative intercept (MoE expert coverage), in ``x = λ·t``. Then
       ``func(t)/t`` crosses 1 only once, ``func(m) > m`` holds exactly for ``m < t*``, and the fixed point
       is unique.

    >>> least_fixed_point(lambda t: 1.0 + 0.5 * t, np.array([1.0]), 100.0).round(9).tolist()
    [2.0]
    >>> least_fixed_point(lambda t: 1.0 + 1.5 * t, np.array([1.0]), 100.0).tolist()
    [inf]
    """
    t = np.minimum(np.asarray(start, dtype=np.float64), cap)
    for _ in range(max_iterations):
        nxt = np.minimum(func(t), cap)
        done = bool(np.all(nxt - t <= rtol * nxt))
        t = nxt
        if done:
            break
    upper = np.minimum(t * (1.0 + _CERTIFICATE_RTOL), cap)
    certified = func(upper) <= upper
    if bool(np.all(certified)):
        return t
    cap_arr = np.broadcast_to(np.asarray(cap, dtype=np.float64), t.shape)
    overloaded = ~certified & (func(cap_arr.copy()) > cap_arr)
    lo = t.copy()
    hi = np.where(certified, upper, cap_arr)
    for _ in range(bisection_iterations):
        mid = 0.5 * (lo + hi)
        below = func(mid) > mid
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    out = np.where(certified, t, hi)
    return np.asarray(np.where(overloaded, np.inf, out), dtype=np.float64)


def largest_within(
    func: Callable[[FloatArray], FloatArray],
    limit: FloatArray,
    upper: FloatArray,
    *,
    iterations: int = BISECTION_ITERATIONS,
) -> FloatArray:
    """Largest ``x ∈ [0, upper]`` with ``func(x) ≤ limit``, by bisection, for a non-decreasing ``func``.

    Returns ``upper`` where ``func(upper) ≤ limit`` and 0 where even ``func(0) > limit`` (the caller
    reports that case as infeasible). The result always satisfies the constraint (it is the lower end of
    the final bracket), within ``upper·2^−60`` of the supremum.

    >>> largest_within(lambda x: 2.0 * x, np.array([1.0, 5.0]), np.array([10.0, 2.0])).round(12).tolist()
    [0.5, 2.0]
    """
    lo = np.zeros_like(np.asarray(upper, dtype=np.float64))
    hi = np.asarray(upper, dtype=np.float64).copy()
    fits_all = func(hi) <= limit
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        ok = func(mid) <= limit
        lo = np.where(ok, mid, lo)
        hi = np.where(ok, hi, mid)
    return np.asarray(np.where(fits_all, upper, lo), dtype=np.float64)
