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
node's electricity (:func:`with_carbon_price`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import cache

from economics.finance.data import latest_grid
from economics.finance.settings import FinanceSettings
from economics.io.catalog import load_catalog
from economics.offers import OwnedNode, RentedNode
from economics.result import Result
from economics.scenario import Scenario

__all__ = [
    "EnergyRow",
    "GridFactor",
    "RentedPowerModel",
    "energy_per_token_j",
    "energy_table",
    "grid_factor",
    "kwh_per_mtok",
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


def grid_factor(settings: FinanceSettings | None, on: dt.date) -> GridFactor | None:
    """The scenario's grid factor: its own override, else the catalog's newest for its region, else None."""
    if settings is None or (settings.grid_region is None and settings.grid_kg_co2e_per_kwh is None):
        return None
    region = settings.grid_region or "custom"
    if settings.grid_kg_co2e_per_kwh is not None:
        return GridFactor(region, settings.grid_kg_co2e_per_kwh, None, "entered in the scenario")
    row = latest_grid(region, on)
    if row is None:
        return None
    return GridFactor(region, row.kg_co2e_per_kwh, row.year, row.source)


def with_carbon_price(scenario: Scenario) -> Scenario:
    """The scenario with its carbon price added to every owned node's electricity price [USD/kWh].

    ``p_kWh' = p_kWh + factor·carbon_price/1000``. Unchanged without a carbon price or a grid factor.
    """
    settings = scenario.finance
    factor = grid_factor(settings, scenario.review_date)
    if settings is None or factor is None or settings.carbon_price_usd_per_tonne == 0:
        return scenario
    adder = factor.kg_co2e_per_kwh * settings.carbon_price_usd_per_tonne / 1000.0
    nodes = tuple(
        n.model_copy(update={"electricity_usd_per_kwh": min(2.0, n.electricity_usd_per_kwh + adder)})
        if isinstance(n, OwnedNode)
        else n
        for n in scenario.nodes
    )
    return scenario.model_copy(update={"nodes": nodes})


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
    gpu = scenario.gpu(node.gpu_id)
    m = rented_power_model(scenario.review_date)
    per_gpu = gpu.power_w * m.host_ratio * m.power_fraction * m.pue
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
