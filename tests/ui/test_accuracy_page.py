"""The Accuracy page in AppTest: figures from economics.calibration_report, the upload path's economics."""

from __future__ import annotations

from economics.calibration_report import calibration_report
from tests.ui.helpers import chart, metrics, run_page


def test_accuracy_page_shows_the_report() -> None:
    at = run_page("8_accuracy")
    report = calibration_report()
    shown = metrics(at)
    assert shown["Measured rows compared"] == str(len(report.table))
    assert shown["Typical error (median)"] == f"{report.breakdown.iloc[0]['median_ape_pct']:.0f}%"
    spec = chart(at, "Model against measurement")
    points = sum(len(t["x"]) for t in spec["data"] if t.get("mode") == "markers")
    assert points == len(report.table)
    assert {"one request at a time", "fixed number of clients", "saturated / latency target"} <= {
        t["name"] for t in spec["data"]
    }
    assert len(at.dataframe) >= 2
