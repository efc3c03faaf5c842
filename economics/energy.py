"""Energy and carbon beside money: J per output token, kWh per million tokens, kg CO₂e per million tokens.

Power model (the same one :func:`economics.costs.owned_node_cost_breakdown` bills): a node draws
``P = P_node·f(U)·PUE`` with ``f(U) = f_idle + (f_busy − f_idle)·U``. An option that runs ``G`` GPUs of
such nodes for a workload of ``λ_avg`` requests per second spends, per output token,

```
E_tok = G · (P_node/GPUs per node) · f(U) · PUE / (λ_avg · T_out)        [J/token]
```

idle hours included, as in the money figures. A rented node's maximum power is not on its price list; it
is estimated from the GPU's board power times the ratio of a DGX H100's maximum input power to its GPUs'
board power (10.2 kW / (8 × 700 W) = 1.82, both in the catalog), with the catalog's default ``f`` and PUE.
A serverless GPU draws nothing we pay for while scaled to zero, so only its busy share counts. APIs do not
publish energy: their rows say so (None).

Emissions: ``kg CO₂e/Mtok = kWh/Mtok · grid factor``; the grid factor is dated, per region
(``data/prices/grid_intensity.csv``). A carbon price adds ``factor · price / 1000`` USD per kWh to an owned
node's electricity, and to a rented GPU-hour its estimated draw times that (``P_gpu/1000 · factor · price /
1000`` USD per GPU-hour: a rental price includes the electricity, not the carbon) (:func:`with_carbon_price`).
A serverless GPU's adder is paid per billed second (a warm container is powered too). APIs publish no
energy: their emissions are not estimated and not priced (docs/finance.md#carbon-price).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import cache

from economics.currency import USD, DisplayRate, to_display
from economics.finance.data import latest_grid
from economics.finance.rental import effective_usd_per_gpu_hour, rented_gpu_hours_per_useful_hour
from economics.finance.settings import FinanceSettings
from economics.io.catalog import load_catalog
from economics.offers import OwnedNode, RentedNode
from economics.result import Result
from economics.scenario import Scenario
from economics.units import HOURS_PER_MONTH

__all__ = [
    "EnergyRow",
    "GridFactor",
    "PlanCarbon",
    "RentedPowerModel",
    "carbon_statement",
    "energy_per_token_j",
    "energy_table",
    "grid_factor",
    "kwh_per_mtok",
    "plan_carbon",
    "rented_gpu_draw_w",
    "with_carbon_price",
]

#: Catalog rows of the rented-node power model: the DGX H100's maximum input power, its GPU, the defaults.
_DGX_POWER_ROW, _DGX_GPU, _F_ROW, _PUE_ROW = (
    "power-dgx-h100-max",
    "h100-sxm",
    "default-power-fraction-busy",
    "default-pue",
)
J_PER_KWH = 3.6e6


def energy_per_token_j(power_w: float, tokens_per_s: float) -> float:
    """Energy of one token: ``E = P / X`` [J/token] at power P [W] and throughput X [token/s].

    >>> energy_per_token_j(700.0, 1000.0)
    0.7
    """
    if tokens_per_s <= 0:
        return float("inf")
    return power_w / tokens_per_s


def kwh_per_mtok(j_per_token: float) -> float:
    """``kWh/Mtok = J/token · 1e6 / 3.6e6`` [kWh/Mtok].

    >>> round(kwh_per_mtok(0.7), 4)
    0.1944
    """
    return j_per_token * 1e6 / J_PER_KWH


@dataclass(frozen=True)
class GridFactor:
    """The grid emission factor used, with its provenance."""

    region: str
    kg_co2e_per_kwh: float
    year: int | None
    source: str
    name: str = ""  # the region as a reader says it ("Singapore"); the code when the catalog has no name

    @property
    def label(self) -> str:
        """The region in words for a sentence: its name, else its code."""
        return self.name or self.region


def grid_factor(settings: FinanceSettings | None, on: dt.date) -> GridFactor | None:
    """The scenario's grid factor: its own override, else the catalog's newest for its region, else None."""
    if settings is None or (settings.grid_region is None and settings.grid_kg_co2e_per_kwh is None):
        return None
    region = settings.grid_region or "custom"
    row = latest_grid(region, on)
    if settings.grid_kg_co2e_per_kwh is not None:
        name = row.name if row is not None else "your grid"
        return GridFactor(region, settings.grid_kg_co2e_per_kwh, None, "entered in the scenario", name)
    if row is None:
        return None
    return GridFactor(region, row.kg_co2e_per_kwh, row.year, row.source, row.name)


def with_carbon_price(scenario: Scenario) -> Scenario:
    """The scenario with its carbon price in every owned node's electricity [USD/kWh] and every rented GPU-hour
    [USD/GPU-h].

    Owned: ``p_kWh' = p_kWh + factor·carbon_price/1000``. Rented: ``p' = p + P_gpu/1000·factor·carbon_price/1000``
    with ``P_gpu`` the rented GPU's estimated draw (:func:`rented_gpu_draw_w`; an on-demand fallback of a spot
    offer likewise). Unchanged without a carbon price or a grid factor.
    """
    settings = scenario.finance
    factor = grid_factor(settings, scenario.review_date)
    if settings is None or factor is None or settings.carbon_price_usd_per_tonne == 0:
        return scenario
    adder = factor.kg_co2e_per_kwh * settings.carbon_price_usd_per_tonne / 1000.0
    nodes = tuple(_with_adder(scenario, n, adder) for n in scenario.nodes)
    return scenario.model_copy(update={"nodes": nodes})


def _with_adder(scenario: Scenario, node: OwnedNode | RentedNode, usd_per_kwh: float) -> OwnedNode | RentedNode:
    if isinstance(node, OwnedNode):
        return node.model_copy(update={"electricity_usd_per_kwh": min(2.0, node.electricity_usd_per_kwh + usd_per_kwh)})
    per_gpu_hour = rented_gpu_draw_w(scenario, node) / 1000.0 * usd_per_kwh
    update: dict[str, object] = {"price_usd_per_gpu_hour": node.price_usd_per_gpu_hour + per_gpu_hour}
    if node.billing is not None and node.billing.fallback_usd_per_gpu_hour is not None:
        fallback = node.billing.fallback_usd_per_gpu_hour + per_gpu_hour
        update["billing"] = node.billing.model_copy(update={"fallback_usd_per_gpu_hour": fallback})
    return node.model_copy(update=update)


def rented_gpu_draw_w(scenario: Scenario, node: RentedNode) -> float:
    """What one rented GPU draws while it is rented (a serverless one while it is billed): board power ×
    DGX host ratio × catalog f × PUE (:func:`rented_power_model`) [W].

    H100 SXM: 700 W × 10.2 kW/(8 × 700 W) × 0.7 × 1.3 = 1,160.25 W.
    """
    m = rented_power_model(scenario.review_date)
    return scenario.gpu(node.gpu_id).power_w * m.host_ratio * m.power_fraction * m.pue


@dataclass(frozen=True)
class EnergyRow:
    """Energy and emissions of one workload on one option (None where not published, e.g. an API)."""

    workload_id: str
    option_id: str
    j_per_output_token: float | None
    kwh_per_mtok_output: float | None
    kg_co2e_per_mtok_output: float | None
    basis: str


@dataclass(frozen=True)
class RentedPowerModel:
    """What a rented GPU draws, estimated from the catalog: ``P_gpu · host ratio · f · PUE`` [1]."""

    host_ratio: float  # DGX H100 maximum input power / its GPUs' board power [1]
    power_fraction: float  # f [1]
    pue: float  # [1]


@cache
def rented_power_model(on: dt.date) -> RentedPowerModel:
    """The catalog's rented-node power model on ``on`` (10.2 kW / (8 × 700 W) = 1.82, f 0.7, PUE 1.3 today)."""
    catalog = load_catalog()
    row = catalog.owned_input_as_of(_DGX_POWER_ROW, on)
    board_kw = (row.gpus or 1) * catalog.gpus[_DGX_GPU].power_w / 1000.0
    f = catalog.owned_input_as_of(_F_ROW, on).value
    pue = catalog.owned_input_as_of(_PUE_ROW, on).value
    return RentedPowerModel(row.value / board_kw, f, pue)


def _node_draw_w_per_gpu(scenario: Scenario, node: OwnedNode | RentedNode, utilization: float) -> tuple[float, str]:
    u = min(1.0, max(0.0, utilization))
    if isinstance(node, OwnedNode):
        f = node.power_fraction_idle + (node.power_fraction_busy - node.power_fraction_idle) * u
        return node.node_power_kw * 1000.0 / node.gpus_per_node * f * node.pue, "owned node's power model"
    per_gpu = rented_gpu_draw_w(scenario, node)
    if node.pricing_type == "serverless":
        return per_gpu * u, "GPU board power × DGX host ratio, busy share only (serverless)"
    return per_gpu, "GPU board power × DGX host ratio, catalog f and PUE"


def energy_table(scenario: Scenario, result: Result) -> tuple[EnergyRow, ...]:
    """J per output token, kWh and kg CO₂e per million output tokens for every feasible workload × option."""
    factor = grid_factor(scenario.finance, scenario.review_date)
    workloads = {w.id: w for w in scenario.workloads}
    owned = {o.id: o for o in scenario.owned_options}
    rows: list[EnergyRow] = []
    for opt in result.options:
        if not opt.feasible:
            continue
        if opt.option_id not in owned:
            rows.append(EnergyRow(opt.workload_id, opt.option_id, None, None, None, "not published by the provider"))
            continue
        node = scenario.node(owned[opt.option_id].node_id)
        wl = workloads[opt.workload_id]
        watts_per_gpu, basis = _node_draw_w_per_gpu(scenario, node, opt.utilization)
        tokens_per_s = wl.avg_requests_per_s * wl.output_tokens
        j = energy_per_token_j(opt.gpus * watts_per_gpu, tokens_per_s)
        kwh = kwh_per_mtok(j)
        kg = kwh * factor.kg_co2e_per_kwh if factor is not None else None
        rows.append(EnergyRow(opt.workload_id, opt.option_id, j, kwh, kg, basis))
    return tuple(rows)


@dataclass(frozen=True)
class PlanCarbon:
    """The fleet's electricity and emissions in the plan (owned nodes and rented GPUs; APIs publish no energy),
    and what the carbon price adds to its bill."""

    kwh_per_month: float  # owned nodes paid in the plan, idle hours included [kWh/month]
    kg_co2e_per_month: float | None  # owned and rented; None without a grid factor [kg/month]
    carbon_price_usd_per_tonne: float  # [USD/t]
    carbon_usd_per_month: float  # (owned + rented kWh) · factor · price / 1000, inside the bill [USD/month]
    factor: GridFactor | None
    rented_kwh_per_month: float = 0.0  # rented GPU-hours paid in the plan × estimated draw [kWh/month]
    api_calls: bool = False  # the plan sends work to APIs, whose energy is not published (not counted) [-]


def plan_carbon(scenario: Scenario, result: Result) -> PlanCarbon:
    """Electricity, emissions and carbon cost of the owned nodes the plan pays for.

    ``kWh/month = Σ_nodes units · P_node · f(U) · PUE · 730`` with U the node offer's utilization in the plan;
    ``kg = kWh · factor``; ``carbon = kg · price / 1000`` [USD/month], already inside the plan's owned
    electricity when a carbon price is set (:func:`with_carbon_price`; in the cash lens bought nodes' idle power,
    and so its carbon, is sunk).

    >>> from economics.io.scenarios import default_scenario
    >>> from economics.evaluate import evaluate
    >>> s = default_scenario()
    >>> plan_carbon(s, evaluate(s)).carbon_usd_per_month
    0.0
    """
    factor = grid_factor(scenario.finance, scenario.review_date)
    price = scenario.finance.carbon_price_usd_per_tonne if scenario.finance is not None else 0.0
    priced = with_carbon_price(scenario)  # the rates the plan was billed at
    kwh = rented_kwh = 0.0
    for n in result.plan.nodes if result.plan is not None else ():
        node = scenario.node(n.node_id)
        if isinstance(node, RentedNode):
            # GPU-hours paid: the offer's rent over its effective rate per GPU-hour (hours used on demand,
            # every hour of a reservation, billed seconds of a serverless GPU; spot's restarted or fallback hours)
            billed = priced.node(n.node_id)
            assert isinstance(billed, RentedNode)
            gpu_hours = (
                n.full_cost_usd_per_month / effective_usd_per_gpu_hour(billed) * rented_gpu_hours_per_useful_hour(node)
            )
            rented_kwh += gpu_hours * rented_gpu_draw_w(scenario, node) / 1000.0
            continue
        paid = max(n.nodes_used, n.nodes_owned)
        draw_w_per_gpu, _ = _node_draw_w_per_gpu(scenario, node, n.utilization)
        kwh += paid * node.gpus_per_node * draw_w_per_gpu / 1000.0 * HOURS_PER_MONTH
    kg = (kwh + rented_kwh) * factor.kg_co2e_per_kwh if factor is not None else None
    carbon = (kg or 0.0) * price / 1000.0
    api_calls = result.plan is not None and result.plan.api_cost_usd_per_month > 0
    return PlanCarbon(kwh, kg, price, carbon, factor, rented_kwh, api_calls)


def carbon_statement(c: PlanCarbon, rate: DisplayRate = USD) -> str:
    """One sentence for a reader: the owned fleet's electricity, emissions and carbon cost per month, money in
    the display currency [-].

    >>> text = carbon_statement(PlanCarbon(1000.0, 400.0, 50.0, 20.0, GridFactor("sg", 0.4, 2024, "EMA", "Singapore")))
    >>> text[:69]
    'Owned nodes: 1,000 kWh and 0.4 t CO2e a month (grid 0.4 kg/kWh, Singa'
    >>> text[69:]
    'pore 2024); a carbon price of USD 50/t adds USD 20 a month, included in their electricity.'
    """
    return _fleet_sentence(c, rate) + _rented_and_api_sentence(c)


def _fleet_sentence(c: PlanCarbon, rate: DisplayRate) -> str:
    owned, rented = c.kwh_per_month > 0 or c.rented_kwh_per_month <= 0, c.rented_kwh_per_month > 0
    who = {(True, False): "Owned nodes", (False, True): "Rented GPUs"}.get(
        (owned, rented), "Owned nodes and rented GPUs"
    )
    kwh = c.kwh_per_month + c.rented_kwh_per_month
    if kwh <= 0:  # an API-only plan read "Owned nodes: 0 kWh and 0 t CO2e a month"
        return "The plan runs no GPUs of its own: it has no energy or emissions of its own to count."
    if c.kg_co2e_per_month is None or c.factor is None:
        return f"{who}: {kwh:,.0f} kWh a month; set a grid region to see emissions and price carbon."
    text = (
        f"{who}: {kwh:,.0f} kWh and {c.kg_co2e_per_month / 1000:,.3g} t CO2e a month "
        f"(grid {c.factor.kg_co2e_per_kwh:g} kg/kWh, {c.factor.label} {c.factor.year or 'entered'})"
    )
    if c.carbon_price_usd_per_tonne <= 0:
        return text + "; no carbon price is set."
    price = to_display(c.carbon_price_usd_per_tonne, rate)
    where = {(True, False): "their electricity", (False, True): "their rent"}.get(
        (owned, rented), "their electricity and rent"
    )
    return (
        text + f"; a carbon price of {rate.code} {price:,.0f}/t adds {rate.code} "
        f"{to_display(c.carbon_usd_per_month, rate):,.0f} a month, included in {where}."
    )


def _rented_and_api_sentence(c: PlanCarbon) -> str:
    parts = []
    if c.rented_kwh_per_month > 0:
        of_it = f" ({c.rented_kwh_per_month:,.0f} kWh of it)" if c.kwh_per_month > 0 else ""
        parts.append(
            f" The rented GPUs' energy{of_it} is estimated from their board power: providers do not publish it."
        )
    if c.api_calls:
        parts.append(" API calls are not counted: providers publish no energy per token.")
    return "".join(parts)
