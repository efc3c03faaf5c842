"""A measured throughput attached to an owned option: the user's own benchmark replaces the model's capacity.

An owned option may carry a :class:`MeasuredThroughput` (``OwnedOption.measured``): output tokens per second
one replica sustained within the latency targets, with the concurrency and request shape it was measured at.
Wherever owned capacity is computed (:func:`measured_capacity`, called by ``economics.option_costs``), the
measured figure replaces the model's requests per second per replica, so capacity, replicas, cost and routing
follow it on every page, in the CLI and in reviews. Speculative options included: the benchmark measured the
option as deployed, so it replaces the capacity of every decoding variant.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from pydantic import Field

from economics._base import Frozen

__all__ = ["MeasuredThroughput", "measured_capacity"]

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


class MeasuredThroughput(Frozen):
    """One benchmark of one replica of an owned option."""

    output_tokens_per_s: float = Field(
        gt=0, le=1e7, description="output tokens per second one replica sustained within the latency targets [tok/s]"
    )
    concurrency: int = Field(
        default=1, ge=1, le=100_000, description="batch or concurrent requests measured at [count]"
    )
    input_tokens: int = Field(
        default=1000, ge=0, le=10_000_000, description="prompt tokens per request measured [tokens]"
    )
    output_tokens: int = Field(
        default=500, ge=1, le=10_000_000, description="output tokens per request measured [tokens]"
    )
    measured_on: str = Field(default="", max_length=64, description="date of the benchmark [-]")
    note: str = Field(default="", max_length=1000, description="engine, settings, who measured [-]")


def measured_capacity(
    measured: MeasuredThroughput | None,
    output_tokens: FloatArray,
    model_capacity_requests_per_s: FloatArray,
    model_feasible: BoolArray,
) -> tuple[FloatArray, BoolArray]:
    """Requests per second one replica serves: the measured figure when there is one, else the model's.

    Parameters
    ----------
    measured : MeasuredThroughput or None
        The option's benchmark; ``None`` keeps the model's capacity.
    output_tokens : array
        Output tokens per request of each workload ``T_out`` [tokens].
    model_capacity_requests_per_s : array
        The model's SLO capacity per replica ``λ_max`` [req/s].
    model_feasible : array
        Whether the model finds the option feasible for each workload [-].

    Returns
    -------
    (capacity, feasible) : (array, array)
        ``λ_max = measured tok/s ÷ T_out`` [req/s] where measured, else the model's; feasible stays the model's
        (memory fit and latency targets are still checked by the model), a zero-output workload keeps the model.

    Notes
    -----
    The measured tokens per second are applied to every workload's output length, so a benchmark at a very
    different prompt length carries its prefill share with it; the measured shape is stored to make that visible.

    Examples
    --------
    >>> m = MeasuredThroughput(output_tokens_per_s=2000.0)
    >>> cap, ok = measured_capacity(m, np.array([500.0]), np.array([3.0]), np.array([True]))
    >>> float(cap[0]), bool(ok[0])
    (4.0, True)
    """
    if measured is None:
        return model_capacity_requests_per_s, model_feasible
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(output_tokens > 0, measured.output_tokens_per_s / output_tokens, model_capacity_requests_per_s)
    return np.asarray(lam, dtype=np.float64), model_feasible
