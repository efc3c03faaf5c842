"""The horizon as text and data, for the CLI, the Horizon page and the meeting pack (pure; no I/O).

Amounts are computed in USD; the display currency is applied here, at the edge, and stated
(:func:`economics.currency.currency_statement`).
"""

from __future__ import annotations

from typing import Any

from economics.currency import DisplayRate, currency_statement, display_rate, to_display
from economics.finance.horizon import Horizon, crossover_sensitivity, horizon
from economics.scenario import Scenario

__all__ = ["FULL_COST_BASIS", "finance_pack_section", "horizon_dict", "horizon_table", "money_text"]

#: How the horizon's bills are counted (economics.finance.horizon.year_scenario).
FULL_COST_BASIS = (
    "Bills are full cost in every year: an owned node carries its capital recovery (the economic view) whether "
    "bought already or not, and its replacement at the end of its life."
)


def money_text(usd: float, rate: DisplayRate) -> str:
    """Whole units of the display currency: ``SGD 1,234,567`` (``USD …`` at rate 1).

    >>> money_text(1000.0, DisplayRate("SGD", 1.3, None, "x"))
    'SGD 1,300'
    """
    return f"{rate.code} {to_display(usd, rate):,.0f}"


def horizon_dict(
    h: Horizon, rate: DisplayRate, sensitivity: tuple[tuple[float, int | None], ...] = ()
) -> dict[str, Any]:
    """Everything in ``h`` as JSON-able data; every amount in USD and in the display currency."""

    def amount(usd: float) -> dict[str, float]:
        return {"usd": usd, rate.code.lower(): to_display(usd, rate)} if not rate.is_identity else {"usd": usd}

    return {
        "scenario": h.scenario_name,
        "years": list(h.years),
        "currency": {
            "code": rate.code,
            "units_per_usd": rate.units_per_usd,
            "as_of": rate.as_of.isoformat() if rate.as_of else None,
            "source": rate.source,
            "statement": currency_statement(rate),
        },
        "discount_rate": {"per_year": h.discount_rate, "basis": h.discount_rate_basis},
        "bill_basis": FULL_COST_BASIS,
        "api_price_change": {"per_year": h.api_change_per_year, "basis": h.api_basis},
        "rental_price_change": {"per_year": h.rental_change_per_year, "basis": h.rental_basis},
        "hardware_price_change_per_year": h.hardware_change_per_year,
        "plans": [
            {
                "id": p.plan_id,
                "name": p.name,
                "serves_every_workload": p.serves_everything,
                "npv": amount(p.npv_usd),
                "bills": [
                    {
                        "year": b.year,
                        "total": amount(b.total_usd),
                        "owned": amount(b.owned_usd),
                        "rented": amount(b.rented_usd),
                        "apis": amount(b.api_usd),
                        "unused_commitment": amount(b.unused_commitment_usd),
                        "unserved_workloads": b.unserved_workloads,
                    }
                    for b in p.bills
                ],
            }
            for p in h.plans
        ],
        "crossover": {"year": h.crossover_year, "text": h.crossover_text},
        "crossover_sensitivity": [{"api_price_change_per_year": a, "crossover_year": y} for a, y in sensitivity],
        "owned_books": [
            {
                "node_id": b.node_id,
                "node_name": b.node_name or b.node_id,
                "book_per_year": amount(b.book_usd_per_year),
                "economic_per_year": amount(b.economic_usd_per_year),
                "maintenance_per_year": amount(b.maintenance_usd_per_year),
                "residual": amount(b.residual_usd),
                "schedule": [
                    {
                        "year": y.year,
                        "depreciation": amount(y.depreciation_usd),
                        "book_value_end": amount(y.book_value_end_usd),
                    }
                    for y in b.schedule
                ],
            }
            for b in h.books
        ],
        "decision_view": h.decision_view,
    }


def horizon_table(h: Horizon, rate: DisplayRate, sensitivity: tuple[tuple[float, int | None], ...] = ()) -> str:
    """A plain-text report: per-year bills and NPV per plan, the crossover, its sensitivity, both books."""
    lines = [
        f"{h.scenario_name}: {len(h.years)}-year horizon, {h.years[0]}–{h.years[-1]}",
        currency_statement(rate),
        "",
    ]
    lines.append(f"API prices {h.api_basis}.")
    lines.append(f"Rented GPU prices {h.rental_basis}.")
    lines.append(f"NPV at {h.discount_rate:.1%} a year ({h.discount_rate_basis}), bills at each year's end.")
    lines.append(FULL_COST_BASIS)
    lines.append("")
    header = ["plan", *(str(y) for y in h.years), "NPV"]
    rows = [header]
    for p in h.plans:
        note = "" if p.serves_everything else " (leaves workloads unserved)"
        rows.append([p.name + note, *(money_text(b.total_usd, rate) for b in p.bills), money_text(p.npv_usd, rate)])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for r in rows:
        lines.append(
            "  "
            + "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        )
    lines += ["", h.crossover_text]
    if sensitivity:
        lines.append("Crossover by API price change: " + ", ".join(f"{a:+.0%}: {y or 'none'}" for a, y in sensitivity))
    for b in h.books:
        lines += [
            "",
            f"{b.node_name or b.node_id}: book (straight-line) {money_text(b.book_usd_per_year, rate)}/year, economic "
            f"(capital recovery) {money_text(b.economic_usd_per_year, rate)}/year, "
            f"resale {money_text(b.residual_usd, rate)}.",
        ]
    lines += ["", h.decision_view]
    return "\n".join(lines)


def finance_pack_section(
    scenario: Scenario, *, years: int | None = None, with_sensitivity: bool = True
) -> dict[str, Any]:
    """What the meeting pack (reporting/, issue 11) shows for issue 14: call it with the reviewed scenario.

    Returns :func:`horizon_dict` plus ``"table"`` (the plain-text report) — the 5-year NPV table, the crossover
    and its sensitivity, book vs economic depreciation, and the currency statement.
    """
    rate = display_rate(scenario)
    h = horizon(scenario, years=years)
    sens = crossover_sensitivity(scenario, years=years, known=h) if with_sensitivity else ()
    out = horizon_dict(h, rate, sens)
    out["table"] = horizon_table(h, rate, sens)
    return out
