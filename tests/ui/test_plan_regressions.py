"""Issue 10's regression cases through the real CLI (``python -m economics evaluate … --format json``, a
subprocess) and the app's Overview (AppTest): the same plan the library returns, seen by a user."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from economics.io import scenarios
from economics.io.scenarios import default_scenario
from economics.scenario import Scenario
from tests.economics.test_plan_scenarios import CHATBOT, _with, _with_cheap_third_party
from tests.ui.helpers import APP, ROOT, metrics
from ui import state

MONTH_S = 730 * 3600


def _cli(s: Scenario, tmp_path: Path, *extra: str) -> dict[str, Any]:
    path = tmp_path / "scenario.json"
    path.write_text(s.model_dump_json(), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "economics", "evaluate", str(path), "--format", "json", *extra],
        capture_output=True, text=True, cwd=ROOT, timeout=300, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def _overview(s: Scenario) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.session_state[state._SCENARIO] = s
    at.session_state[state._LINK] = scenarios.encode(s)
    at.switch_page("pages/1_overview.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _routes(out: dict[str, Any]) -> dict[str, str | None]:
    return {w["workload_id"]: w["option_id"] for w in out["workloads"]}


def test_bank_through_cli_and_app_idle_sunk_node_carries_code_completion(tmp_path: Path) -> None:
    # Cash: only the frontier API for research, 0.02 req/s × $0.039 × 2,628,000 s = $2,049.84; full cost adds
    # the node at $17.557/node-hour × 730 h (tests/economics/test_plan_scenarios.py derives it).
    bank = default_scenario()
    cash = _cli(bank, tmp_path)
    full = _cli(bank, tmp_path, "--lens", "full")
    assert _routes(cash)["code-completion"] == "owned-70b-ar"
    assert cash["plan"]["solver_status"] == "optimal"
    assert cash["plan"]["total_cost_usd_per_month"] == pytest.approx(0.02 * 0.039 * MONTH_S, rel=1e-9)
    g = 1.08**4
    node_h = 280_000 * 0.08 * g / (g - 1) / 8760 + 10.2 * 0.7 * 1.3 * 0.20 + 250 * 10.2 / 730 + 0.08 * 280_000 / 8760
    assert full["plan"]["total_cost_usd_per_month"] == pytest.approx(0.02 * 0.039 * MONTH_S + node_h * 730, rel=1e-9)
    assert all(n["nodes_to_buy"] == 0 for n in cash["plan"]["nodes"])
    option_ids = {o.id for o in bank.owned_options} | {a.id for a in bank.apis}
    api_ids = {a.id for a in bank.apis}
    sovereign = {w.id for w in bank.workloads if w.sovereign}
    for w in cash["workloads"]:
        for f in w["flips"]:
            assert f["to_option_id"] is None or f["to_option_id"] in option_ids  # never a missing option
            if w["workload_id"] in sovereign:
                assert f["to_option_id"] not in api_ids
    at = _overview(bank)
    # the bank shows money in SGD at its preset's 1.30 SGD per USD: 2,049.84 × 1.30 = 2,664.79 → "S$2,665"
    assert metrics(at)["Recommended, SGD/month"] == "S$2,665"
    assert not any("more node" in str(w.value) for w in at.warning)


def test_bank_plus_chatbot_buys_no_node_the_total_does_not_pay_for(tmp_path: Path) -> None:
    s = _with(default_scenario(), CHATBOT)
    out = _cli(s, tmp_path)
    to_buy = sum(n["nodes_to_buy"] for n in out["plan"]["nodes"])
    chat = next(w for w in out["workloads"] if w["workload_id"] == "support-chat")
    at = _overview(s)
    shown = any("more node" in str(w.value) for w in at.warning)
    assert shown == (to_buy > 0)
    if to_buy:  # bought only with the chatbot on owned capacity, its card carrying the purchase
        assert chat["option_id"] in {o.id for o in s.owned_options}


def test_sovereign_data_never_on_a_third_party_node_through_the_cli(tmp_path: Path) -> None:
    s = _with_cheap_third_party(default_scenario())
    out = _cli(s, tmp_path)
    sovereign = {w.id for w in s.workloads if w.sovereign}
    for wid, oid in _routes(out).items():
        if wid in sovereign:
            assert oid != "cloud-70b"
