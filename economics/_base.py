"""Base class of every domain model: frozen, strict about unknown fields, names on one line."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

#: Line and paragraph breaks and tabs: a name read from a file that carried one split a line of the CLI's
#: output and printed a row no workload has ("KYC\n  W9  fake row  $0").
_BREAKS = re.compile(r"[\t\n\v\f\r\x1c-\x1e\x85\u2028\u2029]+")


class Frozen(BaseModel):
    """A frozen pydantic model that forbids unknown fields.

    Every numeric field of a subclass states its unit at the end of its description, in brackets. A ``name``
    is one line: line breaks and tabs in it become one space each run.

    >>> class Named(Frozen):
    ...     name: str
    >>> Named(name="Overnight\\r\\nKYC\\tbatch").name
    'Overnight KYC batch'
    """

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    @field_validator("name", mode="before", check_fields=False)
    @classmethod
    def _name_on_one_line(cls, value: Any) -> Any:
        return _BREAKS.sub(" ", value) if isinstance(value, str) else value
