"""Throughput benchmark: a 10^4-point batch × context sweep through forward_time, and a full CLI call.

What it measures
    1. ``forward_time`` for Llama-3.1-70B in BF16 on 8×H100 (default efficiency) over a 100 × 100 grid of
       batch (1–1024, log-spaced) × context (0–131,072 tokens): one vectorised call, 10^4 points. Target
       ≤ 20 ms on one core (issue 2). The same grid through ``steady_decode`` (the ``--batch`` regime) and
       ``closed_loop`` (``--concurrency``) is timed for comparison.
    2. The acceptance command ``python -m economics throughput ... --ideal --format json``: wall time of a
       subprocess (interpreter start, imports, catalog load, one evaluation) and the in-process time of
       ``cli.main.main`` with the catalog already loaded.

    Each figure is the median of ``--repeats`` runs timed with ``time.perf_counter`` after one warm-up run.
    BLAS/OpenMP threads are pinned to 1 before numpy is imported.

Usage
    .venv/bin/python benchmarks/bench_throughput.py [--repeats 21] [--cli-repeats 7]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import subprocess
import sys

import _harness  # noqa: F401  (first: one core before numpy loads)
import numpy as np
from _harness import H100, LLAMA_70B, ROOT, median_s

from cli.main import main as cli_main
from economics.hardware import Deployment, Efficiency
from economics.roofline import forward_time
from economics.schemes import ARScheme
from economics.throughput import closed_loop, steady_decode

TARGET_SWEEP_S = 0.020
ACCEPTANCE = [
    "throughput", "--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--gpus", "8", "--precision", "bf16",
    "--input-tokens", "1000", "--output-tokens", "500", "--batch", "1", "--ideal", "--format", "json",
]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21, help="timed runs of each sweep")
    parser.add_argument("--cli-repeats", type=int, default=7, help="timed runs of the CLI call")
    args = parser.parse_args()

    dep, eff = Deployment(gpu=H100, n_gpus=8), Efficiency()
    batch = np.geomspace(1.0, 1024.0, 100)[:, None]
    context = np.linspace(0.0, 131_072.0, 100)[None, :]
    assert np.broadcast(batch, context).size == 10_000
    sweep = median_s(lambda: forward_time(LLAMA_70B, dep, eff, batch, 1, context), args.repeats)
    ok = sweep <= TARGET_SWEEP_S
    print(
        f"forward_time, 10^4 points (100 batch x 100 context): median {sweep * 1e3:.2f} ms over {args.repeats} runs"
        f" (target {TARGET_SWEEP_S * 1e3:.0f} ms: {'ok' if ok else 'MISSED'})"
    )
    t_in, t_out = context + 1.0, 500.0
    steady = median_s(lambda: steady_decode(LLAMA_70B, dep, eff, ARScheme(), batch, t_in, t_out), args.repeats)
    print(f"steady_decode (--batch), same grid: median {steady * 1e3:.2f} ms")
    loop = median_s(lambda: closed_loop(LLAMA_70B, dep, eff, ARScheme(), batch, t_in, t_out), args.repeats)
    print(f"closed_loop (--concurrency), same grid: median {loop * 1e3:.2f} ms")

    def in_process() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            status = cli_main(ACCEPTANCE)
        assert status == 0

    cli = median_s(in_process, args.cli_repeats)
    print(f"CLI acceptance command in process (catalog cached): median {cli * 1e3:.2f} ms")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def sub() -> None:
        subprocess.run(
            [sys.executable, "-m", "economics", *ACCEPTANCE], check=True, capture_output=True, cwd=ROOT, env=env
        )

    wall = median_s(sub, args.cli_repeats)
    print(f"CLI acceptance command as a subprocess (interpreter + imports + catalog): median {wall * 1e3:.0f} ms")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
