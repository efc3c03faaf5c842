"""The scenario: everything one evaluation needs, self-contained and versioned (docs/serving.md#serving-and-queues to
docs/routing.md#routing-rule).

A scenario embeds the GPUs and model architectures it uses (not just catalog ids), so that a saved review
or a shared link evaluates to the same numbers after the catalog changes. ``schema_version`` lets old
links and saved reviews be migrated (:func:`economics.scenario.migrate`).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import Field, model_validator

from economics._base import Frozen
from economics.calibration_saved import SavedCalibration
from economics.finance.settings import FinanceSettings
from economics.hardware import GPU, Efficiency, Precision
from economics.lookup import by_id
from economics.measured import MeasuredThroughput
from economics.model import ModelSpec
from economics.offers import ApiOffer, NodeOffer, RentedNode
from economics.schemes import ARScheme, DiffusionScheme, SpeculativeScheme
from economics.workload import Workload

SCHEMA_VERSION = 1


class OwnedOption(Frozen):
    """A model served on self-hosted nodes (owned or rented): one way a workload can be routed.

    An AR option with ``speculation`` set is the "optimized AR" baseline of docs/specdec.md#optimized-ar: speculation is
    switched on at an operating point only where it is faster.
    """

    id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$", description="option id")
    name: str = Field(min_length=1, max_length=120, description="display name")
    node_id: str = Field(min_length=1, max_length=64, description="id of a node offer in the scenario")
    model_id: str = Field(min_length=1, max_length=64, description="id of a model in the scenario")
    precision: Precision = Field(default="bf16", description="serving precision [-]")
    gpus_per_replica: int = Field(default=1, ge=1, le=1024, description="tensor-parallel degree N [count]")
    scheme: ARScheme | DiffusionScheme = Field(default_factory=ARScheme, discriminator="kind")
    speculation: SpeculativeScheme | None = Field(
        default=None, description="speculative decoding available to an AR option (used where it helps)"
    )
    quality: float = Field(default=0.90, ge=0, le=1, description="probability an output is acceptable q [1]")
    prefix_caching: bool = Field(
        default=False,
        description="the engine caches prompt prefixes: the workload's cached share skips prefill (shorter TTFT) [-]",
    )
    measured: MeasuredThroughput | None = Field(
        default=None,
        exclude_if=lambda v: v is None,  # absent, not null: files and links without a benchmark are unchanged
        description="the user's benchmark of one replica; replaces the model's capacity [-]",
    )
    calibration: SavedCalibration | None = Field(
        default=None,
        exclude_if=lambda v: v is None,  # absent, not null: files and links without a calibration are unchanged
        description="efficiency factors fitted to the user's benchmark runs; replace the scenario's for this "
        "option's throughput [-]",
    )

    def effective_efficiency(self, base: Efficiency) -> Efficiency:
        """The efficiency factors this option's throughput uses: the fitted ones when calibrated, else ``base``."""
        return base if self.calibration is None else self.calibration.efficiency(base)

    @model_validator(mode="after")
    def _check(self) -> OwnedOption:
        if self.speculation is not None and self.scheme.kind != "ar":
            raise ValueError("speculation applies to AR options only")
        return self


class Policy(Frozen):
    """How capacity is sized and paid for."""

    target_utilization: float = Field(
        default=0.8,
        ge=0.01,  # the flip scan's lower end; below it replica counts overflow to inf/NaN
        le=1,
        description="share of SLO capacity a replica is sized to at peak, u_target [1]",
    )
    lens: Literal["cash", "full"] = Field(
        default="cash",
        description="cash: bought nodes are sunk and only what changes spending counts; full: every node the "
        "plan uses carries its capital and fixed costs [-]",
    )
    allow_split: bool = Field(
        default=False,
        description="a workload whose data may leave may be split hour by hour between owned replicas (base "
        "load) and an API (peak hours) [-]",
    )
    solver_time_limit_s: float = Field(
        default=10.0, gt=0, le=600, description="time the plan's solver may take before it returns its best [s]"
    )
    cost_mode: Literal["dedicated", "pooled"] = Field(
        default="dedicated",
        description="kept so that old files and links load; the plan shares replicas across workloads, so "
        "'pooled' no longer changes any cost [-]",
    )
    pool_utilization: float = Field(
        default=0.7, gt=0, le=1, description="kept so that old files and links load; not used [1]"
    )
    stale_after_days: int = Field(default=90, ge=1, le=3650, description="prices older than this are stale [days]")


#: Workload × option pairs one plan may weigh [count]. Each pair is priced, checked against its SLOs and is a
#: variable of the fleet plan: 640,000 pairs (5,000 workloads, 128 options) took 118 s and 4.1 GB to evaluate;
#: 5,000 workloads on the bank's six options take ~1.3 s (benchmarks/bench_evaluate.py).
MAX_WORKLOAD_OPTION_PAIRS = 60_000


class Scenario(Frozen):
    """One organisation's inputs: hardware, models, offers, workloads and the review date."""

    schema_version: Literal[1] = Field(default=1, description="scenario format version [-]")
    name: str = Field(min_length=1, max_length=200, description="scenario name")
    description: str = Field(default="", max_length=5000, description="what the scenario is about")
    review_date: dt.date = Field(description="date the prices are taken as of")
    efficiency: Efficiency = Field(default_factory=Efficiency)
    policy: Policy = Field(default_factory=Policy)
    gpus: tuple[GPU, ...] = Field(min_length=1, max_length=32)
    models: tuple[ModelSpec, ...] = Field(min_length=1, max_length=32)
    nodes: tuple[NodeOffer, ...] = Field(default=(), max_length=64)
    owned_options: tuple[OwnedOption, ...] = Field(default=(), max_length=64)
    apis: tuple[ApiOffer, ...] = Field(default=(), max_length=64)
    workloads: tuple[Workload, ...] = Field(min_length=1, max_length=5000)
    finance: FinanceSettings | None = Field(
        default=None, description="display currency, cost of capital, carbon price and horizon; None = defaults"
    )

    @model_validator(mode="after")
    def _check_references(self) -> Scenario:
        problems: list[str] = []
        for field, items in (
            ("gpus", self.gpus),
            ("models", self.models),
            ("nodes", self.nodes),
            ("owned_options", self.owned_options),
            ("apis", self.apis),
            ("workloads", self.workloads),
        ):
            seen: set[str] = set()
            for i, item in enumerate(items):
                if item.id in seen:
                    problems.append(f"{field}.{i}.id: duplicate id {item.id!r}")
                seen.add(item.id)
        gpu_ids = {g.id for g in self.gpus}
        model_ids = {m.id for m in self.models}
        node_ids = {n.id for n in self.nodes}
        for i, node in enumerate(self.nodes):
            if node.gpu_id not in gpu_ids:
                problems.append(f"nodes.{i}.gpu_id: unknown GPU {node.gpu_id!r}")
        nodes_by_id = {n.id: n for n in self.nodes}
        for i, opt in enumerate(self.owned_options):
            if opt.node_id not in node_ids:
                problems.append(f"owned_options.{i}.node_id: unknown node {opt.node_id!r}")
            elif opt.gpus_per_replica > nodes_by_id[opt.node_id].gpus_per_node and (
                opt.gpus_per_replica % nodes_by_id[opt.node_id].gpus_per_node
            ):
                problems.append(
                    f"owned_options.{i}.gpus_per_replica: {opt.gpus_per_replica} GPUs do not fill whole "
                    f"{nodes_by_id[opt.node_id].gpus_per_node}-GPU nodes"
                )
            if opt.model_id not in model_ids:
                problems.append(f"owned_options.{i}.model_id: unknown model {opt.model_id!r}")
        option_ids = {o.id for o in self.owned_options} | {a.id for a in self.apis}
        if not option_ids:
            problems.append("owned_options: a scenario needs at least one owned option or API")
        pairs = len(self.workloads) * (len(self.owned_options) + len(self.apis))
        if pairs > MAX_WORKLOAD_OPTION_PAIRS:
            problems.append(
                f"workloads: {len(self.workloads):,} workloads × {len(self.owned_options) + len(self.apis)} options "
                f"is {pairs:,} pairs to plan, more than {MAX_WORKLOAD_OPTION_PAIRS:,}; split the portfolio into "
                "scenarios or leave out options no workload should use"
            )
        for i, wl in enumerate(self.workloads):
            for key in wl.quality_overrides:
                if key not in option_ids:
                    problems.append(f"workloads.{i}.quality_overrides: unknown option {key!r}")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    # ---- lookups ---------------------------------------------------------------------------------
    def gpu(self, gpu_id: str) -> GPU:
        return by_id(self.gpus, gpu_id, "GPU")

    def model(self, model_id: str) -> ModelSpec:
        return by_id(self.models, model_id, "model")

    def node(self, node_id: str) -> NodeOffer:
        return by_id(self.nodes, node_id, "node")

    def gpu_side(self) -> str:
        """What the scenario's GPU options run on, in a reader's word: "owned", "rented" or "owned or rented"
        (a sentence about "the best GPU option" says which; "owned" when there is none)."""
        rented = {isinstance(self.node(o.node_id), RentedNode) for o in self.owned_options}
        return "owned or rented" if len(rented) == 2 else "rented" if rented == {True} else "owned"


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    """Bring a scenario dict of any known ``schema_version`` to the current one.

    Version 1 is the first format, so there is nothing to migrate yet; an unknown or missing version is
    rejected by validation with a message that names ``schema_version``. New versions add a step here.
    """
    return data
