"""Rented capacity as it is sold: effective hourly rates, commitments, and what each billing mode cannot carry
(docs/finance.md#billing-modes-in-the-plan).

A rented offer's ``pricing_type`` is its billing mode and its ``billing`` terms carry the numbers
(:class:`economics.finance.terms.RentalTerms`). The fleet plan sees every mode through the same
``C_h(U) = C_fixed + C_var·U`` as any other node (:func:`rented_cost_split`), so it chooses among modes
like among any other offers:

======================  =====================================================  =====================  ==========
mode                    effective price per GPU-hour                           C_fixed / C_var        paid
======================  =====================================================  =====================  ==========
on-demand, negotiated   ``p``                                                  ``p`` / 0              hours used
reserved-1y/3y, block   ``p + upfront / (24·term_days)``                       ``p_eff`` / 0          every hour
spot, no fallback       ``p / (1 − ι·L/3600)``: restarted work is paid again   ``p_eff`` / 0          hours used
spot with fallback      ``p + ι·(L/3600)·p_fallback``                          ``p_eff`` / 0          hours used
serverless              ``p`` per billed second (:mod:`.serverless`)             0 / ``p``              seconds
======================  =====================================================  =====================  ==========

"Hours used": the fleet plan runs the units each hour of the day profile needs and pays only those
(:func:`billed_per_hour_used`); a reservation or a capacity block is a commitment paid every hour of its term
whether used or not, so the plan pays its units all day. Committed nodes on any offer are paid every hour.

A reservation is also a *commitment*: ``committed_nodes`` are paid for the whole term whether used or not
(:func:`commitment_usd`, :func:`unused_commitment_usd_per_month`). Spot capacity can be reclaimed at short
notice, so without an on-demand fallback it cannot carry a workload with a latency SLO; a serverless GPU adds
its cold start to the first request after idle, which must still meet the TTFT SLO (:func:`billing_reasons`).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from economics.finance.terms import RentalTerms
from economics.offers import RentedNode
from economics.units import HOURS_PER_MONTH, SECONDS_PER_HOUR

__all__ = [
    "DEFAULT_TERM_DAYS",
    "HOURLY_MODES",
    "billed_per_hour_used",
    "billing_reasons",
    "commitment_usd",
    "effective_usd_per_gpu_hour",
    "rented_cost_split",
    "rented_gpu_hours_per_useful_hour",
    "reserved_usd_per_gpu_hour",
    "serverless_billed_seconds",
    "term_days",
    "unused_commitment_usd_per_month",
]

#: Commitment term implied by a pricing type when the terms do not state one [days].
DEFAULT_TERM_DAYS: dict[str, float] = {"reserved-1y": 365.0, "reserved-3y": 3 * 365.0}

#: Billing modes paid per hour used, with no commitment: the plan's units follow the day profile hour by hour.
HOURLY_MODES = frozenset({"on-demand", "negotiated", "spot"})

_NO_TERMS = RentalTerms()


def billed_per_hour_used(node: object) -> bool:
    """True for a rented offer paid only for the hours it runs (on-demand, negotiated, spot) [-].

    >>> billed_per_hour_used(RentedNode(id="d", name="d", gpu_id="g", price_usd_per_gpu_hour=2.0))
    True
    >>> billed_per_hour_used(RentedNode(id="r", name="r", gpu_id="g", price_usd_per_gpu_hour=1.2,
    ...                                 pricing_type="reserved-1y"))
    False
    """
    return isinstance(node, RentedNode) and node.pricing_type in HOURLY_MODES


def _terms(node: RentedNode) -> RentalTerms:
    return node.billing if node.billing is not None else _NO_TERMS


def term_days(node: RentedNode) -> float | None:
    """The commitment term of ``node``: its terms' ``term_days``, else the pricing type's, else None [days]."""
    t = _terms(node)
    return t.term_days if t.term_days is not None else DEFAULT_TERM_DAYS.get(node.pricing_type)


def reserved_usd_per_gpu_hour(hourly_usd_per_gpu: float, upfront_usd_per_gpu: float, days: float) -> float:
    """Effective hourly rate of a reservation: ``p_eff = p + upfront / (24·term_days)`` [USD/GPU-h].

    The upfront payment is spread evenly over the hours of the term (no discounting: a finance reader compares
    it with the on-demand rate the same way the provider's calculator does).

    >>> reserved_usd_per_gpu_hour(2.0, 8760.0, 365.0)   # $8,760 upfront over 8,760 h adds $1/h
    3.0
    """
    return hourly_usd_per_gpu + upfront_usd_per_gpu / (24.0 * days)


def effective_usd_per_gpu_hour(node: RentedNode) -> float:
    """What one GPU-hour of useful capacity costs on ``node``, by billing mode (table in the module doc) [USD/GPU-h].

    >>> from economics.finance.terms import RentalTerms
    >>> spot = RentedNode(id="s", name="s", gpu_id="g", price_usd_per_gpu_hour=1.0, pricing_type="spot",
    ...     billing=RentalTerms(interruptions_per_hour=0.5, interruption_loss_s=720))
    >>> round(effective_usd_per_gpu_hour(spot), 4)    # 1 / (1 − 0.5·0.2) = 1/0.9
    1.1111
    """
    t = _terms(node)
    p = node.price_usd_per_gpu_hour
    if node.pricing_type == "spot":
        lost_share = t.interruptions_per_hour * t.interruption_loss_s / SECONDS_PER_HOUR
        if t.fallback_usd_per_gpu_hour is not None:
            return p + lost_share * t.fallback_usd_per_gpu_hour
        return p / (1.0 - lost_share)
    days = term_days(node)
    if t.upfront_usd_per_gpu > 0 and days is not None:
        return reserved_usd_per_gpu_hour(p, t.upfront_usd_per_gpu, days)
    return p


def rented_gpu_hours_per_useful_hour(node: RentedNode) -> float:
    """GPU-hours actually rented per GPU-hour of useful capacity [1]: ``1/(1 − ι·L/3600)`` on spot without a
    fallback (restarted work runs again), ``1 + ι·L/3600`` with one (the fallback GPU runs meanwhile), else 1.
    Energy follows these hours (:func:`economics.energy.plan_carbon`).

    >>> from economics.finance.terms import RentalTerms
    >>> spot = RentedNode(id="s", name="s", gpu_id="g", price_usd_per_gpu_hour=1.0, pricing_type="spot",
    ...     billing=RentalTerms(interruptions_per_hour=0.5, interruption_loss_s=720))
    >>> round(rented_gpu_hours_per_useful_hour(spot), 4)    # 1/(1 − 0.5·0.2)
    1.1111
    """
    t = _terms(node)
    if node.pricing_type != "spot":
        return 1.0
    lost_share = t.interruptions_per_hour * t.interruption_loss_s / SECONDS_PER_HOUR
    return 1.0 + lost_share if t.fallback_usd_per_gpu_hour is not None else 1.0 / (1.0 - lost_share)


def rented_cost_split(node: RentedNode) -> tuple[float, float]:
    """``(C_fixed, C_var)`` of one rented node per hour: ``C_h(U) = C_fixed + C_var·U`` [USD/h, USD/h at U = 1].

    A serverless GPU scales to zero: it costs nothing while idle and its price per busy hour (``C_var``);
    every other mode is paid per hour whether it works or not (``C_fixed``).

    >>> rented_cost_split(RentedNode(id="m", name="m", gpu_id="g", gpus_per_node=1, price_usd_per_gpu_hour=3.9492,
    ...                              pricing_type="serverless"))
    (0.0, 3.9492)
    """
    hourly = effective_usd_per_gpu_hour(node) * node.gpus_per_node
    if node.pricing_type == "serverless":
        return 0.0, hourly
    return hourly, 0.0


def serverless_billed_seconds(busy_s: float, increment_s: float) -> float:
    """Busy time rounded up to whole billing increments: ``ceil(busy/increment)·increment`` [s].

    >>> serverless_billed_seconds(2.0, 10.0), serverless_billed_seconds(10.0, 10.0), serverless_billed_seconds(0, 1)
    (10.0, 10.0, 0.0)
    """
    if busy_s <= 0:
        return 0.0
    return math.ceil(busy_s / increment_s - 1e-12) * increment_s


def commitment_usd(node: RentedNode) -> float:
    """What the committed nodes cost over the whole term, used or not: ``n·GPUs·p_eff·24·term_days`` [USD].

    Zero without a commitment (no committed nodes or no term).
    """
    days = term_days(node)
    n = _terms(node).committed_nodes
    if days is None or n == 0:
        return 0.0
    return n * node.gpus_per_node * effective_usd_per_gpu_hour(node) * 24.0 * days


def unused_commitment_usd_per_month(node: RentedNode, nodes_used: float) -> float:
    """Committed nodes the plan does not use, still paid: ``max(0, n_committed − n_used)·C_h·730`` [USD/month]."""
    idle = max(0.0, _terms(node).committed_nodes - nodes_used)
    return idle * effective_usd_per_gpu_hour(node) * node.gpus_per_node * HOURS_PER_MONTH


def billing_reasons(
    node: object,
    latency_slo: NDArray[np.bool_],
    ttft_slo_s: NDArray[np.float64],
    ttft_s: NDArray[np.float64],
) -> NDArray[np.object_]:
    """Why the billing mode of ``node`` cannot carry each workload, or ``''`` (all ``(W,)``) [-].

    * spot without an on-demand fallback: any workload with a latency SLO (TTFT or TPOT);
    * serverless: a workload whose TTFT SLO the first request after idle misses (``TTFT + cold start``),
      unless the offer is kept warm (``billing.keep_warm``: then it bills the warm hours instead).

    Owned nodes and the other rental modes carry everything (an all-empty array).
    """
    out = np.full(np.shape(latency_slo), "", dtype=object)
    if not isinstance(node, RentedNode):
        return out
    t = _terms(node)
    if node.pricing_type == "spot" and t.fallback_usd_per_gpu_hour is None:
        out[np.asarray(latency_slo, dtype=bool)] = (
            "spot capacity can be reclaimed at short notice; a latency SLO needs an on-demand fallback "
            "(billing.fallback_usd_per_gpu_hour)"
        )
    elif node.pricing_type == "serverless" and t.cold_start_s > 0 and not t.keep_warm:
        late = np.asarray(ttft_s, dtype=np.float64) + t.cold_start_s > np.asarray(ttft_slo_s, dtype=np.float64)
        out[late] = f"a {t.cold_start_s:g} s cold start after idle makes the first request miss the TTFT SLO"
    return out
