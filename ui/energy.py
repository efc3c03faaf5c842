"""The energy and carbon table of one workload (Cost per token page), money in the display currency."""

from __future__ import annotations

import pandas as pd

from economics.currency import DisplayRate, to_display
from economics.energy import energy_table
from economics.result import Result
from economics.scenario import Scenario


def energy_frame(s: Scenario, result: Result, workload_id: str, rate: DisplayRate) -> pd.DataFrame:
    """One row per feasible option of ``workload_id``: money, energy and emissions per million output tokens."""
    cost = {(o.workload_id, o.option_id): o for o in result.options}
    names = {o.option_id: o.option_name for o in result.options}
    rows = []
    for r in energy_table(s, result):
        if r.workload_id != workload_id:
            continue
        o = cost[(r.workload_id, r.option_id)]
        rows.append(
            {
                "Option": names[r.option_id],
                f"Cost [{rate.code}/Mtok output]": round(to_display(o.cost_usd_per_mtok_output, rate), 4),
                "Energy [J/output token]": None if r.j_per_output_token is None else round(r.j_per_output_token, 3),
                "Energy [kWh/Mtok output]": None if r.kwh_per_mtok_output is None else round(r.kwh_per_mtok_output, 3),
                "Emissions [kg CO2e/Mtok output]": None
                if r.kg_co2e_per_mtok_output is None
                else round(r.kg_co2e_per_mtok_output, 3),
                "Basis": r.basis,
            }
        )
    return pd.DataFrame(rows)
