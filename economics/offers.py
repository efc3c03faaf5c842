"""Where tokens can come from: rented or owned GPU nodes, and API offers (docs/costs.md#unit-costs)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, ValidationInfo, field_validator

from economics._base import Frozen
from economics.finance.terms import RentalTerms

PricingType = Literal["on-demand", "reserved-1y", "reserved-3y", "spot", "capacity-block", "negotiated", "serverless"]

#: Where a workload's data goes when it runs on a node: the organisation's own premises, a sovereign
#: (in-jurisdiction) cloud, or a third-party provider. APIs are always ``third_party``.
DataLocation = Literal["on_premises", "sovereign_cloud", "third_party"]
DATA_LOCATIONS: tuple[DataLocation, ...] = ("on_premises", "sovereign_cloud", "third_party")

#: How a rented offer is billed: whole instances (every GPU of the node, busy or not) or single GPUs.
RentalUnit = Literal["instance", "gpu"]


class RentedNode(Frozen):
    """A rented node (cloud instance or neocloud): paid per hour whether it works or not."""

    kind: Literal["rented"] = "rented"
    id: str = Field(min_length=1, max_length=64, description="offer id, unique in the scenario")
    name: str = Field(min_length=1, max_length=120, description="display name")
    gpu_id: str = Field(min_length=1, max_length=64, description="id of a GPU in the scenario")
    gpus_per_node: int = Field(default=8, ge=1, le=72, description="GPUs in one node [count]")
    price_usd_per_gpu_hour: float = Field(gt=0, le=1000, description="price per GPU-hour [USD/GPU-h]")
    pricing_type: PricingType = Field(default="on-demand", description="on-demand, reserved, spot, … [-]")
    rental_unit: RentalUnit = Field(
        default="instance",
        description="instance: whole nodes are rented and paid for all their GPUs; gpu: the provider rents "
        "single GPUs [-]",
    )
    data_location: DataLocation = Field(
        default="third_party", description="where the data goes on this node: a rented node is a third party [-]"
    )
    price_id: str | None = Field(
        default=None, max_length=64, description="catalog price id, so the price can be re-read as of a date"
    )
    source: str = Field(default="", max_length=1000, description="where the price comes from")
    as_of: str = Field(default="", max_length=64, description="date of the price")
    billing: RentalTerms | None = Field(
        default=None,
        description="commitment, upfront, spot interruptions, serverless cold start; None = plain hourly billing",
    )


class OwnedNode(Frozen):
    """An owned node: capital recovered over its economic life, plus power, facility and operations."""

    kind: Literal["owned"] = "owned"
    id: str = Field(min_length=1, max_length=64, description="offer id, unique in the scenario")
    name: str = Field(min_length=1, max_length=120, description="display name")
    gpu_id: str = Field(min_length=1, max_length=64, description="id of a GPU in the scenario")
    gpus_per_node: int = Field(default=8, ge=1, le=72, description="GPUs in one node [count]")
    nodes_owned: int = Field(
        default=0,
        ge=0,
        le=100_000,
        description="nodes already bought (sunk fleet; 0 = buy as needed) [count]",
    )
    capex_usd: float = Field(default=280_000, gt=0, le=1e8, description="purchase price of one node [USD]")
    # at least the price book's lower end (economics.prices.OWNED_BOUNDS): a near-zero life overflows the CRF
    economic_life_years: float = Field(default=4.0, ge=0.5, le=15, description="capital recovery period n [years]")
    cost_of_capital_per_year: float = Field(default=0.08, ge=0, le=0.5, description="discount rate r [1/year]")
    node_power_kw: float = Field(default=10.2, gt=0, le=200, description="maximum node input power [kW]")
    power_fraction_idle: float = Field(
        default=0.7, ge=0, le=1, description="drawn power / maximum when idle, f_idle [1]"
    )
    power_fraction_busy: float = Field(
        default=0.7, ge=0, le=1, description="drawn power / maximum when busy, f_max [1]"
    )
    pue: float = Field(
        default=1.3, ge=1, le=3, description="power usage effectiveness (PUE): facility power per unit of IT power [1]"
    )
    electricity_usd_per_kwh: float = Field(default=0.10, ge=0, le=2, description="electricity price [USD/kWh]")
    colocation_usd_per_kw_month: float = Field(
        default=150.0, ge=0, le=2000, description="colocation charge per provisioned kW [USD/(kW·month)]"
    )
    ops_fraction_of_capex_per_year: float = Field(
        default=0.08, ge=0, le=1, description="maintenance, staff and software as a share of CapEx [1/year]"
    )
    ops_fixed_usd_per_hour: float = Field(default=0.0, ge=0, le=1000, description="fixed operations [USD/h]")
    data_location: DataLocation = Field(
        default="on_premises",
        description="where the data goes on this node: on premises, or a sovereign cloud for hosted owned hardware [-]",
    )
    residual_fraction: float = Field(
        default=0.0, ge=0, lt=1, description="resale value at the end of the economic life / CapEx, S/CapEx [1]"
    )
    book_life_years: float | None = Field(
        default=None, gt=0, le=15, description="straight-line book life; None = the economic life [years]"
    )
    maintenance_usd_per_year: float = Field(
        default=0.0, ge=0, le=1e7, description="maintenance contract, on top of ops_fraction [USD/year]"
    )
    source: str = Field(default="", max_length=1000, description="where the inputs come from")
    as_of: str = Field(default="", max_length=64, description="date of the inputs")

    @field_validator("power_fraction_busy")
    @classmethod
    def _busy_draws_at_least_idle(cls, busy: float, info: ValidationInfo) -> float:
        """A node busy below its idle draw made the power of busy hours negative, and with it the bill."""
        idle = info.data.get("power_fraction_idle")
        if idle is not None and busy < idle:
            raise ValueError(
                f"the power drawn when busy ({100 * busy:g}% of maximum) must be at least the power drawn when "
                f"idle ({100 * idle:g}%)"
            )
        return busy


NodeOffer = Annotated[RentedNode | OwnedNode, Field(discriminator="kind")]

ApiTier = Literal["frontier", "reasoning", "mid", "small", "hosted-open", "diffusion"]


class ApiOffer(Frozen):
    """A public API priced per token, with no idle penalty."""

    id: str = Field(min_length=1, max_length=64, description="offer id, unique in the scenario")
    name: str = Field(min_length=1, max_length=120, description="display name")
    provider: str = Field(default="", max_length=64, description="vendor")
    tier: ApiTier = Field(default="frontier", description="frontier, reasoning, hosted-open, diffusion, … [-]")
    input_usd_per_mtok: float = Field(ge=0, le=1000, description="list price of input tokens [USD/Mtok]")
    cached_input_usd_per_mtok: float | None = Field(
        default=None, ge=0, le=1000, description="price of prompt-cache hits; None = no discount [USD/Mtok]"
    )
    output_usd_per_mtok: float = Field(ge=0, le=1000, description="list price of output tokens [USD/Mtok]")
    batch_discount_fraction: float = Field(
        default=0.0, ge=0, lt=1, description="discount of the batch tier; 0 = no batch tier [1]"
    )
    batch_turnaround_s: float = Field(
        default=86_400.0, gt=0, le=1e7, description="turnaround promised by the batch tier [s]"
    )
    negotiated_discount_fraction: float = Field(
        default=0.0, ge=0, lt=1, description="the organisation's negotiated discount on list prices [1]"
    )
    typical_ttft_s: float = Field(default=0.5, ge=0, le=600, description="typical time to first token [s]")
    typical_output_tokens_per_s: float = Field(
        default=80.0, gt=0, le=100_000, description="typical per-stream output speed [tok/s]"
    )
    quality: float = Field(default=0.95, ge=0, le=1, description="probability an output is acceptable q [1]")
    price_id: str | None = Field(
        default=None, max_length=64, description="catalog price id, so the price can be re-read as of a date"
    )
    source: str = Field(default="", max_length=1000, description="where the price comes from")
    as_of: str = Field(default="", max_length=64, description="date of the price")
    long_context_threshold_tokens: int | None = Field(
        default=None, ge=1, le=10_000_000, description="prompts longer than this pay the long-context rates [tokens]"
    )
    long_context_input_usd_per_mtok: float | None = Field(
        default=None, ge=0, le=1000, description="input price above the threshold; None = the input price [USD/Mtok]"
    )
    long_context_output_usd_per_mtok: float | None = Field(
        default=None, ge=0, le=1000, description="output price above the threshold; None = the output price [USD/Mtok]"
    )
    cache_write_usd_per_mtok: float | None = Field(
        default=None, ge=0, le=1000, description="price of writing a prompt-cache entry; None = not billed [USD/Mtok]"
    )
    cache_lifetime_s: float | None = Field(
        default=None, gt=0, le=1e7, description="a cached prefix expires after this long unused; None = never [s]"
    )
