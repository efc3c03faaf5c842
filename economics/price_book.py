"""The price book: every price a scenario uses, with its source, its date and whether it is stale.

A price is *stale* when its as-of date is more than ``Policy.stale_after_days`` (default 90) days before the
scenario's ``review_date``; a price with no readable date is stale too, because nobody can say how old it is.

Negotiated prices (a rented node's $/GPU-h, a reserved-capacity discount, an API discount or negotiated
per-token rates, an owned node's CapEx or power contract) are :class:`NegotiatedPrice` rows applied with
:func:`apply_negotiated`. The CSV import and template are in :mod:`economics.io.price_csv`.

>>> from economics.price_book import parse_as_of
>>> parse_as_of("2025-07"), parse_as_of("2025-07-15"), parse_as_of("Q3 2025")
(datetime.date(2025, 7, 1), datetime.date(2025, 7, 15), None)
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import pandas as pd
from pydantic import Field, ValidationError, field_validator

from economics._base import Frozen
from economics.offers import ApiOffer, OwnedNode, RentedNode
from economics.price_text import date_range_problem
from economics.result import Result
from economics.scenario import Scenario

__all__ = [
    "ITEM_LABEL",
    "NEGOTIABLE_ITEMS",
    "PRICE_BOOK_COLUMNS",
    "NegotiatedItem",
    "NegotiatedPrice",
    "NegotiatedPriceError",
    "OfferKind",
    "PriceEntry",
    "PriceItem",
    "apply_negotiated",
    "check_negotiated",
    "check_value",
    "negotiable_items",
    "parse_as_of",
    "price_book",
    "price_book_frame",
]

OfferKind = Literal["rented", "owned", "api"]
PriceItem = Literal[
    "gpu_hour",
    "node_capex",
    "electricity",
    "colocation",
    "api_input",
    "api_cached_input",
    "api_output",
    "api_cache_write",
    "api_long_context_input",
    "api_long_context_output",
    "reserved_upfront",
]
#: Each price item in words, for tables a person reads (the app's price book and the meeting pack's).
ITEM_LABEL: dict[str, str] = {
    "gpu_hour": "Rental price per GPU-hour",
    "node_capex": "Purchase price per node",
    "electricity": "Electricity per kWh",
    "colocation": "Colocation per kW-month",
    "api_input": "Input tokens, per million",
    "api_cached_input": "Cached input tokens, per million",
    "api_output": "Output tokens, per million",
    "api_cache_write": "Cache writes, per million tokens",
    "api_long_context_input": "Long-context input tokens, per million",
    "api_long_context_output": "Long-context output tokens, per million",
    "reserved_upfront": "Reserved: paid up front, per GPU",
}
NegotiatedItem = Literal[
    "gpu_hour_price",
    "reserved_discount",
    "node_capex",
    "electricity_price",
    "api_discount",
    "api_input_price",
    "api_cached_input_price",
    "api_output_price",
]


class _Rule(Frozen):
    kind: OfferKind
    unit: str
    low: float
    high: float
    low_inclusive: bool
    high_inclusive: bool
    help: str


#: What each negotiated item means, which offers it applies to and its valid range (the offer models' bounds).
NEGOTIABLE_ITEMS: dict[str, _Rule] = {
    "gpu_hour_price": _Rule(
        kind="rented",
        unit="USD/GPU-h",
        low=0,
        high=1000,
        low_inclusive=False,
        high_inclusive=True,
        help="negotiated price of a rented node, per GPU-hour",
    ),
    "reserved_discount": _Rule(
        kind="rented",
        unit="fraction",
        low=0,
        high=1,
        low_inclusive=True,
        high_inclusive=False,
        help="reserved-capacity discount off the node's current (on-demand) price, 0.3 or 30%",
    ),
    "node_capex": _Rule(
        kind="owned",
        unit="USD",
        low=0,
        high=1e8,
        low_inclusive=False,
        high_inclusive=True,
        help="negotiated purchase price of one owned node",
    ),
    "electricity_price": _Rule(
        kind="owned",
        unit="USD/kWh",
        low=0,
        high=2,
        low_inclusive=True,
        high_inclusive=True,
        help="power contract of an owned node",
    ),
    "api_discount": _Rule(
        kind="api",
        unit="fraction",
        low=0,
        high=1,
        low_inclusive=True,
        high_inclusive=False,
        help="negotiated discount on the API's list prices, 0.2 or 20%",
    ),
    "api_input_price": _Rule(
        kind="api",
        unit="USD/Mtok",
        low=0,
        high=1000,
        low_inclusive=True,
        high_inclusive=True,
        help="negotiated input-token price (replaces the list price)",
    ),
    "api_cached_input_price": _Rule(
        kind="api",
        unit="USD/Mtok",
        low=0,
        high=1000,
        low_inclusive=True,
        high_inclusive=True,
        help="negotiated price of prompt-cache hits",
    ),
    "api_output_price": _Rule(
        kind="api",
        unit="USD/Mtok",
        low=0,
        high=1000,
        low_inclusive=True,
        high_inclusive=True,
        help="negotiated output-token price (replaces the list price)",
    ),
}

#: Pairs that cannot both be given for one offer: which one wins would be a guess.
_CONFLICTS: tuple[tuple[str, str], ...] = (
    ("gpu_hour_price", "reserved_discount"),
    ("api_discount", "api_input_price"),
    ("api_discount", "api_output_price"),
    ("api_discount", "api_cached_input_price"),
)


class PriceEntry(Frozen):
    """One price a scenario uses, as the price book shows it and a saved review stores it."""

    offer_id: str = Field(description="id of the node or API offer [-]")
    offer_name: str = Field(description="display name of the offer [-]")
    offer_kind: OfferKind = Field(description="rented node, owned node or API [-]")
    item: PriceItem = Field(description="which price of the offer [-]")
    unit: str = Field(description="unit of list_value and value [-]")
    list_value: float = Field(description="price before the negotiated discount [unit]")
    discount_fraction: float = Field(ge=0, lt=1, description="negotiated discount applied to list_value [1]")
    value: float = Field(description="price in use: list_value·(1 − discount_fraction) [unit]")
    negotiated: bool = Field(description="the organisation's negotiated price or discount is in effect [-]")
    pricing_type: str = Field(description="on-demand, reserved-1y, negotiated, … ('' for APIs and owned) [-]")
    price_id: str | None = Field(description="catalog price id, if the price came from the catalog [-]")
    source: str = Field(description="where the price comes from [-]")
    as_of_text: str = Field(description="the as-of date as written in the offer [-]")
    as_of: dt.date | None = Field(description="the as-of date, parsed; None when missing or unreadable [-]")
    age_days: int | None = Field(description="review date minus as-of date [days]")
    stale: bool = Field(description="older than the policy's stale_after_days, or undated [-]")

    @property
    def key(self) -> tuple[str, str]:
        """``(offer_id, item)``: identifies a price across two versions of a scenario."""
        return (self.offer_id, self.item)


#: Columns of :func:`price_book_frame`, in order, with their meaning (units in brackets).
PRICE_BOOK_COLUMNS: dict[str, str] = {
    name: str(field.description) for name, field in PriceEntry.model_fields.items() if name != "as_of_text"
} | {"in_chosen_route": "the price feeds a route chosen by the result (False when no result given) [-]"}

_DATE_RE = re.compile(r"^\s*([0-9]{4})-([0-9]{2})(?:-([0-9]{2}))?\s*$")


def parse_as_of(text: str) -> dt.date | None:
    """Read an as-of date written ``YYYY-MM-DD`` or ``YYYY-MM`` (first of the month); None otherwise.

    A month is read as its first day, the conservative choice for a staleness check.
    """
    match = _DATE_RE.match(text or "")
    if match is None:
        return None
    year, month, day = int(match[1]), int(match[2]), int(match[3] or 1)
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _entry(
    scenario: Scenario,
    offer: RentedNode | OwnedNode | ApiOffer,
    item: PriceItem,
    unit: str,
    list_value: float,
    *,
    discount: float = 0.0,
    negotiated: bool = False,
    pricing_type: str = "",
) -> PriceEntry:
    as_of = parse_as_of(offer.as_of)
    age = None if as_of is None else (scenario.review_date - as_of).days
    stale = age is None or age > scenario.policy.stale_after_days
    return PriceEntry(
        offer_id=offer.id,
        offer_name=offer.name,
        offer_kind=offer.kind if not isinstance(offer, ApiOffer) else "api",
        item=item,
        unit=unit,
        list_value=list_value,
        discount_fraction=discount,
        value=list_value * (1.0 - discount),
        negotiated=negotiated,
        pricing_type=pricing_type,
        price_id=getattr(offer, "price_id", None),
        source=offer.source,
        as_of_text=offer.as_of,
        as_of=as_of,
        age_days=age,
        stale=stale,
    )


def price_book(scenario: Scenario) -> tuple[PriceEntry, ...]:
    """Every price the scenario uses: rented $/GPU-h, owned CapEx, power and colocation, API token prices.

    API entries show the list price, the negotiated discount and the price in use; a rented node's
    ``negotiated`` flag is set when its ``pricing_type`` is ``"negotiated"``.
    """
    entries: list[PriceEntry] = []
    for node in scenario.nodes:
        if isinstance(node, RentedNode):
            entries.append(
                _entry(
                    scenario,
                    node,
                    "gpu_hour",
                    "USD/GPU-h",
                    node.price_usd_per_gpu_hour,
                    negotiated=node.pricing_type == "negotiated",
                    pricing_type=node.pricing_type,
                )
            )
            if node.billing is not None and node.billing.upfront_usd_per_gpu > 0:
                entries.append(
                    _entry(
                        scenario,
                        node,
                        "reserved_upfront",
                        "USD/GPU",
                        node.billing.upfront_usd_per_gpu,
                        pricing_type=node.pricing_type,
                    )
                )
        else:
            entries.append(_entry(scenario, node, "node_capex", "USD", node.capex_usd))
            entries.append(_entry(scenario, node, "electricity", "USD/kWh", node.electricity_usd_per_kwh))
            entries.append(_entry(scenario, node, "colocation", "USD/(kW·month)", node.colocation_usd_per_kw_month))
    for api in scenario.apis:
        d = api.negotiated_discount_fraction
        neg = d > 0 or api.source.startswith("negotiated")
        entries.append(
            _entry(scenario, api, "api_input", "USD/Mtok", api.input_usd_per_mtok, discount=d, negotiated=neg)
        )
        if api.cached_input_usd_per_mtok is not None:
            entries.append(
                _entry(
                    scenario,
                    api,
                    "api_cached_input",
                    "USD/Mtok",
                    api.cached_input_usd_per_mtok,
                    discount=d,
                    negotiated=neg,
                )
            )
        entries.append(
            _entry(scenario, api, "api_output", "USD/Mtok", api.output_usd_per_mtok, discount=d, negotiated=neg)
        )
        tiers: tuple[tuple[PriceItem, float | None], ...] = (  # where priced (data/prices/api_tiers.csv)
            ("api_cache_write", api.cache_write_usd_per_mtok),
            ("api_long_context_input", api.long_context_input_usd_per_mtok),
            ("api_long_context_output", api.long_context_output_usd_per_mtok),
        )
        for item, value in tiers:
            if value is not None:
                entries.append(_entry(scenario, api, item, "USD/Mtok", value, discount=d, negotiated=neg))
    return tuple(entries)


def _offers_in_chosen_routes(scenario: Scenario, result: Result) -> set[str]:
    chosen = {d.chosen_option_id for d in result.decisions if d.chosen_option_id is not None}
    offers = {a.id for a in scenario.apis if a.id in chosen}
    offers |= {o.node_id for o in scenario.owned_options if o.id in chosen}
    return offers


def price_book_frame(scenario: Scenario, result: Result | None = None) -> pd.DataFrame:
    """:func:`price_book` as a DataFrame with the columns of :data:`PRICE_BOOK_COLUMNS`.

    With a ``result``, ``in_chosen_route`` marks the prices that feed a route the result chose.
    """
    used = _offers_in_chosen_routes(scenario, result) if result is not None else set()
    rows = [
        {**e.model_dump(exclude={"as_of_text"}), "in_chosen_route": e.offer_id in used} for e in price_book(scenario)
    ]
    frame = pd.DataFrame(rows, columns=list(PRICE_BOOK_COLUMNS))
    frame["age_days"] = frame["age_days"].astype("Int64")  # missing dates stay <NA>, not a float NaN
    return frame


# ---- negotiated prices ---------------------------------------------------------------------------------


class NegotiatedPrice(Frozen):
    """One negotiated price or discount for one offer of a scenario."""

    offer_id: str = Field(min_length=1, max_length=64, description="id of a node or API offer [-]")
    item: NegotiatedItem = Field(description="which price (see NEGOTIABLE_ITEMS) [-]")
    value: float = Field(allow_inf_nan=False, description="the price or discount, in the item's unit [unit]")
    as_of: dt.date | None = Field(default=None, description="date of the agreement; None = the review date [-]")
    source: str = Field(default="", max_length=500, description="contract or quote reference [-]")

    @field_validator("as_of")
    @classmethod
    def _plausible_date(cls, value: dt.date | None) -> dt.date | None:
        if value is not None and (problem := date_range_problem(value)) is not None:
            raise ValueError(problem)
        return value


class NegotiatedPriceError(ValueError):
    """Negotiated prices that cannot be applied; ``problems`` holds one message per problem."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = tuple(problems)


def negotiable_items(kind: OfferKind) -> tuple[str, ...]:
    """The negotiated items that apply to an offer of this kind."""
    return tuple(name for name, rule in NEGOTIABLE_ITEMS.items() if rule.kind == kind)


def _offer_kinds(scenario: Scenario) -> dict[str, OfferKind]:
    kinds: dict[str, OfferKind] = {n.id: n.kind for n in scenario.nodes}
    kinds.update({a.id: "api" for a in scenario.apis})
    return kinds


def check_value(item: str, value: float) -> str | None:
    """Why ``value`` is out of range for ``item``, or None when it is fine."""
    rule = NEGOTIABLE_ITEMS[item]
    low_ok = value >= rule.low if rule.low_inclusive else value > rule.low
    high_ok = value <= rule.high if rule.high_inclusive else value < rule.high
    if low_ok and high_ok:
        return None
    lo = "at least" if rule.low_inclusive else "more than"
    hi = "at most" if rule.high_inclusive else "less than"
    hint = " (write 0.3 or 30% for 30 percent)" if rule.unit == "fraction" and value >= 1 else ""
    return (
        f"{value:,.10g} is out of range for {item}: must be {lo} {rule.low:,.10g} and {hi} {rule.high:,.10g} "
        f"{rule.unit}{hint}"
    )


def check_negotiated(
    scenario: Scenario, prices: Iterable[NegotiatedPrice], labels: Sequence[str] | None = None
) -> list[tuple[int, str, str]]:
    """Problems with a set of negotiated prices as ``(index, column, reason)``; empty when they all apply.

    ``labels[i]`` names price ``i`` in messages that refer to another price (default ``"row i+1"``).

    Checks: the offer exists, the item applies to its kind, the value is in range, no (offer, item) twice,
    no conflicting pair on one offer, and a reserved discount only on a node whose price is not already
    negotiated (applying a discount twice would compound it).
    """
    kinds = _offer_kinds(scenario)
    nodes = {n.id: n for n in scenario.nodes}

    def name(i: int) -> str:
        return labels[i] if labels is not None else f"row {i + 1}"

    problems: list[tuple[int, str, str]] = []
    seen: dict[tuple[str, str], int] = {}
    items_by_offer: dict[str, dict[str, int]] = {}
    for i, p in enumerate(prices):
        kind = kinds.get(p.offer_id)
        if kind is None:
            problems.append((i, "offer_id", f"unknown offer id {p.offer_id!r}; known: {', '.join(sorted(kinds))}"))
            continue
        rule = NEGOTIABLE_ITEMS[p.item]
        if rule.kind != kind:
            allowed = ", ".join(negotiable_items(kind))
            problems.append((i, "item", f"{p.item} does not apply to {kind} offer {p.offer_id!r}; use {allowed}"))
            continue
        reason = check_value(p.item, p.value)
        if reason is not None:
            problems.append((i, "value", reason))
        key = (p.offer_id, p.item)
        if key in seen:
            problems.append(
                (i, "item", f"duplicate: {p.item} for {p.offer_id!r} is already given on {name(seen[key])}")
            )
            continue
        seen[key] = i
        items_by_offer.setdefault(p.offer_id, {})[p.item] = i
        node = nodes.get(p.offer_id)
        if p.item == "reserved_discount" and isinstance(node, RentedNode) and node.pricing_type == "negotiated":
            problems.append(
                (
                    i,
                    "item",
                    f"{p.offer_id!r} already has a negotiated price (${node.price_usd_per_gpu_hour:g}/GPU-h); "
                    "a discount on it would compound, give gpu_hour_price instead",
                )
            )
    for offer_id, items in items_by_offer.items():
        for a, b in _CONFLICTS:
            if a in items and b in items:
                problems.append(
                    (max(items[a], items[b]), "item", f"{a} and {b} both given for {offer_id!r}; give one of them")
                )
    return sorted(problems)


def _provenance(p: NegotiatedPrice, review_date: dt.date, what: str) -> dict[str, Any]:
    ref = f" ({p.source})" if p.source else ""
    return {"source": f"negotiated: {what}{ref}", "as_of": (p.as_of or review_date).isoformat()}


def apply_negotiated(scenario: Scenario, prices: Sequence[NegotiatedPrice]) -> Scenario:
    """The scenario with the negotiated prices applied; the offers' ``source`` and ``as_of`` record them.

    Nothing is applied unless every price applies (:func:`check_negotiated`); otherwise
    :class:`NegotiatedPriceError` lists the problems. A reserved discount multiplies the node's current
    price by ``1 − d`` and marks it ``negotiated``; an API discount sets ``negotiated_discount_fraction``;
    negotiated token prices replace the list prices and clear the discount.

    A negotiated node price or token price is no longer a catalog list price, so its ``price_id`` is
    cleared: repricing to a later date (:func:`economics.pricing.reprice`) keeps it instead of reverting
    it to the list price. An API discount keeps the ``price_id``: the discount applies to whatever list
    price is in force.
    """
    problems = check_negotiated(scenario, prices)
    if problems:
        raise NegotiatedPriceError([f"row {i + 1}, {col}: {reason}" for i, col, reason in problems])
    by_offer: dict[str, list[NegotiatedPrice]] = {}
    for p in prices:
        by_offer.setdefault(p.offer_id, []).append(p)
    data = scenario.model_dump(mode="json")
    for node in data["nodes"]:
        for p in by_offer.get(node["id"], []):
            if p.item == "gpu_hour_price":
                node.update(price_usd_per_gpu_hour=p.value, pricing_type="negotiated", price_id=None)
                node.update(_provenance(p, scenario.review_date, f"${p.value:g}/GPU-h"))
            elif p.item == "reserved_discount":
                old = node["price_usd_per_gpu_hour"]
                node.update(price_usd_per_gpu_hour=old * (1.0 - p.value), pricing_type="negotiated", price_id=None)
                node.update(_provenance(p, scenario.review_date, f"{p.value:.0%} reserved discount on ${old:g}/GPU-h"))
            elif p.item == "node_capex":
                node.update(capex_usd=p.value, **_provenance(p, scenario.review_date, f"CapEx ${p.value:,.0f}"))
            elif p.item == "electricity_price":
                node.update(electricity_usd_per_kwh=p.value)
                node.update(_provenance(p, scenario.review_date, f"power ${p.value:g}/kWh"))
    field_of = {
        "api_input_price": "input_usd_per_mtok",
        "api_cached_input_price": "cached_input_usd_per_mtok",
        "api_output_price": "output_usd_per_mtok",
    }
    for api in data["apis"]:
        what: list[str] = []
        mine = by_offer.get(api["id"], [])
        for p in mine:
            if p.item == "api_discount":
                api["negotiated_discount_fraction"] = p.value
                what.append(f"{p.value:.0%} discount")
            else:
                api[field_of[p.item]] = p.value
                api["negotiated_discount_fraction"] = 0.0
                api["price_id"] = None
                what.append(f"{p.item.removeprefix('api_').removesuffix('_price')} ${p.value:g}/Mtok")
        if mine:
            api.update(_provenance(mine[0], scenario.review_date, ", ".join(what)))
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:  # the range checks above mirror the models' bounds; this is a safety net
        raise NegotiatedPriceError([f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]) from None
