"""Demand over the day: each workload's hourly rates for capacity and for the bill (issue 10,
docs/serving.md#serving-and-queues).

Without any profile the plan has one period and today's behaviour: capacity is sized for the peak
``λ_peak`` and the bill counts the average ``λ_avg``. As soon as one workload has a
:class:`~economics.workload.DemandProfile` the plan checks 24 UTC hours; a workload with a profile then
has ``λ_h = λ_avg · 24 · s_h`` in hour h (its day's volume ``λ_avg · 86 400`` spread by the shares
``s_h``), for both capacity and bill; a workload without one keeps ``λ_peak`` for capacity and ``λ_avg``
for the bill in every hour.

A workload is *deferrable* when it has a deadline of at least an hour and no TTFT/TPOT SLO. Its day's
volume may then be processed in any hour of its window (the hours with a non-zero share; all 24 hours
without a profile), in whatever split the plan chooses; the hourly shares only say when it may run.
Without a profile a deferrable workload is sized by its volume, ``λ_avg`` in every hour, not by its
instantaneous peak: the deadline lets the queue absorb the bursts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from economics.workload import HOURS_PER_DAY, DemandProfile, Workload

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

#: Shortest deadline that lets work move to another hour [s].
DEFERRABLE_DEADLINE_S = 3600.0
_DEFAULT_WINDOW = {"business_hours": (9, 18), "night_window": (22, 6)}


def hourly_shares(profile: DemandProfile) -> FloatArray:
    """The day's volume by UTC hour, ``s_h ≥ 0`` with ``Σ s_h = 1`` [1].

    >>> s = hourly_shares(DemandProfile(shape="business_hours", utc_offset_hours=8))
    >>> [h for h in range(24) if s[h] > 0], round(float(s[1]), 4)
    ([1, 2, 3, 4, 5, 6, 7, 8, 9], 0.1111)
    >>> hourly_shares(DemandProfile(shape="night_window", start_hour_local=23, end_hour_local=1)).nonzero()[0].tolist()
    [0, 23]
    """
    if profile.shape == "flat":
        return np.full(HOURS_PER_DAY, 1.0 / HOURS_PER_DAY)
    if profile.shape == "hourly":
        raw = np.asarray(profile.hourly_shares, dtype=np.float64)
        return np.asarray(raw / raw.sum(), dtype=np.float64)
    start_default, end_default = _DEFAULT_WINDOW[profile.shape]
    start = start_default if profile.start_hour_local is None else profile.start_hour_local
    end = end_default if profile.end_hour_local is None else profile.end_hour_local
    local = np.arange(HOURS_PER_DAY)
    inside = (local >= start) & (local < end) if end > start else (local >= start) | (local < end)
    n_in = int(inside.sum())
    if n_in == 0 or n_in == HOURS_PER_DAY:  # an empty or full-day window is a flat day
        return np.full(HOURS_PER_DAY, 1.0 / HOURS_PER_DAY)
    off = profile.off_hours_share
    shares_local = np.where(inside, (1.0 - off) / n_in, off / (HOURS_PER_DAY - n_in))
    # local hour l is UTC hour (l − offset) mod 24
    utc = np.empty(HOURS_PER_DAY)
    utc[(local - profile.utc_offset_hours) % HOURS_PER_DAY] = shares_local
    return utc


def is_deferrable(w: Workload) -> bool:
    """A deadline of an hour or more and no interactive SLO: its work may move between hours [-]."""
    return (
        w.deadline_s is not None
        and w.deadline_s >= DEFERRABLE_DEADLINE_S
        and w.ttft_slo_s is None
        and w.tpot_slo_s is None
    )


@dataclass(frozen=True)
class DayDemand:
    """Every workload's rates per period: ``(W, H)`` with H = 1 (no profiles) or 24 (UTC hours)."""

    capacity_rate: FloatArray  # (W, H) arrival rate the capacity must carry in the hour [req/s]
    bill_rate: FloatArray  # (W, H) mean arrival rate in the hour, for money and busy time [req/s]
    deferrable: BoolArray  # (W,) volume may be processed anywhere in its window [-]
    window: BoolArray  # (W, H) hours a deferrable workload may run in [-]

    @property
    def hours(self) -> int:
        return int(self.capacity_rate.shape[1])

    @property
    def sizing_peak(self) -> FloatArray:
        """(W,) the rate a stand-alone deployment must carry: the highest hourly capacity rate, or for a
        deferrable workload its day's volume spread evenly over its window [req/s]."""
        spread = self.bill_rate.sum(axis=1) / np.maximum(self.window.sum(axis=1), 1)
        return np.asarray(np.where(self.deferrable, spread, self.capacity_rate.max(axis=1)), dtype=np.float64)


def day_demand(workloads: tuple[Workload, ...]) -> DayDemand:
    """Hourly rates of every workload (see the module docstring for the rules)."""
    n = len(workloads)
    avg = np.array([w.avg_requests_per_s for w in workloads], dtype=np.float64)
    peak = np.array([w.peak_requests_per_s for w in workloads], dtype=np.float64)
    deferrable = np.array([is_deferrable(w) for w in workloads], dtype=bool)
    if n and all(w.demand_profile is None for w in workloads):
        cap = np.where(deferrable, avg, peak)[:, None]
        return DayDemand(cap, avg[:, None].copy(), deferrable, np.ones((n, 1), dtype=bool))
    cap = np.empty((n, HOURS_PER_DAY))
    bill = np.empty((n, HOURS_PER_DAY))
    window = np.ones((n, HOURS_PER_DAY), dtype=bool)
    for i, w in enumerate(workloads):
        if w.demand_profile is None:
            cap[i] = avg[i] if deferrable[i] else peak[i]
            bill[i] = avg[i]
            continue
        s = hourly_shares(w.demand_profile)
        cap[i] = bill[i] = avg[i] * HOURS_PER_DAY * s
        window[i] = s > 0
    return DayDemand(cap, bill, deferrable, window)
