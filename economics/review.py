"""A saved price review as data: its summary line and its stored content (pure models, no storage code).

The review store (:mod:`storage`) writes and reads these; :mod:`economics.compare` diffs them. A review is
immutable once saved: ``content_hash`` is the SHA-256 of everything saved (see :mod:`storage.hashing`), shown
on the Reviews page and in the meeting pack, and checked again whenever the review is opened. A later
review can *supersede* an earlier one (``supersedes_id``); nothing is ever overwritten.
"""

from __future__ import annotations

import datetime as dt

from pydantic import Field

from economics._base import Frozen
from economics.price_book import PriceEntry
from economics.result import Result
from economics.scenario import Scenario

__all__ = ["ReviewSummary", "SavedReview"]


class ReviewSummary(Frozen):
    """One line of the review list."""

    id: int = Field(description="review id, assigned on save [-]")
    name: str = Field(description="name the reviewer gave [-]")
    review_date: dt.date = Field(description="date the prices are taken as of [-]")
    saved_at: dt.datetime = Field(description="when the review was saved (UTC) [-]")
    notes: str = Field(description="the reviewer's notes [-]")
    price_count: int = Field(description="prices stored with the review [count]")
    app_version: str = Field(description="version of the code that saved it [-]")
    saved_by: str = Field(default="", description="who saved it: the signed-in user, else the name typed [-]")
    content_hash: str = Field(default="", description="'sha256:' + hex digest of everything saved [-]")
    supersedes_id: int | None = Field(default=None, description="the earlier review this one replaces [-]")
    superseded_by_id: int | None = Field(default=None, description="the first later review replacing it [-]")

    @property
    def short_hash(self) -> str:
        """The first 12 hex digits of the content hash, as shown on the page."""
        return self.content_hash.removeprefix("sha256:")[:12]


class SavedReview(Frozen):
    """A review as saved: the parsed scenario, result and prices, plus the exact stored JSON text."""

    summary: ReviewSummary = Field(description="id, name, dates and notes [-]")
    scenario: Scenario = Field(description="the scenario as saved, self-contained [-]")
    result: Result = Field(description="the result as saved, not recomputed [-]")
    prices: tuple[PriceEntry, ...] = Field(description="the resolved prices as saved [-]")
    scenario_json: str = Field(description="the scenario exactly as stored [-]")
    result_json: str = Field(description="the result exactly as stored [-]")

    @property
    def id(self) -> int:
        """The review id."""
        return self.summary.id

    @property
    def name(self) -> str:
        """The review name."""
        return self.summary.name
