"""Scenario files, presets and share links: the one scenario format, read and written in one place.

A scenario travels as JSON: a file (the CLI's argument, an upload on the dashboard, the presets shipped in
``data/scenarios``) or a share link (``?s=v1.…``). Every way in shares one size limit for a scenario
document (:data:`MAX_SCENARIO_BYTES`) and one error formatter (:func:`economics._errors.validation_problems`,
``workloads.2.avg_requests_per_s: Input should be greater than 0``), so the CLI, the dashboard's upload and
stored reviews can show the user exactly what to fix. Nothing here raises a bare pydantic
``ValidationError`` or a ``json.JSONDecodeError``: files raise :class:`~economics._errors.ScenarioError`;
links and uploads return messages.

Link format (version 1)::

    v1.<base64url( zlib( canonical JSON of Scenario.model_dump(mode="json") ) ), no '=' padding>

Canonical JSON has sorted keys, no whitespace, UTF-8 and Python's shortest round-trip float repr, so
``decode(encode(s)) == s`` exactly and the same scenario always gives the same token. The whole scenario is
encoded (GPUs and models included), so a link evaluates to the same numbers after the catalog changes.

Reading is defensive, because a link is untrusted input:

* the token length is checked **before** anything is decoded (:data:`MAX_TOKEN_CHARS`), and the
  decompressed size is capped while inflating (:data:`MAX_JSON_BYTES`), so a zip bomb costs nothing;
* only JSON is parsed (no pickle, no eval); ``NaN``/``Infinity`` are rejected;
* the data goes through :func:`economics.scenario.migrate` and the pydantic :class:`~economics.scenario.Scenario`
  model. When it does not validate, :func:`decode` keeps what is valid (valid list items, valid fields of
  ``efficiency`` and ``policy``, valid name/description/date) and drops the rest, naming every dropped
  field path in a message. When too little survives, it returns the fallback scenario with a message.

Uploaded JSON files are read by :func:`parse_json`, which is all-or-nothing: a file is either applied
whole or rejected with messages, never half-applied.

Scenario files for the CLI are read by :func:`load_scenario` / :func:`parse_scenario` (all or nothing,
:class:`~economics._errors.ScenarioError`); the preset files are written by :func:`preset_json`.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, TypeAdapter, ValidationError

from economics._errors import ScenarioError, validation_problems
from economics.hardware import GPU, Efficiency
from economics.io.safe_io import InputFileError, JsonProblem, load_json_text, read_capped
from economics.model import ModelSpec
from economics.offers import ApiOffer, NodeOffer
from economics.scenario import SCHEMA_VERSION, OwnedOption, Policy, Scenario, migrate
from economics.workload import Workload

__all__ = [
    "DEFAULT_PRESET",
    "LINK_FORMAT",
    "MAX_JSON_BYTES",
    "MAX_SCENARIO_BYTES",
    "MAX_TOKEN_CHARS",
    "PRESET_DIR",
    "Decoded",
    "Preset",
    "ScenarioError",
    "canonical_json",
    "decode",
    "default_scenario",
    "encode",
    "fits_in_link",
    "list_presets",
    "load_preset",
    "load_scenario",
    "parse_json",
    "parse_scenario",
    "preset_json",
    "salvage",
    "scenario_json",
]

#: Folder of the preset scenarios shipped with the package.
PRESET_DIR = Path(__file__).resolve().parent.parent.parent / "data" / "scenarios"
#: Id (file stem) of the scenario the dashboard opens on: the essay's Singapore bank.
DEFAULT_PRESET = "singapore-bank"
#: The one size limit of a scenario document, from a file, an upload or a stored review [B]; larger ones are
#: refused before parsing. It is the largest valid file, rounded up: 5,000 workloads (the model's limit) with
#: the longest names, ids and notes and every number at full precision are 13.3 MB as the dashboard writes
#: them (tests/hardening/test_caps.py builds that file), so a scenario the app wrote always loads back. A
#: link is far smaller: its token is capped at :data:`MAX_TOKEN_CHARS`, which inflates to at most
#: :data:`MAX_JSON_BYTES`.
MAX_SCENARIO_BYTES = 16_000_000

LINK_FORMAT = "v1"
#: Longest token accepted [characters]. Browsers and the server accept far longer URLs, but a link this
#: long already no longer fits in a chat message; larger scenarios are shared as JSON files.
MAX_TOKEN_CHARS = 12_000
#: Largest JSON document accepted from a link (after inflating) [B]; a zip bomb in a link stops here.
MAX_JSON_BYTES = 2_000_000
#: Most messages reported for one link or file; the rest are summarised in one line.
MAX_MESSAGES = 20

_TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]*$")
#: "v" and a number in ASCII digits without leading zeros ("v01", "v1\n" or an Arabic-Indic "v١" are no format)
_VERSION_RE = re.compile(r"v(0|[1-9]\d{0,5})", re.ASCII)
_ITEM_PATH_RE = re.compile(r"^\s*([a-z_]+)\.(\d+)\b")

Status = Literal["ok", "repaired", "default"]


@dataclass(frozen=True)
class Decoded:
    """What a link or file turned into: the scenario to use and what the user must be told.

    ``status`` is ``"ok"`` (read as is), ``"repaired"`` (some fields or items were dropped, see
    ``messages``) or ``"default"`` (nothing usable: ``scenario`` is the fallback).
    """

    scenario: Scenario
    status: Status
    messages: tuple[str, ...] = field(default=())


# ---- writing -------------------------------------------------------------------------------------------


def canonical_json(scenario: Scenario) -> str:
    """The scenario as canonical JSON: sorted keys, no whitespace, exact floats."""
    return json.dumps(
        scenario.model_dump(mode="json"),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
    )


def scenario_json(scenario: Scenario) -> str:
    """The scenario as indented JSON for a download (same content as the link, readable)."""
    return json.dumps(scenario.model_dump(mode="json"), sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)


def encode(scenario: Scenario) -> str:
    """The link token of a scenario: ``"v1." + base64url(zlib(canonical JSON))`` without padding.

    The token may be longer than :data:`MAX_TOKEN_CHARS` for a very large scenario; check with
    :func:`fits_in_link` and offer the JSON file instead.
    """
    packed = zlib.compress(canonical_json(scenario).encode("utf-8"), level=9)
    return f"{LINK_FORMAT}." + base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")


def fits_in_link(token: str) -> bool:
    """Whether :func:`decode` will accept a token of this length."""
    return len(token) <= MAX_TOKEN_CHARS


# ---- reading -------------------------------------------------------------------------------------------


def _default(fallback: Scenario, *messages: str) -> Decoded:
    return Decoded(fallback, "default", (*messages, "Showing the default scenario instead."))


def _inflate(packed: bytes) -> bytes | str:
    """Decompress at most ``MAX_JSON_BYTES`` bytes; a message instead of bytes on failure (bytes after the
    complete stream are :func:`_trailing`'s)."""
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(packed, MAX_JSON_BYTES + 1)
    except zlib.error:
        return "The link is damaged: its data does not decompress (was it cut off or edited?)."
    if len(data) > MAX_JSON_BYTES or inflater.unconsumed_tail:
        return f"The link's scenario is larger than {MAX_JSON_BYTES:,} bytes once unpacked, so it was not read."
    if not inflater.eof:
        return "The link is truncated: its data ends early (was only part of it copied?)."
    return data


def _load_json(raw: bytes | str, what: str) -> tuple[Any, str | None]:
    try:
        return load_json_text(raw), None
    except JsonProblem as exc:
        return None, f"{what} is not valid JSON ({str(exc)[:300]})."


def decode(token: str | None, fallback: Scenario) -> Decoded:
    """Read a link token; keep what is valid, else return ``fallback``. Never raises on bad input.

    Checks, in order: present, not oversized (before decoding anything), a known version prefix,
    base64url, zlib (capped inflate, complete stream), JSON, then the Scenario model (with salvage).
    """
    if token is None or not token.strip():
        return _default(fallback, "The link carries no scenario.")
    token = token.strip()
    if len(token) > MAX_TOKEN_CHARS:
        return _default(
            fallback,
            f"The link is too long ({len(token):,} characters; at most {MAX_TOKEN_CHARS:,} are read), "
            "so it was not opened. Share large scenarios as a JSON file.",
        )
    version, dot, body = token.partition(".")
    match = _VERSION_RE.fullmatch(version)
    if not dot or match is None:
        return _default(fallback, f"The link is not a scenario link (it should start with '{LINK_FORMAT}.').")
    if version != LINK_FORMAT:
        number = int(match.group(1))
        age = "older" if number < int(LINK_FORMAT[1:]) else "newer"
        return _default(
            fallback,
            f"The link uses scenario-link format '{version}', which is {age} than the format this app reads "
            f"('{LINK_FORMAT}'), so it cannot be opened.",
        )
    if not _TOKEN_RE.match(body) or len(body) % 4 == 1:
        return _default(fallback, "The link is damaged: it contains characters a scenario link never has.")
    try:
        packed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        return _default(fallback, "The link is damaged: it is not valid base64url.")
    inflated = _inflate(packed)
    if isinstance(inflated, str):
        return _default(fallback, inflated)
    data, problem = _load_json(inflated, "The link's scenario")
    if problem is not None:
        return _default(fallback, problem)
    read = salvage(data, fallback)
    extra = _trailing(packed)
    if not extra or read.status == "default":
        return read
    note = (
        f"The link had {extra:,} extra byte{'s' if extra != 1 else ''} after its complete data (typed or pasted "
        "onto its end?); they were ignored and the scenario was read without them."
    )
    return Decoded(read.scenario, "repaired", (*read.messages, note))


def _trailing(packed: bytes) -> int:
    """How many bytes follow the complete zlib stream: none in a link this app wrote (it was read as "ok",
    silently ignoring them). Called on a stream :func:`_inflate` read whole."""
    inflater = zlib.decompressobj()
    inflater.decompress(packed, MAX_JSON_BYTES + 1)
    return len(inflater.unused_data)


def parse_json(raw: bytes | str) -> tuple[Scenario | None, tuple[str, ...]]:
    """Read an uploaded scenario file, all or nothing: ``(scenario, ())`` or ``(None, messages)``.

    The messages name every invalid field by its path, e.g. ``workloads.2.peak_requests_per_s``.
    """
    size = len(raw.encode("utf-8") if isinstance(raw, str) else raw)
    if size > MAX_SCENARIO_BYTES:
        return None, (f"The file is {size:,} bytes; scenario files may be at most {MAX_SCENARIO_BYTES:,} bytes.",)
    if not size:
        return None, ("The file is empty (0 bytes); choose a scenario JSON file the dashboard or the CLI wrote.",)
    data, problem = _load_json(raw, "The file")
    if problem is not None:
        return None, (problem,)
    if not isinstance(data, dict):
        return None, (f"The file holds a JSON {type(data).__name__}, not a scenario object.",)
    try:
        return Scenario.model_validate(migrate(data)), ()
    except ValidationError as exc:
        return None, _limit(validation_problems(exc))
    except RecursionError:
        return None, ("The file is nested too deeply to be a scenario.",)


# ---- validation messages -------------------------------------------------------------------------------


def _limit(messages: list[str]) -> tuple[str, ...]:
    if len(messages) <= MAX_MESSAGES:
        return tuple(messages)
    return (*messages[: MAX_MESSAGES - 1], f"… and {len(messages) - MAX_MESSAGES + 1} more problems.")


# ---- salvage -------------------------------------------------------------------------------------------

_LIST_SECTIONS: dict[str, TypeAdapter[Any]] = {
    "gpus": TypeAdapter(GPU),
    "models": TypeAdapter(ModelSpec),
    "nodes": TypeAdapter(NodeOffer),
    "owned_options": TypeAdapter(OwnedOption),
    "apis": TypeAdapter(ApiOffer),
    "workloads": TypeAdapter(Workload),
}
_OBJECT_SECTIONS: dict[str, type[BaseModel]] = {"efficiency": Efficiency, "policy": Policy}
_SCALARS = ("name", "description", "review_date", "finance")


def _field_adapter(model: type[BaseModel], name: str) -> TypeAdapter[Any]:
    info = model.model_fields[name]
    return TypeAdapter(info.rebuild_annotation())


_SCALAR_ADAPTERS: dict[str, TypeAdapter[Any]] = {name: _field_adapter(Scenario, name) for name in _SCALARS}


def _clean_object(name: str, value: Any, messages: list[str]) -> dict[str, Any]:
    """The valid fields of a nested model section; invalid or unknown ones fall back to their defaults."""
    model = _OBJECT_SECTIONS[name]
    if not isinstance(value, Mapping):
        messages.append(f"{name}: expected an object, got {type(value).__name__}; defaults used")
        return {}
    kept: dict[str, Any] = {}
    for key, item in value.items():
        if key not in model.model_fields:
            messages.append(f"{name}.{key}: unknown field, ignored")
            continue
        try:
            _field_adapter(model, key).validate_python(item)
        except ValidationError as exc:
            messages.extend(f"{m}; default used" for m in validation_problems(exc, (name, key)))
            continue
        kept[key] = item
    try:
        model.model_validate(kept)
    except ValidationError as exc:  # a cross-field rule of the section: drop the whole section
        messages.extend(f"{m}; section reset to defaults" for m in validation_problems(exc, (name,)))
        return {}
    return kept


def _label(item: Any) -> str:
    label = (item.get("name") or item.get("id")) if isinstance(item, Mapping) else None
    return f" ({str(label)[:60]!r})" if label else ""


def _clean_list(name: str, value: Any, messages: list[str]) -> list[tuple[int, Any]]:
    """The list items that validate on their own, with their original index; dropped ones are named."""
    if not isinstance(value, list):
        messages.append(f"{name}: expected a list, got {type(value).__name__}")
        return []
    adapter = _LIST_SECTIONS[name]
    kept: list[tuple[int, Any]] = []
    for i, item in enumerate(value):
        try:
            adapter.validate_python(item)
        except ValidationError as exc:
            messages.extend(validation_problems(exc, (name, i)))
            messages.append(f"{name}.{i}{_label(item)}: dropped")
            continue
        kept.append((i, item))
    return kept


def _broken_items(exc: ValidationError) -> dict[tuple[str, int], str] | None:
    """Items named by cross-reference errors (with what is wrong), or None if an error names no item."""
    broken: dict[tuple[str, int], str] = {}
    for err in exc.errors(include_url=False):
        msg = str(err["msg"]).removeprefix("Value error, ")
        for part in msg.split("; "):
            match = _ITEM_PATH_RE.match(part)
            if match is None or match.group(1) not in _LIST_SECTIONS:
                return None
            broken.setdefault((match.group(1), int(match.group(2))), part[match.end() :].lstrip("."))
    return broken


def salvage(data: Any, fallback: Scenario) -> Decoded:
    """Validate decoded JSON as a Scenario; keep every valid part, or return ``fallback``.

    Steps: migrate; validate whole. If that fails: keep valid scalars (else the fallback's), valid fields of
    the nested sections (else defaults), valid list items; then drop items whose references break (unknown
    GPU, node, model or option ids) until the scenario validates. If it still does not (a required list is
    empty, no option left), the fallback is returned. Every dropped path is named in ``messages``.
    """
    if not isinstance(data, dict):
        return _default(fallback, f"The link holds a JSON {type(data).__name__}, not a scenario object.")
    data = migrate(data)
    try:
        return Decoded(Scenario.model_validate(data), "ok")
    except ValidationError:
        pass

    messages: list[str] = []
    version = data.get("schema_version")
    if type(version) is not int or version != SCHEMA_VERSION:  # true == 1 in Python; it is not a version
        messages.append(
            f"schema_version: the scenario has version {version!r}, this app reads {SCHEMA_VERSION}; "
            "fields were kept where they still fit"
        )
    base = fallback.model_dump(mode="json")
    cleaned: dict[str, Any] = {"schema_version": SCHEMA_VERSION}
    for key in data:
        if key != "schema_version" and key not in Scenario.model_fields:
            messages.append(f"{key}: unknown field, ignored")
    for name in _SCALARS:
        if name not in data:
            if Scenario.model_fields[name].is_required():  # else the model's own default applies
                cleaned[name] = base[name]
                messages.append(f"{name}: missing; the default scenario's value used")
            continue
        try:
            _SCALAR_ADAPTERS[name].validate_python(data[name])
            cleaned[name] = data[name]
        except ValidationError as exc:
            messages.extend(f"{m}; the default's value used" for m in validation_problems(exc, (name,)))
            cleaned[name] = base[name]
    for name in _OBJECT_SECTIONS:
        cleaned[name] = _clean_object(name, data.get(name, {}), messages)
    lists = {name: _clean_list(name, data.get(name, []), messages) for name in _LIST_SECTIONS}

    # Each pass drops an item or mends a workload's quality figures (a workload at most once per option
    # section that loses items), so this ends; the bound only documents that.
    for _ in range(3 * sum(len(items) for items in lists.values()) + 1):
        try:
            scenario = Scenario.model_validate({**cleaned, **{k: [it for _, it in v] for k, v in lists.items()}})
        except ValidationError as exc:
            broken = _broken_items(exc)
            if not broken:
                return _default(fallback, *_limit([*messages, *validation_problems(exc)]))
            option_ids = {str(it.get("id")) for k in ("owned_options", "apis") for _, it in lists[k]}
            dropped: list[tuple[str, int]] = []
            for (section, position), detail in sorted(broken.items()):
                index, item = lists[section][position]
                if section == "workloads" and detail.startswith("quality_overrides:"):
                    # a quality figure for an option the link no longer has: drop that figure, keep the workload
                    overrides = item.get("quality_overrides") or {}
                    unknown = sorted(k for k in overrides if k not in option_ids)
                    kept_overrides = {k: v for k, v in overrides.items() if k in option_ids}
                    lists[section][position] = (index, {**item, "quality_overrides": kept_overrides})
                    names = ", ".join(repr(k[:60]) for k in unknown)
                    what = "an option" if len(unknown) == 1 else f"{len(unknown)} options"
                    messages.append(
                        f"{section}.{index}{_label(item)}: the quality it set for {what} not in the scenario "
                        f"({names}) was left out; the workload was kept"
                    )
                    continue
                messages.append(f"{section}.{index}{_label(item)}: dropped ({detail})")
                dropped.append((section, position))
            for section, position in sorted(dropped, key=lambda sp: -sp[1]):
                del lists[section][position]
            continue
        if not messages:  # the whole did not validate, its parts did: say so rather than report nothing
            messages.append("the scenario was read part by part; nothing was dropped")
        return Decoded(scenario, "repaired", _limit(messages))
    return _default(fallback, *_limit(messages))


# ---- scenario files and presets (all or nothing) ---------------------------------------------------------------


def parse_scenario(data: str | bytes | dict[str, Any]) -> Scenario:
    """Validate a scenario given as JSON text or as a dict (migrated from older ``schema_version`` first).

    Raises :class:`~economics._errors.ScenarioError` with one line per problem: malformed JSON names the line
    and column, validation errors name the field path.
    """
    if isinstance(data, (str, bytes)):
        try:
            obj: Any = load_json_text(data)
        except JsonProblem as e:
            raise ScenarioError([f"(json): {e}"]) from None
    else:
        obj = data
    if not isinstance(obj, dict):
        raise ScenarioError([f"(scenario): expected a JSON object, got {type(obj).__name__}"])
    try:
        return Scenario.model_validate(migrate(obj))
    except ValidationError as e:
        raise ScenarioError(validation_problems(e)) from None
    except RecursionError:  # nesting deep enough to parse but too deep to validate
        raise ScenarioError(["(scenario): the JSON is nested too deeply to be a scenario"]) from None


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario JSON file; :class:`~economics._errors.ScenarioError` names each problem.

    Only a regular file of at most :data:`MAX_SCENARIO_BYTES` is read (a FIFO or a device such as /dev/zero is
    refused before it is opened, so reading never hangs and never runs out of memory).
    """
    try:
        raw = read_capped(path, MAX_SCENARIO_BYTES)
    except InputFileError as e:
        raise ScenarioError([f"(file): {e}"]) from None
    return parse_scenario(raw)


def preset_json(scenario: Scenario) -> str:
    """The scenario as indented JSON in field order, the format of the preset files."""
    return scenario.model_dump_json(indent=2) + "\n"


@dataclass(frozen=True)
class Preset:
    """A scenario shipped in ``data/scenarios``."""

    id: str  # file stem
    name: str
    description: str
    path: Path


def list_presets() -> tuple[Preset, ...]:
    """The preset scenarios, the default (the Singapore bank) first, then by id."""
    presets = []
    for path in sorted(PRESET_DIR.glob("*.json")):
        scenario = load_scenario(path)
        presets.append(Preset(path.stem, scenario.name, scenario.description, path))
    presets.sort(key=lambda p: (p.id != DEFAULT_PRESET, p.id))
    return tuple(presets)


def load_preset(preset_id: str) -> Scenario:
    """A preset scenario by id (file stem in ``data/scenarios``)."""
    known_ids = {p.stem for p in PRESET_DIR.glob("*.json")}
    path = PRESET_DIR / f"{preset_id}.json"
    if preset_id not in known_ids or not path.is_file():  # a name, never a path (nor one too long to stat)
        shown = preset_id if len(preset_id) <= 80 else preset_id[:80] + "…"
        raise ScenarioError([f"(preset): unknown preset {shown!r}; known: {', '.join(sorted(known_ids))}"])
    return load_scenario(path)


def default_scenario() -> Scenario:
    """The scenario the dashboard opens on: the essay's Singapore bank with one owned 8×H100 node."""
    return load_preset(DEFAULT_PRESET)
