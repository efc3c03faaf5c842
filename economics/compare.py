"""Compare two reviews, or a review with today's prices: what changed, which routes flipped, cost deltas.

A :class:`Snapshot` is a scenario with its result and resolved prices: a saved review
(:meth:`Snapshot.from_review`) or a scenario evaluated now (:meth:`Snapshot.evaluated`).
:func:`compare` diffs two snapshots; :func:`compare_with_prices` reprices a review's scenario to a date
from the catalog, evaluates it and diffs the review against that.

The three tables are DataFrames whose columns are documented in :data:`PRICE_CHANGE_COLUMNS`,
:data:`WORKLOAD_DELTA_COLUMNS` and :data:`FLEET_DELTA_COLUMNS`. Changes are ``after − before``.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

import pandas as pd
from pydantic import Field

from economics._base import Frozen
from economics.catalog import Catalog
from economics.evaluate import evaluate
from economics.price_book import PriceEntry, price_book
from economics.pricing import reprice
from economics.result import OptionResult, Result, WorkloadDecision
from economics.review import SavedReview
from economics.scenario import Scenario

__all__ = [
    "FLEET_DELTA_COLUMNS",
    "PRICE_CHANGE_COLUMNS",
    "WORKLOAD_DELTA_COLUMNS",
    "Comparison",
    "Snapshot",
    "compare",
    "compare_with_prices",
]

#: Columns of :attr:`Comparison.prices` (one row per price that changed, appeared or disappeared).
PRICE_CHANGE_COLUMNS: dict[str, str] = {
    "offer_id": "id of the node or API offer [-]",
    "offer_name": "display name of the offer [-]",
    "item": "which price of the offer (price_book item) [-]",
    "unit": "unit of before and after [-]",
    "before": "price in use in the first snapshot; NaN if absent [unit]",
    "after": "price in use in the second snapshot; NaN if absent [unit]",
    "change": "after − before [unit]",
    "change_fraction": "change / before; NaN when before is 0 or absent [1]",
    "before_as_of": "as-of date of the first price [-]",
    "after_as_of": "as-of date of the second price [-]",
    "status": "changed, added or removed [-]",
}

#: Columns of :attr:`Comparison.workloads` (one row per workload in either snapshot).
WORKLOAD_DELTA_COLUMNS: dict[str, str] = {
    "workload_id": "workload id [-]",
    "workload_name": "display name [-]",
    "route_before": "option chosen in the first snapshot ('' if none or absent) [-]",
    "route_after": "option chosen in the second snapshot [-]",
    "route_before_name": "display name of the option chosen in the first snapshot ('' if none) [-]",
    "route_after_name": "display name of the option chosen in the second snapshot ('' if none) [-]",
    "label_before": "quadrant label in the first snapshot [-]",
    "label_after": "quadrant label in the second snapshot [-]",
    "flipped": "the chosen option changed [-]",
    "monthly_cost_before_usd": "cost of the chosen route [USD/month]",
    "monthly_cost_after_usd": "cost of the chosen route [USD/month]",
    "monthly_cost_change_usd": "after − before [USD/month]",
    "cost_per_mtok_before_usd": "all-in cost of the chosen route per million output tokens [USD/Mtok]",
    "cost_per_mtok_after_usd": "all-in cost of the chosen route per million output tokens [USD/Mtok]",
    "cost_per_mtok_change_usd": "after − before [USD/Mtok]",
    "status": "in both, added or removed [-]",
}

#: Columns of :attr:`Comparison.fleet` (one row per fleet figure).
FLEET_DELTA_COLUMNS: dict[str, str] = {
    "metric": "FleetSummary field [-]",
    "label": "what it is [-]",
    "unit": "unit of before and after [-]",
    "before": "value in the first snapshot [unit]",
    "after": "value in the second snapshot [unit]",
    "change": "after − before [unit]",
}

_FLEET_METRICS: tuple[tuple[str, str, str], ...] = (
    ("total_cost_usd_per_month", "total cost", "USD/month"),
    ("owned_cost_usd_per_month", "owned fleet", "USD/month"),
    ("rented_cost_usd_per_month", "rented nodes", "USD/month"),
    ("api_cost_usd_per_month", "API spend", "USD/month"),
    ("idle_cost_usd_per_month", "idle owned capacity", "USD/month"),
    ("all_api_cost_usd_per_month", "everything on APIs", "USD/month"),
    ("owned_gpus", "owned GPUs", "count"),
    ("owned_utilization", "owned utilization", "1"),
)


class Snapshot(Frozen):
    """A scenario, its result and its resolved prices, with a label for tables and charts."""

    label: str = Field(description="how tables and charts name this side [-]")
    scenario: Scenario = Field(description="the scenario [-]")
    result: Result = Field(description="its result (stored or evaluated) [-]")
    prices: tuple[PriceEntry, ...] = Field(description="its resolved prices [-]")

    @classmethod
    def from_review(cls, review: SavedReview, label: str | None = None) -> Snapshot:
        """A saved review as stored (not recomputed)."""
        default = f"{review.name} ({review.summary.review_date.isoformat()})"
        return cls(label=label or default, scenario=review.scenario, result=review.result, prices=review.prices)

    @classmethod
    def evaluated(cls, scenario: Scenario, label: str) -> Snapshot:
        """Evaluate ``scenario`` now and read its price book."""
        return cls(label=label, scenario=scenario, result=evaluate(scenario), prices=price_book(scenario))


@dataclass(frozen=True)
class Comparison:
    """What changed from ``before`` to ``after``. Tables are DataFrames with documented columns."""

    before_label: str
    after_label: str
    before_date: dt.date
    after_date: dt.date
    prices: pd.DataFrame  # PRICE_CHANGE_COLUMNS
    workloads: pd.DataFrame  # WORKLOAD_DELTA_COLUMNS
    fleet: pd.DataFrame  # FLEET_DELTA_COLUMNS

    @property
    def flipped(self) -> pd.DataFrame:
        """The workloads whose route changed."""
        return self.workloads[self.workloads["flipped"]].reset_index(drop=True)

    @property
    def total_change_usd_per_month(self) -> float:
        """Change of the fleet's total monthly cost [USD/month]."""
        row = self.fleet[self.fleet["metric"] == "total_cost_usd_per_month"]
        return float(row["change"].iloc[0])


def _nan(x: float | None) -> float:
    return math.nan if x is None else float(x)


def _price_changes(before: tuple[PriceEntry, ...], after: tuple[PriceEntry, ...]) -> pd.DataFrame:
    old = {e.key: e for e in before}
    new = {e.key: e for e in after}
    rows = []
    for key in list(old) + [k for k in new if k not in old]:
        a, b = old.get(key), new.get(key)
        if a is not None and b is not None and math.isclose(a.value, b.value, rel_tol=1e-12, abs_tol=0.0):
            continue
        ref = b or a
        assert ref is not None  # a key comes from one of the two dicts
        va, vb = (a.value if a else math.nan), (b.value if b else math.nan)
        status = "changed" if a and b else ("added" if b else "removed")
        rows.append(
            {
                "offer_id": ref.offer_id,
                "offer_name": ref.offer_name,
                "item": ref.item,
                "unit": ref.unit,
                "before": va,
                "after": vb,
                "change": vb - va,
                "change_fraction": (vb - va) / va if a and va != 0 else math.nan,
                "before_as_of": a.as_of if a else None,
                "after_as_of": b.as_of if b else None,
                "status": status,
            }
        )
    return pd.DataFrame(rows, columns=list(PRICE_CHANGE_COLUMNS))


def _chosen_option(result: Result, decision: WorkloadDecision) -> OptionResult | None:
    return next(
        (
            o
            for o in result.options
            if o.workload_id == decision.workload_id and o.option_id == decision.chosen_option_id
        ),
        None,
    )


def _workload_deltas(before: Result, after: Result) -> pd.DataFrame:
    old = {d.workload_id: d for d in before.decisions}
    new = {d.workload_id: d for d in after.decisions}
    rows = []
    for wid in list(old) + [w for w in new if w not in old]:
        a, b = old.get(wid), new.get(wid)
        ref = b or a
        assert ref is not None
        oa = _chosen_option(before, a) if a else None
        ob = _chosen_option(after, b) if b else None
        cost_a, cost_b = (a.monthly_cost_usd if a else math.nan), (b.monthly_cost_usd if b else math.nan)
        mtok_a = oa.cost_usd_per_mtok_output if oa else math.nan
        mtok_b = ob.cost_usd_per_mtok_output if ob else math.nan
        route_a = (a.chosen_option_id or "") if a else ""
        route_b = (b.chosen_option_id or "") if b else ""
        rows.append(
            {
                "workload_id": wid,
                "workload_name": ref.workload_name,
                "route_before": route_a,
                "route_after": route_b,
                "route_before_name": oa.option_name if oa else "",
                "route_after_name": ob.option_name if ob else "",
                "label_before": a.route_label if a else "",
                "label_after": b.route_label if b else "",
                "flipped": bool(a and b and route_a != route_b),
                "monthly_cost_before_usd": cost_a,
                "monthly_cost_after_usd": cost_b,
                "monthly_cost_change_usd": cost_b - cost_a,
                "cost_per_mtok_before_usd": mtok_a,
                "cost_per_mtok_after_usd": mtok_b,
                "cost_per_mtok_change_usd": mtok_b - mtok_a,
                "status": "in both" if a and b else ("added" if b else "removed"),
            }
        )
    return pd.DataFrame(rows, columns=list(WORKLOAD_DELTA_COLUMNS))


def _fleet_deltas(before: Result, after: Result) -> pd.DataFrame:
    rows = []
    for metric, label, unit in _FLEET_METRICS:
        va = _nan(getattr(before.fleet, metric))
        vb = _nan(getattr(after.fleet, metric))
        rows.append({"metric": metric, "label": label, "unit": unit, "before": va, "after": vb, "change": vb - va})
    return pd.DataFrame(rows, columns=list(FLEET_DELTA_COLUMNS))


def compare(before: Snapshot, after: Snapshot) -> Comparison:
    """Prices that changed, routes that flipped, and cost deltas per workload and for the fleet.

    Prices are matched by ``(offer_id, item)`` and workloads by id; an item or workload present on one side
    only is listed as added or removed (its missing side is NaN). Only changed prices are listed.
    """
    return Comparison(
        before_label=before.label,
        after_label=after.label,
        before_date=before.scenario.review_date,
        after_date=after.scenario.review_date,
        prices=_price_changes(before.prices, after.prices),
        workloads=_workload_deltas(before.result, after.result),
        fleet=_fleet_deltas(before.result, after.result),
    )


def compare_with_prices(review: SavedReview | Snapshot, catalog: Catalog, as_of: dt.date) -> Comparison:
    """A review (as saved) or a snapshot against its scenario repriced from the catalog as of ``as_of``.

    Offers with a catalog ``price_id`` take the list price in force on ``as_of``; negotiated discounts, owned
    nodes and hand-entered prices are kept (:func:`economics.pricing.reprice`), and the repriced scenario is
    evaluated now. The review itself is not recomputed. Raises :class:`~economics.io.scenarios.ScenarioError`
    when a price id has no price on that date.
    """
    before = Snapshot.from_review(review) if isinstance(review, SavedReview) else review
    today = reprice(before.scenario, catalog, as_of)
    return compare(before, Snapshot.evaluated(today, f"prices as of {as_of.isoformat()}"))
