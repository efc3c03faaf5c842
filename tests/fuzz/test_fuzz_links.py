"""Fuzzed share links: never a traceback or a hang; a damaged link falls back or is repaired with messages
naming what was dropped; a valid link with hostile text in every string opens with the text kept as data."""

from __future__ import annotations

import base64
import json
import zlib
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from economics.io import scenarios
from economics.io.scenarios import default_scenario, load_preset
from economics.scenario import Scenario
from tests.fuzz.counts import record
from tests.strategies import HOSTILE_TEXT, fuzz_settings, json_values, mutated_json, nested

FALLBACK = default_scenario()
BASE = load_preset("batch-shop")
BASE_DICT = json.loads(scenarios.canonical_json(BASE))
VALID = scenarios.encode(BASE)


def pack(raw: bytes, version: str = "v1") -> str:
    return f"{version}." + base64.urlsafe_b64encode(zlib.compress(raw)).decode().rstrip("=")


def check(token: str, area: str, *, must_open: bool = False) -> scenarios.Decoded:
    try:
        decoded = scenarios.decode(token, FALLBACK)
    except Exception:
        record(area, failed=True)
        raise
    ok = (
        isinstance(decoded.scenario, Scenario)
        and decoded.status in ("ok", "repaired", "default")
        and (decoded.status == "ok" or bool(decoded.messages))
        and all(isinstance(m, str) and m for m in decoded.messages)
        and (decoded.status != "default" or decoded.scenario is FALLBACK)
    )
    lost = must_open and decoded.status != "ok"
    record(area, failed=not ok, lost=lost)
    assert ok, decoded
    assert not lost, decoded.messages
    return decoded


@fuzz_settings(150)
@given(st.text(max_size=300))
def test_random_text(token: str) -> None:
    check(token, "link: random text")


@fuzz_settings(100)
@given(st.integers(0, len(VALID) - 1), st.integers(0, 7), st.integers(0, 2))
def test_truncated_or_bit_flipped(cut: int, bit: int, how: int) -> None:
    if how == 0:
        token = VALID[:cut]
    elif how == 1:
        raw = bytearray(base64.urlsafe_b64decode(VALID[3:] + "=" * (-len(VALID[3:]) % 4)))
        raw[cut % len(raw)] ^= 1 << bit
        token = "v1." + base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")
    else:
        token = VALID[:cut] + "A" + VALID[cut + 1 :]
    check(token, "link: truncated/bit-flipped")


@fuzz_settings(60)
@given(st.sampled_from(["v0", "v2", "v999999", "V1", "v1x", "", "v"]), st.sampled_from([".", "", ".."]))
def test_wrong_version(version: str, dot: str) -> None:
    check(version + dot + VALID[3:], "link: wrong version")


@fuzz_settings(100)
@given(st.binary(max_size=200) | st.text(max_size=100).map(str.encode))
def test_valid_zlib_of_invalid_json(raw: bytes) -> None:
    check(pack(raw), "link: zlib of non-JSON")


@fuzz_settings(120)
@given(json_values(30))
def test_valid_json_of_wrong_types(value: object) -> None:
    raw = json.dumps(value, allow_nan=True).encode()
    check(pack(raw), "link: JSON of wrong types")


@fuzz_settings(150)
@given(mutated_json(BASE_DICT))
def test_mutated_scenario(doc: Any) -> None:
    check(pack(json.dumps(doc, allow_nan=True).encode()), "link: mutated scenario")


@fuzz_settings(40)
@given(st.integers(10, 100_000), st.sampled_from(["nest", "huge-string", "bomb", "long-token"]))
def test_huge_deep_and_over_cap(size: int, kind: str) -> None:
    if kind == "nest":
        token = pack(('{"name": ' + nested(size) + "}").encode())
    elif kind == "huge-string":
        token = pack(json.dumps({**BASE_DICT, "name": "x" * size * 30}).encode())
    elif kind == "bomb":
        token = pack(b"[" + b"0," * (size * 30) + b"0]")
    else:
        token = "v1." + "A" * (scenarios.MAX_TOKEN_CHARS + size)
    check(token, "link: huge/deep/over-cap")


def _replace_strings(value: Any, text: str) -> Any:
    if isinstance(value, dict):
        return {
            k: (
                v
                if k in ("id", "gpu_id", "model_id", "node_id", "kind", "provider", "tier") or k.endswith("_id")
                else _replace_strings(v, text)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_replace_strings(v, text) for v in value]
    return text if isinstance(value, str) and not value[:4].isdigit() else value


@fuzz_settings(len(HOSTILE_TEXT) * 3)
@given(st.sampled_from(HOSTILE_TEXT), st.integers(1, 3))
def test_html_and_js_in_every_string_open_as_data(payload: str, repeat: int) -> None:
    doc = _replace_strings(BASE_DICT, (payload * repeat)[:100])
    try:
        expected = Scenario.model_validate(doc)
    except ValueError:  # a payload that breaks a text rule (length, pattern): the link must still be safe
        check(pack(json.dumps(doc).encode()), "link: HTML/JS in strings")
        return
    decoded = check(pack(json.dumps(doc).encode()), "link: HTML/JS in strings", must_open=True)
    assert decoded.scenario == expected  # kept verbatim as data: escaping is the renderer's job
