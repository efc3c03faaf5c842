"""Scenario links: exact round trip, size limits before work, and clear messages for every kind of bad link."""

from __future__ import annotations

import base64
import datetime as dt
import json
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from economics.io import scenarios
from economics.offers import ApiOffer, OwnedNode, RentedNode
from economics.scenario import OwnedOption, Scenario
from economics.schemes import DiffusionScheme, SpeculativeScheme
from economics.workload import Workload
from tests.economics.configs import H100_SXM, LLAMA_31_8B
from tests.strategies import PROPERTIES

H100 = H100_SXM
LLAMA_8B = LLAMA_31_8B


def scenario(n_workloads: int = 2) -> Scenario:
    """A small but complete scenario: one GPU, one model, owned and rented nodes, three options, APIs."""
    return Scenario(
        name="Test bank ✓",  # non-ASCII on purpose: the token is UTF-8
        description="A test scenario",
        review_date=dt.date(2026, 12, 1),
        gpus=(H100,),
        models=(LLAMA_8B,),
        nodes=(
            OwnedNode(id="owned-h100", name="8×H100 owned", gpu_id="h100-sxm", nodes_owned=1),
            RentedNode(id="rented-h100", name="8×H100 rented", gpu_id="h100-sxm", price_usd_per_gpu_hour=2.5),
        ),
        owned_options=(
            OwnedOption(id="ar", name="8B AR", node_id="owned-h100", model_id="llama-3.1-8b"),
            OwnedOption(
                id="ar-spec",
                name="8B AR + EAGLE",
                node_id="owned-h100",
                model_id="llama-3.1-8b",
                speculation=SpeculativeScheme(mean_accepted_tokens=3.0, verify_tokens=8),
            ),
            OwnedOption(
                id="diff", name="8B diffusion", node_id="rented-h100", model_id="llama-3.1-8b", scheme=DiffusionScheme()
            ),
        ),
        apis=(ApiOffer(id="frontier", name="Frontier", input_usd_per_mtok=3.0, output_usd_per_mtok=15.0),),
        workloads=tuple(
            Workload(
                id=f"w{i}",
                name=f"Workload {i}",
                avg_requests_per_s=0.1 * (i + 1),
                peak_requests_per_s=0.4 * (i + 1),
                input_tokens=1000 + i,
                output_tokens=300,
                failure_cost_usd=0.05,
                quality_overrides={"frontier": 0.97} if i == 0 else {},
            )
            for i in range(n_workloads)
        ),
    )


FALLBACK = scenario(1).model_copy(update={"name": "Fallback"})


def raw_token(data: object, *, version: str = "v1") -> str:
    """A token built by hand from arbitrary JSON, as an attacker or an old app would."""
    packed = zlib.compress(json.dumps(data).encode())
    return f"{version}." + base64.urlsafe_b64encode(packed).decode().rstrip("=")


def data_of(s: Scenario) -> dict[str, object]:
    return json.loads(scenarios.canonical_json(s))


# ---- round trip ------------------------------------------------------------------------------------------


def test_round_trip_is_exact_and_the_token_is_url_safe() -> None:
    s = scenario()
    token = scenarios.encode(s)
    assert token.startswith("v1.")
    assert all(c.isalnum() or c in "-_." for c in token)  # nothing a URL would need to escape
    decoded = scenarios.decode(token, FALLBACK)
    assert decoded.status == "ok"
    assert decoded.messages == ()
    assert decoded.scenario == s


def test_the_same_scenario_always_gives_the_same_token() -> None:
    # Canonical JSON: key order and object identity do not matter.
    assert scenarios.encode(scenario()) == scenarios.encode(Scenario.model_validate(data_of(scenario())))


def test_token_is_compact() -> None:
    # Eight workloads with their full GPU and model embedded still fit comfortably in a URL.
    token = scenarios.encode(scenario(8))
    assert len(token) < 3000
    assert scenarios.fits_in_link(token)


@PROPERTIES
@given(
    rate=st.floats(min_value=1e-6, max_value=1e5, allow_nan=False, allow_infinity=False),
    price=st.floats(min_value=1e-9, max_value=1000, allow_nan=False, allow_infinity=False),
    name=st.text(min_size=1, max_size=60).filter(lambda t: t.strip() != ""),
)
def test_round_trip_keeps_every_float_bit_for_bit(rate: float, price: float, name: str) -> None:
    base = scenario(1)
    # validated, as a workload typed in the app is (a name's line breaks become spaces; model_copy skips that)
    wl = Workload.model_validate(
        {**base.workloads[0].model_dump(), "avg_requests_per_s": rate, "peak_requests_per_s": rate, "name": name}
    )
    api = base.apis[0].model_copy(update={"output_usd_per_mtok": price})
    s = base.model_copy(update={"workloads": (wl,), "apis": (api,)})
    assert scenarios.decode(scenarios.encode(s), FALLBACK).scenario == s


def test_json_file_round_trip() -> None:
    s = scenario()
    parsed, messages = scenarios.parse_json(scenarios.scenario_json(s).encode())
    assert messages == ()
    assert parsed == s


# ---- broken links: a message, the fallback, never an exception ---------------------------------------------


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("", "carries no scenario"),
        ("hello", "not a scenario link"),
        ("v2.abcd", "'v2', which is newer"),
        ("v0.abcd", "'v0', which is older"),
        # look-alikes of v1 were called "newer than v1": a leading zero, a newline, an Arabic-Indic one
        ("v01.abcd", "not a scenario link"),
        ("v1\n.abcd", "not a scenario link"),
        ("v\u0661.abcd", "not a scenario link"),
        ("v1.ab$cd", "characters a scenario link never has"),
        ("v1.aGVsbG8", "does not decompress"),  # base64 of "hello"
        ("v1." + "A" * (scenarios.MAX_TOKEN_CHARS + 1), "too long"),
    ],
)
def test_unreadable_links_fall_back_with_a_message(token: str, expected: str) -> None:
    decoded = scenarios.decode(token, FALLBACK)
    assert decoded.status == "default"
    assert decoded.scenario == FALLBACK
    assert any(expected in m for m in decoded.messages), decoded.messages


def test_truncated_link_is_reported_as_truncated() -> None:
    token = scenarios.encode(scenario())
    decoded = scenarios.decode(token[: len(token) * 2 // 3], FALLBACK)
    assert decoded.status == "default"
    assert any("truncated" in m or "damaged" in m for m in decoded.messages)


def test_characters_added_after_a_complete_link_are_named_and_ignored() -> None:
    token = scenarios.encode(scenario())
    decoded = scenarios.decode(token + "AAAA", FALLBACK)  # three zero bytes after the stream: it read as "ok"
    assert decoded.scenario == scenario()
    assert decoded.status == "repaired"
    assert any("3 extra bytes after its complete data" in m for m in decoded.messages), decoded.messages
    assert scenarios.decode(token, FALLBACK).status == "ok"


def test_oversized_token_is_rejected_before_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    # Decoding must not even start: base64 decoding would raise here if it were called.
    def explode(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("decoded an oversized token")

    monkeypatch.setattr(scenarios.base64, "urlsafe_b64decode", explode)
    decoded = scenarios.decode("v1." + "A" * scenarios.MAX_TOKEN_CHARS, FALLBACK)
    assert decoded.status == "default"
    assert "too long" in decoded.messages[0]


def test_zip_bomb_is_capped_while_inflating() -> None:
    # 50 MB of spaces compress to ~50 kB... too long for a link, so build a smaller bomb that fits:
    # 3 MB of spaces compress to ~3 kB, under the token limit, but inflate past MAX_JSON_BYTES.
    bomb = zlib.compress(b" " * (scenarios.MAX_JSON_BYTES + 1_000_000), level=9)
    token = "v1." + base64.urlsafe_b64encode(bomb).decode().rstrip("=")
    assert len(token) <= scenarios.MAX_TOKEN_CHARS
    decoded = scenarios.decode(token, FALLBACK)
    assert decoded.status == "default"
    assert any("larger than" in m for m in decoded.messages)


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (b"{not json", "not valid JSON"),
        (b'{"name": NaN}', "not valid JSON"),
        (b"[1, 2, 3]", "JSON list, not a scenario"),
        (b'{"name": "a", "name": "b"}', 'the key "name" is written twice in one object'),
        (b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),  # nesting bomb
    ],
)
def test_links_with_bad_json_fall_back(payload: bytes, expected: str) -> None:
    token = "v1." + base64.urlsafe_b64encode(zlib.compress(payload)).decode().rstrip("=")
    decoded = scenarios.decode(token, FALLBACK)
    assert decoded.status == "default"
    assert any(expected in m for m in decoded.messages), decoded.messages


def test_pickle_payload_is_never_unpickled() -> None:
    # A pickle that would run code if unpickled; the reader only parses JSON, so it is just bad data.
    evil = b"cos\nsystem\n(S'echo pwned'\ntR."
    token = "v1." + base64.urlsafe_b64encode(zlib.compress(evil)).decode().rstrip("=")
    decoded = scenarios.decode(token, FALLBACK)
    assert decoded.status == "default"
    assert "not valid JSON" in decoded.messages[0]


# ---- tampered content: keep what is valid, name what was dropped ------------------------------------------


def test_invalid_workload_is_dropped_and_named_the_rest_is_kept() -> None:
    data = data_of(scenario(3))
    data["workloads"][1]["avg_requests_per_s"] = -5  # type: ignore[index]
    decoded = scenarios.decode(raw_token(data), FALLBACK)
    assert decoded.status == "repaired"
    assert [w.id for w in decoded.scenario.workloads] == ["w0", "w2"]
    assert decoded.scenario.name == "Test bank ✓"
    assert any(m.startswith("workloads.1.avg_requests_per_s:") for m in decoded.messages), decoded.messages
    assert any("workloads.1 ('Workload 1'): dropped" in m for m in decoded.messages)


def test_invalid_policy_field_falls_back_to_its_default_only() -> None:
    data = data_of(scenario())
    data["policy"]["target_utilization"] = 7  # type: ignore[index]
    data["policy"]["pool_utilization"] = 0.5  # type: ignore[index]
    decoded = scenarios.decode(raw_token(data), FALLBACK)
    assert decoded.status == "repaired"
    assert decoded.scenario.policy.target_utilization == 0.8  # the model default
    assert decoded.scenario.policy.pool_utilization == 0.5  # the valid neighbour survives
    assert any(m.startswith("policy.target_utilization:") for m in decoded.messages)


def test_dropping_a_node_drops_the_options_that_use_it() -> None:
    data = data_of(scenario())
    data["nodes"][1]["price_usd_per_gpu_hour"] = "free"  # type: ignore[index]
    decoded = scenarios.decode(raw_token(data), FALLBACK)
    assert decoded.status == "repaired"
    assert [n.id for n in decoded.scenario.nodes] == ["owned-h100"]
    assert [o.id for o in decoded.scenario.owned_options] == ["ar", "ar-spec"]
    assert any("nodes.1.price_usd_per_gpu_hour" in m for m in decoded.messages)
    assert any(
        m.startswith("owned_options.2 ('8B diffusion'): dropped (node_id: unknown node") for m in decoded.messages
    )


def test_a_quality_set_for_an_unknown_option_is_left_out_and_the_workload_kept() -> None:
    # it dropped the whole workload, demand and all, for one quality figure
    data = data_of(scenario(2))
    data["workloads"][0]["quality_overrides"] = {"frontier": 0.97, "gone": 0.5, "also-gone": 0.6}  # type: ignore[index]
    data["workloads"][1]["quality_overrides"] = {"gone": 0.5}  # type: ignore[index]
    decoded = scenarios.decode(raw_token(data), FALLBACK)
    assert decoded.status == "repaired"
    assert [w.id for w in decoded.scenario.workloads] == ["w0", "w1"]
    assert [dict(w.quality_overrides) for w in decoded.scenario.workloads] == [{"frontier": 0.97}, {}]
    assert decoded.messages == (
        "workloads.0 ('Workload 0'): the quality it set for 2 options not in the scenario ('also-gone', 'gone') "
        "was left out; the workload was kept",
        "workloads.1 ('Workload 1'): the quality it set for an option not in the scenario ('gone') "
        "was left out; the workload was kept",
    )


def test_an_option_dropped_with_its_api_keeps_the_workloads_that_rated_it() -> None:
    data = data_of(scenario(2))
    data["apis"][0]["output_usd_per_mtok"] = "lots"  # type: ignore[index]
    decoded = scenarios.decode(raw_token(data), FALLBACK)
    assert decoded.status == "repaired"
    assert [a.id for a in decoded.scenario.apis] == []
    assert [w.id for w in decoded.scenario.workloads] == ["w0", "w1"]
    assert decoded.scenario.workloads[0].quality_overrides == {}
    assert any(m.startswith("apis.0 ('Frontier'): dropped") for m in decoded.messages), decoded.messages
    assert any("('frontier') was left out" in m for m in decoded.messages), decoded.messages


def test_unknown_fields_are_named_and_ignored() -> None:
    data = data_of(scenario())
    data["evil"] = "__import__('os')"
    data["workloads"][0]["surprise"] = 1  # type: ignore[index]
    decoded = scenarios.decode(raw_token(data), FALLBACK)
    assert decoded.status == "repaired"
    assert "evil: unknown field, ignored" in decoded.messages
    assert any(m.startswith("workloads.0.surprise: unknown field") for m in decoded.messages)


def test_old_schema_version_keeps_what_still_fits() -> None:
    data = data_of(scenario())
    data["schema_version"] = 0
    decoded = scenarios.decode(raw_token(data), FALLBACK)
    assert decoded.status == "repaired"
    assert decoded.scenario == scenario()
    assert any(m.startswith("schema_version:") for m in decoded.messages)


def test_nothing_usable_falls_back_to_the_default() -> None:
    data = data_of(scenario())
    data["gpus"] = [{"id": "x"}]  # the only GPU is invalid: every node and option depends on it
    decoded = scenarios.decode(raw_token(data), FALLBACK)
    assert decoded.status == "default"
    assert decoded.scenario == FALLBACK
    assert any(m.startswith("gpus.0.") for m in decoded.messages)
    assert decoded.messages[-1] == "Showing the default scenario instead."


def test_messages_are_capped() -> None:
    data = data_of(scenario(40))
    for wl in data["workloads"]:  # type: ignore[union-attr]
        wl["output_tokens"] = 0
    decoded = scenarios.decode(raw_token(data), FALLBACK)
    assert decoded.status == "default"  # no workload survives
    assert len(decoded.messages) == scenarios.MAX_MESSAGES + 1  # the capped list, then the fallback line
    assert decoded.messages[-2].startswith("… and ")


# ---- uploads: all or nothing ------------------------------------------------------------------------------


def test_upload_with_one_bad_field_is_rejected_whole_with_its_path() -> None:
    data = data_of(scenario(3))
    data["workloads"][2]["peak_requests_per_s"] = 0.0001  # type: ignore[index]
    parsed, messages = scenarios.parse_json(json.dumps(data))
    assert parsed is None
    assert messages == ("workloads.2: peak_requests_per_s must be at least avg_requests_per_s",)


@pytest.mark.parametrize("rate", [5e-324, 1e-300, 9.9e-10])
def test_a_rate_too_small_to_sweep_is_refused_in_words(rate: float) -> None:
    data = data_of(scenario(3))
    data["workloads"][2]["avg_requests_per_s"] = rate  # type: ignore[index]
    data["workloads"][2]["peak_requests_per_s"] = rate  # type: ignore[index]
    parsed, messages = scenarios.parse_json(json.dumps(data))
    assert parsed is None
    assert messages == ("workloads.2: avg_requests_per_s must be at least 1e-09 (about one request in 30 years)",)
    data["workloads"][2]["avg_requests_per_s"] = data["workloads"][2]["peak_requests_per_s"] = 1e-9  # type: ignore[index]
    assert scenarios.parse_json(json.dumps(data))[0] is not None


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"\xff\xfe", "not UTF-8"),
        (b"[]", "JSON list"),
        (b"{", "not valid JSON"),
        (b" " * (scenarios.MAX_SCENARIO_BYTES + 1), "at most"),
    ],
)
def test_upload_problems_are_explained(raw: bytes, expected: str) -> None:
    parsed, messages = scenarios.parse_json(raw)
    assert parsed is None
    assert expected in messages[0]


def test_a_portfolio_too_large_to_plan_is_refused_in_words() -> None:
    # 5,000 workloads × 128 options took 118 s and 4.1 GB to evaluate; the scenario's caps each allowed it
    base = scenario(1)
    w = base.workloads[0]
    many = tuple(w.model_copy(update={"id": f"w{i}", "name": f"w {i}"}) for i in range(5000))
    n_apis = 13 - len(base.owned_options)
    apis = tuple(base.apis[0].model_copy(update={"id": f"api-{i}", "name": f"API {i}"}) for i in range(n_apis))
    data = json.loads(scenarios.canonical_json(base))
    data["workloads"] = [json.loads(x.model_dump_json()) for x in many]
    data["apis"] = [json.loads(a.model_dump_json()) for a in apis]
    parsed, messages = scenarios.parse_json(json.dumps(data))
    assert parsed is None
    said = "5,000 workloads × 13 options is 65,000 pairs to plan, more than 60,000"
    assert any(said in m for m in messages), messages
