"""A workload: a stream of similar requests with a latency budget, a data rule and a value (MODEL_SPEC §8, §10)."""

from __future__ import annotations

from pydantic import Field, model_validator

from economics._base import Frozen


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

    @model_validator(mode="after")
    def _check(self) -> Workload:
        if self.peak_requests_per_s < self.avg_requests_per_s:
            raise ValueError("peak_requests_per_s must be at least avg_requests_per_s")
        for key, q in self.quality_overrides.items():
            if not 0.0 <= q <= 1.0:
                raise ValueError(f"quality_overrides[{key}] must be between 0 and 1")
        return self

    @property
    def value_usd_per_output_token(self) -> float:
        """The essay's per-token value ``v = C_fail / T_out`` [USD/token]."""
        return self.failure_cost_usd / self.output_tokens
