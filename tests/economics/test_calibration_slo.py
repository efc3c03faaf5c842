"""Latency-SLO rows (MLPerf Server / Interactive) read at their p99 limits (docs/calibration.md#latency-slo-rows)."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from economics.calibration import CalibrationCase, predict_case, replica, smallest_tp
from economics.calibration_report import DATA
from economics.calibration_rows import map_measured_row
from economics.calibration_slo import SLO_SCAN, batch_quantile
from economics.engines import load_engines
from economics.hardware import Efficiency
from economics.io.catalog import load_catalog
from economics.schemes import ARScheme
from economics.serving.queues import erlang_c
from economics.throughput import closed_loop


def test_p99_wait_of_one_slot_is_ln_100_rho_mean_sojourns() -> None:
    # M/M/1, s̄ = 1 s, λ = 0.5/s, so ρ = 0.5. P(W_q > t) = ρ·exp(−(1 − ρ)·t/s̄) (the waiting time is 0 with
    # probability 1 − ρ, else exponential with mean s̄/(1 − ρ) = 2 s, the mean sojourn). Setting it to 0.01:
    # t = 2·ln(0.5/0.01) = 2·ln 50 = 7.824 s = ln(100·ρ)·mean sojourn. With ρ → 1 this is ln(100) = 4.6 times
    # the mean sojourn: a p99 limit binds at a far lower load than the same limit on the mean.
    q = erlang_c(0.5, 1.0, 1, quantile=0.99)
    assert float(q.wait_quantile_s) == pytest.approx(2.0 * np.log(50.0), rel=1e-12)
    assert float(q.wait_quantile_s) == pytest.approx(7.824, abs=1e-3)


def test_batch_quantile_is_the_poisson_tail() -> None:
    # Poisson(100): mean 100, sd 10, skewness 1/10. Cornish–Fisher to the skew term: the 0.99 quantile is
    # 100 + 10·(z + (z² − 1)·0.1/6) with z = 2.326, i.e. 100 + 10·(2.326 + 0.0735) = 123.99; with the
    # continuity correction (k + ½ ≥ that) the smallest integer is k = 124. An empty replica has batch 0.
    assert batch_quantile(np.array([100.0, 0.0])).tolist() == [124.0, 0.0]


def _slo_rows() -> list[tuple[int, CalibrationCase]]:
    with (DATA / "measured_throughput_2026-12.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    cases = [(i, map_measured_row(i, r)) for i, r in enumerate(rows)]
    return [(i, c) for i, c in cases if isinstance(c, CalibrationCase) and c.slo_tpot_s is not None]


def _mean_reading(case: CalibrationCase) -> float:
    """The former reading: the largest load whose mean TPOT and mean TTFT meet the limits [tok/s]."""
    cat = load_catalog()
    eff = Efficiency()
    tp = smallest_tp(case, cat.gpus, cat.models, eff) if case.data_parallel else case.gpus
    model, dep = replica(case.model_copy(update={"gpus": tp, "data_parallel": False}), cat.gpus, cat.models)
    eff = load_engines()[case.engine].efficiency(eff, model.n_layers, dep.gpu.hbm_bandwidth_bytes_per_s)
    res = closed_loop(model, dep, eff, ARScheme(), np.minimum(SLO_SCAN, case.max_batch), float(case.input_tokens),
                      float(case.output_tokens), reserve_output=case.reserve_output)  # fmt: skip
    ok = (res.tpot_s <= case.slo_tpot_s) & (res.ttft_s <= (case.slo_ttft_s or np.inf)) & res.kv_fits
    return float(np.max(np.where(ok, res.output_tokens_per_s, 0.0))) * case.gpus / tp


def test_every_slo_row_is_read_at_most_at_its_mean_reading() -> None:
    # A p99 is never below the mean, so the p99 reading can only lower a row's throughput; the MLPerf rows
    # include Server (2 s / 200 ms) and Interactive (450 ms / 40 ms) limits.
    cat = load_catalog()
    rows = _slo_rows()
    assert len(rows) >= 10
    for _, case in rows:
        tail = predict_case(case, cat.gpus, cat.models)
        assert 0 < tail <= _mean_reading(case) * (1 + 1e-9), case.label


def test_a_tight_tpot_limit_binds_at_its_tail() -> None:
    # Llama-2-70B Interactive on MI300X (TPOT p99 ≤ 40 ms): at the mean reading the mean TPOT sits on 40 ms, so
    # the p99 batch (≈ B̄ + 2.33·√B̄) runs longer iterations; the load must drop by more than 10%.
    cat = load_catalog()
    case = next(c for _, c in _slo_rows() if c.slo_tpot_s == 0.04 and c.gpu_id == "mi300x")
    assert predict_case(case, cat.gpus, cat.models) < 0.9 * _mean_reading(case)
