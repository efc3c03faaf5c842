"""Set-up shared by the timing scripts: one core and the median of repeated runs.

The packages come from the editable install (``pip install -e . --no-deps``, done by ``scripts/test``), so
no script edits ``sys.path``.

Import it before numpy (``import _harness`` is the first third-party import of every benchmark): the
thread-count variables only take effect if they are set before numpy loads its BLAS, and a late import is
an error rather than a silently multi-threaded figure.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

if "numpy" in sys.modules:
    raise RuntimeError("import _harness before numpy, so the benchmark runs on one core")
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

ROOT = Path(__file__).resolve().parents[1]

from economics.hardware import GPU  # noqa: E402  (after the thread pinning above)
from economics.model import ModelSpec  # noqa: E402

# The reference configurations of docs/inputs.md#hardware and docs/inputs.md#model-shape, typed in so a catalog edit
# cannot move a benchmark.
H100 = GPU(
    id="h100-sxm", name="H100 SXM", peak_flops_bf16_per_s=989.4e12, peak_flops_fp8_per_s=1979e12,
    hbm_bandwidth_bytes_per_s=3.35e12, hbm_capacity_bytes=80e9, link_bandwidth_bytes_per_s=450e9, power_w=700,
)  # fmt: skip
LLAMA_70B = ModelSpec(
    id="llama-3.1-70b", name="Llama 3.1 70B", n_layers=80, d_model=8192, n_heads=64, n_kv_heads=8,
    head_dim=128, d_ff=28672, vocab=128256,
)  # fmt: skip


def median_s(fn: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``fn()`` over ``repeats`` runs, after one warm-up run (imports, caches) [s]."""
    fn()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)
