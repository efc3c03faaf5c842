"""Preset scenarios and scenario files: they load, embed the catalog's rows, and say what they assume."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from economics.io.catalog import load_catalog
from economics.io.scenarios import (
    DEFAULT_PRESET,
    PRESET_DIR,
    ScenarioError,
    default_scenario,
    list_presets,
    load_preset,
    load_scenario,
    parse_scenario,
)
from economics.offers import OwnedNode, RentedNode
from economics.pricing import reprice
from economics.scenario import Scenario

PRESET_FILES = sorted(PRESET_DIR.glob("*.json"))


def test_there_are_the_bank_and_at_least_two_other_presets() -> None:
    ids = [p.id for p in list_presets()]
    assert ids[0] == DEFAULT_PRESET == "singapore-bank"
    assert len(ids) >= 3


def test_default_scenario_is_the_bank_with_one_owned_h100_node() -> None:
    s = default_scenario()
    owned = [n for n in s.nodes if isinstance(n, OwnedNode)]
    assert len(owned) == 1
    assert (owned[0].nodes_owned, owned[0].gpus_per_node, owned[0].gpu_id) == (1, 8, "h100-sxm")
    ids = {w.id for w in s.workloads}
    assert {"kyc-overnight", "onboarding-checks", "lc-clearing", "code-completion", "analyst-research"} <= ids
    by_id = {w.id: w for w in s.workloads}
    assert by_id["kyc-overnight"].deadline_s == 8 * 3600
    assert all(by_id[w].sovereign for w in ("kyc-overnight", "onboarding-checks", "lc-clearing"))
    assert all(by_id[w].tpot_slo_s is not None for w in ("onboarding-checks", "lc-clearing", "code-completion"))
    assert not by_id["analyst-research"].sovereign


@pytest.mark.parametrize("path", PRESET_FILES, ids=lambda p: p.stem)
def test_embedded_gpus_models_and_schemes_equal_the_catalog_rows(path: Path) -> None:
    # A scenario embeds its hardware and models so that saved reviews survive catalog changes; the presets
    # must still be exact copies of today's catalog rows, so drift is caught here.
    catalog = load_catalog()
    s = load_scenario(path)
    for gpu in s.gpus:
        assert gpu == catalog.gpus[gpu.id], gpu.id
    for model in s.models:
        assert model == catalog.models[model.id], model.id
    for opt in s.owned_options:
        if opt.scheme.kind == "diffusion":
            assert opt.scheme == catalog.diffusion[opt.scheme.id], opt.id
        if opt.speculation is not None:
            assert opt.speculation == catalog.speculative[opt.speculation.id], opt.id


@pytest.mark.parametrize("path", PRESET_FILES, ids=lambda p: p.stem)
def test_stored_prices_are_the_catalog_prices_on_the_review_date(path: Path) -> None:
    s = load_scenario(path)
    assert reprice(s, load_catalog(), s.review_date) == s


@pytest.mark.parametrize("path", PRESET_FILES, ids=lambda p: p.stem)
def test_every_assumed_number_is_marked(path: Path) -> None:
    s = load_scenario(path)
    assert "[assumption]" in s.description
    for w in s.workloads:
        assert "[assumption]" in w.notes, w.id
    for a in s.apis:
        assert a.source, a.id
        assert a.as_of, a.id


@pytest.mark.parametrize("path", PRESET_FILES, ids=lambda p: p.stem)
def test_preset_files_are_what_the_builder_writes(path: Path) -> None:
    # scripts/build_scenarios.py is the source of the presets; a hand edit would be overwritten.
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "build_scenarios", PRESET_DIR.parent.parent / "scripts/build_scenarios.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    built = module.build(load_catalog())
    assert built[path.stem] == path.read_text(encoding="utf-8")


# ---- reading files: one line per problem, naming the field path ----------------------------------------------


def bank_dict() -> dict:  # type: ignore[type-arg]
    return json.loads((PRESET_DIR / "singapore-bank.json").read_text(encoding="utf-8"))


def problems_of(data: object) -> tuple[str, ...]:
    with pytest.raises(ScenarioError) as e:
        parse_scenario(data if isinstance(data, (str, bytes)) else json.dumps(data))
    return e.value.problems


def test_out_of_range_value_names_the_field_path() -> None:
    d = bank_dict()
    d["workloads"][2]["avg_requests_per_s"] = 0
    assert problems_of(d) == ("workloads.2.avg_requests_per_s: Input should be greater than 0",)


def test_near_zero_factors_are_refused_naming_the_field() -> None:
    # Regression (fuzzing): these passed "> 0" and then overflowed evaluate() to NaN costs or a crash
    # ("cannot convert float NaN to integer"); the smallest positive float is refused, the lower bound still
    # accepted.
    d = bank_dict()
    d["policy"]["target_utilization"] = 5e-324
    d["nodes"][0]["economic_life_years"] = 5e-324
    d["efficiency"]["mfu_decode"] = 1e-200
    assert sorted(problems_of(d)) == [
        "efficiency.mfu_decode: Input should be greater than or equal to 0.001",
        "nodes.0.economic_life_years: Input should be greater than or equal to 0.5",
        "policy.target_utilization: Input should be greater than or equal to 0.01",
    ]
    d["policy"]["target_utilization"] = 0.01
    d["nodes"][0]["economic_life_years"] = 0.5
    d["efficiency"]["mfu_decode"] = 0.001
    assert parse_scenario(json.dumps(d)).policy.target_utilization == 0.01


def test_true_or_false_where_a_number_is_asked_for_is_refused_naming_the_field() -> None:
    # Regression (fuzzing): pydantic reads true as 1 and false as 0, so "nodes_owned": true bought a node and
    # "avg_requests_per_s": true was one request a second, silently; a boolean field still takes true/false
    d = bank_dict()
    d["nodes"][0]["nodes_owned"] = True
    d["workloads"][1]["avg_requests_per_s"] = False
    d["apis"][0]["quality"] = True
    assert sorted(problems_of(d)) == [
        "apis.0.quality: a number is asked for here, not true",
        "nodes.0.nodes_owned: a number is asked for here, not true",
        "workloads.1.avg_requests_per_s: a number is asked for here, not false",
    ]
    d = bank_dict()
    d["workloads"][0]["sovereign"] = not d["workloads"][0]["sovereign"]
    assert parse_scenario(json.dumps(d)).workloads[0].sovereign is d["workloads"][0]["sovereign"]


def test_several_problems_give_one_line_each() -> None:
    d = bank_dict()
    d["workloads"][0]["input_tokens"] = -5
    d["apis"][1]["quality"] = 1.5
    lines = problems_of(d)
    assert len(lines) == 2
    assert lines[0].startswith("apis.1.quality: ") or lines[1].startswith("apis.1.quality: ")
    assert any(line.startswith("workloads.0.input_tokens: ") for line in lines)


def test_unknown_ids_name_the_field_path() -> None:
    d = bank_dict()
    d["owned_options"][1]["node_id"] = "no-such-node"
    d["workloads"][4]["quality_overrides"]["no-such-option"] = 0.5
    lines = problems_of(d)
    assert "owned_options.1.node_id: unknown node 'no-such-node'" in lines
    assert "workloads.4.quality_overrides: unknown option 'no-such-option'" in lines


def test_malformed_json_names_line_and_column() -> None:
    lines = problems_of('{"name": "x",\n  "review_date": }')
    assert len(lines) == 1
    assert lines[0].startswith("(json): line 2 column 18: ")


def test_wrong_top_level_type_and_unknown_schema_version() -> None:
    assert problems_of("[1, 2]") == ("(scenario): expected a JSON object, got list",)
    d = bank_dict()
    d["schema_version"] = 99
    assert problems_of(d) == ("schema_version: Input should be 1",)


def test_missing_file_and_unknown_preset(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as e:
        load_scenario(tmp_path / "nope.json")
    assert e.value.problems[0].startswith("(file): cannot read ")
    with pytest.raises(ScenarioError) as e2:
        load_preset("nope")
    assert "unknown preset 'nope'" in e2.value.problems[0]


# ---- re-pricing as of a date ----------------------------------------------------------------------------------


def p5_only() -> Scenario:
    """The startup preset cut down to offers that have prices in 2025: the AWS p5 node and the hosted 70B."""
    d = json.loads((PRESET_DIR / "startup-rented.json").read_text(encoding="utf-8"))
    d["nodes"] = [n for n in d["nodes"] if n["id"] == "aws-p5"]
    d["owned_options"] = [o for o in d["owned_options"] if o["node_id"] == "aws-p5"]
    d["apis"] = [a for a in d["apis"] if a["id"] == "hosted-70b"]
    for w in d["workloads"]:
        w["quality_overrides"] = {}
    return parse_scenario(json.dumps(d))


def test_reprice_takes_the_price_in_force_on_the_date() -> None:
    s = p5_only()
    catalog = load_catalog()
    # AWS p5.48xlarge: $98.32/h (8 GPUs) until the June-2025 cut, $55.04/h after (data/prices/instances.csv).
    before = reprice(s, catalog, dt.date(2025, 3, 1))
    after = reprice(s, catalog, dt.date(2025, 7, 1))
    assert isinstance(before.nodes[0], RentedNode)
    assert isinstance(after.nodes[0], RentedNode)
    assert before.nodes[0].price_usd_per_gpu_hour == pytest.approx(98.32 / 8)
    assert after.nodes[0].price_usd_per_gpu_hour == pytest.approx(55.04 / 8)
    assert before.review_date == dt.date(2025, 3, 1)
    assert before.apis[0].output_usd_per_mtok == 0.88


def test_reprice_reports_offers_without_a_price_on_that_date() -> None:
    s = load_preset("startup-rented")
    with pytest.raises(ScenarioError) as e:
        reprice(s, load_catalog(), dt.date(2020, 1, 1))
    assert all(".price_id: " in line for line in e.value.problems)
    assert any(line.startswith("apis.0.price_id: ") for line in e.value.problems)


def test_a_bad_only_workload_is_one_problem_not_also_an_empty_list() -> None:
    # pydantic adds "workloads: Tuple should have at least 1 item after validation, not 0" under the item's own
    # error: a second line that sends the reader looking for a missing list
    data = json.loads((PRESET_DIR / "single-workload.json").read_text(encoding="utf-8"))
    data["workloads"][0]["avg_requests_per_s"] = -1
    with pytest.raises(ScenarioError) as info:
        parse_scenario(data)
    assert len(info.value.problems) == 1, info.value.problems
    assert info.value.problems[0].startswith("workloads.0.avg_requests_per_s:")
    data["workloads"] = []
    with pytest.raises(ScenarioError) as info:
        parse_scenario(data)
    assert info.value.problems == ("workloads: Tuple should have at least 1 item after validation, not 0",)
