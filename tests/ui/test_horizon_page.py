"""AppTest of the Horizon page: it runs on the bank, states the currency, and follows its inputs."""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import replace

from cli.main import main
from economics.finance.horizon import horizon
from economics.io.scenarios import PRESET_DIR, encode, load_scenario
from tests.ui.helpers import chart, run_page
from ui.horizon import same_bills

#: The bank preset's owned node, as the books table heads its column.
NODE = "Owned 8×H100 node (Singapore)"


def _text(at: object) -> str:
    parts = [str(x.value) for x in (*at.caption, *at.warning, *at.success, *at.markdown)]  # type: ignore[attr-defined]
    return "\n".join(parts)


def test_horizon_page_on_the_bank() -> None:
    at = run_page("8_horizon")
    text = _text(at)
    assert "SGD" in text
    assert "Owning keeps paying" in text  # the data rules keep sovereign work off rented nodes
    # the yearly bill (full cost of the bought node) was read against the Overview's cash-view month: say why
    assert "do not compare line for line" in text
    npv = at.dataframe[0].value
    assert npv["Plan"].iloc[0] == "Own the nodes"
    assert "NPV [SGD]" in npv.columns
    books = at.dataframe[1].value
    # one owned node, both views one above the other, headed by its name (it read "sg-h100-node", an id)
    assert list(books.columns) == ["Measure", NODE]
    # book view: 280,000/4 = 70,000 USD/year → SGD 91,000 at 1.3
    assert books[NODE].iloc[0] == 91_000
    # the inputs left at their defaults give the CLI's numbers (the page and the CLI agree on the 2028 bill)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["horizon", str(PRESET_DIR / "singapore-bank.json"), "--years", "5", "--format", "json"]) == 0
    own = next(p for p in json.loads(out.getvalue())["plans"] if p["id"] == "own")
    bill_2028 = next(b for b in own["bills"] if b["year"] == 2028)["total"]["sgd"]
    assert npv["2028 [SGD]"].iloc[0] == round(bill_2028)


def test_horizon_page_follows_the_years() -> None:
    at = run_page("8_horizon")
    at.slider(key="horizon_years").set_value(2).run()
    assert not at.exception
    npv = at.dataframe[0].value
    assert [c for c in npv.columns if c.startswith("20")] == ["2027 [SGD]", "2028 [SGD]"]


def test_cost_per_token_shows_energy_and_carbon_in_sgd() -> None:
    at = run_page("2_cost_per_token")
    frame = next(d.value for d in at.dataframe if "Energy [joules per output token]" in d.value.columns)
    assert "Cost at this workload's load [SGD/Mtok output]" in frame.columns
    assert "not at the utilization marked above" in _text(at)
    owned = frame[frame["Energy [joules per output token]"].notna()]
    assert len(owned) > 0
    # Singapore grid 0.42 kg/kWh: emissions = kWh · 0.42 (rounded to 3 digits each)
    row = owned.iloc[0]
    assert abs(row["Emissions [kg CO2e/Mtok output]"] - row["Energy [kWh/Mtok output]"] * 0.42) < 0.002
    assert "0.42 kg CO2e/kWh" in _text(at).replace("\\", "")


def test_resale_value_lowers_both_views() -> None:
    at = run_page("8_horizon")
    at.number_input(key="horizon_resale_sg-h100-node").set_value(20.0).run()
    assert not at.exception
    books = at.dataframe[1].value
    # book: (280,000 − 56,000)/4 = 56,000 USD/year → SGD 72,800
    assert books[NODE].iloc[0] == 72_800
    # economic: 224,000 · CRF(8%, 4) + 56,000 · 0.08 = 67,630.3 + 4,480 = 72,110.3 USD → SGD 93,743
    assert abs(books[NODE].iloc[1] - 93_743) <= 1


def test_plans_with_the_same_bills_are_said_to_coincide() -> None:
    # the rented preset's APIs win every workload: Rent only, each rental mode and APIs only re-plan to the same
    # APIs, and the page showed five identical rows and one line with nothing saying why
    at = run_page("8_horizon", {"s": encode(load_scenario(PRESET_DIR / "startup-rented.json"))})
    npv = at.dataframe[0].value
    assert len(npv) == 5
    assert npv.drop(columns="Plan").nunique().max() == 1  # the five rows' figures are the same
    assert "All the plans come to the same bill every year" in _text(at)
    assert "same bill" not in _text(run_page("8_horizon"))  # the bank's plans differ


def test_only_the_plans_alike_are_named() -> None:
    h = horizon(load_scenario(PRESET_DIR / "singapore-bank.json"))
    first, second = h.plans[0], h.plans[1]
    twin = replace(second, name="Rent spot only", bills=first.bills)
    assert same_bills(replace(h, plans=(first, second, twin))) == (
        f"{first.name} and Rent spot only come to the same bill every year: they re-plan to the same options."
    )
    assert same_bills(h) is None


def test_a_price_change_the_model_cannot_carry_is_said_in_words() -> None:
    at = run_page("8_horizon")
    at.number_input(key="horizon_api").set_value(500.0).run()
    errors = " ".join(str(e.value) for e in at.error).replace("\\", "")  # the page escapes Markdown
    assert "In year 4 of the horizon the output price of “Frontier API (Claude Sonnet 4.5)” would reach" in errors
    assert "apis." not in errors
    assert "finance.horizon" not in errors


def test_a_missing_exchange_rate_is_named_in_words() -> None:
    # a display currency the catalog has no rate for: the page showed "finance.fx_units_per_usd: no CHF rate …"
    s = load_scenario(PRESET_DIR / "singapore-bank.json")
    assert s.finance is not None
    no_rate = {"display_currency": "CHF", "fx_units_per_usd": None}
    chf = s.model_copy(update={"finance": s.finance.model_copy(update=no_rate)})
    at = run_page("8_horizon", {"s": encode(chf)})
    errors = " ".join(str(e.value) for e in at.error).replace("\\", "")
    assert "Finance › exchange rate (units per US dollar): no CHF rate in the catalog" in errors
    assert "fx_units_per_usd" not in errors


def test_the_rate_inputs_show_the_decimal_they_are_rounded_to() -> None:
    # the catalog's API trend, rounded to 0.1 point, read "-40.30" in a two-decimal field
    at = run_page("8_horizon")
    node = "sg-h100-node"  # the bank's owned node: its resale and book life are one-decimal figures too
    owned = (f"horizon_resale_{node}", f"horizon_book_life_{node}")
    for key in ("horizon_api", "horizon_rental", "horizon_growth", *owned):
        field = at.number_input(key=key)
        assert field.proto.format == "%.1f", key
        assert field.value == round(field.value, 1)


def test_the_crossover_chart_writes_its_price_declines_as_percentages() -> None:
    # its axis ticked "0, −20, −40, −60" under "API price change per year [%]", beside inputs reading "-40.3"%
    spec = chart(run_page("8_horizon"), "When owning stops paying")
    assert spec["layout"]["xaxis"]["ticksuffix"] == "%"
    assert spec["layout"]["xaxis"]["autorange"] == "reversed"  # the steeper decline to the right


def test_the_npv_table_shows_whole_units() -> None:
    # yearly bills and NPVs of hundreds of thousands read "S$826,608.00": whole units with the currency sign
    at = run_page("8_horizon")
    npv = next(d for d in at.dataframe if "NPV [SGD]" in d.value.columns)
    config = json.loads(npv.proto.columns)
    money = [c for c in npv.value.columns if c.endswith("[SGD]")]
    assert len(money) >= 2
    assert {config[c]["type_config"]["format"] for c in money} == {"S$%,.0f"}
    # the pinned first column holds the plan's short name; its offer sits in a column of its own
    table = npv.value.set_index("Plan")
    assert table.loc["Rent reserved instead of owning", "Which offer"] == "GCP a3-highgpu-8g reserved-1y, in-country"
    assert table.loc["Own the nodes", "Which offer"] == ""
