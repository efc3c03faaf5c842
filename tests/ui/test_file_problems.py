"""Problems in an uploaded scenario file read in a finance reader's words: the item by number and name, the
field in words, no field paths (``workloads.0``) and no pydantic phrasing."""

from __future__ import annotations

import json

from economics.io.scenarios import default_scenario, parse_json, scenario_json
from ui.format import file_problem


def _bad_file() -> tuple[bytes, dict[str, object]]:
    data = json.loads(scenario_json(default_scenario()))
    data["workloads"][1]["peak_requests_per_s"] = 0.0001
    data["apis"][0]["output_usd_per_mtok"] = -1
    data["nodes"][0]["colour"] = "blue"
    del data["review_date"]
    return json.dumps(data).encode(), data


def test_every_problem_of_a_real_file_names_the_item_and_field_in_words() -> None:
    raw, data = _bad_file()
    parsed, messages = parse_json(raw)
    assert parsed is None
    words = [file_problem(m, data) for m in messages]
    workload = data["workloads"][1]["name"]  # type: ignore[index]
    api = data["apis"][0]["name"]  # type: ignore[index]
    node = data["nodes"][0]["name"]  # type: ignore[index]
    assert f"Workload 2 “{workload}”: peak requests per second must be at least average requests per second" in words
    assert f"API 1 “{api}”, output $ per Mtok: must be at least 0" in words
    assert f"Node offer 1 “{node}”, colour: unknown field" in words
    assert "Review date: missing" in words
    for line in words:
        for code in ("workloads.", "apis.", "nodes.", "_", "Input should"):
            assert code not in line, line


def test_a_file_without_names_or_json_still_reads_plainly() -> None:
    assert file_problem("owned_options.3.node: unknown field") == "Owned option 4, node: unknown field"
    assert file_problem("owned_options.3.node: unknown field", "not json") == "Owned option 4, node: unknown field"
    assert file_problem("(scenario): Input should be a valid dictionary") == "The scenario: must be a dictionary"
    assert file_problem("The file is empty (0 bytes).") == "The file is empty (0 bytes)."
    # a name that is not text, or an index past the list, is left out rather than guessed
    assert file_problem("models.0.layers: Field required", {"models": [{"name": 7}]}) == "Model 1, layers: missing"
    assert file_problem("gpus.5: bad", {"gpus": []}) == "GPU 6: bad"


def test_a_file_whose_items_name_missing_or_repeated_ids_says_so_in_words() -> None:
    data = json.loads(scenario_json(default_scenario()))
    data["workloads"][1]["id"] = data["workloads"][0]["id"]
    data["owned_options"][0]["node_id"] = "no-such-node"
    data["workloads"][2]["quality_overrides"] = {"frontier-9": 0.9}
    parsed, messages = parse_json(json.dumps(data).encode())
    assert parsed is None
    words = [file_problem(m, data) for m in messages]
    first, second, third = (w["name"] for w in data["workloads"][:3])
    option = data["owned_options"][0]["name"]
    assert f"Owned option 1 “{option}”, node id: names the node “no-such-node”, which is not in the scenario" in words
    assert (
        f"Workload 3 “{third}”, quality overrides: names the option “frontier-9”, which is not in the scenario"
    ) in words
    repeated = data["workloads"][0]["id"]
    assert f"Workload 2 “{second}”, id: “{repeated}” is also the id of an earlier one (each needs its own)" in words
    assert first != second


def test_an_item_a_damaged_link_left_out_is_named_with_the_reason() -> None:
    assert (
        file_problem("owned_options.2 ('8B diffusion'): dropped (node_id: unknown node 'h200-x')")
        == "Owned option 3 “8B diffusion”: left out because its node id names the node “h200-x”, which is not in "
        "the scenario"
    )
    assert file_problem("apis.0 ('Frontier'): dropped") == "API 1 “Frontier”: left out"
    assert (
        file_problem('workloads.3 ("Ana\'s batch"): dropped (avg_requests_per_s: Input should be greater than 0)')
        == "Workload 4 “Ana's batch”: left out because its average requests per second must be more than 0"
    )
