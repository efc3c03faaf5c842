"""Issue 14's finance questions, each answered from the app (AppTest), the CLI and the meeting pack.

1. "Reserve H100s, or run spot: does that beat our own node?"  2. "What does the node cost in the books versus
economically?"  3. "If API prices keep falling 40% a year, when does owning stop paying?"  4. "Show it in
Singapore dollars."  5. "What do cached tokens do to each option?"  6. "What does a million tokens cost in kWh
and CO2?" Hand-derived values are in the comments.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from cli.main import main
from economics.io.scenarios import PRESET_DIR, encode, load_preset
from reporting.meeting_pack import build_pack, render_html
from tests.ui.helpers import metrics, run_page

BANK = str(PRESET_DIR / "singapore-bank.json")
STARTUP = str(PRESET_DIR / "startup-rented.json")
RESERVED = "Rent reserved instead of owning"


def cli(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


def _texts(at: object) -> str:
    parts = [str(x.value) for x in (*at.caption, *at.warning, *at.success, *at.markdown)]  # type: ignore[attr-defined]
    return "\n".join(parts).replace("\\", "")


@pytest.fixture(scope="module")
def bank_pack() -> str:
    return render_html(build_pack(load_preset("singapore-bank"), uncertainty=False))


@pytest.fixture(scope="module")
def horizon_page() -> object:
    return run_page("8_horizon")


def test_q1_reserved_or_spot_against_our_own_node(horizon_page: object, bank_pack: str) -> None:
    # app: the Horizon page's NPV table has the own plan and the reserved alternative side by side
    npv = horizon_page.dataframe[0].value  # type: ignore[attr-defined]
    plans = list(npv["Plan"])
    assert plans[0] == "Own the nodes"
    assert any(p.startswith(RESERVED) for p in plans)
    # CLI: the same two plans with their NPV; spot against reserved for the startup, one plan per billing mode
    text = cli("horizon", BANK, "--years", "5")
    assert "Own the nodes" in text
    assert RESERVED in text
    startup = cli("horizon", STARTUP, "--years", "1")
    assert "Rent spot only" in startup
    assert "Rent reserved-1y only" in startup
    # pack: the bills-and-NPV table
    assert RESERVED in bank_pack
    assert 'id="crossover"' in bank_pack


def test_q2_books_and_economics(horizon_page: object, bank_pack: str) -> None:
    # straight-line book depreciation: 280,000 / 4 years = USD 70,000 a year = SGD 91,000 at 1.3
    books = horizon_page.dataframe[1].value  # type: ignore[attr-defined]
    assert books["Owned 8×H100 node (Singapore)"].iloc[0] == 91_000
    assert "book (straight-line) SGD 91,000/year" in cli("horizon", BANK, "--years", "1")
    assert "Book: straight-line depreciation [SGD/year]" in bank_pack
    assert "91,000" in bank_pack
    assert "The decision uses the economic view" in bank_pack


def test_q3_when_owning_stops_paying_at_minus_40_percent(horizon_page: object, bank_pack: str) -> None:
    text = _texts(horizon_page)
    assert "Owning keeps paying through 2031" in text
    out = cli("horizon", BANK, "--years", "5", "--api-change=-0.4")
    assert "at -40%/year API prices" in out
    assert "Owning stops paying in" in bank_pack  # the sensitivity table's column
    assert "-40%" in bank_pack


def test_q4_in_singapore_dollars(bank_pack: str) -> None:
    at = run_page("1_overview")
    shown = metrics(at)
    assert shown["Recommended, SGD/month"].startswith("S$")
    assert "Money is shown in SGD at 1.3 SGD per US dollar (rate of 2026-12-01" in _texts(at)
    assert "SGD/req" in cli("evaluate", BANK)
    assert "Money is shown in SGD at 1.3 SGD per US dollar (rate of 2026-12-01" in bank_pack


def _startup_without_cache(tmp_path: Path) -> str:
    data = load_preset("startup-rented").model_dump(mode="json")
    for w in data["workloads"]:
        w["prompt_cache_hit_rate"] = 0.0
    path = tmp_path / "no-cache.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def _gpt5_agent_cost(doc: dict) -> float:  # type: ignore[type-arg]
    return next(
        o["cost_usd_per_request"]
        for o in doc["options"]
        if o["workload_id"] == "agent-steps" and o["option_id"] == "gpt-5"
    )


def test_q5_what_cached_tokens_do(tmp_path: Path) -> None:
    # agent-steps: 8,000 tokens in, 300 out, 70% of the prompt cached; GPT-5 $1.25 in, $0.125 cached, $10 out:
    # cached  8,000·(0.3·1.25 + 0.7·0.125)/1e6 + 300·10/1e6 = 0.0037 + 0.003 = $0.0067 per attempt
    # none    8,000·1.25/1e6 + 0.003 = $0.013
    cached = json.loads(cli("evaluate", STARTUP, "--format", "json"))
    plain = json.loads(cli("evaluate", _startup_without_cache(tmp_path), "--format", "json"))
    assert _gpt5_agent_cost(cached) == pytest.approx(0.0067, rel=1e-9)
    assert _gpt5_agent_cost(plain) == pytest.approx(0.013, rel=1e-9)
    # app: the Overview's option table on the same scenario (opened from its share link)
    at = run_page("1_overview", query={"s": encode(load_preset("startup-rented"))})
    options = next(d.value for d in at.dataframe if "Cost [USD/task]" in d.value.columns)
    row = options[(options["Workload"] == "Agent tool-calling steps") & (options["Option"] == "GPT-5 API")]
    assert float(row["Cost [USD/task]"].iloc[0]) == pytest.approx(0.0067, rel=1e-6)
    # pack: the same option table, with the cache hit rate among the workload assumptions
    html = render_html(build_pack(load_preset("startup-rented"), uncertainty=False, finance=False))
    assert "$0.0067" in html


def test_q6_kwh_and_co2_per_million_tokens(bank_pack: str) -> None:
    at = run_page("2_cost_per_token")
    frame = next(d.value for d in at.dataframe if "Energy [kWh/Mtok output]" in d.value.columns)
    assert frame["Emissions [kg CO2e/Mtok output]"].notna().any()
    out = cli("evaluate", BANK)
    assert "Energy per million output tokens" in out
    assert "kg CO2e" in out
    assert "Energy [kWh/Mtok output]" in bank_pack
    assert "Emissions [kg CO2e/Mtok output]" in bank_pack
