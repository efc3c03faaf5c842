"""Batching and the memory wall: the curves of the Batching page, computed by the economics package.

Pure (no Streamlit, no plotly): :func:`batching_analysis` calls the throughput, capacity and cost functions
of ``economics`` on batch and concurrency grids and packs their arrays into typed results for the chart
builders in :mod:`ui.charts.batching`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from economics.capacity import kv_capacity
from economics.costs import cost_per_mtok_capacity_form
from economics.hardware import Deployment, Efficiency
from economics.iteration import AnyScheme, iteration_time
from economics.lookup import by_id
from economics.model import FloatArray, ModelSpec
from economics.option_costs import replica_usd_per_hour
from economics.roofline import PassTime
from economics.scenario import OwnedOption, Scenario
from economics.schemes import ARScheme, SpeculativeScheme
from economics.throughput import closed_loop, steady_decode
from economics.views.kinds import DisplayKind

#: Batches placed on the roofline for AR and speculative verify, and for diffusion passes [sequences].
ROOFLINE_BATCHES: tuple[int, ...] = (1, 8, 64, 256)
DIFFUSION_ROOFLINE_BATCHES: tuple[int, ...] = (1, 8, 64)
#: Largest batch or concurrency drawn [sequences].
MAX_GRID = 4096


@dataclass(frozen=True)
class Roof:
    """Roofline of one GPU: peak and effective (MFU/MBU-derated) compute and bandwidth."""

    gpu_name: str
    peak_flops_per_s: float
    bandwidth_bytes_per_s: float
    effective_flops_per_s: float
    effective_bandwidth_bytes_per_s: float

    @property
    def ridge_flop_per_byte(self) -> float:
        return self.peak_flops_per_s / self.bandwidth_bytes_per_s


@dataclass(frozen=True)
class RooflinePoint:
    """One forward pass placed on the roofline, per GPU."""

    label: str
    kind: DisplayKind
    batch: int
    intensity_flop_per_byte: float
    attained_flops_per_s: float  # per GPU
    compute_bound: bool


@dataclass(frozen=True)
class BatchSeries:
    """Steady decode of one option against batch size (per replica)."""

    option_id: str
    label: str
    kind: DisplayKind
    gpus: int
    batch: FloatArray  # [sequences], up to the KV-memory cap
    tokens_per_s: FloatArray  # whole replica [tok/s]
    tokens_per_s_per_stream: FloatArray  # [tok/s]
    cost_usd_per_mtok: FloatArray  # while busy (U = 1) [USD/Mtok]
    max_batch_kv: float  # KV-memory cap at this context [sequences]


@dataclass(frozen=True)
class ConcurrencySeries:
    """Closed-loop clients against one replica: per-stream and aggregate output speed."""

    option_id: str
    label: str
    kind: DisplayKind
    concurrency: FloatArray  # clients per replica [count]
    per_stream_tokens_per_s: FloatArray  # [tok/s]
    aggregate_tokens_per_s_per_gpu: FloatArray  # [tok/s per GPU]


@dataclass(frozen=True)
class MemoryBudget:
    """Where the AR replica's memory goes."""

    usable_bytes: float
    weight_bytes: float
    kv_bytes_per_sequence: float
    max_batch: float


@dataclass(frozen=True)
class BatchingAnalysis:
    """Everything the Batching page draws."""

    workload_name: str
    input_tokens: int
    output_tokens: int
    roofs: tuple[Roof, ...]
    points: tuple[RooflinePoint, ...]
    batch_series: tuple[BatchSeries, ...]
    concurrency_series: tuple[ConcurrencySeries, ...]
    crossover_concurrency: float  # clients where AR (best of plain and speculation) catches diffusion; inf if never
    memory: MemoryBudget
    ar_cost_usd_per_mtok_at_batch_1: float  # while busy [USD/Mtok output]


@dataclass(frozen=True)
class BatchPoint:
    """The AR option at the batch size the user marks."""

    batch: int  # [sequences]
    tokens_per_s: float  # one replica [tok/s]
    cost_usd_per_mtok: float  # while busy [USD/Mtok output]
    cost_swing: float  # $/Mtok at batch 1 over $/Mtok at this batch [1]
    compute_bound: bool
    intensity_flop_per_byte: float
    kv_bytes: float  # KV cache of the batch (capped at the KV-memory limit) [B]


def _deployment(scenario: Scenario, option: OwnedOption) -> tuple[ModelSpec, Deployment]:
    node = scenario.node(option.node_id)
    model = scenario.model(option.model_id).at_precision(option.precision)
    return model, Deployment(gpu=scenario.gpu(node.gpu_id), n_gpus=option.gpus_per_replica, precision=option.precision)


def _pass(
    model: ModelSpec,
    dep: Deployment,
    eff: Efficiency,
    scheme: AnyScheme,
    batch: FloatArray,
    input_tokens: int,
    output_tokens: int,
) -> PassTime:
    """The main forward pass of a steady decode iteration at the mean resident context T_in + T_out/2."""
    return iteration_time(
        model, dep, eff, scheme, batch, input_tokens + output_tokens / 2, canvas_tokens=input_tokens + output_tokens
    ).main


def _grid(cap: float) -> FloatArray:
    top = max(1.0, min(cap, float(MAX_GRID)))
    return np.unique(np.concatenate([np.geomspace(1.0, top, 96).round(), [top]]))


def _roof(scenario: Scenario, option: OwnedOption) -> Roof:
    gpu = scenario.gpu(scenario.node(option.node_id).gpu_id)
    eff = option.effective_efficiency(scenario.efficiency)
    return Roof(
        gpu_name=gpu.name,
        peak_flops_per_s=gpu.peak_flops_per_s(option.precision),
        bandwidth_bytes_per_s=gpu.hbm_bandwidth_bytes_per_s,
        effective_flops_per_s=gpu.peak_flops_per_s(option.precision) * eff.mfu_decode,
        effective_bandwidth_bytes_per_s=gpu.hbm_bandwidth_bytes_per_s * eff.mbu,
    )


class BatchingInputs(BaseModel):
    """What the Batching page studies: one AR option, the speculation it is compared with, one diffusion
    option and the request shape of one workload (the batch size marked is a :class:`BatchPoint`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ar_option_id: str = Field(description="owned AR option [-]")
    speculation_option_id: str | None = Field(description="owned AR option whose speculation is drawn [-]")
    diffusion_option_id: str | None = Field(description="owned diffusion option [-]")
    workload_id: str = Field(description="workload giving T_in and T_out [-]")


def ar_options_in_study_order(scenario: Scenario) -> list[OwnedOption]:
    """The owned AR options, the one closest in model size to the first diffusion option first (like with like)."""
    ar = [o for o in scenario.owned_options if o.scheme.kind == "ar"]
    diff = [o for o in scenario.owned_options if o.scheme.kind == "diffusion"]
    if diff:
        ref = scenario.model(diff[0].model_id).params_total
        ar.sort(key=lambda o: abs(scenario.model(o.model_id).params_total - ref))
    return ar


def speculation_option(scenario: Scenario, ar: OwnedOption) -> OwnedOption | None:
    """The option whose speculative decoding is drawn beside ``ar``: its own, else another AR option of the model."""
    if ar.speculation is not None:
        return ar
    return next(
        (
            o
            for o in scenario.owned_options
            if o.scheme.kind == "ar" and o.speculation is not None and o.model_id == ar.model_id
        ),
        None,
    )


def workloads_in_study_order(scenario: Scenario) -> list[str]:
    """Workload ids, the first latency-bound one (a TTFT or TPOT target) first: the request shape the study
    opens on, on the Batching page and in the Argument page's claims."""
    ids = [w.id for w in scenario.workloads]
    latency = [w.id for w in scenario.workloads if w.tpot_slo_s is not None or w.ttft_slo_s is not None]
    return ids if not latency else [latency[0], *(i for i in ids if i != latency[0])]


def default_study(scenario: Scenario) -> BatchingInputs | None:
    """The study the Batching page opens on and the Argument page reads; None without an owned AR option."""
    ar = ar_options_in_study_order(scenario)
    if not ar:
        return None
    spec = speculation_option(scenario, ar[0])
    diff = next((o for o in scenario.owned_options if o.scheme.kind == "diffusion"), None)
    return BatchingInputs(
        ar_option_id=ar[0].id,
        speculation_option_id=None if spec is None else spec.id,
        diffusion_option_id=None if diff is None else diff.id,
        workload_id=workloads_in_study_order(scenario)[0],
    )


def ar_catches_up_clients(series: tuple[ConcurrencySeries, ...]) -> float:
    """Fewest closed-loop clients per replica at which AR's output per GPU reaches diffusion's [count].

    AR is the best of every AR curve drawn, plain and with speculative decoding (the essay's fair baseline),
    read at each client count; ``inf`` when AR never catches up on the grid or no diffusion curve is drawn.
    The one definition behind the Batching page's mark and the Argument page's figure.
    """
    diff = next((s for s in series if s.kind == "owned-diffusion"), None)
    ars = [s for s in series if s.kind in ("owned-ar", "owned-ar-spec")]
    if diff is None or not ars:
        return float("inf")
    grid = diff.concurrency  # each AR curve read on diffusion's grid, only where that curve is drawn
    d = diff.aggregate_tokens_per_s_per_gpu
    a = np.max([np.interp(grid, s.concurrency, s.aggregate_tokens_per_s_per_gpu, right=-np.inf) for s in ars], axis=0)
    ahead = a >= d
    return float(grid[np.argmax(ahead)]) if ahead.any() else float("inf")


def catch_up_words(clients: float) -> str:
    """The crossover in words, the same on every page."""
    if not np.isfinite(clients):
        return "AR (best of plain and speculative decoding) never catches up with diffusion here"
    return f"AR (best of plain and speculative decoding) catches up with diffusion at {clients:,.0f} clients"


def _short(name: str) -> str:
    """A model's display name without its parenthetical ("Llama 3.1 70B (also 3.3 70B)" → "Llama 3.1 70B")."""
    return name.split(" (")[0]


def _option(scenario: Scenario, option_id: str) -> OwnedOption:
    return by_id(scenario.owned_options, option_id, "owned option")


def batching_analysis(scenario: Scenario, inputs: BatchingInputs) -> BatchingAnalysis:
    """The Batching page's curves for an AR option, its speculation (if any) and a diffusion option."""
    ar = _option(scenario, inputs.ar_option_id)
    spec_option = None if inputs.speculation_option_id is None else _option(scenario, inputs.speculation_option_id)
    diffusion = None if inputs.diffusion_option_id is None else _option(scenario, inputs.diffusion_option_id)
    workload = by_id(scenario.workloads, inputs.workload_id, "workload")
    input_tokens, output_tokens = workload.input_tokens, workload.decoded_output_tokens
    eff = ar.effective_efficiency(scenario.efficiency)
    ar_model, ar_dep = _deployment(scenario, ar)
    ar_cost_h = replica_usd_per_hour(scenario, ar)
    cap = kv_capacity(ar_model, ar_dep, eff)
    plain = steady_decode(ar_model, ar_dep, eff, ARScheme(), 1.0, input_tokens, output_tokens)
    ar_cap = float(plain.max_batch_kv)
    kv_per_seq = float(plain.kv_tokens_per_sequence) * cap.kv_bytes_per_token

    points: list[RooflinePoint] = []
    series: list[BatchSeries] = []
    conc: list[ConcurrencySeries] = []

    def add_batch(option: OwnedOption, label: str, kind: DisplayKind, scheme: AnyScheme, best_of_ar: bool) -> None:
        model, dep = _deployment(scenario, option)
        cost_h = replica_usd_per_hour(scenario, option)
        eff = option.effective_efficiency(scenario.efficiency)  # the option's fitted factors, when calibrated
        first = steady_decode(model, dep, eff, scheme, 1.0, input_tokens, output_tokens)
        b = _grid(float(first.max_batch_kv))
        run = steady_decode(model, dep, eff, scheme, b, input_tokens, output_tokens)
        x = run.output_tokens_per_s
        per_stream = 1.0 / run.tpot_s
        if best_of_ar:  # speculation only where it helps: the "optimized AR" baseline (docs/specdec.md#optimized-ar)
            base = steady_decode(model, dep, eff, ARScheme(), b, input_tokens, output_tokens)
            x = np.maximum(x, base.output_tokens_per_s)
            per_stream = np.maximum(per_stream, 1.0 / base.tpot_s)
        series.append(
            BatchSeries(
                option_id=option.id,
                label=label,
                kind=kind,
                gpus=dep.n_gpus,
                batch=b,
                tokens_per_s=x,
                tokens_per_s_per_stream=per_stream,
                cost_usd_per_mtok=cost_per_mtok_capacity_form(cost_h, x, 1.0),
                max_batch_kv=float(first.max_batch_kv),
            )
        )
        c = _grid(float(MAX_GRID) if np.isinf(first.max_batch_kv) else 4.0 * float(first.max_batch_kv))
        loop = closed_loop(model, dep, eff, scheme, c, input_tokens, output_tokens)
        agg, stream = loop.output_tokens_per_s_per_gpu, 1.0 / loop.tpot_s
        if best_of_ar:
            base_loop = closed_loop(model, dep, eff, ARScheme(), c, input_tokens, output_tokens)
            better = base_loop.output_tokens_per_s_per_gpu > agg
            agg = np.where(better, base_loop.output_tokens_per_s_per_gpu, agg)
            stream = np.where(better, 1.0 / base_loop.tpot_s, stream)
        conc.append(ConcurrencySeries(option.id, label, kind, c, stream, agg))

        batches = DIFFUSION_ROOFLINE_BATCHES if kind == "owned-diffusion" else ROOFLINE_BATCHES
        pb = np.array([bb for bb in batches if bb <= max(1.0, float(first.max_batch_kv))], dtype=np.float64)
        main = _pass(model, dep, eff, scheme, pb, input_tokens, output_tokens)
        for i, bb in enumerate(pb):
            points.append(
                RooflinePoint(
                    label=label,
                    kind=kind,
                    batch=int(bb),
                    intensity_flop_per_byte=float(main.arithmetic_intensity_flop_per_byte[i]),
                    attained_flops_per_s=float(main.flops[i] / main.time_s[i]) / dep.n_gpus,
                    compute_bound=bool(main.compute_bound[i]),
                )
            )

    model_name = _short(scenario.model(ar.model_id).name)
    add_batch(ar, f"AR · {model_name}, {ar.gpus_per_replica} GPU", "owned-ar", ARScheme(), best_of_ar=False)
    if spec_option is not None and spec_option.speculation is not None:
        spec: SpeculativeScheme = spec_option.speculation
        label = f"AR + speculation · {model_name}, {spec_option.gpus_per_replica} GPU"
        add_batch(spec_option, label, "owned-ar-spec", spec, best_of_ar=True)
    if diffusion is not None:
        label = f"diffusion · {_short(scenario.model(diffusion.model_id).name)}, {diffusion.gpus_per_replica} GPU"
        add_batch(diffusion, label, "owned-diffusion", diffusion.scheme, best_of_ar=False)

    crossover = ar_catches_up_clients(tuple(conc))

    cost_1 = float(cost_per_mtok_capacity_form(ar_cost_h, plain.output_tokens_per_s, 1.0))
    roofs = {_roof(scenario, ar).gpu_name: _roof(scenario, ar)}
    if diffusion is not None:
        roofs.setdefault(_roof(scenario, diffusion).gpu_name, _roof(scenario, diffusion))
    return BatchingAnalysis(
        workload_name=workload.name,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        roofs=tuple(roofs.values()),
        points=tuple(points),
        batch_series=tuple(series),
        concurrency_series=tuple(conc),
        crossover_concurrency=crossover,
        memory=MemoryBudget(
            usable_bytes=cap.usable_bytes,
            weight_bytes=cap.weight_bytes,
            kv_bytes_per_sequence=kv_per_seq,
            max_batch=ar_cap,
        ),
        ar_cost_usd_per_mtok_at_batch_1=cost_1,
    )


def batch_point(scenario: Scenario, inputs: BatchingInputs, batch: int, analysis: BatchingAnalysis) -> BatchPoint:
    """The AR option's throughput, cost while busy and intensity at ``batch`` (steady decode,
    docs/roofline.md#worked-example-70b)."""
    ar = _option(scenario, inputs.ar_option_id)
    model, dep = _deployment(scenario, ar)
    eff = ar.effective_efficiency(scenario.efficiency)
    at = steady_decode(model, dep, eff, ARScheme(), float(batch), analysis.input_tokens, analysis.output_tokens)
    x = float(at.output_tokens_per_s)
    cost = float(cost_per_mtok_capacity_form(replica_usd_per_hour(scenario, ar), x, 1.0))
    return BatchPoint(
        batch=batch,
        tokens_per_s=x,
        cost_usd_per_mtok=cost,
        cost_swing=analysis.ar_cost_usd_per_mtok_at_batch_1 / cost if cost > 0 else float("inf"),
        compute_bound=bool(at.compute_time_share),  # steady decode: 1.0 when its main pass is compute-bound
        intensity_flop_per_byte=float(at.arithmetic_intensity_flop_per_byte),
        kv_bytes=min(float(batch), analysis.memory.max_batch) * analysis.memory.kv_bytes_per_sequence,
    )
