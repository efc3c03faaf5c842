"""A fitted calibration saved in the scenario: validated, carried by files, links and reviews, and used (issue 13)."""

from __future__ import annotations

import base64
import datetime as dt
import json
import math
import zlib
from pathlib import Path

import pytest
from pydantic import ValidationError

from economics import evaluate
from economics.calibration_apply import apply_calibration, calibrated_options, matching_options
from economics.calibration_saved import SavedCalibration
from economics.io.scenarios import decode, encode, load_preset, parse_scenario, preset_json
from storage.reviews import load_review, save_review


def _calibration(**over: object) -> SavedCalibration:
    data: dict[str, object] = {
        "engine": "vllm",
        "gpu_ids": ("h100-sxm",),
        "model_ids": ("llama-3.1-8b",),
        "mbu": 0.35,
        "mfu_decode": 0.5,
        "mfu_prefill": 0.45,
        "covariance_log": ((0.01, 0.0), (0.0, 0.0)),
        "elasticity": (1.0, 0.0),
        "residual_sd_log": 0.1,
        "n_points": 4,
        "fitted_on": "vllm_bench_serve.json",
        "fitted_date": dt.date(2026, 12, 1),
    }
    data.update(over)
    return SavedCalibration.model_validate(data)


def test_it_attaches_to_the_options_serving_its_model_on_its_gpu() -> None:
    bank = load_preset("singapore-bank")
    calibrated = apply_calibration(bank, _calibration())
    # the bank serves llama-3.1-8b on H100 SXM only through owned-8b-ar (70B and LLaDA are other models)
    assert matching_options(bank, _calibration()) == ("owned-8b-ar",)
    assert calibrated_options(calibrated) == ("owned-8b-ar",)
    named = apply_calibration(bank, _calibration(), ["owned-70b-ar", "owned-8b-ar"])
    assert calibrated_options(named) == ("owned-70b-ar", "owned-8b-ar")
    assert calibrated_options(apply_calibration(named, None)) == ()


def test_bad_targets_and_bad_profiles_are_named() -> None:
    bank = load_preset("singapore-bank")
    with pytest.raises(ValueError, match="nope not among"):
        apply_calibration(bank, _calibration(), ["nope"])
    with pytest.raises(ValueError, match="no owned option serves qwen"):
        apply_calibration(bank, _calibration(model_ids=("qwen",)))
    with pytest.raises(ValidationError, match="symmetric"):
        _calibration(covariance_log=((0.01, 0.002), (0.0, 0.01)))
    with pytest.raises(ValidationError, match="cannot be negative"):
        _calibration(covariance_log=((-0.01, 0.0), (0.0, 0.01)))
    with pytest.raises(ValidationError, match="mbu"):
        _calibration(mbu=1.5)


def test_round_trip_through_file_and_link_and_old_ones_still_load() -> None:
    bank = load_preset("singapore-bank")
    calibrated = apply_calibration(bank, _calibration())
    assert parse_scenario(preset_json(calibrated)) == calibrated
    back = decode(encode(calibrated), bank)
    assert back.status == "ok"
    assert back.scenario == calibrated
    # absent, not null: a scenario without a calibration writes exactly the JSON it wrote before the field existed
    assert "calibration" not in preset_json(bank)
    # an old link: the preset file's own JSON (written before calibrations existed), packed as a v1 token
    raw = Path("data/scenarios/singapore-bank.json").read_text(encoding="utf-8")
    old = "v1." + base64.urlsafe_b64encode(zlib.compress(raw.encode("utf-8"))).decode().rstrip("=")
    opened = decode(old, calibrated)
    assert opened.status == "ok"
    assert calibrated_options(opened.scenario) == ()


def test_round_trip_through_a_saved_review(tmp_path: Path) -> None:
    calibrated = apply_calibration(load_preset("singapore-bank"), _calibration())
    result = evaluate(calibrated)
    summary = save_review(calibrated, result, name="calibrated", path=tmp_path / "reviews.sqlite")
    saved = load_review(summary.id, path=tmp_path / "reviews.sqlite")
    assert saved.scenario == calibrated
    assert saved.result == result
    row = next(o for o in saved.result.options if o.option_id == "owned-8b-ar" and o.feasible)
    assert row.band_basis.startswith("your 4 benchmark point")


def test_the_fitted_uncertainty_gives_the_band() -> None:
    # σ = sqrt(gᵀCg) = sqrt(1·0.01·1) = 0.1; an 80% band is exp(±1.2816·0.1) = 0.87971 … 1.13674 (by hand)
    result = evaluate(apply_calibration(load_preset("singapore-bank"), _calibration()))
    for row in (o for o in result.options if o.option_id == "owned-8b-ar" and o.feasible):
        assert row.throughput_low_ratio == pytest.approx(0.87971, abs=1e-5)
        assert row.throughput_high_ratio == pytest.approx(1.13674, abs=1e-5)
        assert row.cost_low_usd_per_mtok_output == pytest.approx(row.cost_usd_per_mtok_output / 1.13674, rel=1e-5)


def _one_option_scenario(peak_requests_per_s: float) -> object:
    """The single-workload preset reduced to its 8B AR option, the workload at its peak all day (no window)."""
    s = load_preset("single-workload")
    flat = {"peak_requests_per_s": peak_requests_per_s, "avg_requests_per_s": peak_requests_per_s,
            "deadline_s": None, "demand_profile": None}  # fmt: skip
    wl = s.workloads[0].model_copy(update=flat)
    option = next(o for o in s.owned_options if o.id == "owned-8b-ar")
    return s.model_copy(update={"owned_options": (option,), "apis": (), "workloads": (wl,)})


def test_a_calibrated_option_changes_the_plans_capacity() -> None:
    base = _one_option_scenario(1.4)
    lam = next(o for o in evaluate(base).options if o.option_id == "owned-8b-ar").capacity_requests_per_s
    u = base.policy.target_utilization
    # a peak at 90% of what one replica carries at the target utilization: one replica today
    scenario = _one_option_scenario(0.9 * u * lam)
    plain = evaluate(scenario)
    slow = evaluate(apply_calibration(scenario, _calibration(mbu=scenario.efficiency.mbu / 2)))
    lam_slow = slow.options[0].capacity_requests_per_s
    # half the memory bandwidth at most doubles a memory-bound step (overheads do not scale), so λ ∈ [λ/2, λ)
    assert lam / 2 <= lam_slow < lam
    assert plain.plan is not None
    assert slow.plan is not None
    assert [r.replicas for r in plain.plan.replicas] == [1]
    # replicas = ceil(peak / (u·λ_slow)); with λ_slow < 0.9·λ the peak no longer fits one replica
    expected = math.ceil(0.9 * u * lam / (u * lam_slow))
    assert expected >= 2
    assert [r.replicas for r in slow.plan.replicas] == [expected]


def test_cli_writes_the_calibration_into_a_scenario_file(tmp_path: Path) -> None:
    import subprocess
    import sys

    out = tmp_path / "calibrated.json"
    run = subprocess.run(
        [sys.executable, "-m", "economics", "calibrate", "tests/data/benchmarks/plain_runs.csv",
         "--scenario", "data/scenarios/singapore-bank.json", "--out", str(out)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    saved = json.loads(out.read_text(encoding="utf-8"))
    calibrations = {o["id"]: o.get("calibration") for o in saved["owned_options"]}
    assert calibrations["owned-70b-ar"] is None
    assert calibrations["owned-8b-diffusion"] is None
    cal = calibrations["owned-8b-ar"]
    assert cal["n_points"] == 3
    assert cal["fitted_on"] == "plain_runs.csv"
    assert cal["model_ids"] == ["llama-3.1-8b"]
    both = subprocess.run(
        [sys.executable, "-m", "economics", "calibrate", "tests/data/benchmarks/plain_runs.csv", "--scenario", "x"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert both.returncode == 2
    assert "--scenario and --out go together" in both.stderr
