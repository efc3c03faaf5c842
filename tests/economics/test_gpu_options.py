"""Adding GPUs from the catalog to a scenario, and taking an option out (economics.gpu_options)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from pydantic import ValidationError

from economics import evaluate
from economics.gpu_options import (
    GpuAddition,
    add_gpus,
    catalog_node_inputs,
    remove_option,
    replica_gpus,
    serving_choices,
)
from economics.io.catalog import load_catalog
from economics.io.scenarios import PRESET_DIR, default_scenario, load_scenario
from economics.offers import OwnedNode, RentedNode
from economics.scenario import Scenario

TODAY = dt.date(2026, 12, 7)


@pytest.fixture(scope="module")
def api_only() -> Scenario:
    return load_scenario(PRESET_DIR / "api-only.json")


def _rent(instance_id: str, model_id: str, serving: str = "ar", **kw: object) -> GpuAddition:
    return GpuAddition.model_validate(
        {"source": "rent", "instance_id": instance_id, "model_id": model_id, "serving": serving, "entered_on": TODAY}
        | kw
    )


def test_a_rented_instance_keeps_its_catalog_price_source_and_id(api_only: Scenario) -> None:
    # AWS p5.48xlarge on demand: $55.04 an hour for 8 H100s (data/prices/instances.csv, from 2025-06-01) = $6.88
    s = add_gpus(api_only, load_catalog(), _rent("aws-p5.48xlarge-on-demand", "llama-3.1-70b", "eagle-chain"))
    node = s.nodes[-1]
    assert isinstance(node, RentedNode)
    assert node.price_usd_per_gpu_hour == pytest.approx(6.88)
    assert node.gpus_per_node == 8
    assert node.price_id == "aws-p5.48xlarge-on-demand"
    assert node.as_of == "2026-01-21"
    assert "instances.vantage.sh" in node.source
    option = s.owned_options[-1]
    assert option.node_id == node.id
    assert option.speculation is not None
    assert option.speculation.id == "eagle-chain"
    assert option.name == "Llama 3.1 70B, AR + EAGLE-like chain (4 GPUs, rented H100 SXM5 80GB)"
    assert {g.id for g in s.gpus} >= {"h100-sxm"}
    assert "llama-3.1-70b" in {m.id for m in s.models}
    r = evaluate(s)
    assert r.plan is not None
    assert r.plan.solver_status == "optimal"
    assert option.id in {o.option_id for o in r.options}


def test_the_suggested_replica_leaves_half_its_memory_to_requests(api_only: Scenario) -> None:
    # usable memory = GPUs × memory × 0.9 (the scenario's memory utilization). 70B in BF16 weighs 141.1 GB
    # (docs/memory.md#kv-capacity): 2 × 80 GB → 144 GB usable, 2.9 GB left (fits, but not half); 4 → 288 GB,
    # 146.9 GB left (half or more). 8B weighs 16.06 GB: on 24 GB RTX 4090s, 1 → 21.6 GB, 5.5 left; 2 → 43.2, 27.1.
    catalog = load_catalog()
    assert api_only.efficiency.kv_mem_util == 0.9
    h100, rtx = catalog.gpus["h100-sxm"], catalog.gpus["rtx-4090"]
    assert replica_gpus(api_only, catalog.models["llama-3.1-70b"], h100, "bf16", 8) == 4
    assert replica_gpus(api_only, catalog.models["llama-3.1-8b"], rtx, "bf16", 8) == 2
    # on a 2-GPU limit the 70B model still fits, in the only replica that holds it
    assert replica_gpus(api_only, catalog.models["llama-3.1-70b"], h100, "bf16", 2) == 2
    assert replica_gpus(api_only, catalog.models["llama-3.1-405b"], rtx, "bf16", 8) is None


def test_a_gpu_rented_by_the_gpu_is_a_node_of_one_replica(api_only: Scenario) -> None:
    # RunPod rents single H100s ($3.49/GPU-h): a node is the replica's GPUs, all paid for
    s = add_gpus(api_only, load_catalog(), _rent("runpod-h100-secure", "llama-3.1-70b"))
    node, option = s.nodes[-1], s.owned_options[-1]
    assert node.gpus_per_node == option.gpus_per_replica == 4
    assert node.price_usd_per_gpu_hour == pytest.approx(3.49)


def test_a_node_to_buy_cites_the_catalog_or_the_reader(api_only: Scenario) -> None:
    catalog = load_catalog()
    known = catalog_node_inputs(catalog, "h100-sxm", 8, TODAY)
    assert known["capex_usd"].value == 280_000  # data/prices/owned.csv default-capex-8xh100
    assert known["node_power_kw"].value == 10.2  # power-dgx-h100-max
    assert catalog_node_inputs(catalog, "b200", 8, TODAY) == {}
    buy = {"source": "buy", "gpu_id": "h100-sxm", "model_id": "llama-3.1-8b", "entered_on": TODAY}
    s = add_gpus(api_only, catalog, GpuAddition.model_validate(buy | {"capex_usd": 280_000, "node_power_kw": 10.2}))
    node = s.nodes[-1]
    assert isinstance(node, OwnedNode)
    assert "entered by the user" not in node.source
    assert f"data/prices/owned.csv: {known['capex_usd'].source} (2026-12-02)" in node.source
    assert node.as_of == "2026-12-02"
    s = add_gpus(api_only, catalog, GpuAddition.model_validate(buy | {"capex_usd": 310_000, "node_power_kw": 10.2}))
    node = s.nodes[-1]
    assert isinstance(node, OwnedNode)
    assert node.capex_usd == 310_000
    assert node.source.startswith("purchase price entered by the user on 2026-12-07")
    assert node.as_of == "2026-12-07"
    assert node.data_location == "on_premises"
    b200 = buy | {"gpu_id": "b200", "capex_usd": 500_000, "node_power_kw": 14.3, "nodes_owned": 2}
    s = add_gpus(api_only, catalog, GpuAddition.model_validate(b200))
    assert s.nodes[-1].name == "Owned 8×B200 (HGX/DGX) node"
    assert isinstance(s.nodes[-1], OwnedNode)
    assert s.nodes[-1].nodes_owned == 2
    with pytest.raises(ValidationError, match="capex_usd: a node to buy needs its GPU, purchase price and power"):
        GpuAddition.model_validate(buy | {"node_power_kw": 10.2})


@pytest.mark.parametrize(
    ("addition", "message"),
    [
        (_rent("runpod-rtx-4090-community", "llama-3.1-405b"), "model_id: Llama 3.1 405B does not fit on 8 GPUs"),
        (_rent("aws-p5.48xlarge-on-demand", "llama-3.1-70b", gpus_per_replica=1), "gpus_per_replica: Llama 3.1 70B"),
        (_rent("aws-p5.48xlarge-on-demand", "llama-3.1-8b", gpus_per_replica=16), "gpus_per_replica: 16 GPUs do not"),
        (_rent("no-such-instance", "llama-3.1-8b"), "instance_id: the catalog has no instance 'no-such-instance'"),
        (_rent("aws-p5.48xlarge-on-demand", "no-such-model"), "model_id: the catalog has no model"),
        (_rent("aws-p5.48xlarge-on-demand", "llada-8b", "ar"), "serving: LLaDA 8B"),
        (_rent("aws-p5.48xlarge-on-demand", "llama-3.1-8b", "fast-dllm-like"), "serving: Llama 3.1 8B"),
    ],
)
def test_what_cannot_be_added_is_refused_by_name_and_nothing_changes(
    api_only: Scenario, addition: GpuAddition, message: str
) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        add_gpus(api_only, load_catalog(), addition)


def test_a_price_no_longer_in_force_on_the_review_date_is_refused() -> None:
    # the p5's launch price ran until 2025-06-01; a scenario reviewed in 2025-07 reads the cut price, one reviewed
    # before the launch (2023-07-26) has none
    s = load_scenario(PRESET_DIR / "api-only.json")
    old = s.model_copy(update={"review_date": dt.date(2023, 1, 1)})
    with pytest.raises(ValueError, match="instance_id: "):
        add_gpus(old, load_catalog(), _rent("aws-p5.48xlarge-on-demand", "llama-3.1-8b"))
    launch = s.model_copy(update={"review_date": dt.date(2024, 1, 1)})
    node = add_gpus(launch, load_catalog(), _rent("aws-p5.48xlarge-on-demand", "llama-3.1-8b")).nodes[-1]
    assert isinstance(node, RentedNode)
    assert node.price_usd_per_gpu_hour == pytest.approx(98.32 / 8)


def test_the_same_instance_twice_gets_new_ids_and_taking_options_out_takes_unused_nodes(api_only: Scenario) -> None:
    catalog = load_catalog()
    one = add_gpus(api_only, catalog, _rent("aws-p5.48xlarge-on-demand", "llama-3.1-8b"))
    two = add_gpus(one, catalog, _rent("aws-p5.48xlarge-on-demand", "llama-3.1-8b"))
    assert len({n.id for n in two.nodes}) == 2
    assert len({o.id for o in two.owned_options}) == 2
    back = remove_option(two, two.owned_options[-1].id)
    assert back == one
    assert remove_option(back, back.owned_options[-1].id) == api_only
    bank = default_scenario()
    shared = next(o for o in bank.owned_options if sum(p.node_id == o.node_id for p in bank.owned_options) > 1)
    kept = remove_option(bank, shared.id)
    assert shared.node_id in {n.id for n in kept.nodes}
    assert shared.id not in {o.id for o in kept.owned_options}
    with pytest.raises(ValueError, match="option_id: the scenario has no option 'nope'"):
        remove_option(bank, "nope")
    last = add_gpus(api_only, catalog, _rent("aws-p5.48xlarge-on-demand", "llama-3.1-8b"))
    alone = last.model_copy(update={"apis": ()})
    with pytest.raises(ValueError, match="option_id: it is the scenario's last option"):
        remove_option(alone, alone.owned_options[0].id)


def test_a_full_scenario_says_so_in_words(api_only: Scenario) -> None:
    # a 65th node: pydantic says "nodes: Tuple should have at most 64 items after validation, not 65", a path
    catalog = load_catalog()
    one = add_gpus(api_only, catalog, _rent("aws-p5.48xlarge-on-demand", "llama-3.1-8b"))
    node, option = one.nodes[0], one.owned_options[0]
    full = one.model_copy(
        update={
            "nodes": tuple(node.model_copy(update={"id": f"n{i}"}) for i in range(64)),
            "owned_options": tuple(option.model_copy(update={"id": f"o{i}", "node_id": f"n{i}"}) for i in range(64)),
        }
    )
    with pytest.raises(ValueError, match=r"^scenario: it holds at most 64 nodes; take one out first$"):
        add_gpus(full, catalog, _rent("aws-p5.48xlarge-on-demand", "llama-3.1-8b"))


_CATALOG = load_catalog()


@st.composite
def additions(draw: st.DrawFn) -> GpuAddition:
    """Any choice the dialog or the CLI can make from the catalog, sound or not (a replica size out of range, a
    serving that does not suit the model, a buy without the catalog's price)."""
    model_id = draw(st.sampled_from(sorted(_CATALOG.models)))
    suits = draw(st.booleans())  # half the time a serving that suits the model, else any
    pool = serving_choices(_CATALOG, model_id) if suits else ["ar", *_CATALOG.speculative, *_CATALOG.diffusion]
    serving = draw(st.sampled_from(sorted(pool)))
    common = {
        "model_id": model_id,
        "serving": serving,
        "precision": draw(st.sampled_from(["bf16", "fp8", "fp4"])),
        "gpus_per_replica": draw(st.none() | st.integers(1, 72)),
        "quality": draw(st.floats(0, 1)),
        "entered_on": TODAY,
    }
    if draw(st.booleans()):
        instance = draw(st.sampled_from(sorted({r.id for r in _CATALOG.instance_prices})))
        return GpuAddition.model_validate(common | {"source": "rent", "instance_id": instance})
    buy = {
        "source": "buy",
        "gpu_id": draw(st.sampled_from(sorted(_CATALOG.gpus))),
        "gpus_per_node": draw(st.integers(1, 72)),
        "capex_usd": draw(st.floats(1_000, 5e6)),
        "node_power_kw": draw(st.floats(0.1, 200)),
        "nodes_owned": draw(st.integers(0, 4)),
    }
    return GpuAddition.model_validate(common | buy)


@given(additions())
def test_any_catalog_choice_is_added_and_planned_or_refused_by_name(addition: GpuAddition) -> None:
    s = load_scenario(PRESET_DIR / "singapore-bank.json")
    refused = ""
    try:
        new = add_gpus(s, _CATALOG, addition)
    except ValueError as exc:  # a plain refusal naming its field; nothing else escapes
        refused = str(exc)
    event(f"refused: {refused.split(': ')[0]}" if refused else "added")
    if refused:
        assert refused.split(": ")[0] in {"model_id", "serving", "gpus_per_replica", "instance_id", "scenario"}
        return
    option = new.owned_options[-1]
    assert option.gpus_per_replica <= new.node(option.node_id).gpus_per_node
    r = evaluate(new)
    assert r.plan is not None
    assert r.plan.solver_status == "optimal"
    assert remove_option(new, option.id).owned_options == s.owned_options
