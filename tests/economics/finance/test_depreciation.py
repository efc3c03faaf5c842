"""Book and economic views of owned capacity, derived by hand."""

from __future__ import annotations

import pytest

from economics.costs import owned_node_cost_breakdown
from economics.finance.depreciation import (
    economic_annual_cost_usd,
    owned_books,
    straight_line_schedule,
)
from economics.offers import OwnedNode


def test_straight_line_schedule_with_residual() -> None:
    # $300,000 node, $60,000 resale after 5 years: (300,000 − 60,000)/5 = $48,000 a year;
    # book values 252,000 · 204,000 · 156,000 · 108,000 · 60,000 (ends at the residual value).
    schedule = straight_line_schedule(300_000.0, 60_000.0, 5)
    assert [y.depreciation_usd for y in schedule] == [48_000.0] * 5
    assert [y.book_value_end_usd for y in schedule] == [252_000.0, 204_000.0, 156_000.0, 108_000.0, 60_000.0]


def test_straight_line_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="residual_usd"):
        straight_line_schedule(100.0, 200.0, 3)
    with pytest.raises(ValueError, match="life_years"):
        straight_line_schedule(100.0, 0.0, 0)


def test_economic_view_closed_form() -> None:
    # r = 10%, n = 2, CapEx 100, S = 21: CRF(0.1, 2) = 0.1·1.21/0.21 = 0.576190…
    # A = (100 − 21)·0.576190 + 21·0.1 = 45.519 + 2.1 = 47.619; check by PV: 47.619/1.1 + 47.619/1.21
    # = 43.290 + 39.355 = 82.645 = 100 − 21/1.21 (= 100 − 17.355). Both give 47.6190.
    assert economic_annual_cost_usd(100.0, 21.0, 2, 0.10) == pytest.approx(0.1 * 1.21 / 0.21 * 79 + 2.1)
    assert economic_annual_cost_usd(100.0, 21.0, 2, 0.10) == pytest.approx(47.6190476, rel=1e-7)


def test_zero_rate_views_agree_and_interest_is_the_gap() -> None:
    node = OwnedNode(id="n", name="n", gpu_id="g", capex_usd=280_000.0, economic_life_years=4, residual_fraction=0.1)
    zero = owned_books(node.model_copy(update={"cost_of_capital_per_year": 0.0}))
    # r = 0: (280,000 − 28,000)/4 = 63,000 in both views
    assert zero.book_usd_per_year == pytest.approx(63_000.0)
    assert zero.economic_usd_per_year == pytest.approx(63_000.0)
    books = owned_books(node)  # 8%: economic > book
    assert books.interest_usd_per_year > 0
    assert "economic view" in books.decision_view


def test_residual_and_maintenance_enter_the_hourly_cost() -> None:
    base = OwnedNode(id="n", name="n", gpu_id="g")
    # 8% and 4 years, S = 10% of $280k = $28,000: capital per year falls by S·(CRF − r) = 28,000·(0.301921 − 0.08)
    # = 6,213.8, i.e. 6,213.8/8760 = $0.70934/h; a $8,760/year contract adds exactly $1/h to operations.
    with_s = base.model_copy(update={"residual_fraction": 0.1, "maintenance_usd_per_year": 8760.0})
    a, b = owned_node_cost_breakdown(base, 0.5), owned_node_cost_breakdown(with_s, 0.5)
    assert float(a.capex_usd_per_hour - b.capex_usd_per_hour) == pytest.approx(0.70934, abs=2e-5)
    assert float(b.ops_usd_per_hour - a.ops_usd_per_hour) == pytest.approx(1.0)
