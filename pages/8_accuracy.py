"""Accuracy: how close the throughput model is to measured benchmarks, and calibration to your own runs."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from economics.calibration_fit import fit_profile
from economics.calibration_report import DIMENSION_NAMES, GROUP_NAMES, AccuracyReport, calibration_report
from economics.engines import load_engines
from economics.hardware import PRECISIONS
from economics.io import MAX_FILE_BYTES, BenchmarkFormatError, RunContext, match_catalog_models, read_benchmark
from economics.io.catalog import load_catalog
from ui import format as fmt
from ui.charts.accuracy import accuracy_figure
from ui.tables import residuals_frame
from ui.widgets.calibration import calibration_in_use, use_calibration
from ui.widgets.table import number
from ui.widgets.table import table as show_table


@st.cache_resource(show_spinner=False)
def _report() -> AccuracyReport:
    return calibration_report()


st.title("Accuracy of the throughput model")
st.caption(
    "Every cost and routing figure rests on how many tokens per second a GPU produces. Here the model's number "
    "is set against published measurements (MLPerf, vendor and engine benchmarks), with the same default "
    "settings everywhere: nothing is tuned to a particular row. Upload your own benchmark results to fit the "
    "settings to your stack."
)
COLUMNS = {"group": "Group of rows", "n": "Rows", "median_ape_pct": "Median error [%]",
           "p90_ape_pct": "1 row in 10 worse than [%]", "median_error_pct": "Bias [%]"}  # fmt: skip
report = _report()
table = report.breakdown.assign(
    group=[
        "all rows" if d == "all" else f"{DIMENSION_NAMES.get(d, d)}: {GROUP_NAMES.get(g, g)}"
        for d, g in zip(report.breakdown["dimension"], report.breakdown["group"], strict=True)
    ]
)
overall = table.iloc[0]
c1, c2, c3 = st.columns(3)
excluded_help = (
    f"{len(report.excluded)} more rows cannot be represented (speculative decoding, text diffusion, unpublished "
    "architectures); see the list below."
)
c1.metric("Measured rows compared", f"{int(overall['n'])}", help=excluded_help)
c2.metric("Typical error (median)", f"{overall['median_ape_pct']:.0f}%")
c3.metric("Bad case (1 row in 10 is worse)", f"{overall['p90_ape_pct']:.0f}%")

chart_slot = st.empty()  # drawn after the upload below is read, so a new file's runs show at once
st.subheader("Error by kind of measurement")
st.caption("Median: half the rows are closer than this. 90th percentile: one row in ten is further off. "
           "Bias above 0 means the model promises more tokens per second than was measured.")  # fmt: skip
# every group visible without scrolling inside the table; the group's name stays in view at 1,024 px
show_table(
    table[["group", "n", "median_ape_pct", "p90_ape_pct", "median_error_pct"]].rename(columns=COLUMNS).round(0),
    key="accuracy_groups",
    file_name="model_accuracy_by_group.csv",
    height="content",
)

st.subheader("Calibrate to your own benchmark runs")
st.caption(
    "Accepted: vLLM `bench serve` result JSON (or a `bench sweep` summary), SGLang `bench_serving`, "
    "`bench_one_batch`, `bench_one_batch_server` or `bench_offline_throughput` JSONL, NVIDIA GenAI-Perf / AIPerf "
    "exports (JSON or CSV), LLMPerf summary JSON, GuideLLM `benchmarks.json`, or a CSV with the columns model, "
    "gpu, gpu_count, precision, input_tokens, output_tokens, concurrency, output_tokens_per_s. "
    f"At most {MAX_FILE_BYTES // 1_000_000} MB. "
    "A run at a set request rate, an export that does not record its concurrency, or a run with no more "
    "requests than its concurrency limit is read at the requests it actually had in flight (requests per "
    "second × average request time)."
)
calibration_in_use()
catalog = load_catalog()
# the long names on a row of their own: five columns cut them at 1,024 px ("Llama 3.1", "NVIDIA H1")
cols = [*st.columns(2), *st.columns(3)]
engines = load_engines()
# names, not catalog ids ("llama-3.1-8b", "h100-sxm", "vllm"); the uploader states the page's own size cap
model_id = cols[0].selectbox("Model", list(catalog.models), index=0, format_func=lambda i: catalog.models[i].name)
gpu_id = cols[1].selectbox("GPU", list(catalog.gpus), index=0, format_func=lambda i: catalog.gpus[i].name)
gpus = int(cols[2].number_input("GPUs", min_value=1, max_value=64, value=1, step=1))
precision = cols[3].selectbox("Precision", list(PRECISIONS), index=1, format_func=str.upper)
engine = cols[4].selectbox("Engine", list(engines), index=1, format_func=lambda i: engines[i].name)
upload = st.file_uploader(
    "Benchmark result file", type=["json", "jsonl", "csv"], max_upload_size=max(1, MAX_FILE_BYTES // 1_000_000)
)
if upload is not None:
    data = upload.getvalue()
    try:
        context = RunContext(model_id=model_id, gpu_id=gpu_id, gpus=gpus, precision=precision, engine=engine)
        points = match_catalog_models(upload.name, read_benchmark(upload.name, data[: MAX_FILE_BYTES + 1], context),
                                      catalog.models, catalog.gpus)  # fmt: skip
        profile = fit_profile(points, catalog.gpus, catalog.models)
    except (BenchmarkFormatError, ValueError) as exc:
        st.error(f"Could not use this file: {fmt.md_escape(str(exc))}")  # the file names itself: not markdown
    else:
        st.session_state["calibration_profile"] = profile
        for line in profile.warnings:  # a factor on its bound, or runs no efficiency fits: said before the figures
            st.warning(fmt.md_escape(line))
        rows = residuals_frame(profile.residuals)
        st.session_state["accuracy_user_rows"] = rows
        spread = (
            f"your runs sit within {profile.residual_sd_log:.0%} of the fitted model (typical)"
            if profile.spread_measured
            else f"two settings fitted to {fmt.plural(profile.n_points, 'run')} leave nothing to measure the "
            f"spread with, so its likely range assumes {profile.residual_sd_log:.0%}: upload three or more runs "
            "(different concurrencies) to measure it"
        )
        st.success(
            f"Fitted on {fmt.plural(profile.n_points, 'run')}: the stack reaches {profile.mbu:.0%} of the memory "
            f"bandwidth and {profile.mfu_decode:.0%} of the peak arithmetic the model assumes at most; {spread}. "
            "Your runs are the stars in the chart above."
        )
        measured, modelled, difference = ("Measured [output tok/s]", "Model, fitted [output tok/s]",
                                          "Difference [%]")  # fmt: skip
        show_table(rows.rename(columns={"source": "Run", "measured_tokens_per_s": measured,
                                        "predicted_tokens_per_s": modelled, "residual_pct": difference}),
                   key="accuracy_your_runs", file_name="your_runs_vs_model.csv",
                   column_config={measured: number(), modelled: number(), difference: number(fmt="%+.1f")})  # fmt: skip
        st.session_state["calibration_fitted_on"] = upload.name
user_rows: pd.DataFrame | None = st.session_state.get("accuracy_user_rows")
chart_slot.plotly_chart(accuracy_figure(report.table, user_rows), width="stretch")
fitted = st.session_state.get("calibration_profile")
if fitted is not None:  # the last fit of this session, until another file replaces it
    use_calibration(fitted, str(st.session_state.get("calibration_fitted_on", "your benchmark file")))

with st.expander(f"Rows the model cannot represent ({len(report.excluded)})"):
    excluded = pd.DataFrame(
        [
            {"Measurement": e.label, "Data set": d, "Row": e.row, "Why it is left out": e.reason}
            for d, e in report.excluded
        ]
    )
    show_table(excluded, key="accuracy_excluded", file_name="rows_not_modelled.csv")
