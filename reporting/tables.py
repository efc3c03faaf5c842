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
from economics.price_book import price_book_frame
from economics.uncertainty import MonteCarlo
from economics.units import MS, SECONDS_PER_HOUR
from reporting.pack import MeetingPack
from ui.format import (
    CURRENCY_PREFIX,
    PRICE_UNIT_WORDS,
    money_text,
    pct,
    plain,
    price_age,
    price_item_words,
    price_statuses,
)
from ui.format import duration as duration_words
from ui.tables import decisions_frame, options_frame

__all__ = [
    "assumptions_frame",
    "bands_display",
    "decisions_with_bands",
    "fleet_changes_display",
    "fleet_display",
    "flips_frame",
    "in_currency",
    "option_bands_display",
    "options_frame",
    "price_book_display",
    "price_changes_display",
    "tornado_display",
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
    frame[f"All-in cost of route [{c}/Mtok output]"] = [o.cost_usd_per_mtok_output * k if o else None for o in routes]
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
        view = "cash view" if pack.scenario.policy.lens == "cash" else "full cost"
        frame[f"Uncertain inputs, low, {view} [{c}/Mtok]"] = [
            _times(_none_if_nan(mc.loc[w, "p05_usd_per_mtok"]), k) for w in ids
        ]
        frame[f"Uncertain inputs, high, {view} [{c}/Mtok]"] = [
            _times(_none_if_nan(mc.loc[w, "p95_usd_per_mtok"]), k) for w in ids
        ]
        frame[f"Chance {pack.scenario.gpu_side()} costs less per task"] = [
            _none_if_nan(mc.loc[w, "prob_owned_beats_api"]) for w in ids
        ]
    return frame


#: A flip threshold's driver in words (the economics package names it for engineers and the CLI).
DRIVER_WORDS: dict[str, str] = {
    "node_price": "Node price",
    "api_output_price": "API output price in use",
    "quality_gap": "Quality gap to the best API",
    "throughput": "Capacity within the latency targets",
    "utilization": "Target utilization",
}


def flips_frame(pack: MeetingPack) -> pd.DataFrame:
    """Every decision-flip threshold: workload, driver, now, threshold, direction, new route, sentence; a
    threshold in US dollars (its unit starts with USD) is in the pack's display currency, and so are the
    sentence's amounts."""
    rate = pack.rate
    names = {o.option_id: o.option_name for o in pack.result.options}
    rows = [
        {
            "Workload": d.workload_name,
            "Driver": DRIVER_WORDS.get(f.driver, f.driver.replace("_", " ").capitalize()),
            "unit": f.unit,
            "Now": f.current,
            "Threshold": f.threshold,
            "Flips when it goes": f.direction,
            "New route": names.get(f.new_option_id or "", f.new_option_id or ""),
            "In words": money_text(plain(f.text), rate.code, rate.units_per_usd),
        }
        for d in pack.result.decisions
        for f in d.flips
    ]
    frame = pd.DataFrame(
        rows, columns=["Workload", "Driver", "unit", "Now", "Threshold", "Flips when it goes", "New route", "In words"]
    )
    return in_currency(frame, rate, ("Now", "Threshold")).rename(columns={"unit": "Unit"})


def _unit_words(units: pd.Series, rate: DisplayRate) -> list[str]:
    """Price units (``USD/kWh``) in words, in the display currency (``S$ per kWh``)."""
    prefix = CURRENCY_PREFIX.get(rate.code, f"{rate.code} ")
    return [PRICE_UNIT_WORDS.get(str(u), str(u).replace("USD", "$")).replace("$", prefix, 1) for u in units]


def price_book_display(pack: MeetingPack, *, numbers: bool = False) -> pd.DataFrame:
    """The price book with source and as-of date per price and the stale flag; the discount as a percentage
    (text for the page, a number in ``Discount [%]`` for the CSV with ``numbers``)."""
    raw = price_book_frame(pack.scenario, pack.result)
    f = in_currency(raw, pack.rate, ("list_value", "value"))
    discount = f["discount_fraction"].astype(float)
    return pd.DataFrame(
        {
            "Offer": f["offer_name"],
            "Price": [price_item_words(str(i)) for i in f["item"]],
            "Unit": _unit_words(raw["unit"], pack.rate),
            "List": f["list_value"],
            **(
                {"Discount [%]": 100 * discount}
                if numbers
                else {"Discount": [pct(x) if pd.notna(x) else None for x in discount]}
            ),
            "In use": f["value"],
            "Negotiated": _yes_no(f["negotiated"]),
            "Source": [plain(str(x)) for x in f["source"]],
            "As of": f["as_of"].astype(str).replace("None", ""),
            "Age [days]": price_age(f["age_days"]),
            "Status": price_statuses(f),
            "Feeds a chosen route": _yes_no(f["in_chosen_route"]),
        }
    )


def _yes_no(flags: pd.Series) -> list[str]:
    """Flags in words for a reader (and a spreadsheet's filter), not Python's True/False."""
    return ["yes" if bool(x) else "no" for x in flags]


def workloads_frame(pack: MeetingPack) -> pd.DataFrame:
    """The workload inputs (assumptions): rates, sizes, SLOs, sovereignty, failure cost (in the pack's display
    currency)."""
    rate = pack.rate
    return pd.DataFrame(
        [
            {
                "Workload": w.name,
                "Average [requests/s]": w.avg_requests_per_s,
                "Peak [requests/s]": w.peak_requests_per_s,
                "Input [tokens]": w.input_tokens,
                "Output [tokens]": w.output_tokens,
                # the Workloads page's targets in its units: 1 s to first token, 30 ms per token, 8 h
                "First token within [s]": w.ttft_slo_s,
                "Time per token at most [ms]": None if w.tpot_slo_s is None else w.tpot_slo_s / MS,
                "Done within [h]": None if w.deadline_s is None else w.deadline_s / SECONDS_PER_HOUR,
                "Sovereign": w.sovereign,
                f"Failure cost [{rate.code}]": w.failure_cost_usd * rate.units_per_usd,
                "Notes": w.notes,
            }
            for w in pack.scenario.workloads
        ]
    )


#: The scenario's policy, efficiency and uncertainty fields in words (the field names are for files and the
#: CLI); a field missing here is written from its name with :func:`ui.format.plain`.
ASSUMPTION_WORDS: dict[str, str] = {
    "target_utilization": "Target utilization of a replica at peak",
    "lens": "Cost view",
    "allow_split": "Split a workload between owned GPUs and an API",
    "solver_time_limit_s": "Time the plan's solver may take",
    "cost_mode": "Cost mode (kept for old files)",
    "pool_utilization": "Pool utilization (kept for old files)",
    "stale_after_days": "A price is stale after",
    "mbu": "Memory bandwidth achieved (MBU)",
    "mfu_decode": "Arithmetic achieved in generation (MFU, decode)",
    "mfu_prefill": "Arithmetic achieved reading the prompt (MFU, prefill)",
    "sequence_overhead_s": "Engine overhead per running request per step",
    "step_overhead_s": "Fixed overhead per forward pass",
    "allreduce_latency_s": "Latency of one all-reduce between GPUs",
    "comm_overlap": "Share of GPU-to-GPU traffic hidden behind compute",
    "fp8_compute_efficiency": "FP8 arithmetic efficiency relative to BF16",
    "fp4_compute_efficiency": "FP4 arithmetic efficiency relative to BF16",
    "moe_gemm_half_tokens": "Tokens per expert at half efficiency (mixture of experts)",
    "moe_load_imbalance": "Busiest expert's load ÷ the mean (mixture of experts)",
    "layer_floor_s": "Least time one layer of a pass takes",
    "kv_mem_util": "Share of GPU memory the engine may use",
    "api_price": "API prices",
    "node_price": "Node cost per hour",
    "mfu": "Arithmetic achieved (MFU)",
    "diffusion_throughput": "Diffusion capacity",
    "diffusion_quality": "Diffusion quality as a share of AR quality",
}
_UNIT = re.compile(r"\s*\[([^\]]*)\]$")


def _meaning(description: str | None) -> tuple[str, str]:
    """A field description without its trailing unit, in words, and the unit ("" for a plain number)."""
    text = description or ""
    m = _UNIT.search(text)
    unit = m.group(1) if m else ""
    text = re.sub(r",\s*[a-z]+_[a-z]+$", "", _UNIT.sub("", text))  # a trailing symbol (", u_target")
    return plain(text[:1].upper() + text[1:]), "" if unit in {"1", "-"} else unit


def _value(value: object, unit: str) -> object:
    """A setting as a person reads it: seconds as a duration, yes/no, a share as a percentage."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and unit == "s":
        return duration_words(value)
    if isinstance(value, int) and unit == "days":
        return f"{value:,} days"
    return value


def assumptions_frame(pack: MeetingPack) -> pd.DataFrame:
    """Policy, efficiency factors and uncertainty ranges as (group, setting, value, meaning) rows, in words."""
    rows = []
    for group, model in (("Policy", pack.scenario.policy), ("Efficiency", pack.scenario.efficiency)):
        for name, field in type(model).model_fields.items():
            meaning, unit = _meaning(field.description)
            rows.append(
                {
                    "Group": group,
                    "Setting": ASSUMPTION_WORDS.get(name, plain(name).capitalize()),
                    "Value": _value(getattr(model, name), unit),
                    "Meaning": meaning,
                }
            )
    if pack.ranges is not None:
        for name, field in type(pack.ranges).model_fields.items():
            r = getattr(pack.ranges, name)
            rows.append(
                {
                    "Group": "Uncertainty range [assumption]",
                    "Setting": ASSUMPTION_WORDS.get(name, plain(name).capitalize()),
                    "Value": f"×{r.low:g} to ×{r.high:g} (scenario: ×{r.base:g})",
                    "Meaning": _meaning(field.description)[0],
                }
            )
    return pd.DataFrame(rows, columns=["Group", "Setting", "Value", "Meaning"])


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
    return pd.DataFrame(
        {
            "Offer": p["offer_name"],
            "Price": [price_item_words(str(i)) for i in p["item"]],
            "Unit": _unit_words(p["unit"], rate),
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
    share = f["unit"].astype(str) == "1"  # a share (utilization): shown in percent
    scale = share.map({True: 100.0, False: 1.0}).astype(float)
    return pd.DataFrame(
        {
            "Figure": [
                FLEET_WORDS.get(str(m), str(label).capitalize())
                for m, label in zip(f["metric"], f["label"], strict=True)
            ],
            "Unit": f["unit"].astype(str).where(~share, "%").replace({"count": "GPUs"}),
            "Before": f["before"] * scale,
            "After": f["after"] * scale,
            "Change": f["change"] * scale,
        }
    )


#: The fleet's figures in words; the owned fleet's and its idle hours' cost are in the plan's cost view (0 for
#: bought nodes in the cash view, where the key figures show the idle hours at full cost).
FLEET_WORDS: dict[str, str] = {
    "total_cost_usd_per_month": "Recommended plan",
    "owned_cost_usd_per_month": "Owned fleet, in the plan's cost view",
    "rented_cost_usd_per_month": "Rented nodes",
    "api_cost_usd_per_month": "API spend",
    "idle_cost_usd_per_month": "Idle owned capacity, in the plan's cost view",
    "all_api_cost_usd_per_month": "API baseline",
    "owned_gpus": "Owned GPUs",
    "owned_utilization": "Fleet GPU utilization",
}


def fleet_display(pack: MeetingPack) -> pd.DataFrame:
    """The fleet summary as one row with headers in words, money in the pack's display currency."""
    f, k, c = pack.result.fleet, pack.rate.units_per_usd, pack.rate.code
    return pd.DataFrame(
        [
            {
                "Owned nodes": f.owned_nodes,
                "Owned GPUs": f.owned_gpus,
                f"Owned nodes and power, in the plan's cost view [{c}/month]": f.owned_cost_usd_per_month * k,
                "Fleet GPU utilization [%]": 100 * f.owned_utilization,
                f"Idle owned capacity, in the plan's cost view [{c}/month]": f.idle_cost_usd_per_month * k,
                f"Rented nodes [{c}/month]": f.rented_cost_usd_per_month * k,
                f"APIs [{c}/month]": f.api_cost_usd_per_month * k,
                f"Recommended plan [{c}/month]": f.total_cost_usd_per_month * k,
                f"API baseline [{c}/month]": _times(f.all_api_cost_usd_per_month, k),
            }
        ]
    )


def tornado_display(pack: MeetingPack) -> pd.DataFrame:
    """One row per uncertain input: its range and the savings and cost at each end, in words."""
    assert pack.tornado is not None
    k, c = pack.rate.units_per_usd, pack.rate.code
    return pd.DataFrame(
        [
            {
                "Input": b.label,
                "Low end [×]": b.low,
                "High end [×]": b.high,
                f"Savings at the low end [{c}/month]": b.savings_at_low_usd_per_month * k,
                f"Savings at the high end [{c}/month]": b.savings_at_high_usd_per_month * k,
                f"Cost at the low end [{c}/month]": b.cost_at_low_usd_per_month * k,
                f"Cost at the high end [{c}/month]": b.cost_at_high_usd_per_month * k,
            }
            for b in pack.tornado.bars
        ]
    )


def option_bands_display(mc: MonteCarlo, rate: DisplayRate = USD) -> pd.DataFrame:
    """Per workload and option: its cost-per-Mtok band over the draws, in ``rate``'s currency."""
    o, k, code = mc.options, rate.units_per_usd, rate.code
    names = dict(zip(mc.workloads["workload_id"], mc.workloads["workload_name"], strict=True))
    return pd.DataFrame(
        {
            "Workload": o["workload_id"].map(names).fillna(o["workload_id"]),
            "Option": o["option_name"],
            "Kind": o["kind"].astype(str).str.replace("_", " "),
            "Allowed": o["allowed"],
            f"At the scenario's values [{code}/Mtok]": o["base_usd_per_mtok"] * k,
            f"Low (1 draw in 20 below) [{code}/Mtok]": o["p05_usd_per_mtok"] * k,
            f"Median [{code}/Mtok]": o["p50_usd_per_mtok"] * k,
            f"High (1 draw in 20 above) [{code}/Mtok]": o["p95_usd_per_mtok"] * k,
        }
    )


def _option_names(mc: MonteCarlo) -> dict[str, str]:
    """Option id → display name, from the Monte Carlo's option table."""
    o = mc.options
    return dict(zip(o["option_id"], o["option_name"], strict=True)) if len(o) else {}


def bands_display(mc: MonteCarlo, rate: DisplayRate = USD, side: str = "owned") -> pd.DataFrame:
    """Per workload: the chosen route's cost-per-Mtok band (in ``rate``'s currency) and the probabilities; ``side``
    names the GPU options (the scenario's :meth:`~economics.scenario.Scenario.gpu_side`)."""
    w, k, code = mc.workloads, rate.units_per_usd, rate.code
    return pd.DataFrame(
        {
            "Workload": w["workload_name"],
            "Route at base": w["base_option_id"].map(_option_names(mc)).fillna(w["base_option_id"]),
            f"At the scenario's values [{code}/Mtok]": w["base_usd_per_mtok"] * k,
            f"Low (1 draw in 20 below) [{code}/Mtok]": w["p05_usd_per_mtok"] * k,
            f"Median [{code}/Mtok]": w["p50_usd_per_mtok"] * k,
            f"High (1 draw in 20 above) [{code}/Mtok]": w["p95_usd_per_mtok"] * k,
            "API allowed": w["api_allowed"],
            f"Chance {side} costs less per task": w["prob_owned_beats_api"],
            "Chance the route holds": w["prob_route_unchanged"],
            "Chance the bought GPUs run short": w["prob_fleet_short"],
        }
    )
