"""Base class of every domain model: frozen, strict about unknown fields."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    """A frozen pydantic model that forbids unknown fields.

    Every numeric field of a subclass states its unit at the end of its description, in brackets.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)
