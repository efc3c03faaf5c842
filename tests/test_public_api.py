"""The public API is deliberate: ``economics.__all__`` lists what is supported, and only that.

Like httpx's tests/test_exported_members.py: every listed name exists and is defined inside the package,
nothing private is exported, the list is sorted and has no duplicates, and each exported callable is
documented.
"""

from __future__ import annotations

import inspect

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
