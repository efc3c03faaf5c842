"""``python -m economics throughput``: tokens per second of one replica at one operating point.

Example (issue #2 acceptance)::

    python -m economics throughput --model llama-3.1-70b --gpu h100-sxm --gpus 8 --precision bf16 \\
        --input-tokens 1000 --output-tokens 500 --batch 1 --ideal --format json
"""

from __future__ import annotations

import argparse
from typing import Any

from pydantic import BaseModel, ValidationError

from cli.jsonout import dumps
from cli.main import CliError
from economics.hardware import PRECISIONS, Deployment, Efficiency
from economics.iteration import AnyScheme
from economics.model import ModelSpec
from economics.schemes import ARScheme, DiffusionScheme, SpeculativeScheme
from economics.throughput import DEFAULT_MAX_BATCH, DEFAULT_PREFILL_CHUNK_TOKENS, ThroughputResult, throughput
from economics.units import GB, MB, MS, US
from economics.words import plural

# CLI flag of each field that a user can set, to name the argument in validation errors.
SPEC_FLAGS = {
    "acceptance_rate": "--acceptance-rate",
    "mean_accepted_tokens": "--mean-accepted-tokens",
    "verify_tokens": "--verify-tokens",
    "draft_tokens": "--draft-tokens",
    "draft_layers": "--draft-layers",
    "draft_vocab": "--draft-vocab",
    "draft_steps": "--draft-steps",
    "draft_step_overhead_s": "--draft-overhead-ms",
}
DIFF_FLAGS = {
    "block_tokens": "--block-tokens",
    "denoising_steps": "--denoising-steps",
    "refresh_passes": "--refresh-passes",
    "prefix_cache": "--no-prefix-cache",
}
EFF_FLAGS = {
    "mbu": "--mbu",
    "mfu_decode": "--mfu-decode",
    "mfu_prefill": "--mfu-prefill",
    "step_overhead_s": "--step-overhead-ms",
    "allreduce_latency_s": "--allreduce-latency-us",
    "allreduce_half_bytes": "--allreduce-half-mb",
    "kv_mem_util": "--kv-mem-util",
}


def _count(minimum: int) -> Any:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
        if value < minimum:
            kind = "a positive integer" if minimum == 1 else f"an integer ≥ {minimum}"
            raise argparse.ArgumentTypeError(f"must be {kind}, got {text!r}")
        return value

    return parse


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    p = subparsers.add_parser(
        "throughput",
        help="output tokens per second of one replica",
        description=(
            "Output tokens per second of one replica at one operating point "
            "(docs/roofline.md#forward-pass, docs/serving.md#serving-and-queues)."
        ),
    )
    p.add_argument("--model", required=True, metavar="ID", help="model id (see the catalog subcommand)")
    p.add_argument("--gpu", required=True, metavar="ID", help="GPU id")
    p.add_argument("--gpus", type=_count(1), default=1, metavar="N", help="GPUs in the tensor-parallel replica")
    p.add_argument("--precision", choices=PRECISIONS, default="bf16", help="weights/compute precision")
    p.add_argument("--input-tokens", type=_count(1), required=True, metavar="N", help="prompt length")
    p.add_argument("--output-tokens", type=_count(1), required=True, metavar="N", help="output length")
    regime = p.add_mutually_exclusive_group(required=True)
    regime.add_argument("--batch", type=_count(1), metavar="B", help="steady decode with B sequences resident")
    regime.add_argument("--concurrency", type=_count(1), metavar="C", help="C closed-loop clients")
    regime.add_argument("--max", action="store_true", help="offline saturation: every request queued")
    p.add_argument(
        "--max-batch", type=_count(1), default=None, metavar="N",
        help=f"engine batch limit with --max (default {DEFAULT_MAX_BATCH}, TensorRT-LLM's largest CUDA graph)",
    )  # fmt: skip
    p.add_argument(
        "--kv-policy", choices=("paged", "reserve"), default="paged",
        help="paged: KV for the tokens held (vLLM); reserve: for the whole output up front (TensorRT-LLM)",
    )  # fmt: skip
    p.add_argument(
        "--prefill-chunk-tokens", type=_count(1), default=DEFAULT_PREFILL_CHUNK_TOKENS, metavar="N",
        help="prompt tokens one iteration may carry (chunked prefill)",
    )  # fmt: skip
    p.add_argument("--scheme", choices=("ar", "speculative", "diffusion"), help="decoding scheme")
    spec = p.add_argument_group("speculative decoding")
    spec.add_argument("--spec-preset", metavar="ID", help="speculative preset id")
    spec.add_argument("--acceptance-rate", type=_number, metavar="ALPHA", help="per-token acceptance α")
    spec.add_argument("--mean-accepted-tokens", type=_number, metavar="TAU", help="tokens per verify pass τ")
    spec.add_argument("--verify-tokens", type=_count(2), metavar="N", help="tokens verified per pass")
    spec.add_argument("--draft-tokens", type=_count(1), metavar="N", help="draft tokens γ per iteration")
    spec.add_argument("--draft-layers", type=_count(0), metavar="N", help="draft decoder layers (0 = Medusa)")
    spec.add_argument("--draft-vocab", type=_count(2), metavar="N", help="draft LM-head vocabulary")
    spec.add_argument("--draft-steps", type=_count(0), metavar="N", help="draft passes per iteration")
    spec.add_argument("--draft-overhead-ms", type=_number, metavar="MS", help="fixed cost per draft pass")
    diff = p.add_argument_group("text diffusion")
    diff.add_argument("--diffusion-preset", metavar="ID", help="diffusion preset id")
    diff.add_argument("--block-tokens", type=_count(1), metavar="K", help="block length K")
    diff.add_argument("--denoising-steps", type=_count(1), metavar="S", help="denoising passes per block S")
    diff.add_argument("--refresh-passes", type=_count(0), metavar="R", help="extra passes per block ρ")
    diff.add_argument("--no-prefix-cache", action="store_true", help="recompute the whole canvas every pass")
    eff = p.add_argument_group("efficiency (defaults: docs/inputs.md#efficiency)")
    eff.add_argument("--ideal", action="store_true", help="ideal roofline: MBU = MFU = 1, no overheads")
    eff.add_argument("--mbu", type=_number, metavar="X", help="memory-bandwidth utilisation [0.001, 1]")
    eff.add_argument("--mfu-decode", type=_number, metavar="X", help="FLOP utilisation of decode passes [0.001, 1]")
    eff.add_argument("--mfu-prefill", type=_number, metavar="X", help="FLOP utilisation of prefill [0.001, 1]")
    eff.add_argument("--step-overhead-ms", type=_number, metavar="MS", help="fixed cost per forward pass")
    eff.add_argument("--allreduce-latency-us", type=_number, metavar="US", help="latency of one all-reduce")
    eff.add_argument(
        "--allreduce-half-mb", type=_number, metavar="MB",
        help="message size at which an all-reduce reaches half the link's bandwidth; default: the GPU's links' "
        "(gpus.csv), 0 = the first spec",
    )  # fmt: skip
    eff.add_argument("--kv-mem-util", type=_number, metavar="X", help="share of GPU memory the engine may use")
    p.add_argument(
        "--engine", metavar="ID",
        help="serving engine whose documented limits and software efficiency apply (data/catalog/engines.csv: "
        "tensorrt-llm, vllm, sglang, llama.cpp, ...); default: the plain efficiency factors",
    )  # fmt: skip
    p.add_argument(
        "--expert-parallel", action="store_true",
        help="MoE: attention data-parallel, experts split across the GPUs (all-to-all, load imbalance)",
    )  # fmt: skip
    p.add_argument(
        "--calibration", metavar="FILE",
        help="profile JSON written by 'calibrate --format json': use its fitted factors and uncertainty",
    )  # fmt: skip
    p.add_argument("--format", choices=("table", "json"), default="table", help="output format")
    p.set_defaults(run=run)


def _validated(cls: type[BaseModel], data: dict[str, Any], flags: dict[str, str], what: str) -> Any:
    """Validate ``data`` as ``cls``; a failure names the flag of the first bad field (or ``what``)."""
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")
        more = f" (and {plural(exc.error_count() - 1, 'more problem')})" if exc.error_count() > 1 else ""
        argument = flags.get(field) or (f"{what} ({field})" if field else what)
        raise CliError(argument, message + more) from None


def _efficiency(args: argparse.Namespace) -> Efficiency:
    given = {
        "mbu": args.mbu,
        "mfu_decode": args.mfu_decode,
        "mfu_prefill": args.mfu_prefill,
        "step_overhead_s": None if args.step_overhead_ms is None else args.step_overhead_ms * MS,
        "allreduce_latency_s": None if args.allreduce_latency_us is None else args.allreduce_latency_us * US,
        "allreduce_half_bytes": None if args.allreduce_half_mb is None else args.allreduce_half_mb * MB,
        "kv_mem_util": args.kv_mem_util,
    }
    given = {k: v for k, v in given.items() if v is not None}
    if args.ideal:
        if given:
            raise CliError("--ideal", f"cannot be combined with {', '.join(EFF_FLAGS[k] for k in given)}")
        return Efficiency.ideal()
    result: Efficiency = _validated(Efficiency, given, EFF_FLAGS, "efficiency")
    return result


def _speculative(args: argparse.Namespace, presets: dict[str, SpeculativeScheme]) -> SpeculativeScheme:
    data: dict[str, Any] = {}
    if args.spec_preset is not None:
        data = _lookup(presets, args.spec_preset, "--spec-preset", "speculative preset").model_dump()
    if args.acceptance_rate is not None and args.mean_accepted_tokens is not None:
        raise CliError("--acceptance-rate", "give either --acceptance-rate or --mean-accepted-tokens, not both")
    if args.acceptance_rate is not None:
        data.update(acceptance_rate=args.acceptance_rate, mean_accepted_tokens=None)
    if args.mean_accepted_tokens is not None:
        data.update(mean_accepted_tokens=args.mean_accepted_tokens, acceptance_rate=None)
    if not data:
        raise CliError("--scheme speculative", "give --spec-preset, --acceptance-rate or --mean-accepted-tokens")
    if args.draft_tokens is not None:
        data["draft_tokens"] = args.draft_tokens
        if data.get("acceptance_rate") is not None:  # a chain: verify γ + 1 tokens after γ draft passes
            data.update(verify_tokens=args.draft_tokens + 1, draft_steps=args.draft_tokens)
    for field in ("verify_tokens", "draft_layers", "draft_vocab", "draft_steps"):
        if getattr(args, field) is not None:
            data[field] = getattr(args, field)
    if args.draft_overhead_ms is not None:
        data["draft_step_overhead_s"] = args.draft_overhead_ms * MS
    if args.spec_preset is None:
        data.update(id="custom-speculative", name="custom speculative decoding")
    result: SpeculativeScheme = _validated(SpeculativeScheme, data, SPEC_FLAGS, "--scheme speculative")
    return result


def _diffusion(args: argparse.Namespace, presets: dict[str, DiffusionScheme]) -> DiffusionScheme:
    data: dict[str, Any] = {}
    if args.diffusion_preset is not None:
        data = _lookup(presets, args.diffusion_preset, "--diffusion-preset", "diffusion preset").model_dump()
    else:
        data.update(id="custom-diffusion", name="custom text diffusion")
    for field in ("block_tokens", "denoising_steps", "refresh_passes"):
        if getattr(args, field) is not None:
            data[field] = getattr(args, field)
    if args.no_prefix_cache:
        data["prefix_cache"] = False
    result: DiffusionScheme = _validated(DiffusionScheme, data, DIFF_FLAGS, "--scheme diffusion")
    return result


def _scheme(args: argparse.Namespace, model: ModelSpec, catalog: Any) -> AnyScheme:
    spec_given = [f for f in ("spec_preset", *SPEC_FLAGS) if getattr(args, _dest(f), None) is not None]
    diff_given = [f for f in ("diffusion_preset", *DIFF_FLAGS) if getattr(args, _dest(f), None) not in (None, False)]
    if spec_given and diff_given:
        raise CliError("--scheme", "speculative and diffusion options cannot be combined")
    kind = args.scheme or (
        "speculative" if spec_given else "diffusion" if diff_given or model.family == "diffusion" else "ar"
    )
    if spec_given and kind != "speculative":
        raise CliError(_flag(spec_given[0]), f"needs --scheme speculative (got --scheme {kind})")
    if diff_given and kind != "diffusion":
        raise CliError(_flag(diff_given[0]), f"needs --scheme diffusion (got --scheme {kind})")
    if model.family == "diffusion" and kind != "diffusion":
        raise CliError("--scheme", f"{model.id} is a diffusion model; use --scheme diffusion")
    if kind == "speculative":
        return _speculative(args, catalog.speculative)
    if kind == "diffusion":
        return _diffusion(args, catalog.diffusion)
    return ARScheme()


def _dest(field: str) -> str:
    return {"draft_step_overhead_s": "draft_overhead_ms", "prefix_cache": "no_prefix_cache"}.get(field, field)


def _flag(field: str) -> str:
    return {**SPEC_FLAGS, **DIFF_FLAGS}.get(field, "--" + field.replace("_", "-"))


def _lookup(table: dict[str, Any], key: str, flag: str, kind: str) -> Any:
    if key not in table:
        known = ", ".join(table)
        raise CliError(flag, f"unknown {kind} {key!r}; known: {known}")
    return table[key]


def run(args: argparse.Namespace) -> int:
    from economics.io.catalog import load_catalog

    if args.max_batch is not None and not args.max:
        raise CliError("--max-batch", "only applies with --max")
    catalog = load_catalog()
    model = _lookup(catalog.models, args.model, "--model", "model").at_precision(args.precision)
    gpu = _lookup(catalog.gpus, args.gpu, "--gpu", "GPU")
    efficiency = _efficiency(args)
    profile = _profile(args.calibration) if args.calibration else None
    if profile is not None:
        efficiency = profile.efficiency(efficiency)
    max_batch = args.max_batch
    if args.engine:
        from economics.engines import load_engines

        engine = _lookup(load_engines(), args.engine, "--engine", "engine")
        efficiency = engine.efficiency(efficiency, model.n_layers, gpu.hbm_bandwidth_bytes_per_s)
        max_batch = max_batch or engine.max_batch
    scheme = _scheme(args, model, catalog)
    deployment = Deployment(gpu=gpu, n_gpus=args.gpus, precision=args.precision,
                            expert_parallel=args.expert_parallel)  # fmt: skip
    result = throughput(
        model,
        deployment,
        efficiency,
        scheme,
        args.input_tokens,
        args.output_tokens,
        batch=args.batch,
        concurrency=args.concurrency,
        saturate=args.max,
        max_batch=max_batch or DEFAULT_MAX_BATCH,
        reserve_output=args.kv_policy == "reserve",
        prefill_chunk_tokens=args.prefill_chunk_tokens,
    )
    if not result.feasible:
        flag = "--batch" if "exceeds the KV-memory limit" in result.reason else "--model"
        if "one sequence" in result.reason:
            flag = "--input-tokens"
        raise CliError(flag, f"{result.reason} ({args.model} on {args.gpus} × {args.gpu}, {args.precision})")
    from economics.bands import throughput_band

    band = throughput_band(
        result.output_tokens_per_s, profile=profile, moe=model.is_moe, precision=args.precision,
        regime="batch-1" if result.regime == "batch" and result.batch <= 1 else
        ("saturation" if result.regime == "max" else "concurrency"),
    )  # fmt: skip
    if args.format == "json":
        print(dumps({**result.model_dump(mode="json"), "band": band.model_dump(mode="json")}))
    else:
        print(format_table(result))
        print(f"  likely range (10–90%): {band.low:,.0f} – {band.high:,.0f} tok/s  ({band.basis})")
    return 0


def _profile(path: str) -> Any:
    from economics.calibration_fit import CalibrationProfile
    from economics.io.safe_io import InputFileError, load_json_text, read_capped

    try:  # a regular file only, read capped: /dev/zero or a FIFO is refused, never read without end
        raw = read_capped(path, 2_000_000)
    except InputFileError as exc:
        raise CliError("--calibration", str(exc)) from None
    try:
        data = load_json_text(raw)
        return CalibrationProfile.model_validate(data.get("profile", data) if isinstance(data, dict) else data)
    except ValueError as exc:
        raise CliError("--calibration", f"{path}: not a calibration profile ({str(exc).splitlines()[0]})") from None


def format_table(r: ThroughputResult) -> str:
    """Human-readable result; the only place that converts seconds to ms and bytes to GB."""
    regime = {
        "batch": f"batch {r.batch:g} (steady decode)",
        "concurrency": f"{r.concurrency} closed-loop clients",
        "max": "offline saturation",
    }[r.regime]
    rows = [
        ("output tokens/s (replica)", f"{r.output_tokens_per_s:,.1f}"),
        ("output tokens/s per GPU", f"{r.output_tokens_per_s_per_gpu:,.1f}"),
        ("TPOT", f"{r.tpot_s / MS:.2f} ms"),
        ("TTFT", f"{r.ttft_s / MS:.1f} ms"),
        ("running batch", f"{r.batch:g}"),
        ("bound", r.bound),
        ("arithmetic intensity", f"{r.arithmetic_intensity_flop_per_byte:,.1f} FLOP/B"),
        ("max batch (KV memory)", f"{r.max_batch_kv:,}"),
        ("KV memory free", f"{r.kv_free_bytes / GB:,.1f} GB"),
        ("iteration", f"{r.iteration_s / MS:.2f} ms"),
        ("tokens per iteration", f"q = {r.new_tokens_per_iteration:g} in, e = {r.tokens_per_iteration:.3g} out"),
    ]  # fmt: skip
    if r.draft_s:
        rows.append(("draft per iteration", f"{r.draft_s / MS:.2f} ms"))
    if r.queue_wait_s:
        rows.append(("queue wait", f"{r.queue_wait_s / MS:.1f} ms"))
    if r.notes:
        rows.append(("note", r.notes))
    head = (
        f"{r.model_id} on {r.gpus} × {r.gpu_id}, {r.precision}, {r.scheme} ({r.scheme_id}), {regime}, "
        f"{r.input_tokens} in / {r.output_tokens} out"
    )
    width = max(len(k) for k, _ in rows)
    return "\n".join([head, *(f"  {k:<{width}}  {v}" for k, v in rows)])
