"""JSON written by the CLI: strict JSON that any reader (jq, a spreadsheet, JavaScript) accepts.

Python's ``json`` writes an infinite or undefined number as ``Infinity`` / ``NaN``, which is not JSON. In the
results such a value means "there is none": an option that cannot serve a workload within its latency target
has no cost per request and no capacity. It is written as ``null``.
"""

from __future__ import annotations

import json
import math
from typing import Any


def finite(value: Any) -> Any:
    """``value`` with every infinite or NaN float, at any depth of dicts, lists and tuples, replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def dumps(document: Any) -> str:
    """``document`` as indented, strict JSON (non-finite numbers as ``null``)."""
    return json.dumps(finite(document), indent=2, allow_nan=False)
