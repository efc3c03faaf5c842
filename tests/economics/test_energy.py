"""Energy and carbon per token, derived by hand from watts and tokens per second."""

from __future__ import annotations

import datetime as dt

import pytest

from economics.currency import DisplayRate
from economics.energy import (
    PlanCarbon,
    carbon_statement,
    energy_per_token_j,
    energy_table,
    grid_factor,
    kwh_per_mtok,
    plan_carbon,
    with_carbon_price,
)
from economics.evaluate import evaluate
from economics.finance.settings import FinanceSettings
from economics.io.scenarios import load_preset
from economics.offers import OwnedNode, RentedNode
from tests.economics.finance.test_rental import _cost_only_startup


def test_joules_per_token_from_watts_and_tokens_per_second() -> None:
    # 700 W at 1,000 tok/s: 0.7 J/token; 0.7 · 1e6 / 3.6e6 = 0.19444 kWh per million tokens
    assert energy_per_token_j(700.0, 1000.0) == pytest.approx(0.7)
    assert kwh_per_mtok(0.7) == pytest.approx(0.194444, rel=1e-5)
    assert energy_per_token_j(700.0, 0.0) == float("inf")


def test_owned_option_energy_and_emissions_in_singapore() -> None:
    bank = load_preset("singapore-bank")
    bank = bank.model_copy(update={"finance": FinanceSettings(grid_region="sg")})
    result = evaluate(bank)
    rows = {(r.workload_id, r.option_id): r for r in energy_table(bank, result)}
    opt = next(o for o in result.options if o.workload_id == "kyc-overnight" and o.option_id == "owned-70b-ar")
    # the owned node draws 10.2 kW · 0.7 · PUE 1.3 / 8 GPUs = 1,160.25 W per GPU, idle or busy (f flat);
    # KYC: 0.46 req/s · 800 output tokens = 368 tok/s → J/token = G · 1160.25 / 368
    row = rows[("kyc-overnight", "owned-70b-ar")]
    assert row.j_per_output_token == pytest.approx(opt.gpus * 1160.25 / 368.0)
    # Singapore's 2022 grid factor 0.42 kg/kWh (EMA via The Business Times)
    assert row.kg_co2e_per_mtok_output == pytest.approx(row.kwh_per_mtok_output * 0.42)  # type: ignore[operator]
    assert rows[("analyst-research", "frontier-api")].j_per_output_token is None


def test_grid_factor_is_dated() -> None:
    sg = FinanceSettings(grid_region="sg")
    f2020 = grid_factor(sg, dt.date(2020, 6, 1))
    f2026 = grid_factor(sg, dt.date(2026, 12, 1))
    assert f2020 is not None
    assert f2026 is not None
    assert (f2020.year, f2020.kg_co2e_per_kwh) == (2017, 0.4192)
    assert (f2026.year, f2026.kg_co2e_per_kwh) == (2022, 0.42)
    assert grid_factor(None, dt.date(2026, 1, 1)) is None


def test_grid_factor_names_its_region_in_words() -> None:
    on = dt.date(2026, 12, 1)
    catalog = grid_factor(FinanceSettings(grid_region="sg"), on)
    entered = grid_factor(FinanceSettings(grid_region="sg", grid_kg_co2e_per_kwh=0.3), on)
    unknown = grid_factor(FinanceSettings(grid_region="zz", grid_kg_co2e_per_kwh=0.3), on)
    assert catalog is not None
    assert entered is not None
    assert unknown is not None
    assert (catalog.region, catalog.label) == ("sg", "Singapore")  # the CSV's name column, not the code
    assert (entered.label, entered.kg_co2e_per_kwh) == ("Singapore", 0.3)
    assert unknown.label == "your grid"


def test_carbon_price_enters_owned_electricity() -> None:
    bank = load_preset("singapore-bank")
    priced = bank.model_copy(update={"finance": FinanceSettings(grid_region="sg", carbon_price_usd_per_tonne=50.0)})
    # 0.42 kg/kWh · $50/t / 1000 = $0.021/kWh on top of the bank's $0.20
    node = with_carbon_price(priced).nodes[0]
    assert isinstance(node, OwnedNode)
    assert node.electricity_usd_per_kwh == pytest.approx(0.221)
    assert with_carbon_price(bank) is bank


def test_rented_option_energy_uses_the_catalog_host_ratio() -> None:
    startup = load_preset("startup-rented")
    result = evaluate(startup)
    rows = {(r.workload_id, r.option_id): r for r in energy_table(startup, result)}
    opt = next(o for o in result.options if o.workload_id == "assistant-chat" and o.option_id == "runpod-8b-ar")
    # H100 700 W × (DGX 10.2 kW / (8 × 700 W)) × f 0.7 × PUE 1.3 = 1,275 × 0.91 = 1,160.25 W per rented GPU;
    # assistant chat: 3 req/s × 400 output tokens = 1,200 tok/s → J/token = G · 1160.25 / 1200
    assert rows[("assistant-chat", "runpod-8b-ar")].j_per_output_token == pytest.approx(opt.gpus * 1160.25 / 1200.0)
    assert rows[("assistant-chat", "runpod-8b-ar")].kg_co2e_per_mtok_output is None  # no grid region set


def test_carbon_price_enters_the_plan_and_its_bill() -> None:
    # The bank's node draws 10.2 kW · 0.7 · PUE 1.3 = 9.282 kW busy or idle (f_idle = f_busy = 0.7), so
    # 9.282 · 730 = 6,775.86 kWh a month per node paid; at 0.42 kg/kWh that is 2,845.86 kg, and at $50/t
    # $142.293 a month per node. Full lens (every paid node in the bill), same routes: the bill rises by that.
    bank = load_preset("singapore-bank")
    full = bank.model_copy(update={"policy": bank.policy.model_copy(update={"lens": "full"})})
    settings = FinanceSettings(grid_region="sg", carbon_price_usd_per_tonne=50.0)
    priced = full.model_copy(update={"finance": settings})
    plain_r, priced_r = evaluate(full), evaluate(priced)
    assert [d.chosen_option_id for d in priced_r.decisions] == [d.chosen_option_id for d in plain_r.decisions]
    paid = sum(max(n.nodes_used, n.nodes_owned) for n in priced_r.plan.nodes if n.kind == "owned")
    assert paid >= 1
    c = plan_carbon(priced, priced_r)
    assert c.kwh_per_month == pytest.approx(paid * 6775.86, rel=1e-9)
    assert c.kg_co2e_per_month == pytest.approx(paid * 2845.8612, rel=1e-9)
    assert c.carbon_usd_per_month == pytest.approx(paid * 142.29306, rel=1e-9)
    rise = priced_r.fleet.total_cost_usd_per_month - plain_r.fleet.total_cost_usd_per_month
    assert rise == pytest.approx(paid * 142.29306, rel=1e-6)
    # the bank pays one node: USD 142/month, and in SGD at 1.3: SGD 65/t and SGD 184.98 ≈ SGD 185 a month
    assert paid == 1
    assert "adds USD 142 a month" in carbon_statement(c)
    sgd = carbon_statement(c, DisplayRate("SGD", 1.3, None, "x"))
    assert "SGD 65/t adds SGD 185 a month" in sgd


def test_carbon_price_enters_rented_gpu_hours_too() -> None:
    # A rented H100 draws an estimated 700 W × 10.2/(8 × 0.7) kW × f 0.7 × PUE 1.3 = 1,160.25 W: 1.16025 kWh per
    # GPU-hour; at Singapore's 0.42 kg/kWh and $50/t that is 1.16025 · 0.42 · 50/1000 = $0.02436525 per GPU-hour
    # added to the rent. The cost-only startup at 5× demand rents whole 8-GPU RunPod nodes (on demand) all day
    # (no day profile): each node adds 8 · 730 · 0.02436525 = $142.29306 a month and 8 · 730 · 1.16025 = 6,775.86 kWh.
    startup = _cost_only_startup()
    priced = startup.model_copy(update={"finance": FinanceSettings(grid_region="sg", carbon_price_usd_per_tonne=50.0)})
    node = with_carbon_price(priced).node("runpod")
    assert isinstance(node, RentedNode)
    assert node.price_usd_per_gpu_hour == pytest.approx(startup.node("runpod").price_usd_per_gpu_hour + 0.02436525)
    plain_r, priced_r = evaluate(startup), evaluate(priced)
    assert [d.chosen_option_id for d in priced_r.decisions] == [d.chosen_option_id for d in plain_r.decisions]
    assert priced_r.plan is not None
    assert {n.node_id for n in priced_r.plan.nodes if n.nodes_used} == {"runpod"}
    gpu_nodes = next(n.nodes_used for n in priced_r.plan.nodes if n.node_id == "runpod")
    assert gpu_nodes >= 1
    c = plan_carbon(priced, priced_r)
    assert c.kwh_per_month == 0.0  # nothing owned
    assert c.rented_kwh_per_month == pytest.approx(gpu_nodes * 6775.86, rel=1e-9)
    assert c.carbon_usd_per_month == pytest.approx(gpu_nodes * 142.29306, rel=1e-6)
    rise = priced_r.fleet.total_cost_usd_per_month - plain_r.fleet.total_cost_usd_per_month
    assert rise == pytest.approx(c.carbon_usd_per_month, rel=1e-6)
    text = carbon_statement(c)
    assert text.startswith(f"Rented GPUs: {gpu_nodes * 6775.86:,.0f} kWh")  # 2 nodes: 13,551.72 → 13,552
    assert "included in their rent" in text
    assert "estimated from their board power" in text
    if priced_r.plan.api_cost_usd_per_month > 0:
        assert "providers publish no energy" in text


def test_an_api_only_plan_counts_no_energy_of_its_own() -> None:
    # it read "Owned nodes: 0 kWh and 0 t CO2e a month" on the API-only preset
    text = carbon_statement(PlanCarbon(0.0, 0.0, 0.0, 0.0, None))
    assert "0 kWh" not in text
    assert text.startswith("The plan runs no GPUs of its own")
