"""Re-price a scenario with the catalog prices in force on a date (``--as-of``, stored reviews).

Offers that carry a ``price_id`` take the list price, batch discount, source and as-of date of the
catalog row in force on that date; offers without one (owned nodes, hand-entered quotes) and every
negotiated discount are kept as they are. The review date becomes the as-of date, so that the result
states which prices it used.
"""

from __future__ import annotations

import datetime as dt

from economics._errors import ScenarioError
from economics.catalog import Catalog
from economics.finance.data import api_tiers
from economics.offers import ApiOffer, NodeOffer, RentedNode
from economics.prices import PriceLookupError
from economics.scenario import Scenario


def _reprice_node(node: NodeOffer, catalog: Catalog, as_of: dt.date, where: str, problems: list[str]) -> NodeOffer:
    if not isinstance(node, RentedNode) or node.price_id is None:
        return node
    try:
        row = catalog.instance_price_as_of(node.price_id, as_of)
    except PriceLookupError as e:
        problems.append(f"{where}.price_id: {e}")
        return node
    if row.gpu_id != node.gpu_id:
        problems.append(f"{where}.price_id: {node.price_id!r} prices {row.gpu_id!r} GPUs, the node has {node.gpu_id!r}")
        return node
    return node.model_copy(update=row.node_price_fields())  # its price_id is the row's already


def _reprice_api(api: ApiOffer, catalog: Catalog, as_of: dt.date, where: str, problems: list[str]) -> ApiOffer:
    if api.price_id is None:
        return api
    try:
        row = catalog.api_price_as_of(api.price_id, as_of)
    except PriceLookupError as e:
        problems.append(f"{where}.price_id: {e}")
        return api
    update: dict[str, object] = {
        "input_usd_per_mtok": row.input_usd_per_mtok,
        "cached_input_usd_per_mtok": row.cached_input_usd_per_mtok,
        "output_usd_per_mtok": row.output_usd_per_mtok,
        "batch_discount_fraction": row.batch_discount_fraction or 0.0,
        "source": row.source,
        "as_of": row.as_of.isoformat(),
    }
    tiers = api_tiers().get(api.price_id)
    if tiers is not None:  # long-context tier and cache terms, with their own source (data/prices/api_tiers.csv)
        update.update(tiers.offer_fields())
        if row.cached_input_usd_per_mtok is not None:
            update["cached_input_usd_per_mtok"] = row.cached_input_usd_per_mtok
    return api.model_copy(update=update)


def reprice(scenario: Scenario, catalog: Catalog, as_of: dt.date) -> Scenario:
    """The scenario with every priced offer at the catalog price in force on ``as_of``, reviewed on that date.

    Raises :class:`~economics.io.scenarios.ScenarioError` with one line per offer whose price id is unknown or
    has no price on that date (e.g. ``apis.1.price_id: no API price for 'x' is in force on 2023-01-01; …``).
    """
    problems: list[str] = []
    nodes = tuple(_reprice_node(n, catalog, as_of, f"nodes.{i}", problems) for i, n in enumerate(scenario.nodes))
    apis = tuple(_reprice_api(a, catalog, as_of, f"apis.{i}", problems) for i, a in enumerate(scenario.apis))
    if problems:
        raise ScenarioError(problems)
    data = scenario.model_dump()
    data.update(nodes=[n.model_dump() for n in nodes], apis=[a.model_dump() for a in apis], review_date=as_of)
    return Scenario.model_validate(data)
