"""No float noise and no negative zero where a person reads a number: the Accuracy page's table of imported runs,
percentages and counts."""

from __future__ import annotations

import math

from economics.calibration_fit import PointResidual
from ui.format import count, pct
from ui.tables import residuals_frame


def test_differences_read_to_a_tenth_of_a_percent_without_negative_zero() -> None:
    # one run fitted exactly left -5e-7 %, shown as "-0.0000005" (and "-0.0" once rounded)
    rows = residuals_frame(
        [
            PointResidual(source="run.json", measured_tokens_per_s=2677.1, predicted_tokens_per_s=2677.1,
                          residual_pct=-5e-7),
            PointResidual(source="b.json line 2", measured_tokens_per_s=100.0, predicted_tokens_per_s=112.34,
                          residual_pct=12.34),
        ]
    )  # fmt: skip
    assert rows["residual_pct"].tolist() == [0.0, 12.3]
    assert math.copysign(1.0, rows["residual_pct"].iloc[0]) == 1.0  # +0.0, not -0.0
    assert rows.columns.tolist() == ["source", "measured_tokens_per_s", "predicted_tokens_per_s", "residual_pct"]
    assert residuals_frame([]).empty


def test_percentages_and_counts_that_round_to_zero_carry_no_minus_sign() -> None:
    assert (pct(-0.00001), pct(-0.004, 1), pct(-0.006)) == ("0%", "-0.4%", "-1%")
    assert (count(-0.0), count(-0.4), count(-0.6), count(-1234.5)) == ("0", "0", "-1", "-1,234")
