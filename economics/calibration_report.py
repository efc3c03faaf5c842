"""The accuracy report over both shared calibration sets: one function the benchmark script, the README
section and the Accuracy page share (so they cannot disagree)."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from economics.calibration import Exclusion, error_breakdown, evaluate, map_row
from economics.calibration_rows import map_measured_row
from economics.hardware import Efficiency
from economics.io.catalog import load_catalog

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
SETS = (
    ("ar-74", DATA / "calibration_ar_throughput.csv", map_row),
    ("2026-12", DATA / "measured_throughput_2026-12.csv", map_measured_row),
)


@dataclass(frozen=True)
class AccuracyReport:
    """Per-row errors of every predicted row, their breakdown and the excluded rows with reasons."""

    table: pd.DataFrame  # error_table() rows of both sets, with a ``dataset`` column
    breakdown: pd.DataFrame  # error_breakdown() of that table
    excluded: tuple[tuple[str, Exclusion], ...]  # (dataset, exclusion)


def calibration_report(efficiency: Efficiency | None = None) -> AccuracyReport:
    """Predict and score both shared calibration sets with ``efficiency`` (default factors when None)."""
    catalog = load_catalog()
    tables, excluded = [], []
    for name, path, mapper in SETS:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        rep = evaluate(rows, catalog.gpus, catalog.models, efficiency, mapper=mapper)
        tables.append(rep.table.assign(dataset=name))
        excluded += [(name, e) for e in rep.excluded]
    table = pd.concat(tables, ignore_index=True)
    return AccuracyReport(table=table, breakdown=error_breakdown(table), excluded=tuple(excluded))


#: Sources some default parameter was read from (docs/calibration.md#physics-parameters): TensorRT-LLM's MFU 0.55
#: (perf-overview 8B FP8 128/128), llama.cpp's MBU, bandwidth cap and launch cost (XiongjieDai's table), vLLM
#: v0.5's CPU cost per sequence (the v0.6 blog's 3032 vs 8088 tok/s, LambdaLabs' table) and the ROCm engines'
#: layer floors (the ROCm Kimi-K2.5 blog). Every other source set no parameter: its rows are held out [-].
PARAMETER_SOURCES = (
    "docs/source/performance/perf-overview.md", "XiongjieDai/GPU-Benchmarks-on-LLM-Inference",
    "LambdaLabsML/vllm-benchmark", "kimi-k25-mxfp4-atom",
)  # fmt: skip


def source_group(source: str) -> str:
    """A row's source reduced to its publisher (repository, site or MLPerf submitter directory) [-].

    >>> source_group("https://github.com/mlcommons/inference_results_v5.1/tree/main/closed/AMD/results/x")
    'mlcommons/inference_results_v5.1/closed/AMD'
    >>> source_group("github:NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md @00f3")
    'NVIDIA/TensorRT-LLM'
    """
    text = source.removeprefix("github:").replace("https://github.com/", "").replace("https://", "")
    parts = text.split(" ")[0].split("/")
    if parts[:2] == ["mlcommons", "inference_results_v5.1"] and len(parts) > 5:
        return "/".join([*parts[:2], parts[4], parts[5]])
    return "/".join(parts[:2])


def held_out_split(table: pd.DataFrame) -> pd.DataFrame:
    """The error summary on rows whose source set no default parameter (``held out``) and on the rest
    (``informed a parameter``), per the breakdown's dimensions, plus one row per source publisher (dimension
    ``source``). With nothing fitted to the rows, the held-out rows are a split-by-source check: a default that
    only fits the rows it was read from shows as a gap between the two."""
    used = table["source"].apply(lambda s: any(p in s for p in PARAMETER_SOURCES))
    split = table.assign(split=np.where(used, "informed a parameter", "held out"),
                         source_group=table["source"].apply(source_group))  # fmt: skip
    held = error_breakdown(split[~used]).assign(split="held out")
    rest = error_breakdown(split[used]).assign(split="informed a parameter")
    groups = error_breakdown(split, dimensions=("source_group",)).query("dimension != 'all'").assign(split="")
    return pd.concat([held, rest, groups], ignore_index=True)


#: Plain names of the breakdown's dimensions and groups, for readers of the README and the Accuracy page.
DIMENSION_NAMES = {"all": "all rows", "regime": "regime", "gpu_family": "GPU family", "moe": "architecture",
                   "precision": "precision"}  # fmt: skip
GROUP_NAMES = {"batch-1": "one request at a time (batch 1)", "concurrency": "fixed number of clients",
               "saturation": "saturated (all requests queued / latency target)",
               "int4/q4": "4-bit weights on 16-bit compute (int4/GGUF/MXFP4)",
               "MoE": "mixture of experts (MoE)", "dense": "dense"}  # fmt: skip


def accuracy_markdown(report: AccuracyReport) -> str:
    """The README's accuracy table, generated from :func:`calibration_report` (the Accuracy page shows the
    same breakdown)."""
    n_rows = len(report.table) + len(report.excluded)
    lines = [
        f"Predicted vs measured output tokens/s on all {n_rows} shared measured rows (74 in "
        "`tests/data/calibration_ar_throughput.csv`, 118 in `tests/data/measured_throughput_2026-12.csv`), "
        f"default factors, nothing fitted per row, GPU or model: {len(report.table)} rows predicted, "
        f"{len(report.excluded)} excluded with their reason (`benchmarks/calibration_report.py --excluded`: "
        "speculative decoding, text diffusion, hybrid Mamba, sparse attention, unpublished architectures, unstated "
        "lengths).",
        "",
        "| group | rows | median error | 90th-percentile error | typical bias (+ = model optimistic) |",
        "|---|---|---|---|---|",
    ]
    for _, r in report.breakdown.iterrows():
        dim = DIMENSION_NAMES.get(str(r["dimension"]), str(r["dimension"]))
        group = "" if r["dimension"] == "all" else GROUP_NAMES.get(str(r["group"]), str(r["group"]))
        name = f"**{dim}**" if r["dimension"] == "all" else f"{dim}: {group}"
        lines.append(f"| {name} | {int(r['n'])} | {r['median_ape_pct']:.0f}% | {r['p90_ape_pct']:.0f}% | "
                     f"{r['median_error_pct']:+.0f}% |")  # fmt: skip
    return "\n".join(lines) + "\n"
