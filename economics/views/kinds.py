"""Display kinds: which family an option belongs to when pages and charts group options.

A domain classification, not a style: an owned option is plain AR, AR with speculation or diffusion (from its
scheme), and an API is a diffusion API, a hosted open-model API or (every other tier) a proprietary frontier
API. :mod:`ui.theme` maps each kind to a color and a label.
"""

from __future__ import annotations

from typing import Literal

from economics.offers import ApiOffer
from economics.scenario import OwnedOption, Scenario

DisplayKind = Literal[
    "owned-ar", "owned-ar-spec", "owned-diffusion", "api-frontier", "api-hosted-open", "api-diffusion"
]

#: Every kind, owned before API, in the order legends list them.
KIND_ORDER: tuple[DisplayKind, ...] = (
    "owned-ar",
    "owned-ar-spec",
    "owned-diffusion",
    "api-frontier",
    "api-hosted-open",
    "api-diffusion",
)


def owned_kind(option: OwnedOption) -> DisplayKind:
    """Display kind of an owned option: AR, AR with speculation, or diffusion."""
    if option.scheme.kind == "diffusion":
        return "owned-diffusion"
    return "owned-ar-spec" if option.speculation is not None else "owned-ar"


def api_kind(api: ApiOffer) -> DisplayKind:
    """Display kind of an API: diffusion and hosted-open tiers have their own kind; every other tier
    (frontier, reasoning, mid, small) is a proprietary "frontier API"."""
    if api.tier == "diffusion":
        return "api-diffusion"
    if api.tier == "hosted-open":
        return "api-hosted-open"
    return "api-frontier"


def option_kinds(scenario: Scenario) -> dict[str, DisplayKind]:
    """Option id → display kind for every owned option and API of the scenario."""
    kinds: dict[str, DisplayKind] = {o.id: owned_kind(o) for o in scenario.owned_options}
    kinds.update({a.id: api_kind(a) for a in scenario.apis})
    return kinds
