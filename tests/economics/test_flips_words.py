"""How the flip thresholds write a quality gap: a true minus sign, and no sign on zero."""

from __future__ import annotations

import pytest

from economics.flips import _fmt


@pytest.mark.parametrize(
    ("gap", "text"),
    [
        (-0.06, "−6 percentage points"),
        (0.0202, "+2.02 percentage points"),
        (0.0, "0 percentage points"),
        (-0.0, "0 percentage points"),
        (0.2, "+20 percentage points"),
    ],
)
def test_a_quality_gap_reads_with_its_sign(gap: float, text: str) -> None:
    assert _fmt(gap, "quality points (0–1)") == text
