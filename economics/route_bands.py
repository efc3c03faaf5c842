"""Bands on the evaluation's throughput-derived figures, and "too close to call at this accuracy" (issue 13).

Every owned option's throughput comes from the model, which is only so accurate. Its band
(:func:`economics.bands.throughput_band`) comes from the option's saved calibration when it has one
(``OwnedOption.calibration``: the fitted factors' uncertainty), otherwise from the model's errors on the shared
measurements of the nearest regime. The regime of a workload on an option is read from the workload:

* no latency target (no TPOT and no TTFT limit): the replica is run full, **saturation**;
* otherwise, one sequence in flight at the average load (achieved batch ≤ 1): **batch 1**;
* otherwise: **concurrency**.

Capacity scales with throughput, so its band is ``λ_max·[r_low, r_high]``; an owned $/Mtok scales with its
inverse, ``c·[1/r_high, 1/r_low]`` (the replica count is read as continuous: the band of a cost per token at a
given load). A measured option (``OwnedOption.measured``) has no model band ("measured"); an API's price is known.

The route decision compares the chosen option's marginal expected cost per task ``J`` in the plan with the
runner-up's. Each owned side's band is ``J`` with its inference cost scaled as above; the route is **too close to
call** when the runner-up's ``J`` lies inside the chosen route's band, or the chosen route's inside the
runner-up's (a band always includes its own value), and at least one of the two has a model band.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from economics.bands import BandRegime, throughput_band
from economics.evaluate import Evaluation, FleetPlan, plan_route
from economics.result import CloseCall, OptionResult, WorkloadDecision
from economics.routing import OptionTable
from economics.scenario import OwnedOption, Scenario

__all__ = [
    "MEASURED",
    "OptionBands",
    "option_band_ratio",
    "option_bands",
    "too_close_to_call",
    "with_bands",
    "workload_regime",
]

FloatArray = NDArray[np.float64]
#: The basis of a measured option's figures: the user's benchmark, no model band.
MEASURED = "measured"


def workload_regime(has_latency_target: bool, achieved_batch: float) -> BandRegime:
    """The calibration regime a workload runs an owned option in (see the module docstring).

    >>> workload_regime(False, 40.0), workload_regime(True, 1.0), workload_regime(True, 7.5)
    ('saturation', 'batch-1', 'concurrency')
    """
    if not has_latency_target:
        return "saturation"
    return "batch-1" if achieved_batch <= 1.0 else "concurrency"


def option_band_ratio(scenario: Scenario, option: OwnedOption, regime: BandRegime) -> tuple[float, float, str]:
    """``(r_low, r_high, basis)``: the option's plausible throughput as multiples of the model's [1].

    A measured option gives ``(1, 1, "measured")``.
    """
    if option.measured is not None:
        return 1.0, 1.0, MEASURED
    moe = scenario.model(option.model_id).is_moe
    if option.calibration is None:
        return _shared_band(regime, moe, option.precision)
    band = throughput_band(1.0, regime=regime, moe=moe, precision=option.precision, profile=option.calibration)
    return band.low, band.high, band.basis


@lru_cache(maxsize=256)
def _shared_band(regime: BandRegime, moe: bool, precision: str) -> tuple[float, float, str]:
    """The band from the shared calibration rows: a pandas lookup, the same for the whole process (cached)."""
    band = throughput_band(1.0, regime=regime, moe=moe, precision=precision)
    return band.low, band.high, band.basis


@dataclass(frozen=True)
class OptionBands:
    """Throughput band ratios per (workload, option); 1 and basis '' for an API."""

    low: FloatArray  # (W, O) r_low [1]
    high: FloatArray  # (W, O) r_high [1]
    basis: NDArray[np.object_]  # (W, O) where the band comes from ('' API, 'measured') [-]

    @property
    def modelled(self) -> NDArray[np.bool_]:
        """(W, O) the figure has a model band (an owned option not measured) [-]."""
        return np.asarray((self.basis != "") & (self.basis != MEASURED), dtype=bool)


def option_bands(ev: Evaluation) -> OptionBands:
    """The band of every (workload, option) of an evaluation."""
    s, t = ev.scenario, ev.table
    n_w, n_o = t.cost_usd.shape
    low, high = np.ones((n_w, n_o)), np.ones((n_w, n_o))
    basis = np.full((n_w, n_o), "", dtype=object)
    owned = {o.id: o for o in s.owned_options}
    latency = np.array([w.tpot_slo_s is not None or w.ttft_slo_s is not None for w in s.workloads], dtype=bool)
    for j, oid in enumerate(t.option_ids):
        option = owned.get(oid)
        if option is None:
            continue
        cache: dict[BandRegime, tuple[float, float, str]] = {}
        for i in range(n_w):
            regime = workload_regime(bool(latency[i]), float(t.achieved_batch[i, j]))
            if regime not in cache:
                cache[regime] = option_band_ratio(s, option, regime)
            low[i, j], high[i, j], basis[i, j] = cache[regime]
    return OptionBands(low=low, high=high, basis=basis)


def too_close_to_call(chosen: tuple[float, float, float], runner_up: tuple[float, float, float]) -> bool:
    """Whether a route is decided inside the model's accuracy: each argument is ``(low, value, high)`` [USD].

    True when the runner-up's value lies in the chosen route's band, or the chosen route's value in the
    runner-up's band (ends included). A band always includes its own value: where the model is biased in a
    regime the band may lie wholly on one side of it, and the model's own figure stays a plausible outcome.

    >>> too_close_to_call((0.8, 1.0, 1.2), (1.1, 1.1, 1.1))  # the API's 1.1 lies in the owned 0.8–1.2
    True
    >>> too_close_to_call((0.8, 1.0, 1.2), (1.3, 1.3, 1.3))
    False
    >>> too_close_to_call((1.0, 1.0, 1.0), (1.05, 1.0, 1.3))  # a tie, the runner-up's band above its value
    True
    """
    c_low, c, c_high = chosen
    r_low, r, r_high = runner_up
    return min(c_low, c) <= r <= max(c_high, c) or min(r_low, r) <= c <= max(r_high, r)


def _finite(x: float) -> float | None:
    return x if np.isfinite(x) else None


def _option_rows(options: tuple[OptionResult, ...], b: OptionBands, n_options: int) -> tuple[OptionResult, ...]:
    out: list[OptionResult] = []
    for k, row in enumerate(options):
        i, j = divmod(k, n_options)
        basis = str(b.basis[i, j]) if row.feasible else ""
        if not basis:
            out.append(row)
            continue
        lo, hi = float(b.low[i, j]), float(b.high[i, j])
        cost = row.cost_usd_per_mtok_output
        update: dict[str, Any] = {
            "band_basis": basis,
            "throughput_low_ratio": lo,
            "throughput_high_ratio": hi,
            "capacity_low_requests_per_s": _finite(row.capacity_requests_per_s * lo),
            "capacity_high_requests_per_s": _finite(row.capacity_requests_per_s * hi),
            "cost_low_usd_per_mtok_output": _finite(cost / hi) if hi > 0 else None,
            "cost_high_usd_per_mtok_output": _finite(cost / lo) if lo > 0 else None,
        }
        out.append(row.model_copy(update=update))
    return tuple(out)


def _scaled_j(tm: OptionTable, ratio: FloatArray) -> FloatArray:
    """J per (workload, option) with every option's marginal inference cost divided by ``ratio``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        cost = np.where(np.isfinite(tm.cost_usd), tm.cost_usd / ratio, np.inf)
    return np.asarray(replace(tm, cost_usd=cost).route().expected_cost_usd, dtype=np.float64)


def _close_calls(
    ev: Evaluation, fp: FleetPlan, decisions: tuple[WorkloadDecision, ...], b: OptionBands
) -> tuple[WorkloadDecision, ...]:
    tm, r = plan_route(ev, fp)
    j = r.expected_cost_usd
    j_low, j_high = _scaled_j(tm, b.high), _scaled_j(tm, b.low)
    modelled = b.modelled
    out: list[WorkloadDecision] = []
    for i, d in enumerate(decisions):
        c, ru = int(r.chosen[i]), int(r.runner_up[i])
        if c < 0 or ru < 0 or not (np.isfinite(j[i, c]) and np.isfinite(j[i, ru])):
            out.append(d)
            continue
        call = CloseCall(
            runner_up_option_id=tm.option_ids[ru],
            chosen_usd_per_task=float(j[i, c]),
            chosen_low_usd_per_task=float(j_low[i, c]),
            chosen_high_usd_per_task=float(j_high[i, c]),
            runner_up_usd_per_task=float(j[i, ru]),
            runner_up_low_usd_per_task=float(j_low[i, ru]),
            runner_up_high_usd_per_task=float(j_high[i, ru]),
            basis=str(b.basis[i, c] if modelled[i, c] else b.basis[i, ru]),
        )
        close = bool(modelled[i, c] or modelled[i, ru]) and too_close_to_call(
            (call.chosen_low_usd_per_task, call.chosen_usd_per_task, call.chosen_high_usd_per_task),
            (call.runner_up_low_usd_per_task, call.runner_up_usd_per_task, call.runner_up_high_usd_per_task),
        )
        out.append(d.model_copy(update={"too_close_to_call": close, "close_call": call}))
    return tuple(out)


def with_bands(
    ev: Evaluation, fp: FleetPlan, options: tuple[OptionResult, ...], decisions: tuple[WorkloadDecision, ...]
) -> tuple[tuple[OptionResult, ...], tuple[WorkloadDecision, ...]]:
    """The evaluation's option rows with their bands and its decisions with "too close to call"."""
    b = option_bands(ev)
    return _option_rows(options, b, len(ev.table.option_ids)), _close_calls(ev, fp, decisions, b)
