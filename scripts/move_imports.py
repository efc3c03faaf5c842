"""Rewrite imports after the I/O package and CLI moves of issue 11 (run from the repository root; idempotent).

    python scripts/move_imports.py [PATH ...]     # default: every .py file in the repository

The moves (``git mv``; no compatibility modules are left at the old paths):

* ``economics/share.py`` + ``economics/scenarios.py`` → ``economics/io/scenarios.py`` (one scenario format for
  files, presets and links); ``ScenarioError`` and ``validation_problems`` → ``economics/_errors.py``;
  ``scenarios.scenario_json`` (the presets' field-order JSON) is now ``preset_json``; ``share.MAX_FILE_BYTES`` is
  the one limit ``MAX_SCENARIO_BYTES``
* ``economics/price_csv.py`` → ``economics/io/price_csv.py``; ``economics/safe_io.py`` → ``economics/io/safe_io.py``
* ``economics/catalog.py``: the loader (``load_catalog``, ``DATA_DIR``, ``FILES``) → ``economics/io/catalog.py``,
  the CSV row models ``economics/_catalog_rows.py`` → ``economics/io/_catalog_rows.py``; the ``Catalog`` model and
  its errors stay in ``economics/catalog.py``
* ``economics/cli.py`` → ``cli/main.py``; ``economics/cli_<name>.py`` → ``cli/<name>.py``

Then run ``ruff check --fix --select I`` and ``ruff format`` on the files it changed (it prints them).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLI_NAMES = ("calibrate", "catalog", "evaluate", "horizon", "report", "schema", "throughput")

#: old module → new module, for every name imported from it
MODULES: dict[str, str] = {
    "economics.share": "economics.io.scenarios",
    "economics.scenarios": "economics.io.scenarios",
    "economics.price_csv": "economics.io.price_csv",
    "economics.safe_io": "economics.io.safe_io",
    "economics._catalog_rows": "economics.io._catalog_rows",
    "economics.cli": "cli.main",
    **{f"economics.cli_{name}": f"cli.{name}" for name in CLI_NAMES},
}
#: (old module, name) → (new module, new name), where a name goes elsewhere than its module
NAMES: dict[tuple[str, str], tuple[str, str]] = {
    ("economics.scenarios", "validation_problems"): ("economics._errors", "validation_problems"),
    ("economics.scenarios", "scenario_json"): ("economics.io.scenarios", "preset_json"),
    ("economics.share", "MAX_FILE_BYTES"): ("economics.io.scenarios", "MAX_SCENARIO_BYTES"),
    **{("economics.catalog", n): ("economics.io.catalog", n) for n in ("load_catalog", "DATA_DIR", "FILES")},
}
#: dotted references in strings, docstrings and comments (longest first)
TEXT: list[tuple[str, str]] = [
    *((f"economics.cli_{n}", f"cli.{n}") for n in CLI_NAMES),
    *((f"economics/cli_{n}.py", f"cli/{n}.py") for n in CLI_NAMES),
    ("economics.cli", "cli.main"),
    ("economics/cli.py", "cli/main.py"),
    ("economics.share", "economics.io.scenarios"),
    ("economics/share.py", "economics/io/scenarios.py"),
    ("economics.scenarios", "economics.io.scenarios"),
    ("economics/scenarios.py", "economics/io/scenarios.py"),
    ("economics.price_csv", "economics.io.price_csv"),
    ("economics/price_csv.py", "economics/io/price_csv.py"),
    ("economics.safe_io", "economics.io.safe_io"),
    ("economics/safe_io.py", "economics/io/safe_io.py"),
    ("economics._catalog_rows", "economics.io._catalog_rows"),
    ("economics/_catalog_rows.py", "economics/io/_catalog_rows.py"),
]

FROM_RE = re.compile(r"^([ \t]*(?:>>> )?)from (economics(?:\.\w+)*) import (\([^)]*\)|[^\n]*)", re.MULTILINE)


def _names(text: str) -> list[tuple[str, str | None]]:
    inner = text.strip().removeprefix("(").removesuffix(")")
    inner = re.sub(r"#[^\n]*", "", inner)
    out: list[tuple[str, str | None]] = []
    for part in inner.replace("\n", " ").split(","):
        if part.strip():
            name, _, alias = part.strip().partition(" as ")
            out.append((name.strip(), alias.strip() or None))
    return out


def _target(module: str, name: str, in_core: bool) -> tuple[str, str]:
    if (module, name) in NAMES:
        return NAMES[module, name]
    if name == "ScenarioError" and module == "economics.scenarios" and in_core:
        return "economics._errors", name  # the domain never imports the I/O package for its error type
    return MODULES.get(module, module), name


def _rewrite_from(match: re.Match[str], in_core: bool, renames: dict[str, str]) -> str:
    indent, module, names = match.group(1), match.group(2), match.group(3)
    groups: dict[str, list[str]] = {}
    for name, alias in _names(names):
        if module == "economics" and name == "share":
            new_module, new_name = "economics.io", "scenarios"
            if alias is None:
                renames["share"] = "scenarios"
        else:
            new_module, new_name = _target(module, name, in_core)
        if new_name != name and alias is None:
            renames[name] = new_name
        groups.setdefault(new_module, []).append(new_name + (f" as {alias}" if alias else ""))
    if list(groups) == [module] and groups[module] == [n + (f" as {a}" if a else "") for n, a in _names(names)]:
        return match.group(0)
    return "\n".join(f"{indent}from {m} import {', '.join(ns)}" for m, ns in groups.items())


def rewrite(text: str, in_core: bool) -> str:
    renames: dict[str, str] = {}
    text = FROM_RE.sub(lambda m: _rewrite_from(m, in_core, renames), text)
    if renames.get("share") == "scenarios":
        text = re.sub(r"\bshare\.MAX_FILE_BYTES\b", "scenarios.MAX_SCENARIO_BYTES", text)
        text = re.sub(r"(?<![\w.])share\.(?=[A-Za-z_])", "scenarios.", text)
    for old, new in renames.items():
        if old not in ("share",):
            text = re.sub(rf"(?<![\w.]){old}\b", new, text)
    for old, new in TEXT:
        text = re.sub(rf"(?<![\w/]){re.escape(old)}(?![\w])", new, text)
    return text


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or [
        p for p in ROOT.rglob("*.py") if ".venv" not in p.parts and "scripts/move_imports.py" not in str(p)
    ]
    for path in paths:
        old = path.read_text(encoding="utf-8")
        rel = path.resolve().relative_to(ROOT).parts
        in_core = rel[0] == "economics" and rel[1:2] != ("io",)
        new = rewrite(old, in_core)
        if new != old:
            path.write_text(new, encoding="utf-8")
            print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
