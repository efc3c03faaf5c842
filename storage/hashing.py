"""The content hash of a saved review: SHA-256 over everything saved, in one canonical JSON text.

Covered: name, review date, saved-at, saved-by, notes, the review it supersedes, the scenario JSON, the result
JSON and every price entry's JSON in order. Not covered: the id (assigned by the database) and the app version.
Changing any covered byte changes the hash, so a row edited behind the application's back is detected when the
review is opened. The recipe is versioned by its prefix (``sha256:``); never change it, add a new prefix.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

__all__ = ["content_hash"]


def content_hash(
    *,
    name: str,
    review_date: str,
    saved_at: str,
    saved_by: str,
    notes: str,
    supersedes_id: int | None,
    scenario_json: str,
    result_json: str,
    price_entries_json: Sequence[str],
) -> str:
    """``"sha256:" + hexdigest`` of the review's canonical JSON.

    >>> content_hash(name="Q3", review_date="2025-09-30", saved_at="2025-10-01T09:30:00+00:00", saved_by="",
    ...              notes="", supersedes_id=None, scenario_json="{}", result_json="{}", price_entries_json=[])[:19]
    'sha256:e3db8b3e16b6'
    """
    document = {
        "name": name,
        "review_date": review_date,
        "saved_at": saved_at,
        "saved_by": saved_by,
        "notes": notes,
        "supersedes_id": supersedes_id,
        "scenario_json": scenario_json,
        "result_json": result_json,
        "prices": list(price_entries_json),
    }
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
