"""Serverless GPUs in the fleet plan: per-second billing that scales to zero (issue 14).

A serverless container is billed for every second it is up, in whole billing increments. It is up while it
serves requests, for the idle timeout ``T`` after the last one, and for its cold start ``c`` when a request
arrives after it has scaled to zero. For a workload arriving at rate ``λ`` (Poisson) in a period of its day
profile, with ``s`` busy replica-seconds per request (``g/λmax``) and ``ρ = min(1, λ·s)`` the share of time
one container is busy, the billed container-seconds per second of the period are

```
B(λ) = λ·s                              busy time (per second, billed whoever carries it)
     + (1 − ρ)·(1 − e^(−λT))            warm idle: the share of an idle gap shorter than T
     + λ·(1 − ρ)·e^(−λT)·(c + Δ)        a start per gap longer than T: cold start plus at most one increment
```

(``E[min(gap, T)]/E[gap] = 1 − e^(−λT)`` and ``P(gap > T) = e^(−λT)`` for exponential gaps). A period without
demand bills nothing: cost follows the busy hours of the day profile. Kept warm (``keep_warm``), one
container stays up through every period with demand and none cold-starts: ``B(λ) = max(1, λ·s)``.

The plan already bills ``λ·s`` through the replica's price per busy hour (``C_var`` of
:func:`economics.finance.rental.rented_cost_split`); :func:`serverless_extra_usd_per_request` returns the rest,
per request, averaged over the day's volume. Idle inside a period follows the formula, not the profile's
hour-by-hour shape; a split workload's share on a serverless option is priced at the whole workload's rate.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from economics.finance.terms import RentalTerms

__all__ = ["serverless_billed_s_per_s", "serverless_extra_usd_per_request", "serverless_extra_usd_per_request_rows"]

FloatArray = NDArray[np.float64]


def serverless_billed_s_per_s(rate_per_s: FloatArray, busy_s: float | FloatArray, terms: RentalTerms) -> FloatArray:
    """Billed container-seconds per second of a period, ``B(λ)`` of the module doc [s/s]; 0 where ``λ = 0``.

    Example: 0.01 req/s, 2 s busy each, T = 60 s, c = 30 s, Δ = 1 s: ρ = 0.02, e^(−0.6) = 0.548812;
    B = 0.02 + 0.98·0.451188 + 0.01·0.98·0.548812·31 = 0.02 + 0.442164 + 0.166729 = 0.628894.

    >>> t = RentalTerms(cold_start_s=30, min_billing_increment_s=1, idle_timeout_s=60)
    >>> round(float(serverless_billed_s_per_s(np.array([0.01]), 2.0, t)[0]), 6)
    0.628894
    """
    lam = np.asarray(rate_per_s, dtype=np.float64)
    busy = lam * busy_s
    if terms.keep_warm:
        return np.asarray(np.where(lam > 0, np.maximum(1.0, busy), 0.0), dtype=np.float64)
    rho = np.minimum(1.0, busy)
    cold = np.exp(-lam * terms.idle_timeout_s)
    warm_idle = (1.0 - rho) * (1.0 - cold)
    starts = lam * (1.0 - rho) * cold * (terms.cold_start_s + terms.min_billing_increment_s)
    return np.asarray(np.where(lam > 0, busy + warm_idle + starts, 0.0), dtype=np.float64)


def serverless_extra_usd_per_request(
    rate_per_s: FloatArray, busy_s: float, terms: RentalTerms, replica_usd_per_hour: float
) -> float:
    """What a serverless replica bills per request beyond its busy time, over a day profile [USD/request]:
    ``C/3600 · Σ_h (B(λ_h) − λ_h·s) / Σ_h λ_h`` with ``C`` the replica's price per hour. 0 without demand.

    Example: the module doc's 0.01 req/s all day at $3.9492/h: (0.628894 − 0.02)/0.01 = 60.8894 s per
    request, × 3.9492/3600 = $0.066796.

    >>> t = RentalTerms(cold_start_s=30, min_billing_increment_s=1, idle_timeout_s=60)
    >>> round(serverless_extra_usd_per_request(np.full(24, 0.01), 2.0, t, 3.9492), 6)
    0.066796
    """
    lam = np.asarray(rate_per_s, dtype=np.float64)
    volume = float(lam.sum())
    if volume <= 0:
        return 0.0
    extra_s = float((serverless_billed_s_per_s(lam, busy_s, terms) - lam * busy_s).sum())
    return extra_s / volume * replica_usd_per_hour / 3600.0


def serverless_extra_usd_per_request_rows(
    rate_per_s: FloatArray, busy_s: FloatArray, terms: RentalTerms, replica_usd_per_hour: float
) -> FloatArray:
    """:func:`serverless_extra_usd_per_request` for many workloads at once: ``rate_per_s`` (W, H) day profiles,
    ``busy_s`` (W,) busy replica-seconds per request; 0 for a row without demand [USD/request].

    The stand-alone cost of a serverless option (:mod:`economics.option_costs`) adds this to its busy time,
    so a workload is priced over its day profile exactly as the plan prices it.

    >>> t = RentalTerms(cold_start_s=30, min_billing_increment_s=1, idle_timeout_s=60)
    >>> serverless_extra_usd_per_request_rows(np.full((2, 24), 0.01), np.array([2.0, 2.0]), t, 3.9492).round(6)
    array([0.066796, 0.066796])
    """
    lam = np.asarray(rate_per_s, dtype=np.float64)
    busy = np.asarray(busy_s, dtype=np.float64)[:, None]
    volume = lam.sum(axis=1)
    extra_s = (serverless_billed_s_per_s(lam, busy, terms) - lam * busy).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(volume > 0, extra_s / np.where(volume > 0, volume, 1.0), 0.0)
    return np.asarray(out * replica_usd_per_hour / 3600.0, dtype=np.float64)
