"""The layer rule: economics/ is the pure core and never imports streamlit or plotly (README, Architecture).

ruff's banned-api rule (TID251) checks this at lint time; this test checks it again on the AST, so a
``per-file-ignores`` slip or an ``importlib`` string cannot hide a violation.
"""

from __future__ import annotations

import ast
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
