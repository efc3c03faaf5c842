"""Predicted vs measured decode throughput on the calibration set (docs/calibration.md#golden-values extension).

Pure functions: the caller reads ``calibration_ar_throughput.csv`` (a copy lives in ``tests/data/``) and the
catalog, and passes rows and lookups in. :func:`map_row` turns one measured row into the model's inputs, or
into an :class:`Exclusion` that says why the model cannot represent it (nothing is dropped silently);
:func:`predict` evaluates the cases with one efficiency setting; :func:`error_summary` reports the median and
90th-percentile absolute percentage error per regime.

The default efficiency factors are :class:`~economics.hardware.Efficiency`'s, chosen from the evidence of
docs/inputs.md#efficiency and not fitted to these rows. Mapping choices, all stated where they are made:

* Llama 3 and Llama 3.1/3.3 share their architecture at each size (catalog ``llama-3.1-*``).
* llama.cpp's GGUF ``Q4_K_M`` mixes 4.5- and 6.6-bit blocks; it is priced at the real file size that
  llama-bench prints for these checkpoints (4.58 GiB for Llama-3-8B, 39.59 GiB for Llama-3-70B: 0.612 and
  0.603 B per weight), with an F16 KV cache and 16-bit compute; ``F16`` is 2 B per weight.
* llama.cpp's multi-GPU "layer split" is pipeline parallelism: at batch 1 the GPUs run their layers one after
  the other, so a token takes the time of one GPU streaming all the weights. It is represented as one GPU
  with the memory of all of them (the hops between GPUs are not modelled).
* TensorRT-LLM's offline rows: ``reserve_output`` (its default ``GUARANTEED_NO_EVICT`` scheduler reserves KV
  for the whole output) and a batch limit of 8192 (the CUDA-graph sizes the rows state). ``DEP4``
  (attention data parallel + expert parallel) is priced as TP4: same aggregate bandwidth, FLOP/s and memory.
* Batch-1 rows are decode speed at context ``T_in + T_out/2``; llama.cpp's "short prompt" is 1 token and
  SGLang's MT-bench lengths, which the row does not give, are taken as 128 in / 512 out (context moves an 8B
  batch-1 step by < 1%).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import Field

from economics._base import Frozen
from economics.calibration_slo import slo_tail_throughput
from economics.engines import engine_id_for, load_engines
from economics.hardware import GPU, Deployment, Efficiency, Precision
from economics.model import FloatArray, ModelSpec
from economics.roofline import forward_time
from economics.schemes import ARScheme
from economics.throughput import DEFAULT_MAX_BATCH, closed_loop, offline_saturation, steady_decode
from economics.units import GIB

CalibrationRegime = Literal["batch-1", "concurrency", "saturation"]
REGIMES: tuple[CalibrationRegime, ...] = ("batch-1", "concurrency", "saturation")

#: Size of llama.cpp's Q4_K_M GGUF files as llama-bench reports them ("llama 8B Q4_K - Medium | 4.58 GiB |
#: 8.03 B", "llama 70B Q4_K - Medium | 39.59 GiB | 70.55 B"), by catalog model id [B].
Q4_K_M_FILE_BYTES = {"llama-3.1-8b": 4.58 * GIB, "llama-3.1-70b": 39.59 * GIB}

#: Size of OpenAI's released gpt-oss checkpoints (MXFP4 MoE weights, BF16 attention/embeddings), from the gpt-oss
#: model card (arXiv 2508.10925, checkpoint-size table: 60.8 GiB and 12.8 GiB), by catalog model id [B].
MXFP4_CHECKPOINT_BYTES = {"gpt-oss-120b": 60.8 * GIB, "gpt-oss-20b": 12.8 * GIB}
#: GPUs without FP4 tensor cores on which TensorRT-LLM's gpt-oss recipe runs the MoE in its TRITON backend (MXFP4
#: weights upcast to BF16 activations) and keeps the KV cache at ``auto`` (BF16): perf-overview.md ``llm_options.yml``
#: for GPT-OSS, "kv_cache_config: dtype: fp8  # Hopper: use auto", "moe_config: backend: CUTLASS  # Hopper: use
#: TRITON". The table's "(FP8)" column label is not the compute precision on these GPUs.
GPT_OSS_BF16_COMPUTE_GPUS = ("h100-sxm", "h100-pcie", "h200-sxm")

MODEL_IDS = {
    "Llama-3.1-8B-Instruct": "llama-3.1-8b",
    "Llama-3-8B": "llama-3.1-8b",
    "Llama-3-70B": "llama-3.1-70b",
    "Llama-3.3-70B-Instruct": "llama-3.1-70b",
    "Llama-3.1-405B-Instruct": "llama-3.1-405b",
    "GPT-OSS-20B (MoE)": "gpt-oss-20b",
    "GPT-OSS-120B (MoE)": "gpt-oss-120b",
}
GPU_IDS = {
    "H100 SXM": "h100-sxm",
    "H100": "h100-sxm",  # SGLang's EAGLE-3 table says "H100"; the SXM part is the common server GPU [assumption]
    "H100 PCIe 80GB": "h100-pcie",
    "A100 SXM 80GB": "a100-sxm-80gb",
    "A100 PCIe 80GB": "a100-pcie-80gb",
    "L40S 48GB": "l40s",
    "RTX 4090 24GB": "rtx-4090",
}
MT_BENCH_TOKENS = (128, 512)  # [assumption] input/output tokens for SGLang's MT-bench batch-1 rows


class CalibrationCase(Frozen):
    """One measured row as the model's inputs."""

    row: int = Field(ge=0, description="0-based data row of the CSV [-]")
    label: str = Field(description="short description of the row [-]")
    model_id: str = Field(description="catalog model id [-]")
    gpu_id: str = Field(description="catalog GPU id [-]")
    gpus: int = Field(ge=1, description="GPUs of the replica [count]")
    layer_split: bool = Field(description="pipeline (llama.cpp layer split) instead of tensor parallel [-]")
    precision: Precision = Field(description="compute precision [-]")
    weight_file_bytes: float | None = Field(
        description="size of the weights when it is not bytes-per-weight × parameters (GGUF files), or None [B]"
    )
    regime: CalibrationRegime = Field(description="batch-1 decode, closed-loop concurrency or saturation [-]")
    input_tokens: int = Field(ge=1, description="prompt length [tokens]")
    output_tokens: int = Field(ge=1, description="output length [tokens]")
    reserve_output: bool = Field(description="KV reserved for the whole output (TensorRT-LLM) [-]")
    framework: str = Field(description="serving engine of the measurement [-]")
    measured_tokens_per_s: float = Field(gt=0, description="measured output tokens per second, whole replica [tok/s]")
    engine: str = Field(default="", description="engine id of data/catalog/engines.csv; '' = by framework [-]")
    concurrency: float | None = Field(default=None, gt=0, description="closed-loop clients of the replica [count]")
    max_batch: int = Field(default=DEFAULT_MAX_BATCH, ge=1, description="engine's running-batch limit [count]")
    decode_batch: float | None = Field(
        default=None, gt=0, description="decode-only (disaggregated) steady batch; prefill runs elsewhere [count]"
    )
    dp_attention: bool = Field(
        default=False, description="attention data-parallel (DEP / DP attention): KV not replicated per rank [-]"
    )
    data_parallel: bool = Field(
        default=False,
        description="the system runs as data-parallel replicas of the smallest TP that fits (MLPerf systems) [-]",
    )
    decode_only: bool = Field(default=False, description="prefill runs on other GPUs (disaggregated) [-]")
    burst: bool = Field(
        default=False,
        description="all ``concurrency`` requests sent at once and not replaced (benchmark_serving at rps=inf) [-]",
    )
    variable_lengths: bool = Field(
        default=False,
        description="output lengths vary around the mean (ShareGPT-style datasets) rather than all equal [-]",
    )
    slo_tpot_s: float | None = Field(default=None, gt=0, description="TPOT limit of a latency-SLO row [s]")
    slo_ttft_s: float | None = Field(default=None, gt=0, description="TTFT limit of a latency-SLO row [s]")
    bytes_per_weight: float | None = Field(
        default=None, gt=0, description="bytes per weight when not the precision's (INT4 checkpoints) [B]"
    )
    trust: str = Field(default="", description="trust level of the row [-]")
    source: str = Field(default="", description="where the measurement comes from [-]")


class Exclusion(Frozen):
    """A row the model cannot represent, and why."""

    row: int = Field(ge=0, description="0-based data row of the CSV [-]")
    label: str = Field(description="short description of the row [-]")
    reason: str = Field(description="why it is not predicted [-]")


def _label(row: Mapping[str, str]) -> str:
    return (
        f"{row['model']} {row['precision'].split(' ')[0]} {row['gpu_count']}×{row['gpu_type']} "
        f"{row['framework'].split(' ')[0]} {row['input_len']}/{row['output_len']}"
    )


def map_row(index: int, row: Mapping[str, str]) -> CalibrationCase | Exclusion:
    """Map one CSV row (column name → text) to a :class:`CalibrationCase`, or an :class:`Exclusion`."""
    label = _label(row)
    if "speculative" in row["regime"]:
        return Exclusion(
            row=index,
            label=label,
            reason="speculative decoding: the acceptance length on MT-bench is an input, not a prediction of the "
            "throughput model (the batch-aware speedup is tested against EAGLE-3's C10 instead)",
        )
    model_id, gpu_id = MODEL_IDS.get(row["model"]), GPU_IDS.get(row["gpu_type"])
    if model_id is None or gpu_id is None:
        return Exclusion(row=index, label=label, reason=f"no catalog entry for {row['model']} / {row['gpu_type']}")
    precision_text = row["precision"].upper()
    weight_file_bytes: float | None = None
    if precision_text.startswith("FP8"):
        precision: Precision = "fp8"
    elif precision_text.startswith(("BF16", "F16", "FP16")):
        precision = "bf16"
    elif precision_text.startswith("Q4_K_M") and model_id in Q4_K_M_FILE_BYTES:
        precision, weight_file_bytes = "bf16", Q4_K_M_FILE_BYTES[model_id]
    else:
        return Exclusion(row=index, label=label, reason=f"precision {row['precision']!r} is not modelled")
    if model_id in MXFP4_CHECKPOINT_BYTES and gpu_id in GPT_OSS_BF16_COMPUTE_GPUS:
        precision, weight_file_bytes = "bf16", MXFP4_CHECKPOINT_BYTES[model_id]
    offline = row["regime"] == "max-throughput"
    if not offline and row["batch_or_concurrency"].strip() != "1":
        return Exclusion(row=index, label=label, reason=f"regime {row['regime']!r} is neither batch 1 nor offline")
    if row["input_len"].isdigit() and row["output_len"].isdigit():
        t_in, t_out = int(row["input_len"]), int(row["output_len"])
    elif row["input_len"] == "short prompt" and row["output_len"].isdigit():
        t_in, t_out = 1, int(row["output_len"])
    else:
        t_in, t_out = MT_BENCH_TOKENS
    return CalibrationCase(
        row=index,
        label=label,
        model_id=model_id,
        gpu_id=gpu_id,
        gpus=int(row["gpu_count"]),
        layer_split="layer split" in row["parallelism"],
        precision=precision,
        weight_file_bytes=weight_file_bytes,
        regime="saturation" if offline else "batch-1",
        input_tokens=t_in,
        output_tokens=t_out,
        reserve_output=offline and row["framework"].startswith("TensorRT-LLM"),
        dp_attention="DEP" in row["parallelism"],
        framework=row["framework"],
        engine=engine_id_for(row["framework"]),
        measured_tokens_per_s=float(row["tokens_per_s"]),
        trust=row.get("trust", ""),
        source=row.get("source", ""),
    )


def map_rows(rows: Iterable[Mapping[str, str]]) -> tuple[list[CalibrationCase], list[Exclusion]]:
    """:func:`map_row` over every row, split into cases and exclusions."""
    mapped = [map_row(index, row) for index, row in enumerate(rows)]
    return (
        [m for m in mapped if isinstance(m, CalibrationCase)],
        [m for m in mapped if isinstance(m, Exclusion)],
    )


def replica(
    case: CalibrationCase, gpus: Mapping[str, GPU], models: Mapping[str, ModelSpec]
) -> tuple[ModelSpec, Deployment]:
    """The model at the case's precision and the replica it runs on (layer split: one GPU, all the memory)."""
    model = models[case.model_id].at_precision(case.precision)
    if case.bytes_per_weight is not None:
        model = model.model_copy(update={"bytes_per_weight": case.bytes_per_weight})
    if case.weight_file_bytes is not None:
        model = model.model_copy(update={"bytes_per_weight": case.weight_file_bytes / model.params_total})
    gpu = gpus[case.gpu_id]
    if case.layer_split:
        gpu = gpu.model_copy(update={"hbm_capacity_bytes": gpu.hbm_capacity_bytes * case.gpus})
        return model, Deployment(gpu=gpu, n_gpus=1, precision=case.precision)
    dep = case.dp_attention and model.is_moe and case.gpus > 1
    return model, Deployment(gpu=gpu, n_gpus=case.gpus, precision=case.precision, expert_parallel=dep)


def predict(
    cases: Sequence[CalibrationCase],
    gpus: Mapping[str, GPU],
    models: Mapping[str, ModelSpec],
    efficiency: Efficiency | None = None,
) -> FloatArray:
    """Predicted output tokens per second of each case, whole replica [tok/s]; NaN where it does not fit.

    The case's engine (``data/catalog/engines.csv``) sets the MBU and per-layer launch overhead
    (:meth:`~economics.engines.Engine.efficiency`) on top of ``efficiency``.
    """
    return np.array([predict_case(c, gpus, models, efficiency) for c in cases], dtype=np.float64)


#: Weights may take at most this share of a replica's usable memory when a system picks its TP degree; the rest
#: is KV cache for a large batch (MLPerf submitters pick TP1 for 70B FP8 on 141 GB but TP2 on 80 GB) [1].
DP_WEIGHT_SHARE = 0.5


def smallest_tp(
    case: CalibrationCase, gpus: Mapping[str, GPU], models: Mapping[str, ModelSpec], eff: Efficiency
) -> int:
    """Smallest power-of-two TP degree dividing the system whose weights take ≤ DP_WEIGHT_SHARE of memory."""
    tp = 1
    while tp < case.gpus:
        model, dep = replica(case.model_copy(update={"gpus": tp}), gpus, models)
        if model.weight_bytes <= DP_WEIGHT_SHARE * dep.hbm_capacity_bytes * eff.kv_mem_util and case.gpus % tp == 0:
            return tp
        tp *= 2
    return case.gpus


def predict_case(
    case: CalibrationCase,
    gpus: Mapping[str, GPU],
    models: Mapping[str, ModelSpec],
    efficiency: Efficiency | None = None,
) -> float:
    """One case's predicted output tokens per second, whole replica [tok/s]; NaN where it does not fit."""
    if case.data_parallel:
        tp = smallest_tp(case, gpus, models, efficiency or Efficiency())
        if tp < case.gpus:
            share = tp / case.gpus
            conc = None if case.concurrency is None else case.concurrency * share
            update = {"gpus": tp, "data_parallel": False, "concurrency": conc,
                      "measured_tokens_per_s": case.measured_tokens_per_s * share}  # fmt: skip
            one = case.model_copy(update=update)
            return predict_case(one, gpus, models, efficiency) * case.gpus / tp
    model, dep = replica(case, gpus, models)
    eff = efficiency or Efficiency()
    engine = load_engines().get(case.engine)
    if engine is not None:
        eff = engine.efficiency(eff, model.n_layers, dep.gpu.hbm_bandwidth_bytes_per_s)
    t_in, t_out = float(case.input_tokens), float(case.output_tokens)
    if case.regime == "batch-1" or case.decode_batch is not None:
        batch = case.decode_batch or 1.0
        res = steady_decode(model, dep, eff, ARScheme(), batch, t_in, t_out)
    elif case.slo_tpot_s is not None:
        return slo_tail_throughput(model, dep, eff, t_in, t_out, tpot_max_s=case.slo_tpot_s,
                                   ttft_max_s=case.slo_ttft_s or float("inf"), max_batch=case.max_batch,
                                   reserve_output=case.reserve_output)  # fmt: skip
    elif case.burst and case.variable_lengths:
        return variable_burst_throughput(model, dep, eff, case)
    elif case.burst:
        return burst_throughput(model, dep, eff, case)
    elif case.regime == "concurrency":
        res = closed_loop(model, dep, eff, ARScheme(), min(case.concurrency or 1.0, case.max_batch), t_in, t_out,
                          reserve_output=case.reserve_output)  # fmt: skip
    elif case.decode_only:
        cap = steady_decode(model, dep, eff, ARScheme(), 1.0, t_in, t_out)
        batch = float(np.minimum(cap.max_batch_kv, case.max_batch))
        res = steady_decode(model, dep, eff, ARScheme(), max(batch, 1.0), t_in, t_out)
    else:
        res = offline_saturation(model, dep, eff, ARScheme(), t_in, t_out, max_batch=case.max_batch,
                                 reserve_output=case.reserve_output)  # fmt: skip
    return float(res.output_tokens_per_s) if bool(res.kv_fits) else float("nan")


def burst_throughput(model: ModelSpec, dep: Deployment, eff: Efficiency, case: CalibrationCase) -> float:
    """Output tokens per second of a burst of ``N = case.concurrency`` requests sent at once [tok/s].

    Nothing replaces a finished request, so the engine runs waves of at most ``b = min(max_batch, B_max)``
    requests (``B_max`` from KV memory): ``⌊N/b⌋`` full waves and one of ``N mod b``. A wave of ``w`` requests
    takes ``w·T_out / X(w)``, with ``X(w)`` the closed-loop throughput at ``w`` clients (its prefill and its decode
    steps), and the benchmark divides all output tokens by the whole makespan:
    ``X_burst = N·T_out / Σ_waves w·T_out/X(w)``. With identical lengths this is exact; variable lengths
    (ShareGPT) leave a longer tail, so it is an upper bound.

    Example by hand: 320 requests, ``b = 256``: one wave of 256 and one of 64. If ``X(256) = 4000`` and
    ``X(64) = 1600`` tok/s at 200 output tokens, the waves take 12.8 s and 8 s, so
    ``X_burst = 64000/20.8 = 3077`` tok/s, not the 4000 of a closed loop held at 256.
    """
    t_in, t_out = float(case.input_tokens), float(case.output_tokens)
    n = case.concurrency or 1.0
    cap = steady_decode(model, dep, eff, ARScheme(), 1.0, t_in, t_out, reserve_output=case.reserve_output)
    b = float(min(case.max_batch, np.floor(float(cap.max_batch_kv))))
    if b < 1:
        return float("nan")
    waves = [b] * int(n // b) + ([n - b * (n // b)] if n % b else [])
    rates = closed_loop(model, dep, eff, ARScheme(), np.array(waves), t_in, t_out, reserve_output=case.reserve_output)
    makespan = float(np.sum(np.array(waves) * t_out / rates.output_tokens_per_s))
    return n * t_out / makespan


#: Longest prompt + output vLLM's ``benchmark_serving`` keeps from ShareGPT (``sample_sharegpt_requests`` drops
#: a conversation turn with ``prompt_len + output_len > 2048``) [tokens].
SHAREGPT_MAX_SEQUENCE_TOKENS = 2048


def exponential_lengths(mean_tokens: float, n: int, cap_tokens: float) -> FloatArray:
    """``n`` output lengths spread like the exponential distribution of mean ``mean_tokens``, cut at ``cap_tokens``
    and rescaled to keep the mean [tokens].

    The mid-quantiles ``−m·ln(1 − (i − ½)/n)`` (deterministic, no sampling), then multiplied so their mean is
    ``m`` again after the cut. The exponential is the widest distribution with a given mean (largest entropy);
    chat completion lengths have that monotone long tail (vLLM paper, Kwon et al. 2023, Fig. 11: ShareGPT
    output lengths) [assumption: the shape; the mean is the dataset's].

    By hand for four requests of mean 200: quantiles 1/8, 3/8, 5/8, 7/8 give 200·(0.1335, 0.4700, 0.9808, 2.0794)
    = 26.7, 94.0, 196.2, 415.9 tokens (mean 183.2), scaled by 200/183.2 to 29.2, 102.6, 214.2, 454.1.

    >>> x = exponential_lengths(200.0, 4, 1e9)
    >>> [round(float(v), 1) for v in x], round(float(x.mean()), 6)
    ([29.2, 102.6, 214.2, 454.1], 200.0)
    """
    q = (np.arange(n, dtype=np.float64) + 0.5) / n
    raw = np.minimum(-mean_tokens * np.log1p(-q), cap_tokens)
    return np.asarray(raw * mean_tokens / raw.mean(), dtype=np.float64)


def variable_burst_throughput(model: ModelSpec, dep: Deployment, eff: Efficiency, case: CalibrationCase) -> float:
    """Output tokens per second of a burst of ``N`` requests whose output lengths vary (ShareGPT) [tok/s].

    As :func:`burst_throughput`, but the lengths are :func:`exponential_lengths` of the case's mean, cut so that
    prompt + output ≤ :data:`SHAREGPT_MAX_SEQUENCE_TOKENS`, in a fixed shuffled order. The engine runs at most
    ``b = min(max_batch, B_max)`` requests; when one finishes the next queued one enters (continuous batching).
    Between two completions the ``B`` running requests advance ``d`` tokens in ``d·t(B)``, with ``t(B)`` the
    decode iteration at batch ``B`` (:func:`~economics.throughput.steady_decode`); each admitted prompt adds its
    marginal prefill time ``t_pre``: what its ``T_in`` tokens add to a decode iteration of ``b`` sequences they
    ride in (chunked prefill; the weights are read for the decode anyway). The makespan ends with
    the longest requests decoding almost alone, where a step costs nearly as much as a full one: that tail is
    what the equal-length waves miss. ``X = Σ lengths / makespan``.

    Example by hand: two requests of 100 and 300 tokens, ``b = 2``, ``t(2) = 20`` ms, ``t(1) = 18`` ms,
    ``t_pre = 0``: 100 steps at 20 ms and 200 at 18 ms = 5.6 s for 400 tokens, 71 tok/s, against
    ``2/0.020 = 100`` tok/s for two requests of 200.
    """
    t_in, t_out = float(case.input_tokens), float(case.output_tokens)
    n = int(case.concurrency or 1.0)
    cap = steady_decode(model, dep, eff, ARScheme(), 1.0, t_in, t_out, reserve_output=case.reserve_output)
    b = int(min(case.max_batch, np.floor(float(cap.max_batch_kv)), n))
    if b < 1:
        return float("nan")
    lengths = exponential_lengths(t_out, n, max(1.0, SHAREGPT_MAX_SEQUENCE_TOKENS - t_in))
    lengths = lengths[np.random.default_rng(0).permutation(n)]  # dataset order is unrelated to length
    step = steady_decode(model, dep, eff, ARScheme(), np.arange(1.0, b + 1.0), t_in, t_out).iteration_s
    ctx = t_in + t_out / 2.0
    ride = forward_time(model, dep, eff, float(b), 1.0, ctx, prefill_tokens=t_in, prefill_context_tokens=(t_in + 1) / 2)
    t_pre = max(0.0, float(ride.time_s) - float(forward_time(model, dep, eff, float(b), 1.0, ctx).time_s))
    return float(np.sum(lengths)) / burst_makespan_s(lengths, b, step, t_pre)


def burst_makespan_s(lengths: FloatArray, max_running: int, step_s: FloatArray, prefill_s: float) -> float:
    """Time to serve requests of ``lengths`` tokens in order, at most ``max_running`` at a time [s].

    Each request takes the first free slot (continuous batching) and decodes one token per iteration; with
    ``B(k)`` requests running at iteration ``k`` the makespan is ``Σ_k step_s[B(k) − 1] + N·prefill_s``, where
    ``step_s[B − 1]`` is one decode iteration at batch ``B`` and ``prefill_s`` the prefill of one admitted
    request. Lengths are rounded to whole tokens (at least 1).

    >>> burst_makespan_s(np.array([100.0, 300.0]), 2, np.array([0.018, 0.020]), 0.0)
    5.6
    """
    tokens = np.maximum(1, np.rint(np.asarray(lengths, dtype=np.float64))).astype(np.int64)
    free = [0] * max(1, max_running)  # the iteration at which each slot frees (a heap)
    starts = np.empty_like(tokens)
    for j, length in enumerate(tokens):
        starts[j] = heapq.heappop(free)
        heapq.heappush(free, int(starts[j] + length))
    ends = starts + tokens
    change = np.zeros(int(ends.max()) + 1, dtype=np.int64)
    np.add.at(change, starts, 1)
    np.add.at(change, ends, -1)
    running = np.cumsum(change)[:-1]
    time = float(np.sum(np.asarray(step_s, dtype=np.float64)[running[running > 0] - 1])) + prefill_s * len(tokens)
    return round(time, 12)


#: GPU architecture family by catalog GPU id prefix (for the per-family error table) [-].
GPU_FAMILIES: tuple[tuple[str, str], ...] = (
    ("h100", "Hopper"), ("h200", "Hopper"), ("h20", "Hopper"), ("b200", "Blackwell"), ("gb200", "Blackwell"),
    ("a100", "Ampere"), ("l40s", "Ada"), ("l4", "Ada"), ("rtx-4090", "Ada"), ("rtx-5090", "Blackwell"),
    ("mi300x", "CDNA3"), ("mi325x", "CDNA3"), ("mi355x", "CDNA4"),
)  # fmt: skip


def gpu_family(gpu_id: str) -> str:
    """Architecture family of a catalog GPU ("Hopper", "Blackwell", "CDNA3", …; "other" when unknown).

    >>> gpu_family("h200-sxm"), gpu_family("gb200"), gpu_family("mi355x")
    ('Hopper', 'Blackwell', 'CDNA4')
    """
    return next((fam for prefix, fam in GPU_FAMILIES if gpu_id.startswith(prefix)), "other")


def error_table(
    cases: Sequence[CalibrationCase], predicted: FloatArray, models: Mapping[str, ModelSpec] | None = None
) -> pd.DataFrame:
    """One row per case: ``row``, ``label``, ``model_id``, ``regime``, ``framework``, ``engine``, ``gpu_family``,
    ``moe`` ("MoE"/"dense"), ``precision``, ``trust``, ``source``, ``measured_tokens_per_s``,
    ``predicted_tokens_per_s``, ``error_pct`` (signed, (predicted − measured)/measured·100) and ``ape_pct``."""
    measured = np.array([c.measured_tokens_per_s for c in cases], dtype=np.float64)
    error = (predicted - measured) / measured * 100.0
    return pd.DataFrame(
        {
            "row": [c.row for c in cases],
            "label": [c.label for c in cases],
            "model_id": [c.model_id for c in cases],
            "regime": [c.regime for c in cases],
            "framework": [c.framework for c in cases],
            "engine": [c.engine for c in cases],
            "gpu_family": [gpu_family(c.gpu_id) for c in cases],
            "moe": ["MoE" if models is not None and models[c.model_id].is_moe else "dense" for c in cases],
            "precision": [c.precision if c.bytes_per_weight is None and c.weight_file_bytes is None else "int4/q4"
                          for c in cases],
            "trust": [c.trust for c in cases],
            "source": [c.source for c in cases],
            "measured_tokens_per_s": measured,
            "predicted_tokens_per_s": predicted,
            "error_pct": error,
            "ape_pct": np.abs(error),
        }
    )  # fmt: skip


def _summary_row(name: str, part: pd.DataFrame) -> dict[str, object]:
    return {
        "group": name,
        "n": len(part),
        "median_ape_pct": float(np.median(part["ape_pct"])) if len(part) else np.nan,
        "p90_ape_pct": float(np.percentile(part["ape_pct"], 90)) if len(part) else np.nan,
        "median_error_pct": float(np.median(part["error_pct"])) if len(part) else np.nan,
    }


def error_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Median and 90th-percentile absolute percentage error, overall and per regime.

    Columns: ``regime`` ("all", "batch-1", "concurrency", "saturation"), ``n``, ``median_ape_pct``,
    ``p90_ape_pct``, ``median_error_pct`` (signed: > 0 means the model is optimistic).

    >>> t = pd.DataFrame({"regime": ["batch-1", "batch-1", "saturation"], "ape_pct": [10.0, 30.0, 5.0],
    ...     "error_pct": [10.0, -30.0, 5.0]})
    >>> error_summary(t)[["regime", "n", "median_ape_pct"]].values.tolist()
    [['all', 3, 10.0], ['batch-1', 2, 20.0], ['concurrency', 0, nan], ['saturation', 1, 5.0]]
    """
    parts = [("all", table), *((name, table[table["regime"] == name]) for name in REGIMES)]
    out = pd.DataFrame([_summary_row(name, part) for name, part in parts])
    return out.rename(columns={"group": "regime"})


def error_breakdown(
    table: pd.DataFrame, dimensions: Sequence[str] = ("regime", "gpu_family", "moe", "precision")
) -> pd.DataFrame:
    """The error summary overall and for every value of each dimension: columns ``dimension``, ``group``,
    ``n``, ``median_ape_pct``, ``p90_ape_pct``, ``median_error_pct``."""
    rows = [{"dimension": "all", **_summary_row("all", table)}]
    for dim in dimensions:
        for value, part in table.groupby(dim, sort=True):
            rows.append({"dimension": dim, **_summary_row(str(value), part)})
    return pd.DataFrame(rows)  # fmt: skip


@dataclass(frozen=True)
class CalibrationReport:
    """Everything the calibration script prints: per-case errors, the summary and the excluded rows."""

    table: pd.DataFrame  # error_table() of the predicted cases
    summary: pd.DataFrame  # error_summary() of that table
    excluded: tuple[Exclusion, ...]  # rows not predicted, with the reason


def evaluate(
    rows: Iterable[Mapping[str, str]],
    gpus: Mapping[str, GPU],
    models: Mapping[str, ModelSpec],
    efficiency: Efficiency | None = None,
    mapper: Callable[[int, Mapping[str, str]], CalibrationCase | Exclusion] | None = None,
) -> CalibrationReport:
    """Map, predict and score every row; a case whose model does not fit in the modelled memory is excluded
    with that reason rather than scored. ``mapper`` maps one row (default :func:`map_row`, the 74-row file's
    schema; :func:`economics.calibration_rows.map_measured_row` for the 2026-12 file)."""
    mapped = [(mapper or map_row)(i, r) for i, r in enumerate(rows)]
    cases = [m for m in mapped if isinstance(m, CalibrationCase)]
    excluded = [m for m in mapped if isinstance(m, Exclusion)]
    predicted = predict(cases, gpus, models, efficiency)
    fits = ~np.isnan(predicted)
    excluded += [
        Exclusion(row=c.row, label=c.label, reason="does not fit in the modelled memory (weights + KV at kv_mem_util)")
        for c, ok in zip(cases, fits, strict=True)
        if not ok
    ]
    kept = [c for c, ok in zip(cases, fits, strict=True) if ok]
    table = error_table(kept, predicted[fits], models)
    return CalibrationReport(
        table=table, summary=error_summary(table), excluded=tuple(sorted(excluded, key=lambda e: e.row))
    )
