"""How accurate a throughput-derived figure is, in words and as chart error bars (issue 13).

Pure helpers (no streamlit): the pages, the charts and the meeting pack call them with the evaluation's
:class:`~economics.OptionResult` rows, whose band fields :func:`economics.evaluate` fills (a modelled owned
option: a 10–90% band; a benchmarked one: "measured"; an API: none).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pandas as pd

from economics import OptionResult, Scenario, WorkloadDecision, dollars_alike, option_band_ratio
from economics.currency import USD, DisplayRate
from economics.uncertainty import MonteCarlo
from economics.words import sentence
from ui import format as fmt

MEASURED = "measured"


def _range(low: float | None, value: float, high: float | None, show: Callable[[float], str]) -> str:
    if low is None or high is None:
        return ""
    return f"{show(min(low, value))}–{show(max(high, value))}"


def cost_range(o: OptionResult) -> str:
    """The likely range of an owned option's $/Mtok output ("$13.60–$18.72"), "measured", or '' (API, infeasible)."""
    if o.band_basis == MEASURED:
        return MEASURED
    low, value, high = o.cost_low_usd_per_mtok_output, o.cost_usd_per_mtok_output, o.cost_high_usd_per_mtok_output
    if low is None or high is None:
        return ""
    return fmt.usd_range(min(low, value), max(high, value))


def capacity_range(o: OptionResult) -> str:
    """The likely range of an owned option's requests per second per replica, "measured", or ''."""
    if o.band_basis == MEASURED:
        return MEASURED
    return _range(o.capacity_low_requests_per_s, o.capacity_requests_per_s, o.capacity_high_requests_per_s,
                  lambda x: f"{x:,.3g}")  # fmt: skip


def error_bars(
    values: Sequence[float], lows: Sequence[float | None], highs: Sequence[float | None]
) -> dict[str, object]:
    """Plotly ``error_x``/``error_y`` of asymmetric bars from each value to its band's ends (none where no band).

    A band that lies wholly on one side of its value (the model is biased in that regime) draws from the value
    to the far end only.
    """
    plus = [0.0 if h is None else max(h - v, 0.0) for v, h in zip(values, highs, strict=True)]
    minus = [0.0 if lo is None else max(v - lo, 0.0) for v, lo in zip(values, lows, strict=True)]
    if not any(plus) and not any(minus):  # an API or a measured option: no bar, not even its caps
        return {"visible": False}
    return {"type": "data", "symmetric": False, "array": plus, "arrayminus": minus, "thickness": 1.5, "width": 4}


def cost_error_bars(rows: Sequence[OptionResult]) -> dict[str, object]:
    """Error bars of the $/Mtok output of ``rows``."""
    return error_bars([o.cost_usd_per_mtok_output for o in rows], [o.cost_low_usd_per_mtok_output for o in rows],
                      [o.cost_high_usd_per_mtok_output for o in rows])  # fmt: skip


def close_call_text(d: WorkloadDecision, names: dict[str, str]) -> str:
    """One sentence for a card when the route is too close to call at the model's accuracy, else ''."""
    c = d.close_call
    if not d.too_close_to_call or c is None:
        return ""
    other = names.get(c.runner_up_option_id, c.runner_up_option_id)
    here = (min(c.chosen_low_usd_per_task, c.chosen_usd_per_task), c.chosen_usd_per_task,
            max(c.chosen_high_usd_per_task, c.chosen_usd_per_task))  # fmt: skip
    there = (min(c.runner_up_low_usd_per_task, c.runner_up_usd_per_task), c.runner_up_usd_per_task,
             max(c.runner_up_high_usd_per_task, c.runner_up_usd_per_task))  # fmt: skip
    # every amount with one number of decimals, zeros kept: "$0.001210 … against $0.001212", not "$0.00121"
    shown = _tasks(*here, *there)
    return (
        f"Too close to call at this accuracy: {shown[1]} per task here{_likely(here, shown[:3])} against "
        f"{shown[4]} on {other}{_likely(there, shown[3:])}. Measure before you commit."
    )


def _tasks(*xs: float) -> tuple[str, ...]:
    """Costs per task to compare (:func:`economics.dollars_alike`); each on its own when one is not finite."""
    return dollars_alike(*xs) if all(math.isfinite(x) for x in xs) else tuple(fmt.usd(x) for x in xs)


def _likely(band: tuple[float, float, float], shown: tuple[str, ...]) -> str:
    """The likely range in words, " (likely $a–$b)"; empty when the band is the value itself (an API's price)."""
    return "" if band[0] == band[2] else f" (likely {shown[0]}–{shown[2]})"


def chosen_cost_text(result_options: Sequence[OptionResult], d: WorkloadDecision) -> str:
    """The chosen owned route's stand-alone $/Mtok output with its likely range, '' for an API route."""
    row = next(
        (o for o in result_options if o.workload_id == d.workload_id and o.option_id == d.chosen_option_id), None
    )
    if row is None or row.kind == "api" or not row.feasible:
        return ""
    span = cost_range(row)
    if span == MEASURED:
        return f"{fmt.usd(row.cost_usd_per_mtok_output)} per million output tokens on its own (measured throughput)"
    return (
        f"{fmt.usd(row.cost_usd_per_mtok_output)} per million output tokens on its own, likely {span} "
        f"({plain_basis(row.band_basis)})"
    )


def plain_basis(basis: str) -> str:
    """Where a band comes from, in a finance reader's words (the tables keep the engineer's detail)."""
    if basis.startswith("your "):
        return "from your own benchmark runs"
    if basis == MEASURED:
        return "measured"
    return "from the model's error on published benchmarks like it"


def card_lines(result_options: Sequence[OptionResult], d: WorkloadDecision, names: dict[str, str]) -> list[str]:
    """What a decision card adds about accuracy: the chosen owned route's likely $/Mtok and a close call."""
    return [line for line in (chosen_cost_text(result_options, d), close_call_text(d, names)) if line]


def throughput_ratios(options: Sequence[OptionResult], workload_id: str) -> dict[str, tuple[float, float]]:
    """Option id → (low, high) plausible throughput as multiples of the model's, for one workload's modelled
    owned options (none for measured options and APIs)."""
    return {
        o.option_id: (o.throughput_low_ratio, o.throughput_high_ratio)
        for o in options
        if o.workload_id == workload_id
        and o.throughput_low_ratio is not None
        and o.throughput_high_ratio is not None
        and o.band_basis not in ("", MEASURED)
    }


def batch_range(scenario: Scenario, option_id: str, batch: int, tokens_per_s: float) -> str:
    """The likely range of an owned option's tok/s at a fixed batch ("1,200–1,900 (basis)"), or "measured"."""
    option = next((o for o in scenario.owned_options if o.id == option_id), None)
    if option is None:
        return ""
    low, high, basis = option_band_ratio(scenario, option, "batch-1" if batch <= 1 else "concurrency")
    if basis == MEASURED:
        return "the model's curve; this option's capacity elsewhere is measured"
    return f"{fmt.count(tokens_per_s * min(low, 1.0))}–{fmt.count(tokens_per_s * max(high, 1.0))} tok/s"


def cost_range_from(
    options: Sequence[OptionResult], workload_id: str, option_id: str, usd_per_mtok: float, measured: bool
) -> str:
    """The likely range of an owned $/Mtok computed elsewhere from the option's throughput band for the workload:
    cost ∝ 1/throughput, so ``cost/high … cost/low`` ("$1.20–$1.90"); "measured" or '' when there is no band."""
    if measured:
        return MEASURED
    ratio = throughput_ratios(options, workload_id).get(option_id)
    if ratio is None:
        return ""
    return fmt.usd_range(usd_per_mtok / max(ratio[1], 1.0), usd_per_mtok / min(ratio[0], 1.0))


def calibration_note(scenario: Scenario) -> str:
    """Which owned options use a calibration fitted to the user's runs, in words; '' when none does."""
    parts = [f"{o.name}: {o.calibration.describe()}" for o in scenario.owned_options if o.calibration is not None]
    return ("Calibrated throughput in use — " + "; ".join(parts)) if parts else ""


def route_accuracy_frame(
    options: Sequence[OptionResult], decisions: Sequence[WorkloadDecision], rate: DisplayRate = USD
) -> pd.DataFrame:
    """Per workload: the route's $/Mtok output on its own (in ``rate``'s currency), its likely range, where that
    comes from, and whether the route is too close to call. Results saved before bands existed have empty range
    cells."""
    code = rate.code

    def shown(usd: float | None) -> float | None:
        return None if usd is None else usd * rate.units_per_usd

    by_key = {(o.workload_id, o.option_id): o for o in options}
    rows = []
    for d in decisions:
        o = by_key.get((d.workload_id, d.chosen_option_id or ""))
        owned = o is not None and o.kind != "api" and o.feasible
        rows.append(
            {
                "Workload": d.workload_name,
                "Route": fmt.route_words(d.route_label),
                f"Cost on its own [{code}/Mtok output]": shown(o.cost_usd_per_mtok_output) if owned and o else None,
                f"Likely low [{code}/Mtok output]": shown(o.cost_low_usd_per_mtok_output) if owned and o else None,
                f"Likely high [{code}/Mtok output]": shown(o.cost_high_usd_per_mtok_output) if owned and o else None,
                "Range from": (o.band_basis if owned and o else "") or ("price list" if not owned else ""),
                "Too close to call": d.too_close_to_call,
            }
        )
    return pd.DataFrame(rows)


def _first(items: list[str], sep: str, k: int = 5) -> str:
    """The first ``k`` items joined, then how many more: a 5,000-workload upload made a page of names."""
    more = f"{sep}and {len(items) - k:,} more" if len(items) > k else ""
    return sep.join(items[:k]) + more


#: A route that holds in fewer of the Monte Carlo's draws than this is named, on the Overview and in the pack [1].
ROUTE_HOLDS_NAMED = 0.9


def how_sure(savings_usd: float | None, mc: MonteCarlo, money: Callable[[float], str]) -> list[str]:
    """The Overview's points on how firm the headline is, from the Reviews page's Monte Carlo at its default
    ranges, one sentence each: the savings' 90% band and median, the routes that do not hold in nine draws of ten,
    and the workloads whose bought GPUs run short in one draw of five or more. A reader took the base figure for a
    firm one while Reviews showed its median draw at $0. Empty when nothing is uncertain."""
    low, mid, high = mc.savings_p05_usd_per_month, mc.savings_p50_usd_per_month, mc.savings_p95_usd_per_month
    parts = []
    if savings_usd is not None and not (money(low) == money(mid) == money(high) == money(savings_usd)):
        parts.append(
            f"the savings fall between {money(low)} and {money(high)} a month in 90% of draws, median {money(mid)}"
            + (
                f": the {money(savings_usd)} above is the figure at today's values, not a firm one"
                if abs(mid - savings_usd) > 0.1 * max(abs(savings_usd), 1.0)  # a tenth off: not a rounding
                else ""
            )
        )
    w = mc.workloads
    shaky = w[w["prob_route_unchanged"] < ROUTE_HOLDS_NAMED]
    if len(shaky):
        held = _first(
            [
                f"{n} in {100 * p:.0f}%"
                for n, p in zip(shaky["workload_name"], shaky["prob_route_unchanged"], strict=True)
            ],
            "; ",
        )
        parts.append(f"routes that hold in fewer than nine draws of ten: {held}")
    short = w[w["prob_fleet_short"].fillna(0.0) >= 0.2]
    if len(short):
        lo, hi = float(short["prob_fleet_short"].min()), float(short["prob_fleet_short"].max())
        share = f"{100 * lo:.0f}%" if round(100 * lo) == round(100 * hi) else f"{100 * lo:.0f}–{100 * hi:.0f}%"
        parts.append(
            f"the bought GPUs run short for {_first(list(short['workload_name']), ', ')} in {share} of draws "
            "(in those draws the GPUs are slower than modelled, and the busiest hours need more capacity than the "
            "fleet has, at its full price, although it sits idle much of the day on average)"
        )
    return [sentence(p) + "." for p in parts]
