"""Display kinds: owned options by scheme and speculation, APIs by tier."""

from __future__ import annotations

from economics.io.scenarios import default_scenario
from economics.views.kinds import KIND_ORDER, api_kind, option_kinds, owned_kind


def test_owned_and_api_kinds_of_the_default_scenario() -> None:
    s = default_scenario()
    assert option_kinds(s) == {
        "owned-70b-ar": "owned-ar-spec",
        "owned-8b-ar": "owned-ar-spec",
        "owned-8b-diffusion": "owned-diffusion",
        "frontier-api": "api-frontier",
        "hosted-70b-api": "api-hosted-open",
        "mercury-api": "api-diffusion",
    }


def test_plain_ar_and_unlisted_tiers() -> None:
    s = default_scenario()
    option = s.owned_options[0].model_copy(update={"speculation": None})
    assert owned_kind(option) == "owned-ar"
    api = s.apis[0].model_copy(update={"tier": "reasoning"})
    assert api_kind(api) == "api-frontier"


def test_every_kind_is_ordered_once() -> None:
    assert len(set(KIND_ORDER)) == len(KIND_ORDER) == 6
