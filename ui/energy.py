"""Energy, carbon and the display currency on the pages: the energy table of one workload (Cost per token),
the fleet's carbon line and the page's display rate (Overview, Cost per token)."""

from __future__ import annotations

import pandas as pd

from economics.currency import USD, DisplayRate, display_rate, to_display
from economics.energy import carbon_statement, energy_table, plan_carbon
from economics.io.scenarios import ScenarioError
from economics.result import Result
from economics.scenario import Scenario
from ui.format import file_problem

_RATES: dict[DisplayRate, DisplayRate] = {}  # one object per distinct rate (a handful per process)


def page_rate(s: Scenario) -> tuple[DisplayRate, str]:
    """The scenario's display rate for a page, or US dollars with the problem to show when it has none."""
    try:
        rate = display_rate(s)
        if len(_RATES) > 64:  # typed rates are user input: keep the memo small
            _RATES.clear()
        return _RATES.setdefault(rate, rate), ""  # the same object for the same rate: memoized charts keep hitting
    except ScenarioError as e:
        return USD, "; ".join(file_problem(p) for p in e.problems) + " (shown in US dollars meanwhile)"


def carbon_line(s: Scenario, result: Result, rate: DisplayRate) -> str:
    """The owned fleet's kWh, CO2e and carbon cost in the plan, money in the display currency."""
    return carbon_statement(plan_carbon(s, result), rate)


#: The energy column's header: the joule written out ("J" read as a symbol to a finance reader).
ENERGY_COLUMN = "Energy [joules per output token]"


def cost_column(rate: DisplayRate) -> str:
    """The energy table's money column. Its cost is the plan's, at the load the workload puts on each option,
    which the page's chart (read at the utilization marked) does not show: the header says which it is."""
    return f"Cost at this workload's load [{rate.code}/Mtok output]"


def energy_frame(s: Scenario, result: Result, workload_id: str, rate: DisplayRate) -> pd.DataFrame:
    """One row per feasible owned or rented option of ``workload_id``: money, energy and emissions per million
    output tokens. APIs are left out: providers publish no energy per token (the page's caption says so), and their
    rows showed "None" in every energy column."""
    cost = {(o.workload_id, o.option_id): o for o in result.options}
    names = {o.option_id: o.option_name for o in result.options}
    rows = []
    for r in energy_table(s, result):
        if r.workload_id != workload_id or r.j_per_output_token is None:
            continue
        o = cost[(r.workload_id, r.option_id)]
        rows.append(
            {
                "Option": names[r.option_id],
                cost_column(rate): round(to_display(o.cost_usd_per_mtok_output, rate), 2),
                ENERGY_COLUMN: round(r.j_per_output_token, 3),
                "Energy [kWh/Mtok output]": None if r.kwh_per_mtok_output is None else round(r.kwh_per_mtok_output, 3),
                "Emissions [kg CO2e/Mtok output]": None
                if r.kg_co2e_per_mtok_output is None
                else round(r.kg_co2e_per_mtok_output, 3),
                "Basis": r.basis,
            }
        )
    # a column nobody can fill (emissions with no grid region set) is left out, not shown as "None" in every row
    return pd.DataFrame(rows).dropna(axis="columns", how="all")
