"""The billing terms of a rented offer: commitment, upfront payment, interruptions, cold starts.

A :class:`RentalTerms` rides on :class:`economics.offers.RentedNode` as its optional ``billing`` field. The
offer's ``pricing_type`` says which mode it is (on-demand, reserved-1y/3y, spot, capacity-block,
serverless); the terms carry the numbers that mode needs. Every default reproduces plain hourly billing, so
a scenario saved before these terms existed prices exactly as before.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from economics._base import Frozen


class RentalTerms(Frozen):
    """What a rental costs beyond its hourly rate, and what it cannot carry."""

    upfront_usd_per_gpu: float = Field(
        default=0.0, ge=0, le=1e7, description="paid once at the start of the term, per GPU [USD/GPU]"
    )
    term_days: float | None = Field(
        default=None,
        gt=0,
        le=1826,
        description="commitment term; None = the pricing type's (365 for reserved-1y, 1095 for reserved-3y, "
        "none for on-demand, spot and serverless) [days]",
    )
    committed_nodes: int = Field(
        default=0, ge=0, le=100_000, description="nodes committed for the term, paid whether used or not [count]"
    )
    interruptions_per_hour: float = Field(default=0.0, ge=0, le=10, description="spot: reclaims per node-hour, ι [1/h]")
    interruption_loss_s: float = Field(
        default=0.0,
        ge=0,
        le=86_400,
        description="spot: work restarted plus time to replace the node, per interruption, L [s]",
    )
    fallback_usd_per_gpu_hour: float | None = Field(
        default=None,
        gt=0,
        le=1000,
        description="spot: on-demand price that carries the load while spot capacity is replaced; None = no "
        "fallback (then a latency-bound workload cannot run on it) [USD/GPU-h]",
    )
    cold_start_s: float = Field(
        default=0.0, ge=0, le=3600, description="serverless: start-up time added to the first request after idle [s]"
    )
    min_billing_increment_s: float = Field(
        default=1.0, gt=0, le=3600, description="serverless: busy time is billed in whole increments of this [s]"
    )
    idle_timeout_s: float = Field(
        default=0.0,
        ge=0,
        le=86_400,
        description="serverless: an idle container stays up (and billed) this long before it scales to zero; "
        "0 = at once [s]",
    )
    keep_warm: bool = Field(
        default=False,
        description="serverless: keep one container up through every hour with demand, so no request waits "
        "for a cold start (those hours are billed) [-]",
    )

    @model_validator(mode="after")
    def _check(self) -> RentalTerms:
        if self.interruptions_per_hour * self.interruption_loss_s >= 3600.0:
            raise ValueError(
                "interruptions_per_hour × interruption_loss_s must stay below one hour per hour: "
                "the node would never finish any work"
            )
        return self
