"""Queueing pieces of the serving model: Erlang C admission and static batching with a window
(docs/serving.md#slo-capacity to docs/serving.md#static-batching)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from economics.capacity import kv_capacity
from economics.hardware import Deployment, Efficiency
from economics.iteration import AnyScheme, iteration_time, resident_tokens
from economics.model import FloatArray, ModelSpec
from economics.roofline import forward_time
from economics.schemes import DiffusionScheme
from economics.serving.continuous import ContinuousBatching
from economics.serving.passes import serving_shape
from economics.serving.solvers import least_fixed_point

BoolArray = NDArray[np.bool_]

#: The Erlang-B recursion stops this many standard deviations above the largest offered load: beyond
#: ``j = a + 40·sqrt(a) + 100`` servers the blocking probability is below 1e-300 and keeps falling.
_ERLANG_TAIL_SIGMAS = 40.0


def _f(x: ArrayLike) -> FloatArray:
    return np.asarray(x, dtype=np.float64)


# ---- docs/serving.md#slo-capacity Erlang C ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ErlangC:
    """M/M/c queue in steady state; arrays broadcast over the inputs."""

    offered_load: FloatArray  # a = λ·s̄ [Erlang]
    servers: FloatArray  # c [count]
    utilization: FloatArray  # ρ = a/c [1]
    p_wait: FloatArray  # probability an arrival waits, Erlang C [1]
    mean_wait_s: FloatArray  # E[W_q] = P_wait·s̄/(c − a); inf when unstable [s]
    wait_quantile_s: FloatArray  # W_q at the requested quantile; inf when unstable [s]
    stable: BoolArray  # a < c [-]


def erlang_c(
    arrival_rate_per_s: ArrayLike,
    service_time_s: ArrayLike,
    servers: ArrayLike,
    *,
    quantile: float = 0.95,
) -> ErlangC:
    """Waiting probability and waiting times of an M/M/c queue (Erlang C), vectorised over ``λ``, ``s̄`` and ``c``.

    Parameters
    ----------
    arrival_rate_per_s : Poisson arrival rate ``λ`` [req/s], ≥ 0.
    service_time_s : mean residence in a server ``s̄`` [s], > 0.
    servers : ``c`` slots (e.g. the KV-memory batch limit ``B_max``) [count]; floored to an integer.
    quantile : quantile of the waiting time to report, in (0, 1); 0.95 gives the p95.

    Returns
    -------
    ErlangC with, for ``a = λ·s̄`` and ``a < c``::

        Erlang B:  E_0 = 1,  E_j = a·E_{j−1} / (j + a·E_{j−1})          (j = 1..c)
        P_wait   = c·E_c / (c − a·(1 − E_c))
        P(W_q > t) = P_wait·exp(−(c − a)·t/s̄)
        E[W_q]   = P_wait·s̄/(c − a),   W_q,p = max(0, s̄/(c − a)·ln(P_wait/(1 − p)))

    ``a ≥ c`` or ``c = 0`` is unstable: ``P_wait = 1`` and the waits are ``inf``. ``c = 1`` reduces to
    M/M/1, ``P_wait = ρ``.

    Notes
    -----
    The recursion is the numerically stable form of Erlang B (no factorials); it runs ``max c`` steps at
    most, one array operation each, stopping early once every point is past ``a + 40·sqrt(a) + 100``
    servers, where ``E_j`` has underflowed. Reference: any queueing text, e.g. Kleinrock, *Queueing
    Systems* vol. 1, docs/roofline.md#roofline-checks; docs/serving.md#slo-capacity (an approximation there, since
    ``s̄`` depends on the load).

    >>> q = erlang_c([0.5, 1.5, 3.0], 1.0, [1, 2, 2])
    >>> q.p_wait.round(4).tolist(), q.mean_wait_s.round(4).tolist(), q.stable.tolist()
    ([0.5, 0.6429, 1.0], [1.0, 1.2857, inf], [True, True, False])
    """
    lam, s, c_in = np.broadcast_arrays(_f(arrival_rate_per_s), _f(service_time_s), _f(servers))
    if np.any(lam < 0) or np.any(~np.isfinite(lam)) or np.any(s <= 0) or np.any(c_in < 0) or np.any(np.isnan(c_in)):
        raise ValueError("need arrival_rate_per_s ≥ 0 (finite), service_time_s > 0 and servers ≥ 0")
    if not 0.0 < quantile < 1.0:
        raise ValueError("quantile must be in (0, 1)")
    a = lam * s
    c = np.floor(c_in)
    stable = (c >= 1) & (a < c)
    a_fin = np.where(np.isfinite(a), a, 0.0)
    c_fin = np.where(np.isfinite(c), c, 0.0)
    c_max = float(np.max(c_fin, initial=0.0))
    tail = float(np.max(a_fin + _ERLANG_TAIL_SIGMAS * np.sqrt(a_fin) + 100.0, initial=100.0))
    steps = int(min(c_max, np.ceil(tail)))
    blocking = np.ones_like(a)
    for j in range(1, steps + 1):
        nxt = a_fin * blocking / (j + a_fin * blocking)
        blocking = np.where(j <= c_fin, nxt, blocking)
    blocking = np.where(c_fin > steps, 0.0, blocking)  # past the tail: E_c underflows to 0
    with np.errstate(divide="ignore", invalid="ignore"):
        p_wait = np.where(stable, c * blocking / (c - a_fin * (1.0 - blocking)), 1.0)
        rate = np.where(stable, (c - a_fin) / s, 1.0)
        mean_wait = np.where(stable, p_wait / rate, np.inf)
        ratio = np.where(stable & (p_wait > 0), p_wait / (1.0 - quantile), 1.0)
        q_wait = np.where(stable, np.maximum(0.0, np.log(ratio) / rate), np.inf)
    return ErlangC(
        offered_load=np.asarray(a, dtype=np.float64),
        servers=np.asarray(c, dtype=np.float64),
        utilization=np.asarray(np.where(c > 0, a / np.where(c > 0, c, 1.0), np.inf), dtype=np.float64),
        p_wait=np.asarray(np.clip(p_wait, 0.0, 1.0), dtype=np.float64),
        mean_wait_s=np.asarray(mean_wait, dtype=np.float64),
        wait_quantile_s=np.asarray(q_wait, dtype=np.float64),
        stable=np.asarray(stable, dtype=np.bool_),
    )


def admission_queueing(result: ContinuousBatching, *, quantile: float = 0.95) -> ErlangC:
    """Admission queue in front of a continuously batched replica as M/M/c (docs/serving.md#slo-capacity, optional).

    The replica has ``c = B_max`` KV slots (``result.max_batch``); a request holds one for its residence
    ``s̄ = TTFT + T_out·TPOT`` (``result.e2e_mean_s``), so the offered load is ``a = λ·s̄ = B*`` on average.
    Returns the probability that an arrival finds every slot busy [1] and its wait, mean and quantile [s],
    to add to TTFT for percentile SLOs. An approximation: ``s̄`` is taken at the load's own fixed point, and an
    overloaded fixed point is passed through as an unstable queue.
    """
    residence = np.where(result.stable, result.e2e_mean_s, 1.0)
    lam = np.where(result.stable, result.arrival_rate_per_s, np.inf)
    lam_fin = np.where(np.isfinite(lam), lam, 0.0)
    q = erlang_c(lam_fin, residence, result.max_batch, quantile=quantile)
    unstable = ~result.stable
    return ErlangC(
        offered_load=np.where(unstable, np.inf, q.offered_load),
        servers=q.servers,
        utilization=np.where(unstable, np.inf, q.utilization),
        p_wait=np.where(unstable, 1.0, q.p_wait),
        mean_wait_s=np.where(unstable, np.inf, q.mean_wait_s),
        wait_quantile_s=np.where(unstable, np.inf, q.wait_quantile_s),
        stable=q.stable & result.stable,
    )


# ---- docs/serving.md#static-batching static / dynamic batching -------------------------------------------------------


def window_batch(
    arrival_rate_per_s: ArrayLike, window_s: ArrayLike, max_batch: ArrayLike = np.inf
) -> tuple[FloatArray, FloatArray]:
    """Mean batch and mean window wait of a batching window opened by the first arrival
    (docs/serving.md#static-batching).

    The window opens at the first arrival and closes after ``w`` or as soon as ``B_max`` requests are in,
    i.e. after ``w_c = min(w, (B_max − 1)/λ)``::

        E[B]        = 1 + λ·w_c                         (Poisson arrivals during the window; ≤ B_max)
        mean wait   = (w_c + λ·w_c · w_c/2) / (1 + λ·w_c)   (the first request waits w_c, the others w_c/2)

    Parameters
    ----------
    arrival_rate_per_s : ``λ`` [req/s], ≥ 0.
    window_s : ``w`` [s], ≥ 0.
    max_batch : ``B_max`` ≥ 1 [count]; ``inf`` for no limit.

    Returns
    -------
    ``(E[B] [count], mean window wait [s])``. The wait lies in ``[w_c/2, w_c]``; ``λ·w → 0`` gives
    ``E[B] → 1`` and a wait of ``w``.

    Example (docs/serving.md#static-batching): ``λ = 2 req/s``, ``w = 0.5 s`` → ``E[B] = 2`` and a wait of 0.375 s.

    >>> [float(v) for v in window_batch(2.0, 0.5)]
    [2.0, 0.375]
    """
    lam, w, bmax = np.broadcast_arrays(_f(arrival_rate_per_s), _f(window_s), _f(max_batch))
    if np.any(lam < 0) or np.any(~np.isfinite(lam)) or np.any(w < 0) or np.any(bmax < 1):
        raise ValueError("need arrival_rate_per_s ≥ 0 (finite), window_s ≥ 0 and max_batch ≥ 1")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        fill = np.where(lam > 0, (bmax - 1.0) / lam, np.inf)
    w_c = np.minimum(w, fill)
    lw = lam * w_c
    return (
        np.asarray(1.0 + lw, dtype=np.float64),
        np.asarray((w_c + lw * w_c / 2.0) / (1.0 + lw), dtype=np.float64),
    )


def clock_window_batch(arrival_rate_per_s: ArrayLike, window_s: ArrayLike) -> FloatArray:
    """Mean non-empty batch of fixed clock windows, ``E[B | B ≥ 1] = λw / (1 − e^(−λw))`` [count]
    (docs/serving.md#static-batching).

    The alternative to :func:`window_batch` when windows tick on a timer, independent of arrivals. ``λw → 0``
    gives 1 (its own branch); ``1 − e^(−λw)`` is computed with ``expm1``.

    >>> clock_window_batch([0.0, 1.0], 1.0).round(4).tolist()
    [1.0, 1.582]
    """
    lw = _f(arrival_rate_per_s) * _f(window_s)
    if np.any(lw < 0) or np.any(~np.isfinite(lw)):
        raise ValueError("arrival_rate_per_s and window_s must be finite and ≥ 0")
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(lw > 0, lw / -np.expm1(-lw), 1.0)
    return np.asarray(out, dtype=np.float64)


@dataclass(frozen=True)
class StaticBatching:
    """Steady state of a server that runs whole batches to completion; arrays broadcast over the inputs."""

    arrival_rate_per_s: FloatArray  # λ [req/s]
    mean_batch: FloatArray  # E[B], requests per batch [count]
    max_batch: FloatArray  # B_max, from KV memory with the whole output reserved unless given [count]
    window_wait_s: FloatArray  # mean wait for the window to close [s]
    service_time_s: FloatArray  # S_batch(E[B]): prefill plus T_out/e decode passes [s]
    busy_fraction: FloatArray  # ρ = λ·S_batch/E[B] [1]
    queue_wait_s: FloatArray  # Pollaczek–Khinchine wait of a batch for the server; inf when unstable [s]
    ttft_s: FloatArray  # window wait + queue wait + prefill (+ S passes for diffusion) [s]
    tpot_s: FloatArray  # decode pass time at E[B] divided by e [s]
    e2e_mean_s: FloatArray  # window wait + queue wait + S_batch [s]
    stable: BoolArray  # ρ < 1 (and the model fits) [-]


def static_batching(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    scheme: AnyScheme,
    arrival_rate_per_s: ArrayLike,
    input_tokens: ArrayLike,
    output_tokens: ArrayLike,
    window_s: ArrayLike,
    *,
    max_batch: ArrayLike | None = None,
    service_cv2: ArrayLike = 0.0,
    kv_reserve_bytes: float = 0.0,
) -> StaticBatching:
    """Static (dynamic-window) batching: collect a batch for ``w``, then run it to completion
    (docs/serving.md#static-batching).

    Parameters
    ----------
    model, deployment, efficiency, scheme : the replica and its decoding scheme.
    arrival_rate_per_s : Poisson arrival rate ``λ`` [req/s].
    input_tokens, output_tokens : ``T_in`` and ``T_out`` (fixed lengths) [tokens].
    window_s : batching window ``w`` [s].
    max_batch : batch limit ``B_max`` [count]; default: what KV memory holds with every sequence's whole
        output reserved (``T_in + T_out``), as engines without paging allocate.
    service_cv2 : squared coefficient of variation of the batch service time ``c_s²`` [1]; 0 (fixed lengths).
    kv_reserve_bytes : memory held back from the KV cache [B].

    Returns
    -------
    StaticBatching, with::

        S_batch(B) = t_prefill(B, T_in) + (T_out/e)·t_pass(B, q, T_in + T_out/2)
        E[B]       = min(B_max, 1 + λ·max(w, S_batch(E[B])))   (a busy server lets the batch grow: fixed point)
        ρ          = λ·S_batch/E[B] < 1 required
        W_q        = ρ/(1−ρ) · S_batch · (1 + c_s²)/2           (P-K, the batch as the customer, rate λ/E[B])
        E2E        = window wait + W_q + S_batch

    The window wait is that of :func:`window_batch` with the nominal ``w``; the time a formed batch waits
    for a busy server is in ``W_q``. With fixed output lengths ``T_out,max(B) = T_out`` (no head-of-line
    blocking); longer tails lengthen ``S_batch``. The fixed point uses
    :func:`~economics.serving.solvers.least_fixed_point` (``E[B]`` is monotone and bounded by ``B_max``).

    >>> from economics.hardware import GPU
    >>> from economics.schemes import ARScheme
    >>> h100 = GPU(id="h100", name="H100", peak_flops_bf16_per_s=989.4e12, hbm_bandwidth_bytes_per_s=3.35e12,
    ...     hbm_capacity_bytes=80e9, link_bandwidth_bytes_per_s=450e9, power_w=700)
    >>> llama70 = ModelSpec(id="l70", name="l70", n_layers=80, d_model=8192, n_heads=64, n_kv_heads=8,
    ...     head_dim=128, d_ff=28672, vocab=128256)
    >>> spec = Efficiency(allreduce_half_bytes=0)  # the first spec's all-reduce, as in the docs' table
    >>> sb = static_batching(llama70, Deployment(gpu=h100, n_gpus=8), spec, ARScheme(), 0.1, 1000, 500, 0.5)
    >>> round(float(sb.mean_batch), 2), round(float(sb.service_time_s), 2), bool(sb.stable)
    (1.49, 4.91, True)
    """
    lam = _f(arrival_rate_per_s)
    w = _f(window_s)
    cv2 = _f(service_cv2)
    if np.any(lam < 0) or np.any(~np.isfinite(lam)) or np.any(w < 0) or np.any(cv2 < 0):
        raise ValueError("need arrival_rate_per_s ≥ 0 (finite), window_s ≥ 0 and service_cv2 ≥ 0")
    shape = serving_shape(scheme, input_tokens, output_tokens)
    t_in, t_out = shape.input_tokens, shape.output_tokens
    mem = kv_capacity(model, deployment, efficiency, kv_reserve_bytes)
    if max_batch is None:
        bmax = mem.max_batch(resident_tokens(scheme, t_in, t_out, reserve_output=True))
    else:
        bmax = np.minimum(_f(max_batch), mem.max_batch(shape.resident_tokens))
    full = np.broadcast_shapes(lam.shape, w.shape, cv2.shape, t_in.shape, np.shape(bmax))
    fits = np.broadcast_to(bmax >= 1, full)
    bmax_ok = np.broadcast_to(np.where(fits, bmax, 1.0), full).astype(np.float64)
    e = shape.tokens_per_pass
    bidir = isinstance(scheme, DiffusionScheme)

    def prefill_s(b: FloatArray) -> FloatArray:
        if not shape.prefill_tokens.any():
            return np.zeros(np.broadcast_shapes(np.shape(b), t_in.shape))
        t = forward_time(model, deployment, efficiency, b, t_in, 0.0, prefill=True, bidirectional=bidir).time_s
        return np.asarray(np.where(t_in > 0, t, 0.0), dtype=np.float64)

    def pass_s(b: FloatArray) -> FloatArray:
        ctx = shape.decode_context_tokens
        return iteration_time(model, deployment, efficiency, scheme, b, ctx, canvas_tokens=t_in + t_out).time_s

    def service_s(b: FloatArray) -> FloatArray:
        return np.asarray(prefill_s(b) + shape.passes_per_request * pass_s(b), dtype=np.float64)

    def grow(b: FloatArray) -> FloatArray:
        return np.asarray(np.minimum(bmax_ok, 1.0 + lam * np.maximum(w, service_s(b))), dtype=np.float64)

    start = np.broadcast_to(np.minimum(bmax_ok, 1.0 + lam * w), full).astype(np.float64)
    batch = least_fixed_point(grow, start, bmax_ok)
    service = np.broadcast_to(service_s(batch), full)
    rho = lam * service / batch
    stable = fits & (rho < 1.0)
    window_wait = np.broadcast_to(window_batch(lam, w, bmax_ok)[1], full)
    with np.errstate(divide="ignore", invalid="ignore"):
        w_q = np.where(stable, rho / np.where(stable, 1.0 - rho, 1.0) * service * (1.0 + cv2) / 2.0, np.inf)
    t_pass = np.broadcast_to(pass_s(batch), full)
    ttft = window_wait + w_q + prefill_s(batch) + shape.first_token_passes * t_pass
    return StaticBatching(
        arrival_rate_per_s=np.broadcast_to(lam, full).astype(np.float64),
        mean_batch=np.where(fits, batch, 0.0),
        max_batch=np.broadcast_to(np.asarray(bmax, dtype=np.float64), full).copy(),
        window_wait_s=np.asarray(window_wait, dtype=np.float64),
        service_time_s=np.where(fits, service, np.inf),
        busy_fraction=np.where(fits, rho, np.inf),
        queue_wait_s=np.asarray(w_q, dtype=np.float64),
        ttft_s=np.where(stable, ttft, np.inf),
        tpot_s=np.where(fits, t_pass / e, np.inf),
        e2e_mean_s=np.where(stable, window_wait + w_q + service, np.inf),
        stable=np.asarray(stable, dtype=np.bool_),
    )
