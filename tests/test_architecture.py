"""The layer rule: economics/ is the pure core and never imports streamlit or plotly (README, Architecture),
nor the outer rooms (cli/, storage/, reporting/, ui/); the CLI and the store import only what their room may.

ruff's banned-api rule (TID251) checks this at lint time; this test checks it again on the AST, so a
``per-file-ignores`` slip or an ``importlib`` string cannot hide a violation.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BANNED = ("streamlit", "plotly")
CORE_FILES = sorted((ROOT / "economics").rglob("*.py"))


def imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


@pytest.mark.parametrize("path", CORE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_core_module_does_not_import_ui_libraries(path: Path) -> None:
    bad = [m for m in imported_modules(path) if m.split(".")[0] in BANNED]
    assert bad == [], f"{path.relative_to(ROOT)} imports {bad}"


def test_the_checker_sees_a_banned_import(tmp_path: Path) -> None:
    # The rule above must be able to fail: a file that imports plotly is caught.
    bad = tmp_path / "bad.py"
    bad.write_text("import numpy\nfrom plotly import graph_objects as go\n", encoding="utf-8")
    assert [m for m in imported_modules(bad) if m.split(".")[0] in BANNED] == ["plotly"]


def test_core_never_reads_the_shared_reference_at_run_time() -> None:
    offenders = [
        str(p.relative_to(ROOT))
        for p in CORE_FILES
        if "../shared" in p.read_text(encoding="utf-8") or "/shared/reference" in p.read_text(encoding="utf-8")
    ]
    assert offenders == []


# ---- the rooms: which project package may import which (README, Architecture) -------------------------------------

#: The project's top-level packages.
PROJECT = frozenset({"economics", "cli", "storage", "reporting", "ui", "deploy", "pages", "app"})
#: What each room may import from the project: the core only itself; the review store (at the edge) the core's
#: models; the command line the core, the meeting pack and the store.
ROOMS: dict[str, frozenset[str]] = {
    "economics": frozenset({"economics"}),
    "storage": frozenset({"storage", "economics"}),
    "cli": frozenset({"cli", "economics", "reporting", "storage"}),
}
#: ``python -m economics`` runs the CLI through this shim; economics itself never imports cli.
ROOM_EXCEPTIONS = {("economics/__main__.py", "cli.main")}


def _room_violations(room: str) -> list[str]:
    out = []
    for path in sorted((ROOT / room).rglob("*.py")):
        rel = str(path.relative_to(ROOT))
        for module in imported_modules(path):
            top = module.split(".")[0]
            if top in PROJECT and top not in ROOMS[room] and (rel, module) not in ROOM_EXCEPTIONS:
                out.append(f"{rel} imports {module}")
    return out


@pytest.mark.parametrize("room", sorted(ROOMS))
def test_each_room_imports_only_what_it_may(room: str) -> None:
    assert _room_violations(room) == []


def test_the_room_check_sees_the_core_importing_the_store(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from storage.reviews import open_store\nfrom economics.io import scenarios\n", encoding="utf-8")
    assert [m for m in imported_modules(bad) if m.split(".")[0] not in ROOMS["economics"]] == ["storage.reviews"]


def test_the_cli_lives_outside_the_core() -> None:
    # the command line is its own package; economics keeps only the shim that runs it
    assert not list((ROOT / "economics").glob("cli*.py"))
    assert (ROOT / "cli" / "main.py").is_file()


# ---- ui: the parts reporting and the CLI rely on stay free of Streamlit ------------------------------------------

#: Modules that build figures, format numbers and tables: the meeting pack (reporting/) and the CLI use them
#: outside a Streamlit session, so they must never import streamlit, directly or through another module.
STREAMLIT_FREE = sorted(
    [
        *(ROOT / "ui" / "charts").rglob("*.py"),
        ROOT / "ui" / "format.py",
        ROOT / "ui" / "tables.py",
        ROOT / "ui" / "theme.py",
        ROOT / "ui" / "palette.py",
        ROOT / "ui" / "axes.py",
        *(ROOT / "reporting").rglob("*.py"),
        *(ROOT / "cli").rglob("*.py"),
    ]
)


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


@pytest.mark.parametrize("path", STREAMLIT_FREE, ids=lambda p: str(p.relative_to(ROOT)))
def test_pure_ui_module_does_not_import_streamlit(path: Path) -> None:
    bad = [m for m in imported_modules(path) if m.split(".")[0] == "streamlit"]
    assert bad == [], f"{path.relative_to(ROOT)} imports {bad}"


def test_pure_ui_modules_do_not_load_streamlit_through_another_module() -> None:
    # the AST rule above sees direct imports; a fresh interpreter catches an indirect one
    names = [_module_name(p) for p in STREAMLIT_FREE]
    code = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n    importlib.import_module(name)\n"
        "print('streamlit' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr


def test_ui_never_imports_reporting() -> None:
    # reporting uses ui's pure builders; the other direction would make a cycle (the Reviews page hands
    # reporting.meeting_pack.pack_downloads to its widget instead)
    offenders = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "ui").rglob("*.py")
        if any(m.split(".")[0] == "reporting" for m in imported_modules(p))
    ]
    assert offenders == []


def test_reporting_builds_no_html_from_strings() -> None:
    # the pack's HTML comes from autoescaping Jinja2 templates: no manual escaping, no markup in Python strings
    offenders = []
    for path in (ROOT / "reporting").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "html" in {m.split(".")[0] for m in imported_modules(path)} or re.search(
            r"<(td|tr|table|h[1-6]|p|li)\b", text
        ):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_the_pack_template_escapes() -> None:
    from reporting.html import _template

    assert _template().environment.autoescape is True


# ---- every property test on the one hypothesis profile -------------------------------------------------------------


def _own_settings(path: Path) -> list[int]:
    """Lines where a test builds hypothesis settings that do not derive from the shared profile."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "settings":
            derived = bool(node.args) and isinstance(node.args[0], ast.Name)
            tuned = {k.arg for k in node.keywords} - {"max_examples"}
            if not derived or tuned:
                lines.append(node.lineno)
    return lines


def test_property_tests_use_the_shared_hypothesis_profile() -> None:
    # tests/strategies.py registers the profile and tests/conftest.py loads it; a test may only derive from
    # it with another number of examples, so derandomization, deadline and health checks are the same everywhere
    offenders = {
        str(p.relative_to(ROOT)): _own_settings(p)
        for p in sorted((ROOT / "tests").rglob("*.py"))
        if p.name not in {"strategies.py", "conftest.py"} and _own_settings(p)
    }
    assert offenders == {}


def test_the_profile_check_sees_a_private_profile(tmp_path: Path) -> None:
    bad = tmp_path / "test_bad.py"
    bad.write_text("S = settings(max_examples=5, deadline=None)\nT = settings(PROPERTIES, max_examples=9)\n")
    assert _own_settings(bad) == [1]
