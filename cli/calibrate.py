"""``python -m economics calibrate FILES...``: fit your stack's efficiency factors to your benchmark files.

Reads vLLM / SGLang / GenAI-Perf / AIPerf / LLMPerf results or a plain CSV (:mod:`economics.io`), fits MBU and
MFU by bounded least squares in log space (:func:`economics.calibration_fit.fit_profile`) and prints the
profile with its uncertainty and every point's residual. ``--format json`` writes the profile that
``throughput --calibration FILE`` reads.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from cli.main import CliError
from economics.hardware import PRECISIONS

#: Most files one call reads [count].
MAX_FILES = 50


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    p = subparsers.add_parser(
        "calibrate",
        help="fit efficiency factors to your own benchmark runs",
        description="Fit MBU and MFU to benchmark result files (vLLM, SGLang, GenAI-Perf/AIPerf, LLMPerf, CSV).",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="benchmark result files")
    p.add_argument("--model", metavar="ID", help="catalog model id the runs served (not needed for the CSV)")
    p.add_argument("--gpu", metavar="ID", help="catalog GPU id the runs used (not needed for the CSV)")
    p.add_argument("--gpus", type=int, default=1, metavar="N", help="GPUs of the replica")
    p.add_argument("--precision", choices=PRECISIONS, default="bf16", help="serving precision")
    p.add_argument("--engine", default="vllm", metavar="ID", help="engine id (data/catalog/engines.csv)")
    p.add_argument("--format", choices=("table", "json"), default="table", help="output format")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from economics.calibration_fit import fit_profile
    from economics.io import BenchmarkFormatError, RunContext, read_benchmark
    from economics.io.catalog import load_catalog

    if len(args.files) > MAX_FILES:
        raise CliError("FILE", f"at most {MAX_FILES} files per call, got {len(args.files)}")
    ctx = None
    if args.model and args.gpu:
        try:
            ctx = RunContext(model_id=args.model, gpu_id=args.gpu, gpus=args.gpus, precision=args.precision,
                             engine=args.engine)  # fmt: skip
        except ValueError as exc:
            raise CliError("--model/--gpu/--gpus", str(exc).splitlines()[-1]) from None
    points = []
    for name in args.files:
        path = Path(name)
        try:
            data = path.read_bytes() if path.stat().st_size <= 8_000_001 else b" " * 8_000_001
            points += read_benchmark(path.name, data, ctx)
        except OSError as exc:
            raise CliError("FILE", f"{name}: {exc.strerror}") from None
        except BenchmarkFormatError as exc:
            raise CliError("FILE", str(exc)) from None
    catalog = load_catalog()
    try:
        profile = fit_profile(points, catalog.gpus, catalog.models)
    except ValueError as exc:
        raise CliError("FILE", str(exc)) from None
    if args.format == "json":
        print(json.dumps({"profile": profile.model_dump(mode="json")}, indent=2))
        return 0
    print(f"Calibrated on {profile.n_points} point(s): {', '.join(profile.model_ids)} on {', '.join(profile.gpu_ids)}"
          f" ({profile.engine})")  # fmt: skip
    sd = [v**0.5 for v in (profile.covariance_log[0][0], profile.covariance_log[1][1])]
    print(f"  memory-bandwidth utilisation (MBU)  {profile.mbu:.3f}  (±{sd[0] * 100:.0f}% one s.d.)")
    print(f"  compute utilisation (MFU, decode)   {profile.mfu_decode:.3f}  (±{sd[1] * 100:.0f}% one s.d.)")
    print(f"  typical point error                 {profile.residual_sd_log * 100:.1f}%")
    for r in profile.residuals:
        print(f"  {r.source}: measured {r.measured_tokens_per_s:,.1f}, model {r.predicted_tokens_per_s:,.1f} tok/s "
              f"({r.residual_pct:+.1f}%)")  # fmt: skip
    return 0
