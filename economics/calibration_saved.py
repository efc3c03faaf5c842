"""A fitted calibration saved in the scenario: your stack's efficiency factors on the owned options they apply to.

:func:`economics.calibration_fit.fit_profile` fits MBU and MFU to your benchmark runs. :class:`SavedCalibration`
is the part of that fit a scenario keeps (the factors, their covariance, the number of points, what they were
fitted on and when; not the per-point residuals, which stay with the files). It sits on each owned option it
applies to (``OwnedOption.calibration``), so it travels with the scenario in files, share links and saved
reviews. Wherever an option's throughput is computed, :func:`option_efficiency` replaces the scenario's
efficiency factors by the fitted ones for that option; an option without one keeps today's behaviour.

This module imports no scenario code (the scenario imports it); the functions that attach a calibration to a
scenario's options live in :mod:`economics.calibration_apply`.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Protocol

from pydantic import Field, model_validator

from economics._base import Frozen
from economics.hardware import Efficiency

__all__ = ["CalibrationLike", "SavedCalibration", "log_sd_of"]

_ID = r"^[A-Za-z0-9_.:-]+$"


class CalibrationLike(Protocol):
    """What a band needs from a fit: the log-space spread of a throughput and the number of points."""

    @property
    def log_sd(self) -> float: ...

    @property
    def n_points(self) -> int: ...


def log_sd_of(
    covariance_log: tuple[tuple[float, float], tuple[float, float]], elasticity: tuple[float, float]
) -> float:
    """Standard deviation of ln(throughput) from the factors' covariance, ``σ = sqrt(gᵀ·C·g)`` [1].

    ``g`` is the elasticity ∂ln(throughput)/∂ln(factor), ``C`` the covariance of (ln MBU, ln MFU). A negative
    quadratic form (round-off) is read as 0.

    >>> round(log_sd_of(((0.01, 0.0), (0.0, 0.04)), (1.0, 0.5)), 4)  # sqrt(0.01·1 + 0.04·0.25) = sqrt(0.02)
    0.1414
    """
    (a, b), (c, d) = covariance_log
    g0, g1 = elasticity
    q = g0 * (a * g0 + b * g1) + g1 * (c * g0 + d * g1)
    return math.sqrt(max(q, 0.0))


class SavedCalibration(Frozen):
    """Efficiency factors fitted to your own benchmark runs, as kept in a scenario."""

    engine: str = Field(min_length=1, max_length=64, pattern=_ID, description="engine id the runs used [-]")
    gpu_ids: tuple[str, ...] = Field(min_length=1, max_length=32, description="GPUs the runs covered [-]")
    model_ids: tuple[str, ...] = Field(min_length=1, max_length=32, description="models the runs covered [-]")
    mbu: float = Field(gt=0, le=1, description="fitted achieved / peak HBM bandwidth [1]")
    mfu_decode: float = Field(gt=0, le=1, description="fitted achieved / peak FLOP/s in decode [1]")
    mfu_prefill: float = Field(gt=0, le=1, description="prefill MFU at its default ratio to the decode MFU [1]")
    covariance_log: tuple[tuple[float, float], tuple[float, float]] = Field(
        description="covariance of (ln MBU, ln MFU decode) from the fit [1]"
    )
    elasticity: tuple[float, float] = Field(
        description="mean ∂ln(throughput)/∂ln(factor) over the fitted points, for bands [1]"
    )
    residual_sd_log: float = Field(ge=0, le=10, description="standard deviation of the fit's log residuals [1]")
    n_points: int = Field(ge=1, le=1_000_000, description="benchmark points fitted [count]")
    fitted_on: str = Field(default="", max_length=500, description="the files or runs fitted, in words [-]")
    fitted_date: dt.date = Field(description="date of the fit [-]")

    @model_validator(mode="after")
    def _check(self) -> SavedCalibration:
        (a, b), (c, d) = self.covariance_log
        numbers = (a, b, c, d, *self.elasticity)
        if not all(math.isfinite(x) for x in numbers):
            raise ValueError("covariance_log and elasticity must be finite numbers")
        if a < 0 or d < 0:
            raise ValueError("covariance_log: the variances on its diagonal cannot be negative")
        if not math.isclose(b, c, rel_tol=1e-6, abs_tol=1e-12):
            raise ValueError("covariance_log must be symmetric")
        if max(a, d) > 100:
            raise ValueError("covariance_log: a variance above 100 (in log units) is not a fit")
        for what, ids in (("gpu_ids", self.gpu_ids), ("model_ids", self.model_ids)):
            if any(not 0 < len(i) <= 64 for i in ids):
                raise ValueError(f"{what}: every id has 1 to 64 characters")
        return self

    @property
    def log_sd(self) -> float:
        """Standard deviation of ln(throughput) from the factors' uncertainty (:func:`log_sd_of`) [1]."""
        return log_sd_of(self.covariance_log, self.elasticity)

    def efficiency(self, base: Efficiency) -> Efficiency:
        """``base`` with the fitted MBU and MFUs; every other factor kept."""
        return base.model_copy(update={"mbu": self.mbu, "mfu_decode": self.mfu_decode, "mfu_prefill": self.mfu_prefill})

    def describe(self) -> str:
        """One line in plain words for a reader."""
        pts = f"{self.n_points} benchmark point{'s' if self.n_points != 1 else ''}"
        on = f" ({self.fitted_on})" if self.fitted_on else ""
        gpus = ", ".join(self.gpu_ids)
        return f"calibrated on {pts}{on}, {self.engine} on {gpus}, fitted {self.fitted_date.isoformat()}"
