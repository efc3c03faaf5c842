"""A workload: a stream of similar requests with a latency budget, a data rule and a value
(docs/serving.md#serving-and-queues, docs/quality.md#expected-cost)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from economics._base import Frozen
from economics.offers import DataLocation

#: Named shapes of a day's demand (see :class:`DemandProfile`).
ProfileShape = Literal["flat", "business_hours", "night_window", "hourly"]
HOURS_PER_DAY = 24


class DemandProfile(Frozen):
    """How a workload's daily volume spreads over the 24 hours of a day (docs/serving.md#serving-and-queues, issue 10).

    * ``flat``: the same rate every hour.
    * ``business_hours`` (default 09–18 local) and ``night_window`` (default 22–06 local): the volume
      falls inside ``[start_hour_local, end_hour_local)`` local time (wrapping past midnight when the end is
      not after the start), with ``off_hours_share`` of it spread evenly over the other hours.
    * ``hourly``: 24 shares in UTC hours, scaled to sum to 1.

    Local hours are turned into UTC hours with ``utc_offset_hours`` (Singapore is +8). The plan checks
    capacity hour by hour in UTC. For a deferrable workload (a deadline of an hour or more, no TTFT/TPOT
    SLO) the hours with a non-zero share are its processing window: the plan may process the day's volume
    in any of them, in the troughs of GPUs that serve other work.
    """

    shape: ProfileShape = Field(default="flat", description="flat, business_hours, night_window or hourly [-]")
    start_hour_local: int | None = Field(
        default=None, ge=0, le=23, description="first hour of the window, local time; None = the shape's default [h]"
    )
    end_hour_local: int | None = Field(
        default=None, ge=0, le=24, description="hour the window ends (exclusive), local time; None = default [h]"
    )
    utc_offset_hours: int = Field(default=0, ge=-12, le=14, description="local time minus UTC [h]")
    off_hours_share: float = Field(
        default=0.0, ge=0, lt=1, description="share of the day's volume outside the window [1]"
    )
    hourly_shares: tuple[float, ...] | None = Field(
        default=None, description="24 non-negative shares of the day's volume by UTC hour (shape hourly) [1]"
    )

    @model_validator(mode="after")
    def _check(self) -> DemandProfile:
        if self.shape == "hourly":
            if self.hourly_shares is None or len(self.hourly_shares) != HOURS_PER_DAY:
                raise ValueError("hourly_shares: shape 'hourly' needs exactly 24 shares, one per UTC hour")
            if any(not (0.0 <= v <= 1e6) for v in self.hourly_shares) or sum(self.hourly_shares) <= 0:
                raise ValueError("hourly_shares: shares must be non-negative and not all zero")
        elif self.hourly_shares is not None:
            raise ValueError("hourly_shares: only shape 'hourly' takes hourly shares")
        return self


#: The smallest average arrival rate a workload may have: about one request in 30 years. Below it the
#: quadrant's demand sweep (× 0.003) and the monthly volumes underflow to 0 [req/s].
MIN_REQUESTS_PER_S = 1e-9


class Workload(Frozen):
    """Requests of one kind: their rate, size, latency SLO, data-sovereignty rule and business value.

    Latency SLOs are off (None) by default. ``failure_cost_usd`` is what a failed task costs the business
    (rework, escalation, lost conversion); ``min_quality`` is a hard floor on an option's quality. Either or
    both may be given; with neither, quality does not enter the decision.
    """

    id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$", description="workload id")
    name: str = Field(min_length=1, max_length=120, description="display name")
    avg_requests_per_s: float = Field(gt=0, le=1e6, description="average arrival rate λ_avg [req/s]")
    peak_requests_per_s: float = Field(gt=0, le=1e6, description="peak arrival rate λ_peak [req/s]")
    input_tokens: int = Field(ge=1, le=2_000_000, description="mean prompt length T_in [tokens]")
    output_tokens: int = Field(ge=1, le=200_000, description="mean output length T_out [tokens]")
    ttft_slo_s: float | None = Field(default=None, gt=0, le=86_400, description="time-to-first-token SLO [s]")
    tpot_slo_s: float | None = Field(default=None, gt=0, le=60, description="time-per-output-token SLO [s]")
    deadline_s: float | None = Field(
        default=None, gt=0, le=1e7, description="end-to-end deadline; ≥ 24 h admits batch APIs [s]"
    )
    prompt_cache_hit_rate: float = Field(default=0.0, ge=0, le=1, description="share of input tokens cached h [1]")
    reasoning_tokens: int = Field(
        default=0, ge=0, le=200_000, description="hidden reasoning tokens per request, billed as output [tokens]"
    )
    sovereign: bool = Field(default=False, description="the data may not leave owned infrastructure [-]")
    failure_cost_usd: float = Field(default=0.0, ge=0, le=1e7, description="cost of a failed task C_fail [USD]")
    min_quality: float | None = Field(default=None, ge=0, le=1, description="lowest acceptable quality [1]")
    max_attempts: int = Field(
        default=1, ge=1, le=10, description="attempts when failures are detectable (1 = no retry) [count]"
    )
    quality_overrides: dict[str, float] = Field(
        default_factory=dict,
        description="option id → quality for this task family, overriding the option's [1]",
    )
    notes: str = Field(default="", max_length=2000, description="assumptions behind the numbers")
    demand_profile: DemandProfile | None = Field(
        default=None,
        description="how the day's volume (avg × 24 h) spreads over the hours; None = size for the peak all day",
    )
    data_locations: tuple[DataLocation, ...] | None = Field(
        default=None,
        description="where the data may go; None = on premises or a sovereign cloud when sovereign, anywhere "
        "otherwise [-]",
    )

    @property
    def allowed_data_locations(self) -> tuple[DataLocation, ...]:
        """Where this workload's data may go: its rule, or the default of its ``sovereign`` flag [-]."""
        if self.data_locations is not None:
            return self.data_locations
        if self.sovereign:
            return ("on_premises", "sovereign_cloud")
        return ("on_premises", "sovereign_cloud", "third_party")

    @model_validator(mode="after")
    def _check(self) -> Workload:
        if self.avg_requests_per_s < MIN_REQUESTS_PER_S:  # 5e-324 passed gt=0, then underflowed to 0 in sweeps
            raise ValueError(
                f"avg_requests_per_s must be at least {MIN_REQUESTS_PER_S:g} (about one request in 30 years)"
            )
        if self.peak_requests_per_s < self.avg_requests_per_s:
            raise ValueError("peak_requests_per_s must be at least avg_requests_per_s")
        for key, q in self.quality_overrides.items():
            if not 0.0 <= q <= 1.0:
                raise ValueError(f"quality_overrides[{key}] must be between 0 and 1")
        return self

    @property
    def decoded_output_tokens(self) -> int:
        """Tokens decoded per request: the visible answer plus hidden reasoning, ``T_out + T_r`` [tokens].

        Every owned cost path (capacity, $/request, $/Mtok) and the API bill count both (docs/costs.md).

        >>> Workload(id="w", name="w", avg_requests_per_s=1, peak_requests_per_s=1, input_tokens=10,
        ...          output_tokens=200, reasoning_tokens=300).decoded_output_tokens
        500
        """
        return self.output_tokens + self.reasoning_tokens

    @property
    def value_usd_per_output_token(self) -> float:
        """The essay's per-token value ``v = C_fail / T_out`` [USD/token]."""
        return self.failure_cost_usd / self.output_tokens
