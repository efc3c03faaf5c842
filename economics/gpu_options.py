"""Adding GPUs to a scenario from the catalog, and taking an option out again.

A reader on the API-only preset, or one who wants to price another GPU, had no way to add a node but to edit the
scenario's JSON. :func:`add_gpus` adds one node and one option that serves a catalog model on it:

- **rent**: a catalog instance at its price in force on the scenario's review date (its source and date kept, and
  its price id, so a later review re-reads it);
- **buy**: a node of a catalog GPU at a purchase price and node power the reader types (the catalog's figures are
  offered first where it has them); every other input takes the model's defaults (docs/costs.md#node-cost).

The replica suggested is the fewest GPUs of the node (1, 2, 4, 8, …) that leave half their usable memory to the KV
cache at the chosen precision (:func:`replica_gpus`); a model that fits on no replica is refused with a message, and
nothing is added. :func:`remove_option` takes an option out, and its node with it when no other option runs there.
Every refusal is a :class:`ValueError` "<field>: <problem>"; :func:`problem_of` splits it for the dialog and the CLI.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator

from economics._base import Frozen
from economics.capacity import kv_capacity
from economics.catalog import Catalog
from economics.hardware import GPU, Deployment, Precision
from economics.model import ModelSpec
from economics.offers import OwnedNode, RentedNode
from economics.price_text import typed_source
from economics.prices import OwnedInput, PriceLookupError, is_in_force
from economics.scenario import OwnedOption, Scenario
from economics.schemes import ARScheme
from economics.words import plural

__all__ = [
    "GpuAddition",
    "add_gpus",
    "catalog_node_inputs",
    "fit_problem",
    "problem_of",
    "remove_option",
    "replica_choices",
    "replica_gpus",
    "replica_limit",
    "serving_choices",
]

#: Tensor-parallel degrees tried for a replica, smallest first [GPUs].
TP_DEGREES = (1, 2, 4, 8, 16, 32, 64)
#: The suggested replica leaves at least this share of its usable memory to the KV cache, so that batches can
#: form: a replica whose weights all but fill it (70B in BF16 on 2 × 80 GB) serves a request or two at a time [1].
KV_MEMORY_SHARE = 0.5
#: How an AR model is served without speculation: the id in :func:`serving_choices`.
PLAIN_AR = "ar"
#: The largest replica made of GPUs rented one by one [GPUs]: one server's worth, as the presets' RunPod node.
RENTED_BY_THE_GPU_MAX = 8


class GpuAddition(Frozen):
    """What the reader chose: where the GPUs come from, the model, and how it is served."""

    source: Literal["rent", "buy"] = Field(description="rent a catalog instance, or buy a node [-]")
    instance_id: str = Field(default="", max_length=64, description="rent: catalog instance price series [-]")
    gpu_id: str = Field(default="", max_length=64, description="buy: catalog GPU [-]")
    gpus_per_node: int = Field(default=8, ge=1, le=72, description="buy: GPUs in one node [count]")
    capex_usd: float | None = Field(default=None, gt=0, le=1e8, description="buy: purchase price of a node [USD]")
    node_power_kw: float | None = Field(default=None, gt=0, le=200, description="buy: maximum node power [kW]")
    nodes_owned: int = Field(default=0, ge=0, le=100_000, description="buy: nodes already bought [count]")
    gpus_per_replica: int | None = Field(
        default=None, ge=1, le=72, description="GPUs of one model replica; None = :func:`replica_gpus` [count]"
    )
    model_id: str = Field(min_length=1, max_length=64, description="catalog model [-]")
    serving: str = Field(
        default=PLAIN_AR, max_length=64, description="'ar', a speculative preset id or a diffusion preset id [-]"
    )
    precision: Precision = Field(default="bf16", description="serving precision [-]")
    quality: float = Field(default=0.9, ge=0, le=1, description="probability an output is acceptable [1]")
    entered_on: dt.date = Field(description="the day the reader typed the prices [-]")

    @model_validator(mode="after")
    def _complete(self) -> GpuAddition:
        if self.source == "rent" and not self.instance_id:
            raise ValueError("instance_id: choose the instance to rent")
        needed = {"gpu_id": self.gpu_id, "capex_usd": self.capex_usd, "node_power_kw": self.node_power_kw}
        missing = [name for name, value in needed.items() if not value]
        if self.source == "buy" and missing:
            raise ValueError(f"{missing[0]}: a node to buy needs its GPU, purchase price and power")
        return self


def serving_choices(catalog: Catalog, model_id: str) -> dict[str, str]:
    """How a catalog model can be served, id → name: an AR model plainly or with a speculative preset, a diffusion
    model with a diffusion preset."""
    model = catalog.models[model_id]
    if model.family == "diffusion":
        return {k: s.name for k, s in catalog.diffusion.items()}
    return {PLAIN_AR: "Autoregressive (AR), no speculation"} | {
        k: f"AR + {s.name}" for k, s in catalog.speculative.items()
    }


def replica_choices(scenario: Scenario, model: ModelSpec, gpu: GPU, precision: Precision, most: int) -> list[int]:
    """The replica sizes of :data:`TP_DEGREES`, at most ``most`` GPUs, whose usable memory holds ``model``'s weights
    at ``precision`` (``economics.capacity.kv_capacity`` at the scenario's memory utilization), smallest first."""
    m = model.at_precision(precision)
    fits = [kv_capacity(m, Deployment(gpu=gpu, n_gpus=n, precision=precision), scenario.efficiency) for n in TP_DEGREES]
    return [n for n, cap in zip(TP_DEGREES, fits, strict=True) if n <= most and cap.feasible]


def replica_gpus(scenario: Scenario, model: ModelSpec, gpu: GPU, precision: Precision, most: int) -> int | None:
    """The suggested replica: the fewest GPUs (at most ``most``) that leave :data:`KV_MEMORY_SHARE` of their
    usable memory to the KV cache, else the largest that holds the weights; None if none holds them."""
    m = model.at_precision(precision)
    sizes = replica_choices(scenario, model, gpu, precision, most)
    for n in sizes:
        cap = kv_capacity(m, Deployment(gpu=gpu, n_gpus=n, precision=precision), scenario.efficiency)
        if cap.free_bytes >= KV_MEMORY_SHARE * cap.usable_bytes:
            return n
    return sizes[-1] if sizes else None


def replica_limit(gpus_per_instance: int) -> int:
    """The most GPUs a replica on an instance of ``gpus_per_instance`` can have: the instance's, or
    :data:`RENTED_BY_THE_GPU_MAX` for GPUs rented one by one (the node is then the replica's GPUs)."""
    return RENTED_BY_THE_GPU_MAX if gpus_per_instance == 1 else gpus_per_instance


def problem_of(exc: ValueError) -> tuple[str, str]:
    """A refusal of this module, or a validation error of :class:`GpuAddition`, as (field, problem in words)."""
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        field, text = (str(err["loc"][0]) if err["loc"] else ""), str(err["msg"]).removeprefix("Value error, ")
    else:
        field, text = "", str(exc)
    named, sep, rest = text.partition(": ")
    return (named, rest) if sep and re.fullmatch(r"[a-z_]+", named) else (field, text)


def catalog_node_inputs(catalog: Catalog, gpu_id: str, gpus: int, on: dt.date) -> dict[str, OwnedInput]:
    """The catalog's purchase price and node power of a node of ``gpus`` × ``gpu_id`` in force ``on``, by field
    (``capex_usd``, ``node_power_kw``); the default row first, else the latest-dated; empty where it has none."""
    found: dict[str, OwnedInput] = {}
    for parameter in ("capex_usd", "node_power_kw"):
        rows = [
            r
            for r in catalog.owned_inputs
            if r.parameter == parameter and r.gpu_id == gpu_id and r.gpus == gpus and is_in_force(r, on)
        ]
        rows.sort(key=lambda r: (r.id.startswith("default-"), r.as_of), reverse=True)
        if rows:
            found[parameter] = rows[0]
    return found


def _short(name: str) -> str:
    """A catalog name without its parenthesis: "Llama 3.1 70B", "EAGLE-like chain"."""
    return name.split(" (")[0]


def _gpu_words(gpu: GPU) -> str:
    """A GPU's name without its maker: "H100 SXM5 80GB", "Instinct MI300X"."""
    return re.sub(r"^(NVIDIA|AMD)\s+(GeForce\s+)?", "", gpu.name)


def _unique(base: str, taken: set[str]) -> str:
    """``base`` as an id (letters, digits, ``.``, ``_`` and ``-``; at most 60 characters), suffixed until unused."""
    stem = re.sub(r"-{2,}", "-", re.sub(r"[^A-Za-z0-9_.-]+", "-", base)).strip("-").lower()[:56] or "gpus"
    out, k = stem, 2
    while out in taken:
        out, k = f"{stem}-{k}", k + 1
    return out


def _node(
    scenario: Scenario, catalog: Catalog, a: GpuAddition, gpu: GPU, model: ModelSpec
) -> tuple[RentedNode | OwnedNode, int | None]:
    """The node ``a`` adds, and the replica asked for or suggested on it (None if the model fits on none)."""
    taken = {n.id for n in scenario.nodes}
    if a.source == "rent":
        try:
            row = catalog.instance_price_as_of(a.instance_id, scenario.review_date)
        except PriceLookupError as e:
            raise ValueError(f"instance_id: {e}") from None
        most = replica_limit(row.gpus_per_instance)
        n = a.gpus_per_replica or replica_gpus(scenario, model, gpu, a.precision, most)
        if n is None:
            raise ValueError(f"model_id: {fit_problem(model, gpu, a.precision, most)}")
        size = n if row.gpus_per_instance == 1 else row.gpus_per_instance  # by the GPU: the replica's GPUs
        name = f"Rented {size}× {_gpu_words(gpu)} ({row.provider} {row.sku}, {row.pricing_type})"
        node: RentedNode | OwnedNode = RentedNode.model_validate(
            {
                "id": _unique(f"{row.provider}-{row.sku}-{row.pricing_type}", taken),
                "name": name[:120],
                "gpu_id": gpu.id,
                "gpus_per_node": size,
                **row.node_price_fields(),
            }
        )
        return node, n
    if a.capex_usd is None or a.node_power_kw is None:  # GpuAddition._complete refuses this
        raise ValueError("capex_usd: a node to buy needs its purchase price and power")
    known = catalog_node_inputs(catalog, gpu.id, a.gpus_per_node, scenario.review_date)  # as the dialog offers
    typed = [
        words
        for field, value, words in (
            ("capex_usd", a.capex_usd, "purchase price"),
            ("node_power_kw", a.node_power_kw, "node power"),
        )
        if field not in known or known[field].value != value
    ]
    cited = [f"{r.source} ({r.as_of.isoformat()})" for f, r in known.items() if f not in typed and r.value]
    source = "; ".join(
        ([f"{' and '.join(typed)} {typed_source(a.entered_on)}"] if typed else [])
        + [f"data/prices/owned.csv: {c}" for c in cited]
        + ["other inputs: the model's defaults (docs/costs.md#node-cost)"]
    )
    node = OwnedNode(
        id=_unique(f"owned-{a.gpus_per_node}x-{gpu.id}", taken),
        name=f"Owned {a.gpus_per_node}×{_gpu_words(gpu)} node"[:120],
        gpu_id=gpu.id,
        gpus_per_node=a.gpus_per_node,
        nodes_owned=a.nodes_owned,
        capex_usd=a.capex_usd,
        node_power_kw=a.node_power_kw,
        source=source[:1000],
        as_of=(a.entered_on if typed or not known else max(r.as_of for r in known.values())).isoformat(),
    )
    return node, a.gpus_per_replica or replica_gpus(scenario, model, gpu, a.precision, a.gpus_per_node)


def fit_problem(model: ModelSpec, gpu: GPU, precision: Precision, most: int) -> str:
    """Why no replica of at most ``most`` GPUs holds ``model``, in a reader's words."""
    return (
        f"{_short(model.name)} does not fit on {plural(most, 'GPU')} of {_gpu_words(gpu)} in "
        f"{precision.upper()}: "
        "its weights need more memory than they have. Choose a larger node, more GPUs, a smaller model or a "
        "narrower precision."
    )


def _gpu_and_model(scenario: Scenario, catalog: Catalog, a: GpuAddition) -> tuple[GPU, ModelSpec, dict[str, str]]:
    """The GPU and model ``a`` names (the scenario's own copy if it has one) and the model's serving choices."""
    if a.model_id not in catalog.models:
        raise ValueError(f"model_id: the catalog has no model {a.model_id!r}")
    choices = serving_choices(catalog, a.model_id)
    if a.serving not in choices:
        raise ValueError(f"serving: {catalog.models[a.model_id].name} cannot be served as {a.serving!r}")
    gpu_id = a.gpu_id
    if a.source == "rent":
        rows = catalog.instance_price_history(a.instance_id)
        if not rows:
            raise ValueError(f"instance_id: the catalog has no instance {a.instance_id!r}")
        gpu_id = rows[0].gpu_id
    if gpu_id not in catalog.gpus:
        raise ValueError(f"gpu_id: the catalog has no GPU {gpu_id!r}")
    gpu = next((g for g in scenario.gpus if g.id == gpu_id), catalog.gpus[gpu_id])
    model = next((m for m in scenario.models if m.id == a.model_id), catalog.models[a.model_id])
    return gpu, model, choices


def add_gpus(scenario: Scenario, catalog: Catalog, a: GpuAddition) -> Scenario:
    """``scenario`` with one more node and one option serving ``a.model_id`` on it (the GPU and the model copied
    from the catalog if the scenario lacks them), validated. :class:`ValueError` naming the field if the catalog
    has no such instance, GPU, model or serving, or the model fits on no replica of the node."""
    gpu, model, choices = _gpu_and_model(scenario, catalog, a)
    node, n = _node(scenario, catalog, a, gpu, model)
    if n is None:
        raise ValueError(f"model_id: {fit_problem(model, gpu, a.precision, node.gpus_per_node)}")
    if n > node.gpus_per_node:
        raise ValueError(f"gpus_per_replica: {n} GPUs do not fit in a node of {node.gpus_per_node}")
    sizes = replica_choices(scenario, model, gpu, a.precision, node.gpus_per_node)
    if n not in sizes:
        raise ValueError(
            f"gpus_per_replica: {_short(model.name)} in {a.precision.upper()} does not fit on "
            f"{plural(n, 'GPU')} of {_gpu_words(gpu)}; choose one of " + (", ".join(map(str, sizes)) or "none")
        )
    serving = "AR" if a.serving == PLAIN_AR else _short(choices[a.serving])  # "AR + EAGLE-like chain"
    where = "rented" if isinstance(node, RentedNode) else "owned"
    option = OwnedOption(
        id=_unique(f"{where}-{a.model_id}-{a.serving}-{gpu.id}", {o.id for o in scenario.owned_options}),
        name=f"{_short(model.name)}, {serving} ({plural(n, 'GPU')}, {where} {_gpu_words(gpu)})"[:120],
        node_id=node.id,
        model_id=model.id,
        precision=a.precision,
        gpus_per_replica=n,
        scheme=catalog.diffusion[a.serving] if model.family == "diffusion" else ARScheme(),
        speculation=catalog.speculative.get(a.serving) if model.family != "diffusion" else None,
        quality=a.quality,
    )
    data = scenario.model_dump()
    if gpu.id not in {g.id for g in scenario.gpus}:
        data["gpus"] = [*data["gpus"], gpu.model_dump()]
    if model.id not in {m.id for m in scenario.models}:
        data["models"] = [*data["models"], model.model_dump()]
    data["nodes"] = [*data["nodes"], node.model_dump()]
    data["owned_options"] = [*data["owned_options"], option.model_dump()]
    return _validated(data)


def _validated(data: dict[str, Any]) -> Scenario:
    """The edited scenario, or :class:`ValueError` "scenario: …" in words (no field path: "nodes: Tuple should
    have at most 64 items" is what pydantic says of a 65th node)."""
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        if err["type"] == "too_long":  # "at most 64 nodes", from the scenario's own limit
            what = {"nodes": "nodes", "owned_options": "owned or rented options"}.get(str(err["loc"][0]), "items")
            problem = f"it holds at most {err.get('ctx', {}).get('max_length', '')} {what}; take one out first"
        else:  # the scenario's own checks write "workloads: 40 workloads × 60 options …": the words, not the path
            problem = re.sub(r"^[\w.\[\]]+: ", "", str(err["msg"]).removeprefix("Value error, "))
        raise ValueError(f"scenario: {problem}") from None


def remove_option(scenario: Scenario, option_id: str) -> Scenario:
    """``scenario`` without the option ``option_id``, and without its node when no other option runs there;
    :class:`ValueError` if there is no such option or nothing would be left to serve the workloads."""
    option = next((o for o in scenario.owned_options if o.id == option_id), None)
    if option is None:
        raise ValueError(f"option_id: the scenario has no option {option_id!r}")
    options = [o for o in scenario.owned_options if o.id != option_id]
    if not options and not scenario.apis:
        raise ValueError("option_id: it is the scenario's last option; an API or another option must remain")
    shared = any(o.node_id == option.node_id for o in options)
    data = scenario.model_dump()
    data["owned_options"] = [o.model_dump() for o in options]
    for w in data["workloads"]:  # a quality measured for the option goes with it
        w["quality_overrides"] = {k: v for k, v in (w.get("quality_overrides") or {}).items() if k != option_id}
    data["nodes"] = [n.model_dump() for n in scenario.nodes if shared or n.id != option.node_id]
    return _validated(data)
