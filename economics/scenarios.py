"""Reading scenarios from JSON, and the preset scenarios shipped in ``data/scenarios`` (file I/O lives here).

Every problem is reported as one line that names the field path, in the form
``workloads.2.avg_requests_per_s: Input should be greater than 0``, so that the CLI, the dashboard's
upload and stored reviews can show the user exactly what to fix. Nothing here raises a bare pydantic
``ValidationError`` or a ``json.JSONDecodeError``: both become a :class:`ScenarioError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from economics._errors import error_items, field_path
from economics.safe_io import InputFileError, JsonProblem, load_json_text, read_capped
from economics.scenario import Scenario, migrate

#: Folder of the preset scenarios shipped with the package.
PRESET_DIR = Path(__file__).resolve().parent.parent / "data" / "scenarios"
#: Id (file stem) of the scenario the dashboard opens on: the essay's Singapore bank.
DEFAULT_PRESET = "singapore-bank"
#: Scenario files larger than this are refused before parsing [B]. It is the largest valid file, rounded up:
#: 5,000 workloads (the model's limit) with the longest names, ids and notes and every number at full
#: precision are 13.3 MB as the dashboard writes them (tests/hardening/test_caps.py builds that file), so
#: a scenario the app wrote always loads back.
MAX_SCENARIO_BYTES = 16_000_000


class ScenarioError(ValueError):
    """A scenario that cannot be read or validated; ``problems`` holds one line per problem."""

    def __init__(self, problems: list[str] | tuple[str, ...]) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        super().__init__("\n".join(self.problems))


def validation_problems(error: ValidationError) -> list[str]:
    """One line per pydantic error: ``field.path: message``.

    The scenario's own cross-reference check reports several problems in one ``ValueError`` whose message
    already reads ``path: message; path: message``; those are split into their own lines.

    >>> try:
    ...     Scenario.model_validate({"name": "x"})
    ... except ValidationError as e:
    ...     validation_problems(e)[:2]
    ['review_date: Field required', 'gpus: Field required']
    """
    lines: list[str] = []
    for loc, _type, msg in error_items(error):
        if not loc and ": " in msg:
            lines.extend(part.strip() for part in msg.split("; ") if part.strip())
            continue
        lines.append(f"{field_path(loc) or '(scenario)'}: {msg}")
    return lines


def parse_scenario(data: str | bytes | dict[str, Any]) -> Scenario:
    """Validate a scenario given as JSON text or as a dict (migrated from older ``schema_version`` first).

    Raises :class:`ScenarioError` with one line per problem: malformed JSON names the line and column,
    validation errors name the field path.
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
    """Read and validate a scenario JSON file; :class:`ScenarioError` names each problem's field path.

    Only a regular file of at most :data:`MAX_SCENARIO_BYTES` is read (a FIFO or a device such as /dev/zero is
    refused before it is opened, so reading never hangs and never runs out of memory).
    """
    try:
        raw = read_capped(path, MAX_SCENARIO_BYTES)
    except InputFileError as e:
        raise ScenarioError([f"(file): {e}"]) from None
    return parse_scenario(raw)


def scenario_json(scenario: Scenario) -> str:
    """The scenario as indented JSON, the format of the preset files."""
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
    path = PRESET_DIR / f"{preset_id}.json"
    if not path.is_file() or path.parent != PRESET_DIR:
        known = ", ".join(sorted(p.stem for p in PRESET_DIR.glob("*.json")))
        raise ScenarioError([f"(preset): unknown preset {preset_id!r}; known: {known}"])
    return load_scenario(path)


def default_scenario() -> Scenario:
    """The scenario the dashboard opens on: the essay's Singapore bank with one owned 8×H100 node."""
    return load_preset(DEFAULT_PRESET)
