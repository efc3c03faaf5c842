"""Tables for display and CSV download, built from typed results. Column names carry their units.

Values are converted to display units here (ms, %, USD/month); ``inf`` costs of infeasible options become
empty cells, and the "why not" column says why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from economics.calibration_fit import PointResidual
from economics.currency import USD, DisplayRate
from economics.io.safe_io import csv_text
from economics.result import FleetSummary, OptionResult, Result
from economics.scenario import Scenario
from economics.units import MS
from economics.views.cost import CostAnalysis
from ui.format import money_text, plain, route_words
from ui.theme import KIND_LABEL, kind_labels


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """A table as UTF-8 CSV for download, every text cell safe to open in a spreadsheet (a cell starting with
    ``= + - @``, tab or CR is prefixed with ``'``; see :func:`economics.io.safe_io.csv_safe`), floats rounded to
    6 decimals (no 2.0999999999999996)."""
    return csv_text(frame.round(6)).encode("utf-8")


def _finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def option_names(scenario: Scenario) -> dict[str, str]:
    """Option id → display name, owned options and APIs."""
    names = {o.id: o.name for o in scenario.owned_options}
    names.update({a.id: a.name for a in scenario.apis})
    return names


def _in(rate: DisplayRate) -> tuple[str, Any]:
    """(currency code for column headers, USD amount → display amount) for ``rate``; None and inf stay empty.
    ``cents=True`` rounds a converted monthly amount to the cent (2,049.84 × 1.3 shows 2,664.79, not 2,664.792);
    US dollars at 1 are returned as they are."""

    def convert(x: float | None, cents: bool = False) -> float | None:
        x = _finite(x)
        if x is None or rate.is_identity:
            return x
        return round(x * rate.units_per_usd, 2) if cents else x * rate.units_per_usd

    return rate.code, convert


def decisions_frame(result: Result, scenario: Scenario, rate: DisplayRate = USD) -> pd.DataFrame:
    """One row per workload: route, option, monthly money, margin and reason, in the display currency of
    ``rate`` (its code in the column headers; the reasons' amounts converted too). The reason, a paragraph, comes
    last: before the figures it pushed the money off a 1,440 px window."""
    names = option_names(scenario)
    c, cv = _in(rate)
    sovereign = {w.id: w.sovereign for w in scenario.workloads}
    rows = [
        {
            "Workload": d.workload_name,
            "Route": route_words(d.route_label),
            "Runs on": names.get(d.chosen_option_id or "", "—"),
            f"Cost of route [{c}/month]": cv(d.monthly_cost_usd, cents=True),
            f"On its best API [{c}/month]": cv(d.all_api_monthly_cost_usd, cents=True),
            f"Savings vs API [{c}/month]": cv(d.savings_vs_api_usd_per_month, cents=True),
            f"Margin vs runner-up [{c}/task]": cv(d.margin_usd_per_request),
            "Too close to call at this accuracy": d.too_close_to_call,
            "Sovereign": sovereign.get(d.workload_id, False),
            "Why": money_text(plain(d.reason), rate.code, rate.units_per_usd),
        }
        for d in result.decisions
    ]
    return pd.DataFrame(rows)


def _source(o: OptionResult, measured: set[str], calibrated: set[str]) -> str:
    """Where an option's throughput comes from: '' for an API, measured, the calibrated model or the model."""
    if o.kind == "api":
        return ""
    return "measured" if o.option_id in measured else "model, calibrated" if o.option_id in calibrated else "model"


def options_frame(result: Result, scenario: Scenario, rate: DisplayRate = USD) -> pd.DataFrame:
    """One row per workload and option: every cost and operating number the router compared, money in the
    display currency of ``rate``. The figures the router decided on (chosen, expected cost per task) come right
    after the names, so a narrow window shows them beside its pinned first column."""
    c, cv = _in(rate)
    kinds = kind_labels(scenario)
    wl_names = {w.id: w.name for w in scenario.workloads}
    chosen = {d.workload_id: d.chosen_option_id for d in result.decisions}
    measured = {o.id for o in scenario.owned_options if o.measured is not None}
    calibrated = {o.id for o in scenario.owned_options if o.calibration is not None}
    rows = []
    for o in result.options:
        rows.append(
            {
                "Workload": wl_names.get(o.workload_id, o.workload_id),
                "Option": o.option_name,
                "Chosen": chosen.get(o.workload_id) == o.option_id,
                f"Expected cost with failures [{c}/task]": cv(o.expected_cost_usd_per_request),
                f"Cost [{c}/Mtok output]": cv(o.cost_usd_per_mtok_output),
                f"Cost [{c}/Mtok in+out]": cv(o.cost_usd_per_mtok_total),
                f"Cost [{c}/task]": cv(o.cost_usd_per_request),
                "Kind": kinds.get(o.option_id, o.kind),
                "Feasible": o.feasible,
                "Why not": money_text(plain(o.reason), rate.code, rate.units_per_usd),
                "Quality [%]": 100 * o.quality,
                "Time per token [ms]": _finite(o.tpot_s / MS),
                "Time to first token [ms]": _finite(o.ttft_s / MS),
                "Replicas": o.replicas,
                "GPUs": o.gpus,
                "Utilization [%]": _finite(100 * o.utilization) if o.kind != "api" else None,
                "Capacity per replica [req/s]": _finite(o.capacity_requests_per_s),
                f"Likely cost, low end [{c}/Mtok output]": cv(o.cost_low_usd_per_mtok_output),
                f"Likely cost, high end [{c}/Mtok output]": cv(o.cost_high_usd_per_mtok_output),
                "Likely capacity, low end [req/s]": o.capacity_low_requests_per_s,
                "Likely capacity, high end [req/s]": o.capacity_high_requests_per_s,
                "Accuracy band from": o.band_basis,
                "Throughput from": _source(o, measured, calibrated),
                "Speculation on": o.speculation_on,
                "API batch tier": o.batch_tier,
            }
        )
    return pd.DataFrame(rows)


def you_are_here(result: Result, workload_id: str) -> tuple[str, float] | None:
    """(owned option id, its utilization [1]) where the workload runs today: its chosen route when owned,
    else its cheapest feasible owned option; None without one."""
    rows = [o for o in result.options if o.workload_id == workload_id and o.kind != "api" and o.feasible]
    if not rows:
        return None
    chosen = next((d.chosen_option_id for d in result.decisions if d.workload_id == workload_id), None)
    row = next((o for o in rows if o.option_id == chosen), min(rows, key=lambda o: o.expected_cost_usd_per_request))
    return row.option_id, row.utilization


def fleet_savings(fleet: FleetSummary) -> float | None:
    """All-API cost minus the recommended routes' cost [USD/month]; None when no all-API figure exists."""
    if fleet.all_api_cost_usd_per_month is None:
        return None
    return fleet.all_api_cost_usd_per_month - fleet.total_cost_usd_per_month


def _likely(curve: Any, ratio: tuple[float, float] | None) -> str:
    """The likely capacity range "1,200–1,900" from a throughput band, "measured" for a benchmark, or empty."""
    if not curve.feasible:
        return ""
    if curve.source == "measured":
        return "measured"
    if ratio is None:
        return ""
    x = curve.capacity_tokens_per_s
    return f"{x * min(ratio[0], 1.0):,.0f}–{x * max(ratio[1], 1.0):,.0f}"


def cost_curves_frame(
    a: CostAnalysis,
    ratios: Mapping[str, tuple[float, float]] | None = None,
    rate: DisplayRate = USD,
    labels: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """One row per owned variant: throughput, replica cost (in ``rate``'s currency) and break-even (the chart
    shows the cost at any utilization); with ``ratios`` (option id → plausible throughput low/high as multiples
    of the model's) the likely capacity range of each modelled variant; ``labels`` (option id → kind label,
    :func:`ui.theme.kind_labels`) says "rented" for an option on a rented node. The verdict and the replica's
    cost come right after the option's name, so a narrow window shows them beside its pinned first column."""
    rows = []
    for c in a.curves:
        u_star = c.break_even_utilization
        rows.append(
            {
                "Option": c.label,
                "Break-even": (
                    "no API to compare"
                    if math.isnan(u_star)
                    else "never (API cheaper at any load)"
                    if u_star > 1
                    else f"owned cheaper above {100 * u_star:.0f}%"
                ),
                f"Replica cost at full load [{rate.code}/h]": rate.units_per_usd * c.replica_cost_usd_per_hour,
                "Capacity [output tok/s per replica]": round(c.capacity_tokens_per_s) if c.feasible else None,
                "Likely capacity [output tok/s per replica]": _likely(c, (ratios or {}).get(c.option_id)),
                "Break-even utilization vs cheapest API [%]": round(100 * u_star, 1) if math.isfinite(u_star) else None,
                "Kind": (labels or {}).get(c.option_id, KIND_LABEL[c.kind]),
                "Feasible": c.feasible,
                "Why not": plain(c.reason),
                "Throughput source": c.source,
            }
        )
    return pd.DataFrame(rows)


def residuals_frame(residuals: Sequence[PointResidual]) -> pd.DataFrame:
    """The Accuracy page's table of the user's runs against the fitted model (``PointResidual`` rows): the
    difference rounded to 0.1% with no negative zero (a run the fit meets exactly read "-0.0000005")."""
    rows = pd.DataFrame(
        [r.model_dump() for r in residuals],
        columns=["source", "measured_tokens_per_s", "predicted_tokens_per_s", "residual_pct"],
    )
    rows["residual_pct"] = rows["residual_pct"].astype(float).round(1) + 0.0
    return rows
