"""Monthly money from per-request costs. The fleet itself — routes, replicas, nodes, idle capacity — is the
plan's (:mod:`economics.plan`, :mod:`economics.plan_accounts`): the old per-route consolidation that lived
here priced capacity the plan does not buy, and is gone (issue 10).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from economics.units import HOURS_PER_MONTH, SECONDS_PER_HOUR

FloatArray = NDArray[np.float64]

SECONDS_PER_MONTH = HOURS_PER_MONTH * SECONDS_PER_HOUR


def monthly_cost(cost_usd_per_request: FloatArray, avg_requests_per_s: FloatArray) -> FloatArray:
    """``c · λ_avg · 3600 · 730`` [USD/month]; 0 where the cost is not finite (no route).

    >>> monthly_cost(np.array([0.001, np.inf]), np.array([1.0, 1.0])).tolist()
    [2628.0, 0.0]
    """
    return np.where(
        np.isfinite(cost_usd_per_request), cost_usd_per_request * avg_requests_per_s * SECONDS_PER_MONTH, 0.0
    )
