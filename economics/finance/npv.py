"""Discounting a plan's yearly bills: present value at the scenario's cost of capital."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["annual_change_from_history", "discount_factors", "npv_usd"]


def discount_factors(rate: float, years: int) -> tuple[float, ...]:
    """End-of-year discount factors ``1/(1+r)^k`` for k = 1…n [1].

    >>> discount_factors(0.1, 2)
    (0.9090909090909091, 0.8264462809917354)
    """
    return tuple(1.0 / (1.0 + rate) ** k for k in range(1, years + 1))


def npv_usd(bills_usd: Sequence[float], rate: float) -> float:
    """Net present value of yearly bills paid at each year's end: ``NPV = Σ_k B_k/(1+r)^k`` [USD].

    A cost is a positive bill, so a lower NPV is the cheaper plan. For a level bill ``B`` over ``n`` years it
    is the annuity ``B·(1 − (1+r)^−n)/r`` (``B·n`` at ``r = 0``).

    Reference: Brealey, Myers & Allen, *Principles of Corporate Finance*, ch. 2 (present value of an annuity).

    >>> round(npv_usd([100.0, 100.0], 0.1), 4)     # 100/1.1 + 100/1.21
    173.5537
    """
    return sum(b * f for b, f in zip(bills_usd, discount_factors(rate, len(bills_usd)), strict=True))


def annual_change_from_history(ratio: float, years: float) -> float:
    """The constant yearly change that turns a price into ``ratio`` × itself in ``years``: ``ratio^(1/years) − 1``.

    >>> round(annual_change_from_history(0.25, 2.0), 6)   # halves twice in two years: −50%/year
    -0.5
    """
    if ratio <= 0 or years <= 0:
        raise ValueError("ratio and years must be positive")
    return float(ratio ** (1.0 / years) - 1.0)
