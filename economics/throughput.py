"""Throughput of a replica in the three regimes benchmarks report (docs/roofline.md#worked-example-70b to
docs/roofline.md#prefill, docs/memory.md#kv-capacity, docs/serving.md#serving-and-queues).

* **Steady decode** (``--batch B``): ``B`` sequences resident, each at the mean context
  ``T_in + T_out/2``; prefill is charged only to TTFT. This is the docs/roofline.md#worked-example-70b table.
* **Closed-loop concurrency** (``--concurrency C``): ``C`` clients, each sending its next request when the
  last one finishes. The engine batches continuously with stall-free chunked prefill (Orca, vLLM v1,
  Sarathi-Serve, TensorRT-LLM in-flight batching): a prompt rides in one iteration together with the
  decoding sequences. A request spends ``n_pre = 1`` iteration in prefill and ``n_dec = T_out/e``
  iterations decoding, so a share ``n_dec/(n_dec+n_pre)`` of the ``B_run`` running sequences decode at any
  time, and one cycle of ``n = n_pre + n_dec`` iterations brings ``B_run`` prompts. Clients drift apart, so
  the prompts arrive one per iteration while ``B_run < n`` and ``B_run/n`` per iteration beyond: a cycle has
  ``m = min(B_run, n)`` prompt-carrying iterations and ``n − m`` pure decode iterations. That keeps a
  lone client's prefill compute-bound (it is not smeared over memory-bound decode steps, where it would
  look free) and tends to the fully mixed iteration at high load. The mix depends only on counts, not on
  time, so there is no fixed point to solve. KV memory caps the running batch ``B_run = min(C, B_max)``;
  the other clients queue (Little's law gives their wait).
* **Offline saturation** (``--max``): every request is queued, so the engine runs the closed loop at the
  largest batch memory allows, ``min(B_max, max_batch)``. ``max_batch`` defaults to 8192, the largest
  CUDA-graph batch TensorRT-LLM's benchmark captures (the calibration set's offline rows).

Prefill is included in both loaded regimes; TTFT is the prefill iteration plus the passes until the first
token is final, plus any queueing. AR and speculative decoding sample the first token from the prefill's
logits (no decode step, unlike the first spec's ``+ TPOT``; as :mod:`economics.serving` does); diffusion needs
the ``S`` denoising passes of the first block (:func:`~economics.iteration.passes_to_first_token`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pydantic import Field

from economics._base import Frozen
from economics.capacity import KVCapacity, kv_capacity
from economics.hardware import Deployment, Efficiency, Precision
from economics.iteration import (
    AnyScheme,
    IterationTime,
    iteration_time,
    needs_prefill,
    passes_to_first_token,
    resident_tokens,
    tokens_per_iteration,
)
from economics.model import FloatArray, ModelSpec
from economics.roofline import forward_time
from economics.schemes import DiffusionScheme
from economics.units import GB

__all__ = [
    "DEFAULT_MAX_BATCH",
    "DEFAULT_PREFILL_CHUNK_TOKENS",
    "IterationTime",
    "Regime",
    "RegimeArrays",
    "ThroughputResult",
    "closed_loop",
    "iteration_time",
    "offline_saturation",
    "steady_decode",
    "throughput",
    "tokens_per_iteration",
]

Regime = Literal["batch", "concurrency", "max"]

#: Largest running batch in offline saturation: TensorRT-LLM's trtllm-bench captures CUDA graphs for batch
#: sizes up to 8192 (calibration set, "max (offline ...; CUDA-graph batch sizes up to 8192)") [count].
DEFAULT_MAX_BATCH = 8192

#: Token budget of one iteration for prompt chunks: TensorRT-LLM's default ``max_num_tokens`` and SGLang's
#: ``chunked_prefill_size`` on large GPUs are 8192; prompts up to this length enter in one iteration [tokens].
DEFAULT_PREFILL_CHUNK_TOKENS = 8192


@dataclass(frozen=True)
class RegimeArrays:
    """Throughput of one replica at an operating point; arrays broadcast over the inputs."""

    output_tokens_per_s: FloatArray  # delivered output tokens per second, whole replica [tok/s]
    output_tokens_per_s_per_gpu: FloatArray  # the same divided by the GPUs of the replica [tok/s]
    tpot_s: FloatArray  # time per output token of one stream, mean t_iter / e [s]
    ttft_s: FloatArray  # time to first token, queueing included [s]
    batch: FloatArray  # sequences running in the engine [count]
    max_batch_kv: FloatArray  # largest batch the KV memory holds at this context [count]
    kv_fits: NDArray[np.bool_]  # the weights fit and the running batch fits in KV memory [-]
    queue_wait_s: FloatArray  # wait before a request enters the engine [s]
    kv_tokens_per_sequence: FloatArray  # KV tokens one sequence holds [tokens]
    iteration_s: FloatArray  # mean iteration time, draft included [s]
    draft_s: FloatArray  # mean draft time per iteration (speculative) [s]
    new_tokens: FloatArray  # q per sequence in the main pass [tokens]
    tokens_per_pass: float  # e per sequence [tokens]
    arithmetic_intensity_flop_per_byte: FloatArray  # FLOPs / bytes of the main passes over a cycle [FLOP/B]
    compute_time_share: FloatArray  # share of the time spent in compute-bound main passes [1]


def _capacity(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    scheme: AnyScheme,
    T_in: FloatArray,
    T_out: FloatArray,
    reserve_output: bool,
) -> tuple[KVCapacity, FloatArray, FloatArray]:
    cap = kv_capacity(model, deployment, efficiency)
    kv_tokens = resident_tokens(scheme, T_in, T_out, reserve_output)
    return cap, kv_tokens, cap.max_batch(kv_tokens)


def steady_decode(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    scheme: AnyScheme,
    batch: ArrayLike,
    input_tokens: ArrayLike,
    output_tokens: ArrayLike,
    *,
    reserve_output: bool = False,
) -> RegimeArrays:
    """Decode throughput with ``batch`` sequences resident at context ``T_in + T_out/2``
    (docs/roofline.md#worked-example-70b).

    ``X = B·e / t_iter`` [tok/s per replica], ``TPOT = t_iter/e`` [s] and
    ``TTFT = t_prefill(T_in, B=1) + passes_to_first_token·t_iter`` [s] (no queueing; 0 passes for AR and
    speculative decoding, whose first token comes from the prefill, ``S`` for diffusion). Prefill does not
    slow the decoding batch here: this is the decode-only view of the docs/roofline.md#worked-example-70b table.

    Example: Llama-3.1-70B in BF16 on 8×H100, ideal efficiency, 1000 in / 500 out, batch 1: ≈189 tok/s,
    0.5% under the weights-only 189.9 of docs/roofline.md#worked-example-70b because the 1250-token KV cache is read
    too.
    """
    B = np.asarray(batch, dtype=np.float64)
    T_in = np.asarray(input_tokens, dtype=np.float64)
    T_out = np.asarray(output_tokens, dtype=np.float64)
    cap, kv_tokens, mb = _capacity(model, deployment, efficiency, scheme, T_in, T_out, reserve_output)
    it = iteration_time(model, deployment, efficiency, scheme, B, T_in + T_out / 2.0, canvas_tokens=T_in + T_out)
    e = it.tokens_per_pass
    prefill_s = (
        forward_time(
            model,
            deployment,
            efficiency,
            1.0,
            T_in,
            0.0,
            prefill=True,
            bidirectional=isinstance(scheme, DiffusionScheme),
        ).time_s
        if needs_prefill(scheme)
        else np.zeros_like(T_in)
    )
    x = B * e / it.time_s
    shape = it.time_s.shape
    main = it.main
    return RegimeArrays(
        output_tokens_per_s=np.asarray(x, dtype=np.float64),
        output_tokens_per_s_per_gpu=np.asarray(x / deployment.n_gpus, dtype=np.float64),
        tpot_s=it.time_per_output_token_s,
        ttft_s=np.asarray(
            np.broadcast_to(prefill_s + passes_to_first_token(scheme) * it.time_s, shape), dtype=np.float64
        ),
        batch=np.broadcast_to(B, shape).astype(np.float64),
        max_batch_kv=np.broadcast_to(mb, shape).astype(np.float64),
        kv_fits=np.broadcast_to(cap.feasible & (mb >= B), shape).copy(),
        queue_wait_s=np.zeros(shape),
        kv_tokens_per_sequence=np.broadcast_to(kv_tokens, shape).astype(np.float64),
        iteration_s=it.time_s,
        draft_s=it.draft_s,
        new_tokens=it.new_tokens,
        tokens_per_pass=e,
        arithmetic_intensity_flop_per_byte=main.arithmetic_intensity_flop_per_byte,
        compute_time_share=main.compute_bound.astype(np.float64),
    )


def closed_loop(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    scheme: AnyScheme,
    concurrency: ArrayLike,
    input_tokens: ArrayLike,
    output_tokens: ArrayLike,
    *,
    reserve_output: bool = False,
    prefill_chunk_tokens: int = DEFAULT_PREFILL_CHUNK_TOKENS,
) -> RegimeArrays:
    """Throughput with ``C`` closed-loop clients and continuous batching with chunked prefill.

    With ``B_run = min(C, B_max)`` running sequences, ``n_dec = T_out/e`` decode iterations and ``n_pre = 1``
    prefill iteration per request (0 for diffusion without a cache), ``n = n_pre + n_dec`` iterations per
    cycle. A prompt enters in chunks of at most ``prefill_chunk_tokens`` (``k = max(1, T_in/chunk)`` chunks),
    so ``m = min(B_run·k, n)`` iterations per cycle carry ``B_run·T_in/m`` prompt tokens each (attending to
    ``(T_in+1)/2`` earlier prompt tokens on average). All iterations decode ``B_dec = B_run·n_dec/n``
    sequences at context ``T_in + T_out/2``. With ``t_mix`` and ``t_dec`` from :func:`iteration_time`:

    ``cycle = m·t_mix + (n − m)·t_dec``, ``X = B_run·T_out / cycle`` [tok/s per replica],
    ``TPOT = cycle/(n·e)``, ``W_queue = cycle·(C/B_run − 1)`` (Little's law for the clients KV memory
    cannot hold) and ``TTFT = W_queue + k·t_mix + passes_to_first_token·cycle/n``.

    Limits: one client pays its whole prefill in one compute-bound iteration, then ``n_dec`` decode steps;
    at high load every iteration is mixed. ``B_run = 0`` (the model or one sequence does not fit) gives
    ``X = 0`` and ``kv_fits = False``.
    """
    C = np.asarray(concurrency, dtype=np.float64)
    T_in = np.asarray(input_tokens, dtype=np.float64)
    T_out = np.asarray(output_tokens, dtype=np.float64)
    cap, kv_tokens, mb = _capacity(model, deployment, efficiency, scheme, T_in, T_out, reserve_output)
    B_run = np.minimum(C, mb)
    e = tokens_per_iteration(scheme)
    n_dec = T_out / e
    n_pre = 1.0 if needs_prefill(scheme) else 0.0
    n = n_dec + n_pre
    chunks_per_prompt = np.maximum(1.0, T_in / prefill_chunk_tokens)
    m = np.minimum(B_run * chunks_per_prompt, n) if n_pre else np.zeros_like(B_run)
    B_dec = B_run * n_dec / n
    ctx = T_in + T_out / 2.0
    prompt_tokens = np.where(m > 0, B_run * T_in / np.where(m > 0, m, 1.0), 0.0)
    args = (model, deployment, efficiency, scheme, B_dec, ctx)
    mix = iteration_time(*args, prompt_tokens, (T_in + 1.0) / 2.0, canvas_tokens=T_in + T_out)
    dec = iteration_time(*args, canvas_tokens=T_in + T_out)
    t_mix, t_dec = mix.time_s, dec.time_s
    cycle = m * t_mix + (n - m) * t_dec
    running = B_run > 0
    x = np.where(running, B_run * T_out / cycle, 0.0)
    wait = np.where(running, cycle * (C / np.where(running, B_run, 1.0) - 1.0), np.inf)
    t_mean = cycle / n
    mm, md = mix.main, dec.main
    flops = m * mm.flops + (n - m) * md.flops
    bytes_ = m * mm.bytes + (n - m) * md.bytes
    compute_share = (m * t_mix * mm.compute_bound + (n - m) * t_dec * md.compute_bound) / cycle
    shape = cycle.shape
    return RegimeArrays(
        output_tokens_per_s=np.asarray(x, dtype=np.float64),
        output_tokens_per_s_per_gpu=np.asarray(x / deployment.n_gpus, dtype=np.float64),
        tpot_s=np.asarray(t_mean / e, dtype=np.float64),
        ttft_s=np.asarray(
            wait + n_pre * chunks_per_prompt * t_mix + passes_to_first_token(scheme) * t_mean, dtype=np.float64
        ),
        batch=np.broadcast_to(B_run, shape).astype(np.float64),
        max_batch_kv=np.broadcast_to(mb, shape).astype(np.float64),
        kv_fits=np.broadcast_to(cap.feasible & running, shape).copy(),
        queue_wait_s=np.broadcast_to(wait, shape).astype(np.float64),
        kv_tokens_per_sequence=np.broadcast_to(kv_tokens, shape).astype(np.float64),
        iteration_s=np.asarray(t_mean, dtype=np.float64),
        draft_s=np.asarray((m * mix.draft_s + (n - m) * dec.draft_s) / n, dtype=np.float64),
        new_tokens=dec.new_tokens,
        tokens_per_pass=e,
        arithmetic_intensity_flop_per_byte=np.asarray(flops / bytes_, dtype=np.float64),
        compute_time_share=np.asarray(compute_share, dtype=np.float64),
    )


def offline_saturation(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    scheme: AnyScheme,
    input_tokens: ArrayLike,
    output_tokens: ArrayLike,
    *,
    max_batch: int = DEFAULT_MAX_BATCH,
    reserve_output: bool = False,
    prefill_chunk_tokens: int = DEFAULT_PREFILL_CHUNK_TOKENS,
) -> RegimeArrays:
    """Throughput with every request queued: the closed loop at ``C = min(B_max, max_batch)``.

    This is what offline benchmarks (``trtllm-bench`` max throughput, vLLM ``benchmark_throughput``) report:
    the running batch is as large as KV memory (or the engine's batch limit) allows, and prefill is paid
    inside the iterations. Use ``reserve_output=True`` for engines that reserve the whole output in KV
    memory up front (TensorRT-LLM's default scheduler).
    """
    T_in = np.asarray(input_tokens, dtype=np.float64)
    T_out = np.asarray(output_tokens, dtype=np.float64)
    _, _, mb = _capacity(model, deployment, efficiency, scheme, T_in, T_out, reserve_output)
    C = np.minimum(mb, float(max_batch))
    return closed_loop(
        model,
        deployment,
        efficiency,
        scheme,
        C,
        T_in,
        T_out,
        reserve_output=reserve_output,
        prefill_chunk_tokens=prefill_chunk_tokens,
    )


class ThroughputResult(Frozen):
    """Throughput of one replica at one operating point, with the scheme and capacity details behind it."""

    model_id: str = Field(description="model of the replica [-]")
    gpu_id: str = Field(description="GPU of the replica [-]")
    gpus: int = Field(ge=1, description="GPUs in the tensor-parallel replica [count]")
    precision: Precision = Field(description="serving precision [-]")
    scheme: Literal["ar", "speculative", "diffusion"] = Field(description="decoding scheme [-]")
    scheme_id: str = Field(description="scheme preset id [-]")
    regime: Regime = Field(description="batch: steady decode; concurrency: closed loop; max: offline [-]")
    input_tokens: int = Field(ge=1, description="prompt length T_in [tokens]")
    output_tokens: int = Field(ge=1, description="output length T_out [tokens]")
    concurrency: int | None = Field(description="closed-loop clients C, None in the other regimes [count]")
    output_tokens_per_s: float = Field(ge=0, description="output tokens per second, whole replica [tok/s]")
    output_tokens_per_s_per_gpu: float = Field(ge=0, description="output tokens per second per GPU [tok/s]")
    tpot_s: float = Field(ge=0, description="time per output token of one stream [s]")
    ttft_s: float = Field(ge=0, description="time to first token, queueing included [s]")
    batch: float = Field(ge=0, description="sequences running in the engine [count]")
    bound: Literal["memory", "compute"] = Field(description="what limits the main passes for most of the time [-]")
    arithmetic_intensity_flop_per_byte: float = Field(
        ge=0, description="FLOPs per byte of the main passes (averaged over a request cycle) [FLOP/B]"
    )
    max_batch_kv: int = Field(ge=0, description="largest batch the KV memory holds at this context [count]")
    feasible: bool = Field(description="the model fits and the batch fits in KV memory [-]")
    reason: str = Field(description="why not feasible, or '' [-]")
    notes: str = Field(default="", description="what else limits the operating point, e.g. clients queueing [-]")
    iteration_s: float = Field(ge=0, description="mean time of one iteration, draft included [s]")
    draft_s: float = Field(ge=0, description="draft passes per iteration (speculative), else 0 [s]")
    new_tokens_per_iteration: float = Field(ge=0, description="q: tokens per sequence in the main pass [tokens]")
    tokens_per_iteration: float = Field(gt=0, description="e: tokens emitted per sequence per iteration [tokens]")
    kv_tokens_per_sequence: float = Field(ge=0, description="KV tokens one sequence holds [tokens]")
    queue_wait_s: float = Field(ge=0, description="wait before a request enters the engine [s]")
    kv_free_bytes: float = Field(ge=0, description="memory left for the KV cache after the weights [B]")


def throughput(
    model: ModelSpec,
    deployment: Deployment,
    efficiency: Efficiency,
    scheme: AnyScheme,
    input_tokens: int,
    output_tokens: int,
    *,
    batch: int | None = None,
    concurrency: int | None = None,
    saturate: bool = False,
    max_batch: int = DEFAULT_MAX_BATCH,
    reserve_output: bool = False,
    prefill_chunk_tokens: int = DEFAULT_PREFILL_CHUNK_TOKENS,
) -> ThroughputResult:
    """One operating point as a typed result: exactly one of ``batch``, ``concurrency`` or ``saturate``.

    Wraps :func:`steady_decode`, :func:`closed_loop` and :func:`offline_saturation`. A model that does not
    fit, or a batch over the KV-memory limit, is ``feasible=False`` with the reason (never a negative batch);
    its throughput is then 0 and its latencies ``inf``. ``reserve_output`` sizes the KV cache for the whole
    output (TensorRT-LLM's ``GUARANTEED_NO_EVICT``) instead of the mean resident context (paged, vLLM).

    Raises
    ------
    ValueError
        For a non-positive count or not exactly one regime.

    Example (issue #2 acceptance): Llama-3.1-70B in BF16 on 8×H100, ideal roofline, 1000 in / 500 out,
    batch 1 → 189.0 tok/s (the first spec's "190" counts the weights alone).

    >>> from economics.io.catalog import load_catalog
    >>> from economics.schemes import ARScheme
    >>> catalog = load_catalog()
    >>> r = throughput(catalog.models["llama-3.1-70b"], Deployment(gpu=catalog.gpus["h100-sxm"], n_gpus=8),
    ...     Efficiency.ideal(), ARScheme(), 1000, 500, batch=1)
    >>> round(r.output_tokens_per_s, 1), r.bound, r.feasible
    (189.0, 'memory', True)
    """
    if (batch is not None) + (concurrency is not None) + bool(saturate) != 1:
        raise ValueError("give exactly one of batch, concurrency and saturate")
    for name, value in (
        ("input_tokens", input_tokens),
        ("output_tokens", output_tokens),
        ("batch", batch),
        ("concurrency", concurrency),
        ("max_batch", max_batch),
        ("prefill_chunk_tokens", prefill_chunk_tokens),
    ):
        if value is not None and value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value}")
    regime: Regime
    common = (model, deployment, efficiency, scheme)
    if batch is not None:
        regime = "batch"
        arr = steady_decode(*common, batch, input_tokens, output_tokens, reserve_output=reserve_output)
    elif concurrency is not None:
        regime = "concurrency"
        arr = closed_loop(
            *common,
            concurrency,
            input_tokens,
            output_tokens,
            reserve_output=reserve_output,
            prefill_chunk_tokens=prefill_chunk_tokens,
        )
    else:
        regime = "max"
        arr = offline_saturation(
            *common,
            input_tokens,
            output_tokens,
            max_batch=max_batch,
            reserve_output=reserve_output,
            prefill_chunk_tokens=prefill_chunk_tokens,
        )
    cap = kv_capacity(model, deployment, efficiency)
    mb = int(arr.max_batch_kv)
    kv_tok = float(arr.kv_tokens_per_sequence)
    reason = notes = ""
    if not cap.feasible:
        reason = cap.reason
    elif mb < 1:
        reason = (
            f"one sequence of {kv_tok:.0f} cached tokens needs {cap.kv_bytes_per_token * kv_tok / GB:.1f} GB of KV "
            f"cache but only {cap.free_bytes / GB:.1f} GB are free"
        )
    elif regime == "batch" and batch is not None and batch > mb:
        reason = (
            f"batch {batch} exceeds the KV-memory limit of {mb} sequences of {kv_tok:.0f} cached tokens "
            f"({cap.free_bytes / GB:.1f} GB free for KV)"
        )
    elif regime == "concurrency" and concurrency is not None and concurrency > mb:
        notes = f"KV memory holds {mb} sequences; the other {concurrency - mb} clients queue"
    elif regime == "max" and mb > max_batch:
        notes = f"running batch capped at max_batch {max_batch} (KV memory would hold {mb})"
    elif regime == "max":
        notes = f"running batch capped by KV memory at {mb} sequences"
    feasible = not reason
    ttft = float(arr.ttft_s)
    return ThroughputResult(
        model_id=model.id,
        gpu_id=deployment.gpu.id,
        gpus=deployment.n_gpus,
        precision=deployment.precision,
        scheme=scheme.kind,
        scheme_id=scheme.id,
        regime=regime,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        concurrency=concurrency,
        output_tokens_per_s=float(arr.output_tokens_per_s) if feasible else 0.0,
        output_tokens_per_s_per_gpu=float(arr.output_tokens_per_s_per_gpu) if feasible else 0.0,
        tpot_s=float(arr.tpot_s) if feasible else float("inf"),
        ttft_s=ttft if feasible else float("inf"),
        batch=float(arr.batch),
        bound="compute" if float(arr.compute_time_share) >= 0.5 else "memory",
        arithmetic_intensity_flop_per_byte=float(arr.arithmetic_intensity_flop_per_byte),
        max_batch_kv=mb,
        feasible=feasible,
        reason=reason,
        notes=notes,
        iteration_s=float(arr.iteration_s),
        draft_s=float(arr.draft_s),
        new_tokens_per_iteration=float(arr.new_tokens),
        tokens_per_iteration=arr.tokens_per_pass,
        kv_tokens_per_sequence=kv_tok,
        queue_wait_s=float(arr.queue_wait_s),
        kv_free_bytes=cap.free_bytes,
    )
