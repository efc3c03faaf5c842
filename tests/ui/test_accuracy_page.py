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


def test_a_fitted_calibration_goes_into_the_scenario_and_out_again() -> None:
    from economics.calibration_fit import fit_profile
    from economics.io import read_benchmark
    from economics.io.catalog import load_catalog
    from tests.ui.helpers import ROOT

    csv = ROOT / "tests" / "data" / "benchmarks" / "plain_runs.csv"
    catalog = load_catalog()
    profile = fit_profile(read_benchmark(csv.name, csv.read_bytes(), None), catalog.gpus, catalog.models)
    at = run_page("8_accuracy")
    assert any("No calibration in use" in c.value for c in at.caption)
    at.session_state["calibration_profile"] = profile
    at.session_state["calibration_fitted_on"] = csv.name
    at.run()
    # the default scenario serves llama-3.1-8b on H100 SXM through its owned 8B AR option only: preselected
    assert at.multiselect(key="calibration_targets").value == ["owned-8b-ar"]
    at.button(key="calibration_use").click().run()
    assert not at.exception
    scenario = at.session_state["_scenario"]
    calibrated = [o.id for o in scenario.owned_options if o.calibration is not None]
    assert calibrated == ["owned-8b-ar"]
    assert any("Calibrated throughput in use" in i.value and "3 benchmark points" in i.value for i in at.info)
    at.button(key="calibration_clear").click().run()
    assert [o.id for o in at.session_state["_scenario"].owned_options if o.calibration is not None] == []
