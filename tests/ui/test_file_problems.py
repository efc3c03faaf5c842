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
