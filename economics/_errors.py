"""Scenario errors and the one formatter of pydantic validation errors as ``path.to.field: message`` lines.

Scenario files, uploads and share links (:mod:`economics.io.scenarios`) and the domain checks that reject a
scenario (prices, currency, the horizon) all report problems through :class:`ScenarioError` and
:func:`validation_problems`: the dotted path of an error location (without the tags of tagged unions) and
the message without pydantic's ``"Value error, "`` prefix.
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


#: Discriminator tags pydantic puts into error locations of tagged unions; they are not field names.
UNION_TAGS = frozenset({"rented", "owned", "ar", "diffusion", "speculative"})


class ScenarioError(ValueError):
    """A scenario that cannot be read or validated; ``problems`` holds one line per problem."""

    def __init__(self, problems: list[str] | tuple[str, ...]) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        super().__init__("\n".join(self.problems))


def validation_problems(error: ValidationError, prefix: Loc = ()) -> list[str]:
    """One line per pydantic error, ``field.path: message``, the path starting with ``prefix``.

    The scenario's own cross-reference check reports several problems in one ``ValueError`` whose message
    already reads ``path: message; path: message``; those are split into their own lines (under ``prefix``).
    An unknown field reads ``path: unknown field``.

    >>> from economics.scenario import Scenario
    >>> try:
    ...     Scenario.model_validate({"name": "x"})
    ... except ValidationError as e:
    ...     validation_problems(e)[:2]
    ['review_date: Field required', 'gpus: Field required']
    """
    lines: list[str] = []
    items = list(error_items(error))
    inner = {loc[:-1] for loc, _, _ in items if loc} | {loc[:-2] for loc, _, _ in items if len(loc) > 1}
    for loc, kind, msg in items:
        if kind == "too_short" and loc in inner:  # "at least 1 item after validation, not 0": its items were bad
            continue
        path = field_path(loc, prefix, UNION_TAGS)
        if ": " in msg and not field_path(loc, (), UNION_TAGS):  # a model-level check naming its own paths
            lines.extend(f"{path + '.' if path else ''}{part.strip()}" for part in msg.split("; ") if part.strip())
        elif kind == "extra_forbidden":
            lines.append(f"{path}: unknown field")
        else:
            lines.append(f"{path or '(scenario)'}: {msg}")
    return lines
