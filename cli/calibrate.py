"""``python -m economics calibrate FILES...``: fit your stack's efficiency factors to your benchmark files.

Reads vLLM / SGLang / GenAI-Perf / AIPerf / LLMPerf / GuideLLM results or a plain CSV (:mod:`economics.io`), fits
MBU and MFU by bounded least squares in log space (:func:`economics.calibration_fit.fit_profile`) and prints the
profile with its uncertainty and every point's residual. ``--format json`` writes the profile that
``throughput --calibration FILE`` reads. ``--scenario S.json --out S2.json`` also saves the calibration into a
copy of the scenario, on the owned options serving the runs' model on their GPU (or those named by ``--option``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cli.jsonout import dumps
from cli.main import CliError, read_scenario, write_scenario
from economics._errors import error_items
from economics.hardware import PRECISIONS
from economics.words import plural

#: Most files one call reads [count].
MAX_FILES = 50
#: The flag behind each field of the run's context, for a message that names what the user typed.
_FLAGS = {"model_id": "--model", "gpu_id": "--gpu", "gpus": "--gpus", "precision": "--precision", "engine": "--engine"}


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    p = subparsers.add_parser(
        "calibrate",
        help="fit efficiency factors to your own benchmark runs",
        description=(
            "Fit MBU and MFU to benchmark result files (vLLM, SGLang, GenAI-Perf/AIPerf, LLMPerf, GuideLLM, CSV)."
        ),
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="benchmark result files")
    p.add_argument("--model", metavar="ID", help="catalog model id the runs served (not needed for the CSV)")
    p.add_argument(
        "--gpu",
        metavar="ID",
        help="catalog GPU id the runs used, or a name that fits one ('H100 SXM'); not needed for the CSV",
    )
    p.add_argument("--gpus", type=int, default=1, metavar="N", help="GPUs of the replica")
    p.add_argument("--precision", choices=PRECISIONS, default="bf16", help="serving precision")
    p.add_argument("--engine", default="vllm", metavar="ID", help="engine id (data/catalog/engines.csv)")
    p.add_argument("--format", choices=("table", "json"), default="table", help="output format")
    p.add_argument("--scenario", metavar="S.json", help="scenario file to save the fitted calibration into")
    p.add_argument("--out", metavar="S2.json", help="where to write the calibrated scenario (with --scenario)")
    p.add_argument(
        "--option",
        action="append",
        metavar="ID",
        help="owned option to calibrate (repeatable); default: every option serving the runs' model on their GPU",
    )
    p.set_defaults(run=run)


def _save(args: argparse.Namespace, profile: Any) -> None:
    """Write ``--scenario`` with the calibration on its matching (or named) owned options to ``--out``."""
    import datetime as dt

    from economics.calibration_apply import apply_calibration, saved_calibration

    scenario = read_scenario(args.scenario, "--scenario")
    fitted_on = ", ".join(Path(f).name for f in args.files)
    saved = saved_calibration(profile, fitted_on, dt.datetime.now(dt.UTC).date())
    try:
        calibrated = apply_calibration(scenario, saved, args.option)
    except ValueError as exc:
        raise CliError("--option" if args.option else "--scenario", str(exc).splitlines()[0]) from None
    write_scenario(calibrated, args.out)
    names = [o.id for o in calibrated.owned_options if o.calibration == saved]
    print(f"Saved the calibration on {', '.join(names)} in {args.out}", file=sys.stderr)


def _check_flags(args: argparse.Namespace) -> None:
    if (args.scenario is None) != (args.out is None):
        raise CliError("--out" if args.scenario else "--scenario", "--scenario and --out go together")
    if args.option and args.scenario is None:
        raise CliError("--option", "only applies with --scenario and --out")


def run(args: argparse.Namespace) -> int:
    from economics.calibration_fit import fit_profile
    from economics.io import MAX_FILE_BYTES, BenchmarkFormatError, RunContext, match_catalog_models, read_benchmark
    from economics.io.benchmarks import catalog_gpus_for
    from economics.io.catalog import load_catalog
    from economics.io.safe_io import InputFileError, read_capped

    _check_flags(args)
    if len(args.files) > MAX_FILES:
        raise CliError("FILE", f"at most {MAX_FILES} files per call, got {len(args.files)}")
    ctx = None
    catalog = load_catalog()
    if args.model and args.gpu:
        gpu = catalog_gpus_for(args.gpu, catalog.gpus)
        if len(gpu) != 1:
            raise CliError("--gpu", f"{args.gpu!r} could be {', '.join(gpu)}: give one of these ids" if gpu else
                           f"{args.gpu!r} is not in the catalog (its ids: {', '.join(catalog.gpus)})")  # fmt: skip
        try:
            ctx = RunContext(model_id=args.model, gpu_id=gpu[0], gpus=args.gpus, precision=args.precision,
                             engine=args.engine)  # fmt: skip
        except ValidationError as exc:  # the flag that holds the bad value, and pydantic's message for it
            loc, _, msg = next(error_items(exc))
            flag = _FLAGS.get(str(loc[0]) if loc else "", "--model/--gpu/--gpus")
            raise CliError(flag, msg) from None
    points = []
    for name in args.files:
        path = Path(name)
        try:  # a regular file only, read capped: /dev/zero or a FIFO is refused, never read without end
            data = read_capped(path, MAX_FILE_BYTES)
        except InputFileError as exc:
            raise CliError("FILE", str(exc)) from None
        try:
            read = match_catalog_models(path.name, read_benchmark(path.name, data, ctx), catalog.models, catalog.gpus)
        except BenchmarkFormatError as exc:
            raise CliError("--model" if exc.where == "model" else "FILE", str(exc)) from None
        points += read
    try:
        profile = fit_profile(points, catalog.gpus, catalog.models)
    except ValueError as exc:
        raise CliError("FILE", str(exc)) from None
    if args.scenario is not None and args.out is not None:
        _save(args, profile)
    return _print(args, profile)


def _difference(measured: float, model: float) -> str:
    """The model against a measurement: a percentage, or a ratio when they differ tenfold or more (a printed
    "+2031316…(300 digits)…%" said nothing)."""
    ratio = model / measured
    if 0.1 < ratio < 10:
        return f"{(ratio - 1) * 100:+.1f}%"
    return f"model {ratio:.3g}× the measurement"


def _print(args: argparse.Namespace, profile: Any) -> int:
    for line in profile.warnings:  # before the figures, on stderr: a fit on a bound is not a measurement
        print(f"warning: {line}", file=sys.stderr)
    if args.format == "json":
        print(dumps({"profile": profile.model_dump(mode="json"), "warnings": list(profile.warnings)}))
        return 0
    models, gpus = ", ".join(profile.model_ids), ", ".join(profile.gpu_ids)
    print(f"Calibrated on {plural(profile.n_points, 'point')}: {models} on {gpus} ({profile.engine})")
    sd = [v**0.5 for v in (profile.covariance_log[0][0], profile.covariance_log[1][1])]
    free = profile.unmeasured_factors
    spread = ["(not set by these runs: none depends on it)" if f in free else f"(±{s * 100:.0f}% one s.d.)"
              for f, s in zip(("mbu", "mfu_decode"), sd, strict=True)]  # fmt: skip
    print(f"  memory-bandwidth utilisation (MBU)  {profile.mbu:.3f}  {spread[0]}")
    print(f"  compute utilisation (MFU, decode)   {profile.mfu_decode:.3f}  {spread[1]}")
    print(f"  typical point error                 {profile.residual_sd_log * 100:.1f}%")
    for r in profile.residuals:
        print(f"  {r.source}: measured {r.measured_tokens_per_s:,.1f}, model {r.predicted_tokens_per_s:,.1f} tok/s "
              f"({_difference(r.measured_tokens_per_s, r.predicted_tokens_per_s)})")  # fmt: skip
    return 0
