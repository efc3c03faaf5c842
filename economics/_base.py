"""Base class of every domain model: frozen, strict about unknown fields, names on one line."""

from __future__ import annotations

import re
import types
import typing
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

#: Line and paragraph breaks and tabs: a name read from a file that carried one split a line of the CLI's
#: output and printed a row no workload has ("KYC\n  W9  fake row  $0").
_BREAKS = re.compile(r"[\t\n\v\f\r\x1c-\x1e\x85\u2028\u2029]+")


def _takes_bool(annotation: Any) -> bool:
    """Whether a field's type admits ``True``/``False`` (itself, or inside a union, a container or Annotated)."""
    if annotation is bool or annotation is Any:
        return True
    args = typing.get_args(annotation)
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is not None:
        return any(_takes_bool(a) for a in args if a is not Ellipsis)
    return False


@cache
def _no_bool_fields(cls: type[BaseModel]) -> frozenset[str]:
    """The fields of ``cls`` whose type does not admit ``True``/``False``."""
    return frozenset(n for n, f in cls.model_fields.items() if not _takes_bool(f.annotation))


class Frozen(BaseModel):
    """A frozen pydantic model that forbids unknown fields.

    Every numeric field of a subclass states its unit at the end of its description, in brackets. A ``name``
    is one line: line breaks and tabs in it become one space each run. ``true``/``false`` is refused where a
    number is asked for (pydantic reads it as 1/0: ``"nodes_owned": true`` bought a node).

    >>> class Named(Frozen):
    ...     name: str
    >>> Named(name="Overnight\\r\\nKYC\\tbatch").name
    'Overnight KYC batch'
    >>> class Count(Frozen):
    ...     nodes: int
    >>> Count(nodes=True)
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for Count
    nodes
      a number is asked for here, not true [type=value_error, input_value=True, input_type=bool]
    """

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    @field_validator("name", mode="before", check_fields=False)
    @classmethod
    def _name_on_one_line(cls, value: Any) -> Any:
        return _BREAKS.sub(" ", value) if isinstance(value, str) else value

    @model_validator(mode="before")
    @classmethod
    def _no_bool_for_a_number(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        refused = _no_bool_fields(cls)  # once per class: this runs for every model built, results included
        wrong = [
            InitErrorDetails(
                type=PydanticCustomError(
                    "value_error", "a number is asked for here, not {word}", {"word": str(v).lower()}
                ),
                loc=(name,),
                input=v,
            )
            for name, v in data.items()
            if v.__class__ is bool and name in refused
        ]
        if wrong:  # located at the field, so every path names it ("nodes.0.nodes_owned")
            raise ValidationError.from_exception_data(cls.__name__, wrong)
        return data
