"""``python -m economics horizon``: JSON and table output, and one-line errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.main import main
from economics.io.scenarios import PRESET_DIR

BANK = str(PRESET_DIR / "singapore-bank.json")


def test_json_states_currency_plans_and_crossover(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["horizon", BANK, "--years", "3", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["years"] == [2027, 2028, 2029]
    assert out["currency"]["code"] == "SGD"
    assert "1.3 SGD per US dollar" in out["currency"]["statement"]
    own = next(p for p in out["plans"] if p["id"] == "own")
    assert len(own["bills"]) == 3
    # every amount is shown in both currencies at the stated rate
    bill = own["bills"][0]["total"]
    assert bill["sgd"] == pytest.approx(bill["usd"] * 1.3)
    assert "Owning" in out["crossover"]["text"]
    assert out["owned_books"][0]["node_id"] == "sg-h100-node"


def test_table_with_sensitivity(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["horizon", BANK, "--years", "2", "--api-change=-40%", "--sensitivity"]) == 0
    out = capsys.readouterr().out
    assert "Money is shown in SGD" in out
    assert "Crossover by API price change" in out
    assert "economic view" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--years", "7"], "the horizon is 1 to 5 years"),
        (["--api-change", "fast"], "expected a yearly change"),
        (["--api-change=-200%"], "between -95% and +500%"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["horizon", BANK, *argv]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_bad_scenario_names_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(Path(BANK).read_text())
    data["finance"]["horizon"]["demand_growth_by_workload"] = {"ghost": 0.2}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    assert main(["horizon", str(path)]) == 2
    assert "finance.horizon.demand_growth_by_workload: unknown workload 'ghost'" in capsys.readouterr().err


def test_prices_grown_past_the_model_s_range_are_named_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    # +500% a year: the bank's frontier API output price, $15 per million tokens, is 15 × 6³ = $3,240 in year 4,
    # above the $1,000 an API price may be. The message read "finance.horizon: year 4 cannot be built:
    # apis.0.output_usd_per_mtok: Input should be less than or equal to 1000"
    assert main(["horizon", BANK, "--years", "5", "--api-change", "500%"]) == 2
    err = capsys.readouterr().err
    assert "In year 4 of the horizon the output price of “Frontier API (Claude Sonnet 4.5)” would reach $3,240 per " \
        "million tokens, above the $1,000 per million tokens the model accepts: lower the yearly change in API " \
        "prices or plan fewer years" in err  # fmt: skip
    assert "apis." not in err
    assert err.count("\n") == 1
