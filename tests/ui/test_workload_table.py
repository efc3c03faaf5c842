"""The workloads table: an exact round trip, and messages that name the row and the column of every problem."""

from __future__ import annotations

import csv
import io

import pandas as pd

from economics.io.scenarios import default_scenario
from economics.workload import Workload
from ui.tables import csv_bytes
from ui.workload_table import read_workloads, workloads_file_frame, workloads_frame

WORKLOADS = default_scenario().workloads


def test_round_trip_is_exact_in_display_units() -> None:
    frame = workloads_frame(WORKLOADS)
    # the onboarding TPOT SLO of 0.03 s shows as 30 ms/token; the KYC deadline of 28,800 s as 8 h
    assert frame.loc[1, "Per-token target [ms/token]"] == 30
    assert frame.loc[0, "Deadline [h]"] == 8
    workloads, messages = read_workloads(frame, WORKLOADS)
    assert messages == []
    assert workloads == WORKLOADS  # quality overrides kept by id


def test_messages_name_row_and_column() -> None:
    frame = workloads_frame(WORKLOADS)
    frame.loc[0, "Output [tokens]"] = 0
    frame.loc[2, "Peak [req/s]"] = 0.001  # below its average of 0.01
    workloads, messages = read_workloads(frame, WORKLOADS)
    assert workloads is None
    assert messages == [
        "Row 1 ('Overnight KYC document batch'), column 'Output [tokens]': Input should be greater than or equal to 1",
        "Row 3 ('Letter-of-credit clearing'): Peak [req/s] must be at least Average [req/s]",
    ]


def test_added_row_gets_an_id_from_its_name_and_defaults() -> None:
    frame = workloads_frame(WORKLOADS)
    new = {c: None for c in frame.columns}
    new.update({"Name": "Chat assistant", "Average [req/s]": 1.0, "Peak [req/s]": 3.0})
    new.update({"Prompt [tokens]": 500, "Output [tokens]": 200, "Per-token target [ms/token]": 40})
    new["Failure cost [USD/task]"] = 0.5
    frame = pd.concat([frame, pd.DataFrame([new])], ignore_index=True)
    workloads, messages = read_workloads(frame, WORKLOADS)
    assert messages == []
    assert workloads is not None
    added = workloads[-1]
    assert added.id == "chat-assistant"
    assert added.tpot_slo_s == 0.04  # 40 ms
    assert added.sovereign is False
    assert added.max_attempts == 1


def test_duplicate_ids_and_an_empty_table_are_refused() -> None:
    frame = workloads_frame(WORKLOADS)
    frame.loc[1, "ID"] = "kyc-overnight"
    _, messages = read_workloads(frame, WORKLOADS)
    assert messages == ["Row 2 ('Real-time onboarding checks'), column 'ID': 'kyc-overnight' is already used by row 1"]
    _, messages = read_workloads(frame.iloc[0:0], WORKLOADS)
    assert messages == ["The table is empty: a scenario needs at least one workload."]


def test_a_blank_failure_cost_is_asked_for_not_taken_as_zero() -> None:
    frame = workloads_frame(WORKLOADS)
    frame.loc[0, "Failure cost [USD/task]"] = None
    workloads, messages = read_workloads(frame, WORKLOADS)
    assert workloads is None
    assert messages == [
        "Row 1 ('Overnight KYC document batch'), column 'Failure cost [USD/task]': enter what a failed task costs "
        "the business (rework, escalation); type 0 if nothing"
    ]


def test_the_csv_writes_counts_as_whole_numbers() -> None:
    counts = {"input_tokens": 6000, "output_tokens": 800, "max_attempts": 3}
    w = Workload.model_validate({**WORKLOADS[1].model_dump(), **counts, "avg_requests_per_s": 0.25, "tpot_slo_s": 0.04})
    rows = list(csv.DictReader(io.StringIO(csv_bytes(workloads_file_frame([w])).decode("utf-8"))))
    assert len(rows) == 1
    row = rows[0]
    assert (row["Prompt [tokens]"], row["Output [tokens]"], row["Attempts [count]"]) == ("6000", "800", "3")
    assert (row["Average [req/s]"], row["Per-token target [ms/token]"]) == ("0.25", "40.0")  # measures stay as they are
    # the file reads back into the same workload
    back, messages = read_workloads(pd.read_csv(io.BytesIO(csv_bytes(workloads_file_frame([w])))), (w,))
    assert messages == []
    assert back == (w,)
