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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import Field

from economics._base import Frozen
from economics.hardware import GPU, Deployment, Efficiency, Precision
from economics.model import FloatArray, ModelSpec
from economics.schemes import ARScheme
from economics.throughput import DEFAULT_MAX_BATCH, offline_saturation, steady_decode
from economics.units import GIB

CalibrationRegime = Literal["batch-1", "offline"]

#: Size of llama.cpp's Q4_K_M GGUF files as llama-bench reports them ("llama 8B Q4_K - Medium | 4.58 GiB |
#: 8.03 B", "llama 70B Q4_K - Medium | 39.59 GiB | 70.55 B"), by catalog model id [B].
Q4_K_M_FILE_BYTES = {"llama-3.1-8b": 4.58 * GIB, "llama-3.1-70b": 39.59 * GIB}

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
    regime: CalibrationRegime = Field(description="batch-1 decode or offline saturation [-]")
    input_tokens: int = Field(ge=1, description="prompt length [tokens]")
    output_tokens: int = Field(ge=1, description="output length [tokens]")
    reserve_output: bool = Field(description="KV reserved for the whole output (TensorRT-LLM) [-]")
    framework: str = Field(description="serving engine of the measurement [-]")
    measured_tokens_per_s: float = Field(gt=0, description="measured output tokens per second, whole replica [tok/s]")


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
        regime="offline" if offline else "batch-1",
        input_tokens=t_in,
        output_tokens=t_out,
        reserve_output=offline and row["framework"].startswith("TensorRT-LLM"),
        framework=row["framework"],
        measured_tokens_per_s=float(row["tokens_per_s"]),
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
    if case.weight_file_bytes is not None:
        model = model.model_copy(update={"bytes_per_weight": case.weight_file_bytes / model.params_total})
    gpu = gpus[case.gpu_id]
    if case.layer_split:
        gpu = gpu.model_copy(update={"hbm_capacity_bytes": gpu.hbm_capacity_bytes * case.gpus})
        return model, Deployment(gpu=gpu, n_gpus=1, precision=case.precision)
    return model, Deployment(gpu=gpu, n_gpus=case.gpus, precision=case.precision)


def predict(
    cases: Sequence[CalibrationCase],
    gpus: Mapping[str, GPU],
    models: Mapping[str, ModelSpec],
    efficiency: Efficiency | None = None,
) -> FloatArray:
    """Predicted output tokens per second of each case, whole replica [tok/s].

    Cases that share a replica and regime are evaluated together, vectorised over their token lengths.
    """
    eff = efficiency or Efficiency()
    out = np.full(len(cases), np.nan)
    groups: dict[tuple[object, ...], list[int]] = {}
    for i, c in enumerate(cases):
        key = (
            c.model_id,
            c.gpu_id,
            c.gpus,
            c.layer_split,
            c.precision,
            c.weight_file_bytes,
            c.regime,
            c.reserve_output,
        )
        groups.setdefault(key, []).append(i)
    for members in groups.values():
        first = cases[members[0]]
        model, dep = replica(first, gpus, models)
        t_in = np.array([cases[i].input_tokens for i in members], dtype=np.float64)
        t_out = np.array([cases[i].output_tokens for i in members], dtype=np.float64)
        if first.regime == "batch-1":
            res = steady_decode(model, dep, eff, ARScheme(), 1, t_in, t_out)
        else:
            res = offline_saturation(
                model,
                dep,
                eff,
                ARScheme(),
                t_in,
                t_out,
                max_batch=DEFAULT_MAX_BATCH,
                reserve_output=first.reserve_output,
            )
        out[members] = np.where(res.kv_fits, res.output_tokens_per_s, np.nan)
    return out


def error_table(cases: Sequence[CalibrationCase], predicted: FloatArray) -> pd.DataFrame:
    """One row per case: ``row``, ``label``, ``model_id``, ``regime``, ``framework``, ``measured_tokens_per_s``,
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
            "measured_tokens_per_s": measured,
            "predicted_tokens_per_s": predicted,
            "error_pct": error,
            "ape_pct": np.abs(error),
        }
    )


def error_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Median and 90th-percentile absolute percentage error, overall and per regime.

    Columns: ``regime`` ("all", "batch-1", "offline"), ``n``, ``median_ape_pct``, ``p90_ape_pct``,
    ``median_error_pct`` (signed: > 0 means the model is optimistic).

    >>> t = pd.DataFrame({"regime": ["batch-1", "batch-1", "offline"], "ape_pct": [10.0, 30.0, 5.0],
    ...     "error_pct": [10.0, -30.0, 5.0]})
    >>> error_summary(t)[["regime", "n", "median_ape_pct"]].values.tolist()
    [['all', 3, 10.0], ['batch-1', 2, 20.0], ['offline', 1, 5.0]]
    """
    parts = [("all", table), *((name, table[table["regime"] == name]) for name in ("batch-1", "offline"))]
    return pd.DataFrame(
        [
            {
                "regime": name,
                "n": len(part),
                "median_ape_pct": float(np.median(part["ape_pct"])) if len(part) else np.nan,
                "p90_ape_pct": float(np.percentile(part["ape_pct"], 90)) if len(part) else np.nan,
                "median_error_pct": float(np.median(part["error_pct"])) if len(part) else np.nan,
            }
            for name, part in parts
        ]
    )


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
) -> CalibrationReport:
    """Map, predict and score every row; a case whose model does not fit in the modelled memory is excluded
    with that reason rather than scored."""
    cases, excluded = map_rows(rows)
    predicted = predict(cases, gpus, models, efficiency)
    fits = ~np.isnan(predicted)
    excluded += [
        Exclusion(row=c.row, label=c.label, reason="does not fit in the modelled memory (weights + KV at kv_mem_util)")
        for c, ok in zip(cases, fits, strict=True)
        if not ok
    ]
    kept = [c for c, ok in zip(cases, fits, strict=True) if ok]
    table = error_table(kept, predicted[fits])
    return CalibrationReport(
        table=table, summary=error_summary(table), excluded=tuple(sorted(excluded, key=lambda e: e.row))
    )
