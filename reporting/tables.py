"""The meeting pack's tables as DataFrames: numbers for the CSV bundle, units in the column names.

The HTML formats the same frames for reading (:mod:`reporting.html`); the CSV bundle writes them as they
are, so a spreadsheet gets numbers, not strings.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from economics.compare import Comparison
from economics.currency import USD, DisplayRate
from economics.price_book import ITEM_LABEL, price_book_frame
from economics.uncertainty import MonteCarlo
from reporting.pack import MeetingPack
from ui.format import money_text
from ui.tables import decisions_frame, options_frame

__all__ = [
    "assumptions_frame",
    "bands_display",
    "decisions_with_bands",
    "fleet_changes_display",
    "flips_frame",
    "in_currency",
    "options_frame",
    "price_book_display",
    "price_changes_display",
    "workload_changes_display",
    "workloads_frame",
]


def _none_if_nan(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


def _times(x: float | None, k: float) -> float | None:
    return None if x is None else x * k


_USD_NAME = re.compile(r"(?<![a-z])usd(?![a-z])")


def in_currency(frame: pd.DataFrame, rate: DisplayRate, value_columns: tuple[str, ...] = ()) -> pd.DataFrame:
    """A raw table (the CSV bundle's) with its US-dollar money in ``rate``'s currency: every column with
    ``usd`` in its name is multiplied by the rate and renamed (``total_cost_usd_per_month`` →
    ``total_cost_sgd_per_month``); with ``value_columns``, the rows whose ``unit`` starts with ``USD`` are
    converted in those columns and their unit rewritten (``USD/Mtok`` → ``SGD/Mtok``). US dollars at 1: unchanged.
    """
    if rate.is_identity:
        return frame
    k, out = rate.units_per_usd, frame.copy()
    for column in frame.columns:
        if _USD_NAME.search(str(column)) and pd.api.types.is_numeric_dtype(frame[column]):
            out[column] = frame[column] * k
    out = out.rename(columns=lambda c: _USD_NAME.sub(rate.code.lower(), str(c)))
    if value_columns and "unit" in out.columns:
        money = out["unit"].astype(str).str.startswith("USD")
        for column in value_columns:
            out[column] = out[column].astype(float).where(~money, out[column].astype(float) * k)
        out["unit"] = out["unit"].astype(str).where(~money, rate.code + out["unit"].astype(str).str.removeprefix("USD"))
    return out


def decisions_with_bands(pack: MeetingPack) -> pd.DataFrame:
    """One row per workload: route, money and, with a Monte Carlo, the cost-per-Mtok band and P(owned wins),
    money in the pack's display currency (its code in the headers)."""
    rate = pack.rate
    k, c = rate.units_per_usd, rate.code
    frame = decisions_frame(pack.result, pack.scenario, rate)
    frame.insert(0, "Workload id", [d.workload_id for d in pack.result.decisions])
    chosen = {(o.workload_id, o.option_id): o for o in pack.result.options}
    routes = [chosen.get((d.workload_id, d.chosen_option_id or "")) for d in pack.result.decisions]
    frame[f"Cost of route [{c}/Mtok output]"] = [o.cost_usd_per_mtok_output * k if o else None for o in routes]
    # issue 13: the route's likely range from the throughput model's accuracy ("measured" rows have none)
    frame[f"Likely cost, low end [{c}/Mtok output]"] = [
        _times(o.cost_low_usd_per_mtok_output, k) if o else None for o in routes
    ]
    frame[f"Likely cost, high end [{c}/Mtok output]"] = [
        _times(o.cost_high_usd_per_mtok_output, k) if o else None for o in routes
    ]
    frame["Throughput from"] = [
        ("measured" if o.band_basis == "measured" else "model") if o and o.kind != "api" else "" for o in routes
    ]
    if pack.monte_carlo is not None:
        mc = pack.monte_carlo.workloads.set_index("workload_id")
        ids = frame["Workload id"]
        frame[f"P5 [{c}/Mtok]"] = [_times(_none_if_nan(mc.loc[w, "p05_usd_per_mtok"]), k) for w in ids]
        frame[f"P95 [{c}/Mtok]"] = [_times(_none_if_nan(mc.loc[w, "p95_usd_per_mtok"]), k) for w in ids]
        frame["P(owned beats API) [1]"] = [_none_if_nan(mc.loc[w, "prob_owned_beats_api"]) for w in ids]
    return frame


def flips_frame(pack: MeetingPack) -> pd.DataFrame:
    """Every decision-flip threshold: workload, driver, now, threshold, direction, new route, sentence; a
    threshold in US dollars (its unit starts with USD) is in the pack's display currency, and so are the
    sentence's amounts."""
    rate = pack.rate
    rows = [
        {
            "Workload": d.workload_name,
            "Driver": f.driver,
            "unit": f.unit,
            "Now": f.current,
            "Threshold": f.threshold,
            "Flips when it goes": f.direction,
            "New route": f.new_option_id or "",
            "In words": money_text(f.text, rate.code, rate.units_per_usd),
        }
        for d in pack.result.decisions
        for f in d.flips
    ]
    frame = pd.DataFrame(
        rows, columns=["Workload", "Driver", "unit", "Now", "Threshold", "Flips when it goes", "New route", "In words"]
    )
    return in_currency(frame, rate, ("Now", "Threshold")).rename(columns={"unit": "Unit"})


def price_book_display(pack: MeetingPack) -> pd.DataFrame:
    """The price book with source and as-of date per price and the stale flag."""
    f = in_currency(price_book_frame(pack.scenario, pack.result), pack.rate, ("list_value", "value"))
    return pd.DataFrame(
        {
            "Offer": f["offer_name"],
            "Price": [ITEM_LABEL.get(i, i) for i in f["item"]],  # "node_capex", "api_cache_write" before
            "Unit": f["unit"],
            "List": f["list_value"],
            "Discount [%]": 100 * f["discount_fraction"],
            "In use": f["value"],
            "Negotiated": f["negotiated"],
            "Source": f["source"],
            "As of": f["as_of"].astype(str).replace("None", ""),
            "Age [days]": f["age_days"],
            "Stale": f["stale"],
            "Feeds a chosen route": f["in_chosen_route"],
        }
    )


def workloads_frame(pack: MeetingPack) -> pd.DataFrame:
    """The workload inputs (assumptions): rates, sizes, SLOs, sovereignty, failure cost (in the pack's display
    currency)."""
    rate = pack.rate
    return pd.DataFrame(
        [
            {
                "Workload": w.name,
                "Avg [req/s]": w.avg_requests_per_s,
                "Peak [req/s]": w.peak_requests_per_s,
                "Input [tokens]": w.input_tokens,
                "Output [tokens]": w.output_tokens,
                "First token within [s]": w.ttft_slo_s,  # "TTFT SLO", "TPOT SLO" before: symbols
                "Each further token within [s]": w.tpot_slo_s,
                "Deadline [s]": w.deadline_s,
                "Sovereign": w.sovereign,
                f"Failure cost [{rate.code}]": w.failure_cost_usd * rate.units_per_usd,
                "Notes": w.notes,
            }
            for w in pack.scenario.workloads
        ]
    )


def assumptions_frame(pack: MeetingPack) -> pd.DataFrame:
    """Policy, efficiency factors and uncertainty ranges as (group, name, value, meaning) rows."""
    rows = []
    for group, model in (("policy", pack.scenario.policy), ("efficiency", pack.scenario.efficiency)):
        for name, field in type(model).model_fields.items():
            rows.append({"Group": group, "Name": name, "Value": getattr(model, name), "Meaning": field.description})
    if pack.ranges is not None:
        for name, field in type(pack.ranges).model_fields.items():
            r = getattr(pack.ranges, name)
            rows.append(
                {
                    "Group": "uncertainty range [assumption]",
                    "Name": name,
                    "Value": f"{r.low:g}–{r.high:g} (scenario value {r.base:g})",
                    "Meaning": field.description,
                }
            )
    return pd.DataFrame(rows, columns=["Group", "Name", "Value", "Meaning"])


def workload_changes_display(c: Comparison, rate: DisplayRate = USD) -> pd.DataFrame:
    """Per workload: route before and after, whether it flipped, monthly cost and cost per Mtok before and
    after, both sides converted at the one ``rate`` (constant currency: the change is prices and routes, not
    the exchange rate)."""
    w, k, code = c.workloads, rate.units_per_usd, rate.code
    return pd.DataFrame(
        {
            "Workload": w["workload_name"],
            "Route before": w["route_before_name"],
            "Route after": w["route_after_name"],
            "Flipped": w["flipped"],
            # to the cent: 2,049.84 USD × 1.3 read "2,664.792" on the Reviews page
            f"Before [{code}/month]": (w["monthly_cost_before_usd"] * k).round(2),
            f"After [{code}/month]": (w["monthly_cost_after_usd"] * k).round(2),
            f"Change [{code}/month]": (w["monthly_cost_change_usd"] * k).round(2),
            f"Before [{code}/Mtok]": (w["cost_per_mtok_before_usd"] * k).round(4),
            f"After [{code}/Mtok]": (w["cost_per_mtok_after_usd"] * k).round(4),
            "Status": w["status"],
        }
    )


def price_changes_display(c: Comparison, rate: DisplayRate = USD) -> pd.DataFrame:
    """Each price that changed, appeared or disappeared, with both as-of dates; a price in US dollars is shown
    in ``rate``'s currency (both sides at the one rate), any other unit as it is."""
    p = c.prices
    money = p["unit"].astype(str).str.startswith("USD")
    k = money.map({True: rate.units_per_usd, False: 1.0}).astype(float)
    unit = p["unit"].astype(str).where(~money, rate.code + p["unit"].astype(str).str.removeprefix("USD"))
    return pd.DataFrame(
        {
            "Offer": p["offer_name"],
            "Price": p["item"],
            "Unit": unit,
            "Before": p["before"] * k,
            "After": p["after"] * k,
            "Change": p["change"] * k,
            "Change [%]": 100 * p["change_fraction"],
            "Before as of": p["before_as_of"].astype(str).replace("None", ""),
            "After as of": p["after_as_of"].astype(str).replace("None", ""),
            "Status": p["status"],
        }
    )


def fleet_changes_display(c: Comparison, rate: DisplayRate = USD) -> pd.DataFrame:
    """The fleet figures before and after, money in ``rate``'s currency (both sides at the one rate)."""
    f = in_currency(c.fleet, rate, ("before", "after", "change"))
    share = f["unit"].astype(str) == "1"  # a fraction (owned utilization) read "1 · 0.2345": as a percentage
    for column in ("before", "after", "change"):
        f[column] = f[column].astype(float).where(~share, (100 * f[column].astype(float)).round(1))
    f["unit"] = f["unit"].astype(str).where(~share, "%")
    return pd.DataFrame(
        {"Figure": f["label"], "Unit": f["unit"], "Before": f["before"], "After": f["after"], "Change": f["change"]}
    )


def _option_names(mc: MonteCarlo) -> dict[str, str]:
    """Option id → display name, from the Monte Carlo's option table."""
    o = mc.options
    return dict(zip(o["option_id"], o["option_name"], strict=True)) if len(o) else {}


def bands_display(mc: MonteCarlo, rate: DisplayRate = USD) -> pd.DataFrame:
    """Per workload: the chosen route's cost-per-Mtok band (in ``rate``'s currency) and the probabilities."""
    w, k, code = mc.workloads, rate.units_per_usd, rate.code
    return pd.DataFrame(
        {
            "Workload": w["workload_name"],
            "Route at base": w["base_option_id"].map(_option_names(mc)).fillna(w["base_option_id"]),
            f"Base [{code}/Mtok]": w["base_usd_per_mtok"] * k,
            f"P5 [{code}/Mtok]": w["p05_usd_per_mtok"] * k,
            f"Median [{code}/Mtok]": w["p50_usd_per_mtok"] * k,
            f"P95 [{code}/Mtok]": w["p95_usd_per_mtok"] * k,
            "API allowed": w["api_allowed"],
            "P(owned beats API)": w["prob_owned_beats_api"],
            "P(route unchanged)": w["prob_route_unchanged"],
        }
    )
