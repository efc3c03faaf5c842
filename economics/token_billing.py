"""Tokens as they are billed: long-context price tiers, prompt-cache writes with a cache lifetime, reasoning.

An API's price of one request, with the offer's optional tier fields (all None reproduces the flat price):

```
tier        long-context rates when T_in > threshold (the whole request, as Anthropic bills it)
writes      w = exp(−λ·τ): the share of requests that find the cached prefix expired (Poisson arrivals at λ,
            a lifetime τ refreshed on every use), and so write it again at the write price
c           = T_in·[(1−h)·p_in + h·(1−w)·p_cached + h·w·p_write] + (T_out + T_reason)·p_out
```

Reasoning tokens are hidden output: an API bills them at the output rate and an owned GPU spends decode time
on them, so both see ``T_out + T_reason`` generated tokens (:attr:`economics.workload.Workload.reasoning_tokens`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from economics.offers import ApiOffer

FloatArray = NDArray[np.float64]

__all__ = ["cache_write_share", "tier_prices"]


def tier_prices(api: ApiOffer, input_tokens: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``(p_in, p_cached, p_out)`` per request: the long-context rates where ``T_in`` exceeds the threshold
    [USD/Mtok]. Cached input scales with the input rate (``p_cached·p_in_long/p_in``); without a published
    cached price it is the input price.

    >>> api = ApiOffer(id="a", name="a", input_usd_per_mtok=3, output_usd_per_mtok=15,
    ...     long_context_threshold_tokens=200_000, long_context_input_usd_per_mtok=6,
    ...     long_context_output_usd_per_mtok=22.5)
    >>> [x.tolist() for x in tier_prices(api, [200_000, 200_001])]
    [[3.0, 6.0], [3.0, 6.0], [15.0, 22.5]]
    """
    t_in = np.asarray(input_tokens, dtype=np.float64)
    p_in = np.full(t_in.shape, api.input_usd_per_mtok)
    p_cached = np.full(t_in.shape, api.cached_input_usd_per_mtok if api.cached_input_usd_per_mtok is not None else p_in)
    p_out = np.full(t_in.shape, api.output_usd_per_mtok)
    if api.long_context_threshold_tokens is None:
        return p_in, p_cached, p_out
    long = t_in > api.long_context_threshold_tokens
    long_in = api.long_context_input_usd_per_mtok if api.long_context_input_usd_per_mtok is not None else p_in
    long_out = api.long_context_output_usd_per_mtok if api.long_context_output_usd_per_mtok is not None else p_out
    scale = np.asarray(long_in, dtype=np.float64) / api.input_usd_per_mtok if api.input_usd_per_mtok > 0 else 1.0
    return (
        np.where(long, long_in, p_in).astype(np.float64),
        np.where(long, p_cached * scale, p_cached).astype(np.float64),
        np.where(long, long_out, p_out).astype(np.float64),
    )


def cache_write_share(api: ApiOffer, requests_per_s: ArrayLike | None) -> FloatArray:
    """Share of requests that re-write an expired cached prefix, ``w = exp(−λ·τ)`` [1].

    0 when the API publishes no write price or lifetime, or the arrival rate is unknown (the flat model).

    >>> api = ApiOffer(id="a", name="a", input_usd_per_mtok=3, output_usd_per_mtok=15, cache_write_usd_per_mtok=3.75,
    ...     cache_lifetime_s=300)
    >>> [round(float(x), 4) for x in cache_write_share(api, [1 / 300, 1.0])]    # one request per lifetime: e^−1
    [0.3679, 0.0]
    """
    if requests_per_s is None or api.cache_write_usd_per_mtok is None or api.cache_lifetime_s is None:
        return np.zeros(np.shape(requests_per_s) if requests_per_s is not None else ())
    lam = np.asarray(requests_per_s, dtype=np.float64)
    return np.exp(-np.maximum(lam, 0.0) * api.cache_lifetime_s).astype(np.float64)
