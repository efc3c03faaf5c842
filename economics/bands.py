"""Error bands on throughput-derived figures: how far the model's number may be from what you will measure.

With a calibration profile the band is the fit's own uncertainty (``exp(±z·σ)`` with ``σ`` from the factors'
covariance, :attr:`~economics.calibration_fit.CalibrationProfile.log_sd`), which narrows as points are added.
Without one it is the spread of the model's errors on the shared calibration rows of the nearest regime
(batch 1 / concurrency / saturation; dense / MoE; precision): a figure the model predicts as ``x`` is, on
rows like it, measured between ``x/q90`` and ``x/q10`` of the ratio predicted/measured. The same band applies
to capacity (∝ throughput) and inversely to an owned $/Mtok (∝ 1/throughput).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import Field

from economics._base import Frozen
from economics.calibration_saved import CalibrationLike
from economics.words import plural

BandRegime = Literal["batch-1", "concurrency", "saturation"]
#: z of a two-sided 80% interval (10th–90th percentile) of a normal distribution [1].
Z80 = 1.2816
#: Fewest calibration rows a band is read from before falling back to a wider group [count].
MIN_ROWS = 5


def _inv(v: float) -> float:
    return 1.0 / v if v > 0 else math.inf


class Band(Frozen):
    """A central value and its low/high band."""

    value: float = Field(ge=0, description="the model's figure [unit of the figure]")
    low: float = Field(ge=0, description="10th-percentile plausible value [unit of the figure]")
    high: float = Field(ge=0, description="90th-percentile plausible value [unit of the figure]")
    basis: str = Field(description="where the band comes from, in plain words [-]")

    def inverse(self) -> Band:
        """The band of a figure proportional to 1/value (e.g. $/Mtok from tok/s)."""
        return Band(value=_inv(self.value), low=_inv(self.high), high=_inv(self.low), basis=self.basis)

    def scaled(self, factor: float) -> Band:
        """The band of ``factor × figure`` (e.g. capacity from throughput)."""
        return Band(value=self.value * factor, low=self.low * factor, high=self.high * factor, basis=self.basis)

    def overlaps(self, other: Band) -> bool:
        """The two bands share some values: a choice between them is too close to call."""
        return self.low <= other.high and other.low <= self.high


@lru_cache(maxsize=1)
def _shared_errors() -> pd.DataFrame:
    from economics.calibration_report import calibration_report

    return calibration_report().table[["regime", "moe", "precision", "error_pct"]]


def _ratios(table: pd.DataFrame, regime: BandRegime, moe: bool, precision: str) -> tuple[np.ndarray, str]:
    moe_key = "MoE" if moe else "dense"
    tries = [
        ((table.regime == regime) & (table.moe == moe_key) & (table.precision == precision),
         f"{regime}, {moe_key}, {precision}"),
        ((table.regime == regime) & (table.moe == moe_key), f"{regime}, {moe_key}"),
        (table.regime == regime, regime),
        (table.regime == table.regime, "all rows"),
    ]  # fmt: skip
    for mask, name in tries:
        part = table[mask]
        if len(part) >= MIN_ROWS:
            return 1.0 + part["error_pct"].to_numpy() / 100.0, f"{name} ({len(part)} rows)"
    return 1.0 + table["error_pct"].to_numpy() / 100.0, f"all rows ({len(table)})"


def throughput_band(
    value: float,
    *,
    regime: BandRegime = "saturation",
    moe: bool = False,
    precision: str = "bf16",
    profile: CalibrationLike | None = None,
    errors: pd.DataFrame | None = None,
) -> Band:
    """The band of a throughput ``value`` [tok/s] (or anything proportional to it).

    ``profile`` given: ``value·exp(±z·σ)`` with σ the fit's uncertainty (80% interval). Otherwise the 10th–90th
    percentile of measured/predicted on the shared calibration rows of the nearest regime (``errors`` is that
    table, ``regime``/``moe``/``precision``/``error_pct`` columns; default: the shared report).

    >>> b = throughput_band(1000.0, errors=pd.DataFrame({"regime": ["saturation"] * 5, "moe": ["dense"] * 5,
    ...     "precision": ["fp8"] * 5, "error_pct": [-50.0, 0.0, 0.0, 0.0, 100.0]}), precision="fp8")
    >>> # ratios 0.5, 1, 1, 1, 2: q10 = 0.5 + 0.4·0.5 = 0.7, q90 = 1 + 0.6·1 = 1.6 → 1000/1.6, 1000/0.7
    >>> round(b.low), round(b.high)
    (625, 1429)
    """
    if profile is not None:
        sd = profile.log_sd
        basis = f"your {plural(profile.n_points, 'benchmark point')}, fitted factors' uncertainty"
        return Band(value=value, low=value * math.exp(-Z80 * sd), high=value * math.exp(Z80 * sd), basis=basis)
    table = errors if errors is not None else _shared_errors()
    ratios, name = _ratios(table, regime, moe, precision)
    q10, q90 = np.percentile(ratios, [10, 90])
    return Band(value=value, low=value / max(q90, 1e-9), high=value / max(q10, 1e-9),
                basis=f"model error on shared measurements: {name}")  # fmt: skip
