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
import tomllib
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


def test_every_importable_room_ships_with_pip_install() -> None:
    # pyproject's explicit package list: a room (or a subpackage) left out imports from a checkout but not from
    # an install (``pip install -e .`` then ``import storage`` elsewhere); pages/ and app.py run in place
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    found = {
        _module_name(init)
        for room in sorted(PROJECT - {"pages", "app"})
        for init in (ROOT / room).rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert found - listed == set()


# ---- one formula, one place ---------------------------------------------------------------------------------------

#: Where an hour of a node at a utilization, ``C_fixed + C_var·U``, may be written: its one function.
HOURLY_COST_HOME = ("economics/costs.py", "hourly_cost_usd")
APP_FILES = sorted(p for room in ("economics", "ui", "pages", "reporting", "cli") for p in (ROOT / room).rglob("*.py"))


def _ident(node: ast.AST) -> str:
    """The name an operand is written with (``fixed``, ``curve.replica_variable_usd_per_hour``), else ''."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _variable_times_utilization(node: ast.AST) -> bool:
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
        return False
    names = {_ident(node.left).lower(), _ident(node.right).lower()}
    return any(n.startswith("var") or "_var" in n for n in names)


def hourly_cost_formulas(path: Path) -> list[str]:
    """``fixed + variable * U`` written out (outside the one function): ``file:line`` of each."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    home: set[int] = set()
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and fn.name == HOURLY_COST_HOME[1]:
            home |= {n.lineno for n in ast.walk(fn) if hasattr(n, "lineno")}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and node.lineno not in home:
            sides = (node.left, node.right)
            if any("fixed" in _ident(a).lower() for a in sides) and any(_variable_times_utilization(b) for b in sides):
                found.append(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}:{node.lineno}")
    return found


def test_the_hourly_cost_at_a_utilization_is_written_once() -> None:
    # docs/costs.md#hourly-cost-at-a-utilization: every caller (views/ too) calls economics.costs.hourly_cost_usd
    assert [f for p in APP_FILES for f in hourly_cost_formulas(p)] == []
    assert hourly_cost_formulas(ROOT / HOURLY_COST_HOME[0]) == []  # its own body is exempt, nothing else


def test_the_formula_check_sees_an_inline_copy(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "c = fixed + variable * u\n"
        "d = curve.replica_fixed_usd_per_hour + curve.replica_variable_usd_per_hour * o.utilization\n"
        "e = (fixed + var * np.asarray(u)) * scale\n"
        "ok = fixed + hourly_cost_usd(0.0, variable, u)\n",
        encoding="utf-8",
    )
    assert hourly_cost_formulas(bad) == ["bad.py:1", "bad.py:2", "bad.py:3"]


# ---- views/ draw, the core prices (issue 11, "one formula, one place") --------------------------------------------
# What this checks, honestly: a name-based AST heuristic, not a proof. In economics/views/ no product or quotient
# may mix an operand named like money (usd, cost, price, fixed, var, c_h, c_api) with one named like a rate or a
# load (tokens_per_s, requests_per_s, utilization, lam, cap, demand, throughput, u) — that is a cost formula and
# belongs in economics/costs.py or economics/option_costs.py — and no sum may add a fixed to a variable cost
# (C_h at full load written out). A cost written with neutral names (``a * b``) would slip through, so the second
# test also names the core functions each page's view must call.

VIEW_FILES = sorted((ROOT / "economics" / "views").glob("*.py"))
_MONEY = re.compile(r"(^|_)(usd|cost|costs|price|prices|fixed|var|variable|c_h|c_api)(_|$)")
_RATE = re.compile(r"(^|_)(tokens_per_s|requests_per_s|utilization|lam|cap|demand|throughput|u)(_|$)")


def _leaves(node: ast.AST) -> list[str]:
    """Identifiers of the factors of a product/quotient chain (``np.asarray(u)`` reads as ``u``)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult | ast.Div):
        return _leaves(node.left) + _leaves(node.right)
    if isinstance(node, ast.Call) and _ident(node.func) in {"asarray", "array", "float"} and node.args:
        return _leaves(node.args[0])
    if isinstance(node, ast.Subscript):
        return _leaves(node.value)
    return [_ident(node).lower()]


def view_cost_formulas(path: Path) -> list[str]:
    """``file:line: operands`` of each cost formula written out in a view module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult | ast.Div):
            names = _leaves(node)
            if any(_MONEY.search(n) for n in names) and any(_RATE.search(n) for n in names):
                found.append(f"{path.name}:{node.lineno}: {' '.join(names)}")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            sides = [_ident(node.left).lower(), _ident(node.right).lower()]
            if any("fixed" in n for n in sides) and any(re.search(r"(^|_)var", n) for n in sides):
                found.append(f"{path.name}:{node.lineno}: {' + '.join(sides)}")
    return sorted(set(found))


def test_views_write_no_cost_formula() -> None:
    assert [f for p in VIEW_FILES for f in view_cost_formulas(p)] == []


def test_the_view_check_sees_a_cost_written_in_a_view(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "a = 1e6 * c_h / (3600 * x_cap * u)\n"
        "b = fixed + var\n"
        "c = api.cost_usd_per_request / np.asarray(capacity.lam)\n"
        "ok = cost_per_mtok(c_api * k, wl.output_tokens)\n",
        encoding="utf-8",
    )
    assert [f.split(":")[1] for f in view_cost_formulas(bad)] == ["1", "2", "3"]


#: The core cost path each page's view must call (the names, so a rename or an inline copy is noticed).
VIEW_COST_PATHS = {
    "cost.py": {"owned_cost_per_mtok_at_utilization", "break_even_utilization", "api_option_arrays"},
    "breakeven.py": {
        "owned_cost_per_request",
        "owned_cost_per_request_at_utilization",
        "break_even_utilization",
        "break_even_demand",
        "api_option_arrays",
    },
    "batching.py": {"replica_usd_per_hour", "cost_per_mtok_capacity_form"},
    "quadrant.py": {"evaluate_grid"},
}


@pytest.mark.parametrize("name", sorted(VIEW_COST_PATHS))
def test_each_view_calls_the_core_cost_paths(name: str) -> None:
    tree = ast.parse((ROOT / "economics" / "views" / name).read_text(encoding="utf-8"))
    called = {_ident(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    assert VIEW_COST_PATHS[name] - called == set()


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
