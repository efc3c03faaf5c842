"""Map rows of ``measured_throughput_2026-12.csv`` (model, gpu_type, gpu_count, precision, engine, input_len,
output_len, regime, batch_or_concurrency, tokens_per_s, source_url, quote_or_location, as_of, trust) to
:class:`~economics.calibration.CalibrationCase` or an :class:`~economics.calibration.Exclusion` with a reason.

Readings, stated where made (the file's notes: per-GPU vs per-system, variable lengths):

* Variable-length datasets (MLPerf, ShareGPT) use the means of ``data/catalog/calibration_datasets.csv``; an
  MLPerf row's own "mean N tokens/sample" output mean wins over the table.
* ``Basis: PER GPU`` / ``PER RANK`` rows are multiplied up to the replica they ran in; ``per node`` rows by
  the node's 8 GPUs. The replica is ``gpu_count`` unless the row names a larger decode pool.
* Prefill/decode-disaggregated decode rows (SGLang large-scale EP) are steady decode at the stated batch and
  KV length: their prefill runs on other GPUs.
* MLPerf Server/Interactive rows are the largest closed-loop load whose p99 TPOT and p99 TTFT meet the stated
  p99 limits, the tails from Poisson arrivals: the batch's Poisson quantile and the Erlang-C wait for a slot
  (:func:`~economics.calibration_slo.slo_tail_throughput`, docs/calibration.md#latency-slo-rows).
* Speculative (EAGLE, MTP), diffusion, production-mix and hybrid-Mamba rows, and rows whose lengths are not
  stated, are excluded with the reason.
* Rows whose quote says the basis is "NOT stated (output vs total tokens)" are excluded: at 3200 in / 800 out
  the two readings differ five-fold, so the row cannot say whether the model is optimistic or pessimistic.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from economics.calibration import CalibrationCase, Exclusion
from economics.engines import engine_id_for, load_engines
from economics.hardware import Precision

DATASETS_CSV = Path(__file__).resolve().parents[1] / "data" / "catalog" / "calibration_datasets.csv"

#: (regex on the model text, catalog id or None = excluded with the reason)
MODELS: tuple[tuple[str, str | None, str], ...] = (
    (r"LLaDA|Dream|Fast-dLLM|d3LLM|D2F", None, "text-diffusion decoding: a diffusion scheme, not AR decode"),
    (r"Nemotron", None, "hybrid Mamba / NAS-pruned heterogeneous layers: no uniform transformer shape"),
    (r"production", None, "production mix with prefix caching and disaggregation; concurrency not stated"),
    (r"Qwen2\.5-7B", None, "HuggingFace Transformers eager backend (not a serving engine); model not in catalog"),
    (r"GLM-5|MiniMax|DeepSeek-V4", None, "architecture (config.json) not in the catalog's sources"),
    (
        r"DeepSeek-V3\.2",
        None,
        "DeepSeek Sparse Attention (lightning indexer + top-2048 sparse MLA, DeepSeek-V3.2 "
        "report) is not modelled: priced as DeepSeek-V3 it would be dense MLA without the indexer's kernels",
    ),
    (r"Llama-2-70B", "llama-2-70b", ""),
    (r"Mixtral-8x7B", "mixtral-8x7b", ""),
    (r"405B", "llama-3.1-405b", ""),
    (r"Llama-3\.1-70B|Llama-3\.3-70B", "llama-3.1-70b", ""),
    (r"Llama-3\.1-8B", "llama-3.1-8b", ""),
    (r"Llama-4-Maverick", "llama-4-maverick", ""),
    (r"DeepSeek-(R1|V3)", "deepseek-v3", ""),
    (r"Qwen3-235B", "qwen3-235b-a22b", ""),
    (r"Kimi-K2", "kimi-k2.5", ""),
    (r"gpt-oss-120b", "gpt-oss-120b", ""),
)
GPUS: tuple[tuple[str, str], ...] = (
    (r"MI355X", "mi355x"), (r"MI325X", "mi325x"), (r"MI300X", "mi300x"), (r"GB200", "gb200"),
    (r"B200", "b200"), (r"H200", "h200-sxm"), (r"H100 PCIe", "h100-pcie"), (r"H100", "h100-sxm"),
    (r"H20\b", "h20"), (r"A100", "a100-sxm-80gb"), (r"L40S", "l40s"),
)  # fmt: skip
#: Bytes per weight of 4-bit integer checkpoints with group-128 FP16 scales: 0.5 + 2/128 [B].
INT4_G128_BYTES = 0.5 + 2.0 / 128.0


@lru_cache(maxsize=2)
def dataset_lengths(path: Path = DATASETS_CSV) -> tuple[tuple[str, int, int | None], ...]:
    """(pattern, mean input, mean output or None) rows of the dataset table."""
    with path.open(newline="", encoding="utf-8") as handle:
        return tuple(
            (
                r["pattern"],
                int(r["mean_input_tokens"]),
                int(r["mean_output_tokens"]) if r["mean_output_tokens"] else None,
            )
            for r in csv.DictReader(handle)
        )


def _precision(text: str) -> tuple[Precision, float | None] | str:
    """(compute precision, bytes per weight override) or the reason it is not modelled."""
    t = text.upper()
    if "W4A16" in t:
        return "bf16", INT4_G128_BYTES
    if "W4A8" in t:
        return "fp8", INT4_G128_BYTES
    if "FP4" in t:
        return "fp4", None
    if "FP8" in t or "W8A8" in t:
        return "fp8", None
    if any(k in t for k in ("BF16", "FP16", "NOT STATED")):
        return "bf16", None
    return f"precision {text!r} is not modelled"


def _lengths(row: Mapping[str, str]) -> tuple[int, int] | str:
    i_txt, o_txt = row["input_len"], row["output_len"]
    if i_txt.strip().isdigit() and o_txt.strip().isdigit():
        return int(i_txt), int(o_txt)
    if i_txt.strip().isdigit() and "decode" in o_txt:
        return int(i_txt), 1
    mean_out = re.search(r"mean ~?(\d+) tokens/sample", o_txt + " " + i_txt)
    for pattern, t_in, t_out in dataset_lengths():
        if pattern.lower() in (i_txt + " " + o_txt).lower():
            out = int(mean_out.group(1)) if mean_out else t_out
            if out is None:
                break
            return t_in, out
    return f"input/output lengths not stated ({i_txt!r} / {o_txt!r})"


def _ambiguous_basis_reason(row: Mapping[str, str]) -> str:
    """Why a row whose tokens/s may be output or output + input tokens is not scored."""
    lengths = _lengths(row)
    fold = f"{1.0 + lengths[0] / lengths[1]:.0f}-fold" if isinstance(lengths, tuple) else "by the prompt share"
    return f"tokens/s basis not stated (output or output + input tokens): the two readings differ {fold}"


def _first_int(text: str) -> int | None:
    m = re.search(r"(\d+)", text)
    return int(m.group(1)) if m else None


def map_measured_row(index: int, row: Mapping[str, str]) -> CalibrationCase | Exclusion:
    """One row of the 2026-12 file as a case, or an exclusion with its reason."""
    label = f"{row['model']} {row['precision'].split(' ')[0]} {row['gpu_count']}×{row['gpu_type']} " + (
        f"{row['engine'].split(' ')[0]} {row['input_len'][:20]}/{row['output_len'][:20]}"
    )
    text = " ".join(row[k] for k in ("engine", "regime", "batch_or_concurrency"))

    def excluded(reason: str) -> Exclusion:
        return Exclusion(row=index, label=label, reason=reason)

    model_id = None
    for pattern, mid, reason in MODELS:
        if re.search(pattern, row["model"]):
            if mid is None:
                return excluded(reason)
            model_id = mid
            break
    if model_id is None:
        return excluded(f"no catalog entry for {row['model']}")
    gpu_id = next((gid for pattern, gid in GPUS if re.search(pattern, row["gpu_type"])), None)
    if gpu_id is None:
        return excluded(f"no catalog entry for GPU {row['gpu_type']}")
    if re.search(r"EAGLE|MTP|speculative", text, re.IGNORECASE):
        return excluded("speculative decoding (EAGLE/MTP): the acceptance length is an input, not predicted")
    if re.search(r"basis not stated \(output vs total", row["quote_or_location"], re.IGNORECASE):
        return excluded(_ambiguous_basis_reason(row))
    prec = _precision(row["precision"])
    if isinstance(prec, str):
        return excluded(prec)
    lengths = _lengths(row)
    if isinstance(lengths, str):
        return excluded(lengths)
    t_in, t_out = lengths
    quote = row["quote_or_location"]
    boc = row["batch_or_concurrency"]
    gpus = int(row["gpu_count"])
    measured = float(row["tokens_per_s"])
    pool = re.search(r"(\d+) decode nodes \((\d+) ", boc) or re.search(r"(\d+) nodes x (\d+) GPUs", quote)
    replica = gpus
    if pool:
        replica = int(pool.group(2)) if "decode nodes" in pool.group(0) else int(pool.group(1)) * int(pool.group(2))
    if re.search(r"PER (GPU|RANK)", quote):
        measured *= replica
    elif "per node" in quote.lower() and pool:
        measured *= replica / 8.0
    elif re.search(r"per 8-GPU node", quote):
        nodes = re.search(r"(\d+) decode nodes \((\d+) GPUs\)", boc)
        replica = int(nodes.group(2)) if nodes else 8
        measured *= replica / 8.0
    engine = engine_id_for(row["engine"])
    eng = load_engines()[engine]
    regime_text = row["regime"]
    common = dict(
        row=index, label=label, model_id=model_id, gpu_id=gpu_id, gpus=replica, layer_split=False,
        precision=prec[0], weight_file_bytes=None, input_tokens=max(1, t_in), output_tokens=max(1, t_out),
        framework=row["engine"], engine=engine, reserve_output=eng.reserve_output, trust=row["trust"],
        source=row["source_url"], bytes_per_weight=prec[1],
        dp_attention=bool(re.search(r"DEP\d|DP attention|large-scale EP|EP\d", text)),
        data_parallel="MLPerf" in text,
    )  # fmt: skip
    decode_only = "disaggregation" in row["engine"].lower() or "decode" in row["output_len"].lower()
    if regime_text == "single stream":
        return CalibrationCase(**common, regime="batch-1", measured_tokens_per_s=measured)
    if regime_text.startswith("latency-SLO"):
        tpot = re.search(r"TPOT\s*(?:<=)?\s*(\d+)\s*ms", boc)
        ttft = re.search(r"TTFT\s*(?:<=)?\s*([\d.]+)\s*(m?s)", boc)
        if not tpot or not ttft:
            return excluded("latency-SLO row without TPOT and TTFT limits")
        ttft_s = float(ttft.group(1)) / (1000.0 if ttft.group(2) == "ms" else 1.0)
        return CalibrationCase(
            **common, regime="saturation", slo_tpot_s=float(tpot.group(1)) / 1000.0, slo_ttft_s=ttft_s,
            max_batch=eng.max_batch, measured_tokens_per_s=measured,
        )  # fmt: skip
    if regime_text == "concurrency C":
        per_rank = re.search(r"(\d+) concurrent requests per rank", boc)
        burst = re.search(r"(\d+) prompts sent at rps=inf", boc)
        if burst:
            return CalibrationCase(**common, regime="concurrency", concurrency=float(burst.group(1)), burst=True,
                                   variable_lengths="variable" in row["output_len"].lower(),
                                   max_batch=eng.max_batch, measured_tokens_per_s=measured)  # fmt: skip
        conc = (int(per_rank.group(1)) * replica) if per_rank else None
        if conc is None:
            peak = re.search(r"concurrency \d+-(\d+)", boc)
            conc = int(peak.group(1)) if peak else _first_int(boc.split("=", 1)[-1] if "=" in boc else boc)
        if conc is None:
            return excluded(f"concurrency not stated ({boc!r})")
        if decode_only:
            return CalibrationCase(**common, regime="concurrency", decode_batch=float(conc),
                                   concurrency=float(conc), measured_tokens_per_s=measured)  # fmt: skip
        return CalibrationCase(**common, regime="concurrency", concurrency=float(conc),
                               max_batch=eng.max_batch, measured_tokens_per_s=measured)  # fmt: skip
    if regime_text == "max-throughput":
        per_node = re.search(r"batch (\d+) per decode node", boc)
        if decode_only and per_node:
            batch = float(per_node.group(1)) * replica / 8.0
            return CalibrationCase(**common, regime="saturation", decode_batch=batch,
                                   measured_tokens_per_s=measured)  # fmt: skip
        max_seq = re.search(r"max-num-seq=(\d+)", boc)
        sat = re.search(r"saturation ~(\d+)", boc)
        limit = int(max_seq.group(1)) if max_seq else (int(sat.group(1)) if sat else eng.max_batch)
        sent = re.search(r"(\d+) prompts, (?:request rate|rps=) ?inf", boc)
        if sent and "variable" in row["output_len"].lower():  # a burst of N ShareGPT prompts, served to the last
            return CalibrationCase(**common, regime="saturation", concurrency=float(sent.group(1)), burst=True,
                                   variable_lengths=True, max_batch=limit, measured_tokens_per_s=measured)  # fmt: skip
        return CalibrationCase(**common, regime="saturation", max_batch=limit, decode_only=decode_only,
                               measured_tokens_per_s=measured)  # fmt: skip
    return excluded(f"regime {regime_text!r} is not modelled")
