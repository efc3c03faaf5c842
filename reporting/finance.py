"""The meeting pack's finance section (issue 14): the display currency with its rate and date, the horizon's
per-year bills and NPV per plan, the crossover and its sensitivity to the API price decline, owned nodes in the
books (straight-line) beside the economic view, and energy and carbon.

The numbers come from :func:`economics.finance.report.finance_pack_section` and
:func:`economics.energy.plan_carbon`; this module only lays them out as tables for the template (autoescaped
there). Money is converted to the display currency here, at the edge.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from economics.currency import display_rate
from economics.energy import carbon_statement, energy_table, plan_carbon
from economics.finance.report import finance_pack_section
from economics.io.scenarios import ScenarioError
from economics.result import Result
from economics.scenario import Scenario

__all__ = ["finance_data", "finance_frames"]


def finance_data(scenario: Scenario, result: Result, *, years: int | None = None) -> dict[str, Any]:
    """Everything the pack's finance section shows, as data: :func:`finance_pack_section` plus ``carbon``
    (the owned fleet's sentence) and ``energy`` (per chosen route). A scenario whose horizon cannot be built
    gets ``problems`` instead, each naming the field."""
    try:
        rate = display_rate(scenario)
        section = finance_pack_section(scenario, years=years)
    except ScenarioError as e:
        return {"problems": list(e.problems)}
    chosen = {(d.workload_id, d.chosen_option_id) for d in result.decisions}
    names = {w.id: w.name for w in scenario.workloads}
    # the energy table named each route by its id ("owned-70b-ar")
    options = {o.id: o.name for o in scenario.owned_options} | {a.id: a.name for a in scenario.apis}
    section["carbon"] = carbon_statement(plan_carbon(scenario, result), rate)
    section["energy"] = [
        {
            "workload": names.get(r.workload_id, r.workload_id),
            "option": options.get(r.option_id, r.option_id),
            "j_per_output_token": r.j_per_output_token,
            "kwh_per_mtok_output": r.kwh_per_mtok_output,
            "kg_co2e_per_mtok_output": r.kg_co2e_per_mtok_output,
            "basis": r.basis,
        }
        for r in energy_table(scenario, result)
        if (r.workload_id, r.option_id) in chosen
    ]
    return section


def _amount(a: dict[str, float], code: str) -> float:
    return a.get(code.lower(), a["usd"])


def finance_frames(data: dict[str, Any]) -> dict[str, pd.DataFrame]:
    """The section's tables: ``bills`` (per plan: each year's bill and the NPV), ``books`` (book vs economic
    per owned node), ``sensitivity`` (crossover by API price change) and ``energy`` (chosen routes), money in
    the display currency named in the column headers."""
    code = data["currency"]["code"]
    bills = pd.DataFrame(
        [
            {
                "Plan": p["name"] + ("" if p["serves_every_workload"] else " (leaves workloads unserved)"),
                **{f"{b['year']} [{code}]": round(_amount(b["total"], code)) for b in p["bills"]},
                f"NPV [{code}]": round(_amount(p["npv"], code)),
            }
            for p in data["plans"]
        ]
    )
    books = pd.DataFrame(
        [
            {
                "Owned node": b.get("node_name") or b["node_id"],
                f"Book: straight-line depreciation [{code}/year]": round(_amount(b["book_per_year"], code)),
                f"Economic: capital recovery [{code}/year]": round(_amount(b["economic_per_year"], code)),
                f"Maintenance [{code}/year]": round(_amount(b["maintenance_per_year"], code)),
                f"Resale at end of life [{code}]": round(_amount(b["residual"], code)),
            }
            for b in data["owned_books"]
        ]
    )
    sensitivity = pd.DataFrame(
        [
            {
                "API price change per year": f"{s['api_price_change_per_year']:+.0%}",
                "Owning stops paying in": str(s["crossover_year"]) if s["crossover_year"] else "not within the horizon",
            }
            for s in data["crossover_sensitivity"]
        ]
    )
    energy = pd.DataFrame(
        [
            {
                "Workload": e["workload"],
                "Route": e["option"],
                "Energy [joules per output token]": e["j_per_output_token"],
                "Energy [kWh/Mtok output]": e["kwh_per_mtok_output"],
                "Emissions [kg CO2e/Mtok output]": e["kg_co2e_per_mtok_output"],
                "Basis": e["basis"],
            }
            for e in data["energy"]
        ]
    )
    return {"bills": bills, "books": books, "sensitivity": sensitivity, "energy": energy}
