"""Throughput of a latency-SLO benchmark row read at its percentile limits (MLPerf Server / Interactive;
docs/calibration.md#latency-slo-rows).

MLPerf's Server and Interactive scenarios send Poisson arrivals and require the 99th percentile of TTFT and of
TPOT to stay within their limits (the rows' own text: "Poisson arrivals; constraint p99 TTFT<=2000 ms, p99
TPOT<=200 ms"). A mean-within-p99-limit reading is optimistic: it lets the mean sit on the limit, so half the
requests miss it. Here both tails come from queueing physics, the TTFT one from the app's own Erlang-C
admission queue (:func:`~economics.serving.queues.erlang_c`, the function its percentile waits use).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import poisson  # type: ignore[import-untyped]

from economics.hardware import Deployment, Efficiency
from economics.model import FloatArray, ModelSpec
from economics.schemes import ARScheme
from economics.serving.queues import erlang_c
from economics.throughput import closed_loop

#: Percentile of the MLPerf Server/Interactive latency limits: TTFT and TPOT are p99 constraints [1].
SLO_QUANTILE = 0.99
#: Closed-loop loads scanned for a latency-SLO row (1 … 16384, geometric) [count].
SLO_SCAN = np.unique(np.round(np.geomspace(1, 16384, 80)))


def batch_quantile(mean_batch: FloatArray, quantile: float = SLO_QUANTILE) -> FloatArray:
    """Quantile of the running batch under Poisson arrivals [count].

    ``B_p = F⁻¹_Poisson(p; B̄)``: with Poisson arrivals the number of requests in service of a replica that
    admits them at once is Poisson with mean ``B̄ = λ·s̄`` whatever the distribution of their residence
    (the M/G/∞ queue, Kleinrock, *Queueing Systems* vol. 1). A request's TPOT averages the iterations of its
    own residence, over which the batch changes little, so its TPOT tail is the iteration time at the batch's
    tail.

    >>> batch_quantile(np.array([0.0, 100.0])).tolist()
    [0.0, 124.0]
    """
    return np.asarray(poisson.ppf(quantile, np.maximum(mean_batch, 0.0)), dtype=np.float64)


def slo_tail_throughput(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    input_tokens: float,
    output_tokens: float,
    *,
    tpot_max_s: float,
    ttft_max_s: float,
    max_batch: int,
    reserve_output: bool,
    quantile: float = SLO_QUANTILE,
) -> float:
    """Largest closed-loop output rate whose TPOT and TTFT quantiles meet the limits [tok/s]; NaN if none.

    Over the loads ``C`` of :data:`SLO_SCAN` (capped at ``max_batch``), with :func:`closed_loop` giving the
    mean batch ``B̄``, rate ``X``, ``TPOT`` and ``TTFT`` at each, arrivals ``λ = X/T_out`` and residence
    ``s̄ = TTFT + T_out·TPOT``::

        TPOT_p = TPOT(min(B_p, c)),            B_p = batch_quantile(B̄)
        TTFT_p = TTFT(B̄) + W_q,p,              W_q,p from erlang_c(λ, s̄, c, p)
        c      = min(max_batch, B_max)          (KV slots)

    and the answer is the largest ``X`` with ``TPOT_p ≤ TPOT_max`` and ``TTFT_p ≤ TTFT_max``. A load at or
    above the slots is unstable for Erlang C (``W_q,p = inf``), so the chosen batch keeps a margin below ``c``.
    """
    scheme = ARScheme()
    conc = np.minimum(SLO_SCAN, max_batch)
    mean = closed_loop(model, deployment, efficiency, scheme, conc, input_tokens, output_tokens,
                       reserve_output=reserve_output)  # fmt: skip
    slots = np.minimum(float(max_batch), np.floor(mean.max_batch_kv))
    tail = closed_loop(model, deployment, efficiency, scheme, np.maximum(np.minimum(batch_quantile(mean.batch,
                       quantile), slots), 1.0), input_tokens, output_tokens, reserve_output=reserve_output)  # fmt: skip
    residence = mean.ttft_s + output_tokens * mean.tpot_s
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(mean.kv_fits, mean.output_tokens_per_s / output_tokens, 0.0)
        s = np.where(np.isfinite(residence) & (residence > 0), residence, 1.0)
    wait = erlang_c(lam, s, np.maximum(slots, 0.0), quantile=quantile).wait_quantile_s
    ok = mean.kv_fits & (tail.tpot_s <= tpot_max_s) & (mean.ttft_s + wait <= ttft_max_s)
    return float(np.max(np.where(ok, mean.output_tokens_per_s, 0.0))) if ok.any() else float("nan")
