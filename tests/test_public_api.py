"""The public API is deliberate: ``economics.__all__`` lists what is supported, and only that.

Like httpx's tests/test_exported_members.py: every listed name exists and is defined inside the package,
nothing private is exported, the list is sorted and has no duplicates, and each exported callable is
documented. And the dashboard and the meeting pack (``ui/``, ``pages/``, ``reporting/``) import from
``economics`` only what ``__all__`` lists, apart from a shrinking list of known bypasses.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import typing
from pathlib import Path

import pytest
from pydantic import BaseModel

import economics


def test_every_name_in_all_is_importable() -> None:
    for name in economics.__all__:
        assert hasattr(economics, name), name


def test_nothing_private_is_exported() -> None:
    assert [n for n in economics.__all__ if n.startswith("_")] == []


def test_all_is_sorted_and_unique() -> None:
    names = list(economics.__all__)
    assert len(names) == len(set(names))
    constants = [n for n in names if n.isupper()]
    others = [n for n in names if not n.isupper()]
    # ruff's RUF022 order: SCREAMING_CASE first, then CamelCase, then snake_case, each alphabetical
    camel = [n for n in others if n[0].isupper()]
    snake = [n for n in others if not n[0].isupper()]
    assert names == sorted(constants) + sorted(camel) + sorted(snake)


def test_exports_come_from_the_package_and_are_documented() -> None:
    for name in economics.__all__:
        obj = getattr(economics, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert obj.__module__.startswith("economics."), name
            assert inspect.getdoc(obj), f"{name} has no docstring"


def test_public_names_not_in_all_are_submodules_only() -> None:
    # `from economics import *` must give exactly __all__; other public attributes are the submodules
    # Python binds on import, which are not part of the API.
    extra = {n for n in vars(economics) if not n.startswith("_")} - set(economics.__all__) - {"annotations"}
    assert all(inspect.ismodule(getattr(economics, n)) for n in extra), sorted(extra)


# ---- the UI layers use the public API ---------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
UI_LAYERS = ("ui", "pages", "reporting")

#: Imports of non-public names that remain, with the reason they are not (yet) in ``economics.__all__``.
#: The list may only shrink: a new import of a name outside ``__all__`` fails the test below.
KNOWN_BYPASSES: dict[tuple[str, str], str] = {
    **{
        ("economics.views." + module, name): "page view models: views/ is being rewritten onto the core (issue 10)"
        for module, names in {
            "batching": (
                "BatchPoint",
                "BatchingAnalysis",
                "BatchingInputs",
                "batch_point",
                "batching_analysis",
                # the Batching page's study and its crossover in words, shared with the Argument page (s14-2)
                "ar_options_in_study_order",
                "catch_up_words",
                "speculation_option",
                "workloads_in_study_order",
            ),
            "breakeven": (
                "AXIS_LABEL",
                "AXIS_NAME",
                "Axis",
                "BreakEvenAnalysis",
                "BreakEvenInputs",
                "break_even_analysis",
            ),
            "cost": (
                "CostAnalysis",
                "CostAtUtilization",
                "CostInputs",
                "NodeCost",
                "VariantCapacity",
                "capacity_key",
                "cost_analysis",
                "cost_at",
                "node_costs",
                "variant_capacities",
            ),
            "kinds": ("DisplayKind", "KIND_ORDER", "option_kinds"),
            "quadrant": ("Quadrant", "quadrant"),
        }.items()
        for name in names
    },
    ("economics.io", "scenarios"): "module import of the scenario format (links, uploads); used as a namespace",
    ("economics", "store"): "module import; the review store moves to storage/ (issue 15)",
    ("economics.io.price_csv", "CSV_COLUMNS"): "price CSV import moves to the I/O package (issue 15)",
    ("economics.io.price_csv", "read_negotiated_csv"): "price CSV import moves to the I/O package (issue 15)",
    ("economics.io.price_csv", "template_csv"): "price CSV import moves to the I/O package (issue 15)",
}


def _economics_imports(path: Path) -> list[tuple[str, str]]:
    """(module, name) for every name a file imports from the economics package."""
    found: list[tuple[str, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "economics":
            found += [(node.module, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(a.name, "*module*") for a in node.names if a.name.split(".")[0] == "economics"]
    return found


def _bypasses() -> dict[tuple[str, str], list[str]]:
    public = set(economics.__all__)
    out: dict[tuple[str, str], list[str]] = {}
    for layer in UI_LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            for module, name in _economics_imports(path):
                if name not in public:
                    out.setdefault((module, name), []).append(str(path.relative_to(ROOT)))
    return out


def test_ui_pages_and_reporting_import_only_the_public_api() -> None:
    new = {k: v for k, v in _bypasses().items() if k not in KNOWN_BYPASSES}
    assert new == {}, "add the name to economics.__all__ (if it is public) or import a public one instead"


def test_the_bypass_check_sees_a_private_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from economics.costs import _safe_ratio\nfrom economics import evaluate\n", encoding="utf-8")
    assert [(m, n) for m, n in _economics_imports(bad) if n not in economics.__all__] == [
        ("economics.costs", "_safe_ratio")
    ]


# ---- every number in every model carries its unit -----------------------------------------------------------------


def _public_models() -> list[tuple[str, type[BaseModel]]]:
    """(module.Class, class) for every public pydantic model defined in a public economics module."""
    found = []
    for info in pkgutil.walk_packages(economics.__path__, "economics."):
        if info.name.rsplit(".", 1)[-1].startswith("_"):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (
                not name.startswith("_")
                and inspect.isclass(obj)
                and issubclass(obj, BaseModel)
                and obj.__module__ == info.name
            ):
                found.append((f"{info.name}.{name}", obj))
    return found


def _is_number(annotation: object) -> bool:
    """int or float, optionally ``| None``."""
    if annotation in (int, float):
        return True
    args = typing.get_args(annotation)
    return bool(args) and any(a in (int, float) for a in args) and all(a in (int, float, type(None)) for a in args)


@pytest.mark.parametrize(("name", "model"), _public_models(), ids=lambda x: x if isinstance(x, str) else "")
def test_every_number_in_every_model_states_its_unit(name: str, model: type[BaseModel]) -> None:
    missing = [
        field
        for field, info in model.model_fields.items()
        if _is_number(info.annotation) and not (info.description or "").rstrip().endswith("]")
    ]
    assert missing == [], f"{name}: numeric fields without a [unit] at the end of their description: {missing}"


def test_the_unit_check_covers_the_core_models() -> None:
    names = {n for n, _ in _public_models()}
    assert {"economics.workload.Workload", "economics.hardware.GPU", "economics.result.FleetSummary"} <= names
    assert _is_number(float | None)
    assert not _is_number(str)
