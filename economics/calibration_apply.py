"""Put a fitted calibration into a scenario: on the owned options it applies to, by model and GPU or by option id.

:func:`saved_calibration` turns a fit (:class:`~economics.calibration_fit.CalibrationProfile`) into the
:class:`~economics.calibration_saved.SavedCalibration` a scenario keeps; :func:`apply_calibration` attaches it
to the owned options serving one of its models on one of its GPUs (or to the options named), and
:func:`calibrated_options` lists which options carry one. The scenario is validated again, so nothing is
half-applied.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING

from economics.calibration_saved import SavedCalibration
from economics.scenario import OwnedOption, Scenario

if TYPE_CHECKING:
    from economics.calibration_fit import CalibrationProfile

__all__ = ["apply_calibration", "calibrated_options", "matching_options", "saved_calibration"]


def saved_calibration(profile: CalibrationProfile, fitted_on: str, fitted_date: dt.date) -> SavedCalibration:
    """The part of a fit a scenario keeps: factors, covariance, point count, what it was fitted on and when."""
    return SavedCalibration(
        engine=profile.engine,
        gpu_ids=profile.gpu_ids,
        model_ids=profile.model_ids,
        mbu=profile.mbu,
        mfu_decode=profile.mfu_decode,
        mfu_prefill=profile.mfu_prefill,
        covariance_log=profile.covariance_log,
        elasticity=profile.elasticity,
        residual_sd_log=profile.residual_sd_log,
        n_points=profile.n_points,
        fitted_on=fitted_on[:500],
        fitted_date=fitted_date,
    )


def matching_options(scenario: Scenario, calibration: SavedCalibration) -> tuple[str, ...]:
    """Ids of the owned options that serve one of the calibration's models on one of its GPUs."""
    return tuple(
        o.id
        for o in scenario.owned_options
        if o.model_id in calibration.model_ids and scenario.node(o.node_id).gpu_id in calibration.gpu_ids
    )


def apply_calibration(
    scenario: Scenario, calibration: SavedCalibration | None, option_ids: Sequence[str] | None = None
) -> Scenario:
    """The scenario with ``calibration`` on the options named, or on every matching option when ``None``.

    ``calibration=None`` removes the calibration from those options (all calibrated ones when ``option_ids``
    is ``None``).

    Raises
    ------
    ValueError
        An option id not in the scenario, or no owned option that the calibration's models and GPUs match.
    """
    known = {o.id for o in scenario.owned_options}
    if option_ids is not None:
        unknown = [i for i in option_ids if i not in known]
        if unknown:
            raise ValueError(f"option ids: {', '.join(unknown)} not among the scenario's owned options")
        targets = set(option_ids)
    elif calibration is None:
        targets = set(calibrated_options(scenario))
    else:
        targets = set(matching_options(scenario, calibration))
        if not targets:
            raise ValueError(
                f"no owned option serves {', '.join(calibration.model_ids)} on {', '.join(calibration.gpu_ids)}; "
                "name the options to calibrate explicitly"
            )
    options: list[OwnedOption] = [
        o.model_copy(update={"calibration": calibration}) if o.id in targets else o for o in scenario.owned_options
    ]
    data = scenario.model_dump(mode="json")
    data["owned_options"] = [o.model_dump(mode="json") for o in options]
    return Scenario.model_validate(data)


def calibrated_options(scenario: Scenario) -> tuple[str, ...]:
    """Ids of the owned options that carry a calibration."""
    return tuple(o.id for o in scenario.owned_options if o.calibration is not None)
