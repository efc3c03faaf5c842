"""Pydantic validation errors as field paths and messages, shared by scenario parsing and link decoding.

Both :func:`economics.scenarios.validation_problems` and the link/file repair of :mod:`economics.share`
report ``path.to.field: message`` lines; this module holds what they share: the dotted path of an error
location and the message without pydantic's ``"Value error, "`` prefix.
"""

from __future__ import annotations

from collections.abc import Iterator, Set

from pydantic import ValidationError

Loc = tuple[int | str, ...]


def field_path(loc: Loc, prefix: Loc = (), skip: Set[str] = frozenset()) -> str:
    """``prefix`` and ``loc`` joined with dots, leaving out the string parts in ``skip`` (e.g. the tags
    pydantic puts into locations of tagged unions).

    >>> field_path(("nodes", 0, "owned", "capex_usd"), skip={"owned"})
    'nodes.0.capex_usd'
    """
    return ".".join(str(p) for p in (*prefix, *loc) if not (isinstance(p, str) and p in skip))


def error_items(error: ValidationError) -> Iterator[tuple[Loc, str, str]]:
    """``(location, error type, message)`` of each error, the message without ``"Value error, "``."""
    for err in error.errors(include_url=False):
        yield tuple(err.get("loc", ())), str(err.get("type", "")), str(err.get("msg", "")).removeprefix("Value error, ")
