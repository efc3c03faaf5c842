"""Owned capacity as it is booked: straight-line book depreciation beside the economic (capital-recovery) view.

Two views of the same purchase:

* **Book view** (what the P&L shows): the purchase price less its residual value, spread evenly over the
  book life, ``D = (CapEx − S)/n_book`` per year, plus the maintenance contract. No cost of capital.
* **Economic view** (what drives the decision): the level annual payment that recovers the purchase and the
  return the money would have earned elsewhere, net of the resale value at the end of life,
  ``A = (CapEx − S)·CRF(r, n) + S·r``, plus maintenance. It is the figure a rental for the same years
  compares with, and the one :func:`economics.costs.owned_node_cost_breakdown` charges per hour.

With ``r = 0`` and the same life both views give the same annual cost; with ``r > 0`` the economic view is
higher because the money tied up in the node costs interest.
"""

from __future__ import annotations

from dataclasses import dataclass

from economics.costs import capital_recovery_factor
from economics.offers import OwnedNode

__all__ = [
    "DECISION_VIEW",
    "BookYear",
    "OwnedBooks",
    "economic_annual_cost_usd",
    "owned_books",
    "straight_line_schedule",
]

#: Which view drives the route and the fleet plan, in plain words for every surface that shows both.
DECISION_VIEW = (
    "The decision uses the economic view: the capital-recovery payment at the cost of capital, net of the resale "
    "value, is what a rental over the same years is compared with. The book view (straight-line depreciation) is "
    "shown for the P&L. Both include the node's maintenance contract when it has one (its own line, zero when none "
    "is set); operations, power and colocation are running costs, in every hour of the node's cost, not here."
)


@dataclass(frozen=True)
class BookYear:
    """One year of a straight-line schedule [USD]."""

    year: int  # 1-based year of the asset's life
    depreciation_usd: float
    book_value_end_usd: float


def straight_line_schedule(capex_usd: float, residual_usd: float, life_years: int) -> tuple[BookYear, ...]:
    """Straight-line book depreciation: ``D = (CapEx − S)/n`` each year, book value falling to ``S`` [USD].

    Parameters
    ----------
    capex_usd : purchase price [USD], > 0
    residual_usd : residual (resale) value at the end of the book life [USD], 0 ≤ S ≤ CapEx
    life_years : book life n [years], ≥ 1

    >>> [(y.depreciation_usd, y.book_value_end_usd) for y in straight_line_schedule(280_000, 40_000, 4)]
    [(60000.0, 220000.0), (60000.0, 160000.0), (60000.0, 100000.0), (60000.0, 40000.0)]
    """
    if life_years < 1:
        raise ValueError(f"life_years must be at least 1, got {life_years}")
    if not 0 <= residual_usd <= capex_usd:
        raise ValueError(f"residual_usd must be between 0 and capex_usd ({capex_usd}), got {residual_usd}")
    d = (capex_usd - residual_usd) / life_years
    return tuple(BookYear(y, d, capex_usd - d * y) for y in range(1, life_years + 1))


def economic_annual_cost_usd(capex_usd: float, residual_usd: float, life_years: float, rate: float) -> float:
    """Capital recovery net of resale: ``A = (CapEx − S)·CRF(r, n) + S·r`` [USD/year].

    Equivalently ``A = CRF·(CapEx − S/(1+r)^n)`` (since ``CRF − r = CRF/(1+r)^n``): the level payment whose
    present value over n years equals the purchase price minus the present value of the resale.

    >>> round(economic_annual_cost_usd(280_000, 0, 4, 0.08), 0)     # 280,000 · 0.301921
    84538.0
    >>> economic_annual_cost_usd(280_000, 40_000, 4, 0.0)            # r = 0: the straight-line figure
    60000.0
    """
    crf = float(capital_recovery_factor(rate, life_years))
    return (capex_usd - residual_usd) * crf + residual_usd * rate


@dataclass(frozen=True)
class OwnedBooks:
    """Both views of one owned node, per year [USD/year], and which one drives the decision."""

    node_id: str
    book_usd_per_year: float  # straight-line depreciation + maintenance
    economic_usd_per_year: float  # capital recovery net of resale + maintenance
    maintenance_usd_per_year: float
    residual_usd: float
    schedule: tuple[BookYear, ...]
    decision_view: str = DECISION_VIEW
    node_name: str = ""  # what a person reads ("Owned 8×H100 node (Singapore)"); "" = the id

    @property
    def interest_usd_per_year(self) -> float:
        """What the economic view adds for the money tied up in the node [USD/year]."""
        return self.economic_usd_per_year - self.book_usd_per_year


def owned_books(node: OwnedNode) -> OwnedBooks:
    """The book and economic views of ``node`` (residual, book life and maintenance from its fields)."""
    residual = node.capex_usd * node.residual_fraction
    book_life = node.book_life_years if node.book_life_years is not None else node.economic_life_years
    schedule = straight_line_schedule(node.capex_usd, residual, max(1, round(book_life)))
    book = (node.capex_usd - residual) / book_life + node.maintenance_usd_per_year
    economic = (
        economic_annual_cost_usd(node.capex_usd, residual, node.economic_life_years, node.cost_of_capital_per_year)
        + node.maintenance_usd_per_year
    )
    return OwnedBooks(node.id, book, economic, node.maintenance_usd_per_year, residual, schedule, node_name=node.name)
