"""Serving, queueing and latency of a replica under real demand (docs/serving.md#serving-and-queues): the public entry
points.

* :func:`continuous_batching` — the Little's-law fixed point of a continuously batched replica
  (docs/serving.md#continuous-batching): iteration time, achieved batch, TPOT, TTFT, end-to-end latency, delivered
  tokens/s, stability and KV feasibility at an arrival rate. Overload is ``stable=False`` with ``inf`` times, never a
  large number.
* :func:`slo_capacity` — the largest arrival rate a replica serves within TPOT / TTFT / deadline SLOs and
  KV memory (goodput, docs/serving.md#slo-capacity), with the binding constraint, or 0 and a reason.
* :func:`replicas_for_peak` — replicas and GPUs for a peak with headroom, and utilisation of paid hours.
* :func:`static_batching`, :func:`window_batch`, :func:`clock_window_batch` — batching windows
  (docs/serving.md#static-batching).
* :func:`erlang_c`, :func:`admission_queueing` — M/M/c waiting probability and percentile waits
  (docs/serving.md#slo-capacity).

Every function broadcasts its array arguments (arrival rates, token counts, SLOs) and is vectorised: the
only loops are fixed iteration counts (fixed point ≤ 300, bisection 60, Erlang recursion ≤ ``c``), and for
dense models (EAGLE's dense draft included) the fixed point and the SLO capacity are exact closed forms
without any loop. The implementation lives in this package's modules: ``passes`` (the scheme → pass
mapping), ``affine`` (the closed forms), ``solvers``, ``continuous``, ``capacity`` and ``queues``; import from
``economics.serving`` itself.
"""

from __future__ import annotations

from economics.serving.capacity import BINDING, ReplicaPlan, SloCapacity, replicas_for_peak, slo_capacity
from economics.serving.continuous import ContinuousBatching, continuous_batching
from economics.serving.passes import DEFAULT_MAX_ITERATION_S, DEFAULT_PREFILL_CHUNK_TOKENS, ServingShape, serving_shape
from economics.serving.queues import (
    ErlangC,
    StaticBatching,
    admission_queueing,
    clock_window_batch,
    erlang_c,
    static_batching,
    window_batch,
)

__all__ = [
    "BINDING",
    "DEFAULT_MAX_ITERATION_S",
    "DEFAULT_PREFILL_CHUNK_TOKENS",
    "ContinuousBatching",
    "ErlangC",
    "ReplicaPlan",
    "ServingShape",
    "SloCapacity",
    "StaticBatching",
    "admission_queueing",
    "clock_window_batch",
    "continuous_batching",
    "erlang_c",
    "replicas_for_peak",
    "serving_shape",
    "slo_capacity",
    "static_batching",
    "window_batch",
]
