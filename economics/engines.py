"""Serving engines: their batch limits and software efficiency, as data (``data/catalog/engines.csv``).

An engine changes two things the roofline needs (docs/inputs.md#efficiency): how much of the HBM bandwidth its kernels
reach (``mbu``) and a fixed launch cost per layer and pass when it does not capture whole steps in CUDA graphs
(llama.cpp), plus the limits of its scheduler at saturation: the largest running batch and the tokens one
iteration may carry. The default engine of an owned option is a serving engine (:data:`DEFAULT_ENGINE`).
"""

from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path

from pydantic import Field

from economics._base import Frozen
from economics.hardware import Efficiency

DEFAULT_ENGINE = "vllm"
ENGINES_CSV = Path(__file__).resolve().parents[1] / "data" / "catalog" / "engines.csv"


class Engine(Frozen):
    """One serving engine's documented defaults."""

    id: str = Field(min_length=1, max_length=64, description="engine id, e.g. 'vllm' [-]")
    name: str = Field(min_length=1, max_length=120, description="display name [-]")
    mbu: float | None = Field(
        default=None, gt=0, le=1, description="achieved / peak HBM bandwidth; None keeps the Efficiency's [1]"
    )
    mfu: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="achieved / peak FLOP/s in decode and prefill; None keeps the Efficiency's [1]",
    )
    bandwidth_cap_bytes_per_s: float | None = Field(
        default=None,
        gt=1e9,
        lt=1e14,
        description="most HBM bandwidth one GPU reaches with this engine's kernels (bytes in flight / latency); "
        "None = no cap [B/s]",
    )
    layer_floor_s: float | None = Field(
        default=None,
        ge=0,
        le=0.01,
        description="least time of one layer's kernel chain; None keeps the Efficiency's [s]",
    )
    layer_overhead_s: float = Field(
        default=0.0, ge=0, le=0.01, description="launch cost per layer per forward pass without CUDA graphs [s]"
    )
    sequence_overhead_s: float = Field(
        default=0.0, ge=0, le=0.01, description="CPU cost per running sequence per iteration [s]"
    )
    max_batch: int = Field(ge=1, le=1_000_000, description="largest running batch the scheduler admits [count]")
    max_tokens_per_iteration: int = Field(ge=1, le=10_000_000, description="token budget of one iteration [tokens]")
    reserve_output: bool = Field(description="KV reserved for the whole output at admission [-]")
    source: str = Field(default="", max_length=1000, description="where the defaults come from [-]")
    as_of: str = Field(default="", max_length=64, description="date of the source [-]")

    def efficiency(self, base: Efficiency, n_layers: int, hbm_bandwidth_bytes_per_s: float | None = None) -> Efficiency:
        """``base`` with this engine's MBU and MFU and ``τ0 + L·τ_layer`` as the per-pass overhead.

        On a GPU of peak bandwidth ``BW`` (``hbm_bandwidth_bytes_per_s``) the MBU is at most ``BW_cap/BW``: an
        engine whose memory-bound kernels keep a fixed number of bytes in flight reaches a fixed bandwidth
        (Little's law: bytes in flight / memory latency), whatever the peak of the memory behind it.

        >>> e = Engine(id="x", name="x", mbu=0.5, layer_overhead_s=1e-4, max_batch=1, max_tokens_per_iteration=1,
        ...     reserve_output=False)
        >>> eff = e.efficiency(Efficiency(), 32)
        >>> eff.mbu, round(eff.step_overhead_s, 6)
        (0.5, 0.0037)
        """
        update: dict[str, float] = {
            "step_overhead_s": min(0.05, base.step_overhead_s + n_layers * self.layer_overhead_s),
            "sequence_overhead_s": max(base.sequence_overhead_s, self.sequence_overhead_s),
        }
        mbu = base.mbu if self.mbu is None else self.mbu
        if self.bandwidth_cap_bytes_per_s is not None and hbm_bandwidth_bytes_per_s:
            mbu = min(mbu, self.bandwidth_cap_bytes_per_s / hbm_bandwidth_bytes_per_s)
        update["mbu"] = mbu
        if self.layer_floor_s is not None:
            update["layer_floor_s"] = self.layer_floor_s
        if self.mfu is not None:
            update["mfu_decode"] = update["mfu_prefill"] = self.mfu
        return base.model_copy(update=update)


def load_engines(path: Path | None = None) -> dict[str, Engine]:
    """Engines by id from the catalog CSV (validated; a bad row raises ``ValueError`` naming line and field)."""
    return dict(_load(path or ENGINES_CSV))


@lru_cache(maxsize=4)
def _load(path: Path) -> tuple[tuple[str, Engine], ...]:
    out: list[tuple[str, Engine]] = []
    with path.open(newline="", encoding="utf-8") as handle:
        for line, row in enumerate(csv.DictReader(handle), start=2):
            try:
                engine = Engine(
                    id=row["id"],
                    name=row["name"],
                    mbu=float(row["mbu"]) if row["mbu"].strip() else None,
                    mfu=float(row["mfu"]) if row.get("mfu", "").strip() else None,
                    bandwidth_cap_bytes_per_s=float(row["bandwidth_cap_tb_per_s"]) * 1e12
                    if row.get("bandwidth_cap_tb_per_s", "").strip()
                    else None,
                    layer_floor_s=float(row["layer_floor_ms"]) / 1000.0
                    if row.get("layer_floor_ms", "").strip()
                    else None,
                    layer_overhead_s=float(row["layer_overhead_ms"]) / 1000.0,
                    sequence_overhead_s=float(row["sequence_overhead_ms"] or 0) / 1000.0,
                    max_batch=int(row["max_batch"]),
                    max_tokens_per_iteration=int(row["max_tokens_per_iteration"]),
                    reserve_output=row["reserve_output"].strip().lower() == "true",
                    source=row["source"],
                    as_of=row["as_of"],
                )
            except (KeyError, ValueError) as exc:
                raise ValueError(f"{path.name} line {line}: {exc}") from exc
            out.append((engine.id, engine))
    return tuple(out)


#: Substring of a benchmark's engine text → engine id, first match wins.
ENGINE_NAMES = (
    ("tensorrt", "tensorrt-llm"), ("trt", "tensorrt-llm"), ("llama.cpp", "llama.cpp"), ("atom", "atom"),
    ("sglang + aiter", "sglang-rocm"), ("sglang", "sglang"),
    ("dinfer", "sglang"), ("vllm v0.5", "vllm-0.5"), ("vllm", "vllm"),
)  # fmt: skip


def engine_id_for(text: str) -> str:
    """The engine a benchmark's free-text engine name refers to; a serving engine when unknown.

    >>> engine_id_for("TensorRT-LLM (trtllm-bench)"), engine_id_for("llama.cpp b3000"), engine_id_for("ATOM")
    ('tensorrt-llm', 'llama.cpp', 'atom')
    >>> engine_id_for("SGLang + AITER"), engine_id_for("MyServer 1.0")
    ('sglang-rocm', 'vllm')
    """
    t = text.lower()
    for key, engine in ENGINE_NAMES:
        if key in t:
            return engine
    return DEFAULT_ENGINE
