"""Error paths a finance reader can trigger, read in a finance reader's words: no field paths (``workloads.0``),
no snake_case field names, no Python ``None`` and no pydantic phrasing. Expected texts are written by hand."""

from __future__ import annotations

import base64
import json
import zlib

from economics.io.scenarios import canonical_json, default_scenario
from tests.ui.helpers import run_page


def _token(data: object) -> str:
    """A share token of any JSON, built by hand (format ``v1.`` + base64url(zlib(JSON)))."""
    packed = zlib.compress(json.dumps(data).encode("utf-8"))
    return "v1." + base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")


def _notice(query: dict[str, str]) -> str:
    at = run_page(None, query)
    texts = [str(e.value) for e in (*at.error, *at.warning) if "link" in str(e.value)]
    assert len(texts) == 1, texts
    return texts[0].replace("\\", "")  # markdown escapes removed


def test_a_link_with_a_workload_whose_peak_is_below_its_average_names_it_in_words() -> None:
    data = json.loads(canonical_json(default_scenario()))
    data["workloads"][0]["peak_requests_per_s"] = 0.00001
    text = _notice({"s": _token(data)})
    assert "Workload 1: peak requests per second must be at least average requests per second" in text
    for code in ("workloads.", "peak_requests_per_s", "avg_requests_per_s"):
        assert code not in text, text


def test_a_link_with_nothing_usable_says_why_without_field_names_or_none() -> None:
    text = _notice({"s": _token({"workloads": "x"})})
    assert "Schema version: the scenario has no version number, this app reads 1" in text
    assert "Review date: missing" in text
    assert "Workloads: must be a list" in text
    assert "Models: needs at least 1" in text
    for code in ("schema_version", "review_date", "None", "Tuple should", "got str"):
        assert code not in text, text


def test_a_node_price_its_model_refuses_is_named_as_its_input() -> None:
    # "$0" reads as an amount, then the node refuses it: the message named the model's field ("capex $: Input
    # should be greater than 0")
    at = run_page("2_cost_per_token")
    at.text_input(key="node_sg-h100-node_capex_usd").set_value("$0").run()
    assert not at.exception
    (error,) = [str(e.value).replace("\\", "") for e in at.error]
    assert "Purchase price per node: must be more than 0" in error
    assert "capex" not in error
    assert "Input should" not in error
