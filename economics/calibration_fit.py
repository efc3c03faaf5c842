"""Fit the efficiency factors of your own stack to your benchmark runs, with their uncertainty.

:func:`fit_profile` takes :class:`~economics.io.BenchmarkPoint` rows (from :func:`economics.io.read_benchmark`)
and fits the achieved share of HBM bandwidth (``mbu``) and of peak FLOP/s (``mfu_decode``; ``mfu_prefill``
keeps its default ratio to it) by bounded least squares in log space (``scipy.optimize.least_squares``,
trust-region reflective): minimise ``Σ (ln predicted_i − ln measured_i)²`` over ``ln mbu, ln mfu`` within
``[ln 0.05, ln 1]``. The covariance of the log-factors is ``s²·(JᵀJ)⁻¹`` with ``s² = Σr²/(m − p)`` (Gauss–Newton
at the optimum), so the factors and every band derived from them narrow as points are added. Every point's
residual is kept.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
from pydantic import Field
from scipy.optimize import least_squares  # type: ignore[import-untyped]

from economics._base import Frozen
from economics.calibration import CalibrationCase, predict_case
from economics.engines import load_engines
from economics.hardware import GPU, Efficiency
from economics.io import BenchmarkPoint
from economics.model import ModelSpec

#: Bounds of every fitted factor [1].
FACTOR_BOUNDS = (0.05, 1.0)
#: The fitted factors, in the order of ``covariance_log``, and their names for a person.
FACTOR_NAMES = ("mbu", "mfu_decode")
FACTOR_WORDS = {"mbu": "Memory-bandwidth utilisation (MBU)", "mfu_decode": "Compute utilisation in decode (MFU)"}
#: A factor on a bound is worth a warning only when the runs' throughput moves with it at least this much
#: (mean elasticity): MFU at 1.0 on memory-bound runs is a free direction, not a sign of a wrong file [1].
MATTERS_ELASTICITY = 0.05
#: A typical log miss above this (±50%) says the runs are not of what the model describes [1].
MISFIT_LOG_SD = math.log(1.5)
#: Log-space prior spread used when there are no more points than factors (no residual degrees of freedom) [1].
PRIOR_LOG_SD = 0.3
#: Factors the fit sets: MBU and decode MFU (prefill MFU keeps its ratio to decode) [count].
FITTED_FACTORS = 2


class PointResidual(Frozen):
    """One imported point against the fitted profile."""

    source: str = Field(description="file and line or record [-]")
    measured_tokens_per_s: float = Field(description="measured output tokens per second [tok/s]")
    predicted_tokens_per_s: float = Field(description="predicted with the fitted factors [tok/s]")
    residual_pct: float = Field(description="(predicted − measured) / measured · 100 [%]")


class CalibrationProfile(Frozen):
    """Fitted efficiency factors of one stack (engine on given GPUs), with uncertainty and residuals."""

    engine: str = Field(description="engine id the runs used [-]")
    gpu_ids: tuple[str, ...] = Field(description="GPUs the runs covered [-]")
    model_ids: tuple[str, ...] = Field(description="models the runs covered [-]")
    mbu: float = Field(gt=0, le=1, description="fitted achieved / peak HBM bandwidth [1]")
    mfu_decode: float = Field(gt=0, le=1, description="fitted achieved / peak FLOP/s in decode [1]")
    mfu_prefill: float = Field(gt=0, le=1, description="prefill MFU, default ratio to mfu_decode kept [1]")
    covariance_log: tuple[tuple[float, float], tuple[float, float]] = Field(
        description="covariance of (ln mbu, ln mfu_decode) [1]"
    )
    elasticity: tuple[float, float] = Field(
        description="mean ∂ln(throughput)/∂ln(factor) over the points, for bands [1]"
    )
    residual_sd_log: float = Field(ge=0, description="standard deviation of the log residuals [1]")
    n_points: int = Field(ge=1, description="points fitted [count]")
    residuals: tuple[PointResidual, ...] = Field(description="every point's residual [-]")
    at_bound: tuple[tuple[str, Literal["lower", "upper"]], ...] = Field(
        default=(),
        description="factors the fit left on a bound of FACTOR_BOUNDS, with the bound: the runs ask for more (or "
        "less) than the model allows at any efficiency; their variance is the prior's, not the fit's [-]",
    )

    @property
    def unmeasured_factors(self) -> tuple[str, ...]:
        """Factors on a bound that the runs' throughput does not depend on (MFU on memory-bound runs): the fit
        did not set them, whatever value they show."""
        return tuple(f for f, _ in self.at_bound if abs(self.elasticity[FACTOR_NAMES.index(f)]) < MATTERS_ELASTICITY)

    @property
    def warnings(self) -> tuple[str, ...]:
        """What a person must check before using this fit, in words (empty when nothing stands out)."""
        out = []
        for factor, side in self.at_bound:
            if factor in self.unmeasured_factors:
                continue  # the runs do not depend on it (decode memory-bound throughout): nothing to check
            name, value = FACTOR_WORDS[factor], FACTOR_BOUNDS[0 if side == "lower" else 1]
            if side == "upper":
                why = "the runs are faster than the model allows at any efficiency"
            else:
                why = "the runs are far slower than the model predicts at any plausible efficiency"
            out.append(
                f"{name} sits at its {side} bound {value:g}: {why}. Check that the files are runs of this model "
                f"on this GPU, GPU count and precision; its uncertainty is not measured (±{PRIOR_LOG_SD:.0%} assumed)."
            )
        logs = [math.log(r.predicted_tokens_per_s / r.measured_tokens_per_s) for r in self.residuals]
        miss = math.sqrt(sum(x * x for x in logs) / len(logs)) if logs else 0.0  # measured, even on 1–2 runs
        if miss > MISFIT_LOG_SD:
            times = math.exp(miss)
            out.append(
                f"The fitted model misses the runs by a factor of {times:,.3g} typically: runs of another model, GPU "
                "or precision, or of a stack the model does not describe, fit no efficiency."
                if times >= 2
                else f"The fitted model misses the runs by {times - 1:.0%} typically: runs of another model, GPU or "
                "precision, or of a stack the model does not describe, fit no efficiency."
            )
        return tuple(out)

    def efficiency(self, base: Efficiency | None = None) -> Efficiency:
        """``base`` (default factors when None) with the fitted MBU and MFUs."""
        return (base or Efficiency()).model_copy(
            update={"mbu": self.mbu, "mfu_decode": self.mfu_decode, "mfu_prefill": self.mfu_prefill}
        )

    @property
    def spread_measured(self) -> bool:
        """Whether ``residual_sd_log`` was measured (more points than fitted factors) rather than assumed
        (:data:`PRIOR_LOG_SD`)."""
        return self.n_points > FITTED_FACTORS

    @property
    def log_sd(self) -> float:
        """Standard deviation of ln(throughput) from the factors' uncertainty, ``sqrt(gᵀ·C·g)`` [1]."""
        g = np.asarray(self.elasticity)
        return float(np.sqrt(max(g @ np.asarray(self.covariance_log) @ g, 0.0)))


def _case(p: BenchmarkPoint, i: int) -> CalibrationCase:
    return CalibrationCase(
        row=i, label=p.source, model_id=p.model_id, gpu_id=p.gpu_id, gpus=p.gpus, layer_split=False,
        precision=p.precision, weight_file_bytes=None,
        regime="concurrency" if p.concurrency is not None else "saturation",
        input_tokens=max(1, round(p.input_tokens)), output_tokens=max(1, round(p.output_tokens)),
        reserve_output=load_engines().get(p.engine, load_engines()["vllm"]).reserve_output,
        framework=p.engine, engine=p.engine, concurrency=p.concurrency,
        max_batch=load_engines().get(p.engine, load_engines()["vllm"]).max_batch,
        measured_tokens_per_s=p.output_tokens_per_s, source=p.source,
    )  # fmt: skip


def fit_profile(
    points: Sequence[BenchmarkPoint],
    gpus: Mapping[str, GPU],
    models: Mapping[str, ModelSpec],
    base: Efficiency | None = None,
) -> CalibrationProfile:
    """Fit ``mbu`` and ``mfu_decode`` to ``points``.

    Raises
    ------
    ValueError
        No points, a point naming a model or GPU not in the catalog, or one the model cannot fit in memory.
    """
    if not points:
        raise ValueError("no benchmark points to fit")
    for p in points:
        if p.model_id not in models:
            raise ValueError(f"{p.source}: model {p.model_id!r} is not in the catalog (its ids: {', '.join(models)})")
        if p.gpu_id not in gpus:
            raise ValueError(f"{p.source}: GPU {p.gpu_id!r} is not in the catalog")
    eff0 = base or Efficiency()
    ratio = eff0.mfu_prefill / eff0.mfu_decode
    cases = [_case(p, i) for i, p in enumerate(points)]
    measured = np.log([p.output_tokens_per_s for p in points])

    def efficiency(x: np.ndarray) -> Efficiency:
        mbu, mfu = np.exp(x)
        return eff0.model_copy(update={"mbu": float(mbu), "mfu_decode": float(mfu),
                                       "mfu_prefill": float(min(1.0, mfu * ratio))})  # fmt: skip

    def residuals(x: np.ndarray) -> np.ndarray:
        eff = efficiency(x)
        pred = np.array([predict_case(c, gpus, models, eff) for c in cases])
        if not np.all(np.isfinite(pred)) or np.any(pred <= 0):
            bad = cases[int(np.argmax(~np.isfinite(pred) | (pred <= 0)))]
            raise ValueError(f"{bad.label}: the model does not fit this replica's memory, cannot calibrate on it")
        return np.asarray(np.log(pred) - measured, dtype=np.float64)

    lo, hi = np.log(FACTOR_BOUNDS[0]), np.log(FACTOR_BOUNDS[1])
    x0 = np.clip(np.log([eff0.mbu, eff0.mfu_decode]), lo, hi - 1e-9)
    sol = least_squares(residuals, x0, bounds=([lo, lo], [hi, hi]), method="trf", x_scale=1.0, diff_step=1e-3)
    r, J = sol.fun, sol.jac
    m, k = len(r), FITTED_FACTORS
    s2 = float(r @ r / (m - k)) if m > k else PRIOR_LOG_SD**2
    cov = s2 * np.linalg.pinv(J.T @ J)
    # a factor on a bound is not estimated: the curvature there says nothing of how far past it the runs ask
    # to go (it read "MFU 1.000, ±0%"); it gets the prior's variance and no covariance
    bound = [i for i in range(k) if sol.active_mask[i] != 0]
    for i in bound:
        cov[i, :] = cov[:, i] = 0.0
        cov[i, i] = PRIOR_LOG_SD**2
    at_bound = tuple((FACTOR_NAMES[i], "lower" if sol.active_mask[i] < 0 else "upper") for i in bound)
    eff = efficiency(sol.x)
    pred = np.exp(measured + r)
    return CalibrationProfile(
        engine=points[0].engine,
        gpu_ids=tuple(sorted({p.gpu_id for p in points})),
        model_ids=tuple(sorted({p.model_id for p in points})),
        mbu=eff.mbu, mfu_decode=eff.mfu_decode, mfu_prefill=eff.mfu_prefill,
        covariance_log=((float(cov[0, 0]), float(cov[0, 1])), (float(cov[1, 0]), float(cov[1, 1]))),
        elasticity=(float(np.mean(J[:, 0])), float(np.mean(J[:, 1]))),
        residual_sd_log=float(np.sqrt(s2)), n_points=m, at_bound=at_bound,
        residuals=tuple(
            PointResidual(source=p.source, measured_tokens_per_s=p.output_tokens_per_s,
                          predicted_tokens_per_s=float(q), residual_pct=float((q / p.output_tokens_per_s - 1) * 100))
            for p, q in zip(points, pred, strict=True)
        ),
    )  # fmt: skip
