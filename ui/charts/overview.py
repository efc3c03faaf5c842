"""Charts of the Overview page: $/Mtok of every option per workload, monthly money, the owned fleet.

Money is computed in USD and drawn in the display currency of a :class:`~economics.currency.DisplayRate`
(issue 14): the values are multiplied by its rate here and the axes carry its code and prefix."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from economics.currency import USD, DisplayRate
from economics.result import Result
from economics.scenario import Scenario
from economics.views.kinds import KIND_ORDER, option_kinds
from ui.axes import LEGEND_LINE_CHARS, bar_range_with_amounts, wrap_label
from ui.bands import cost_error_bars, cost_range
from ui.format import currency_prefix, money, money_text
from ui.tables import option_names
from ui.theme import API_WINS_COLOR, KIND_COLOR, LIMIT_COLOR, Chart, kind_labels, option_styles

#: Longest line of a workload's name on a chart's y axis [characters]: a long name on one line took half the
#: chart's width as margin at 1,024 px, and the x-axis title centred on what was left ran past the edge.
WORKLOAD_LINE_CHARS = 26


def _wrapped_ticks(names: list[str]) -> dict[str, object]:
    """Tick labels that show each workload's name on lines of :data:`WORKLOAD_LINE_CHARS` (the data and the hover
    keep the name whole)."""
    return {"tickvals": names, "ticktext": [wrap_label(n, WORKLOAD_LINE_CHARS) for n in names]}


def _scaled_bars(bars: dict[str, object], k: float) -> dict[str, object]:
    """Error bars with their lengths in the display currency (``k`` units per USD)."""
    out = dict(bars)
    for side in ("array", "arrayminus"):
        values = out.get(side)
        if isinstance(values, list):
            out[side] = [k * v for v in values]
    return out


def option_cost_figure(result: Result, scenario: Scenario, rate: DisplayRate = USD) -> go.Figure:
    """Dot plot: one row per workload, one dot per feasible option at its all-in $/Mtok output; the chosen
    option is ringed; an owned option's bar spans its likely range (the model's accuracy). Infeasible options are
    left out (the options table says why)."""
    workloads = [d.workload_name for d in result.decisions]
    styles = option_styles(scenario)
    kinds = option_kinds(scenario)
    labels = kind_labels(scenario)
    names = option_names(scenario)
    # a long name on lines of its own: a rented option's "70B, AR + EAGLE (8 GPUs, rented, Google Cloud 1-year
    # commitment) (rented AR + speculation)" ran past the chart's edge at 1,024 px; its kind after a dot, not in a
    # second pair of brackets after the name's own
    legend_names = {o: wrap_label(f"{names[o]} · {labels[o]}", LEGEND_LINE_CHARS) for o in styles}
    c = Chart(  # two short lines: one long title was cut at the right edge in a 1,024 px window
        "Cost per million output tokens on every option<br>"
        # a reader saw the ringed route as the dearest dot and took it for a mistake: the dots are stand-alone costs
        '<span style="font-size:12px">each workload alone on each option, at full cost with idle time</span><br>'
        + (
            '<span style="font-size:12px">ringed: the plan\'s route, which shares nodes already paid for, so it can '
            "be a dear dot here</span>"
            if scenario.nodes
            else '<span style="font-size:12px">ringed: the plan\'s route</span>'  # no node to share: APIs only
        ),
        f"all-in cost [{rate.code} per Mtok output] (log)",
        "",
        height=max(320, 80 + 62 * len(workloads)),
        legend_rows=len(styles),  # sized again from the names once drawn (Chart.fit_legend)
        x_log=True,
    )
    k, cur = rate.units_per_usd, currency_prefix(rate.code)
    chosen = {d.workload_id: d.chosen_option_id for d in result.decisions}
    wl_name = {d.workload_id: d.workload_name for d in result.decisions}
    for oid in sorted(styles, key=lambda o: (KIND_ORDER.index(kinds[o]), o)):
        rows = [
            o for o in result.options if o.option_id == oid and o.feasible and math.isfinite(o.cost_usd_per_mtok_output)
        ]
        color, _, symbol = styles[oid]
        picked = [chosen.get(o.workload_id) == oid for o in rows]
        c.add(
            x=[k * o.cost_usd_per_mtok_output for o in rows],
            y=[wl_name[o.workload_id] for o in rows],
            mode="markers",
            error_x=_scaled_bars(cost_error_bars(rows), k),  # issue 13: the likely range from the model's accuracy
            name=legend_names[oid],
            marker={
                "color": color,
                "symbol": symbol,
                "size": [20 if p else 12 for p in picked],
                "line": {
                    "color": [LIMIT_COLOR if p else "white" for p in picked],
                    "width": [3 if p else 1 for p in picked],
                },
            },
            customdata=[
                [
                    k * o.cost_usd_per_request,
                    k * o.expected_cost_usd_per_request,
                    100 * o.quality,
                    "recommended" if p else "",
                    f"likely {money_text(cost_range(o), rate.code, k)} per Mtok<br>" if cost_range(o) else "",
                ]
                for o, p in zip(rows, picked, strict=True)
            ],
            hovertemplate=(
                f"<b>%{{y}}</b><br>%{{fullData.name}}<br>{cur}%{{x:,.3g}} per Mtok output<br>%{{customdata[4]}}"
                f"{cur}%{{customdata[0]:,.4g}} per task; with failures {cur}%{{customdata[1]:,.4g}}<br>"
                "quality %{customdata[2]:.0f}%<br><b>%{customdata[3]}</b><extra></extra>"
            ),
        )
    c.axis("xaxis", tickprefix=cur, **_decades(c))
    c.axis("yaxis", categoryorder="array", categoryarray=list(reversed(workloads)), **_wrapped_ticks(workloads))
    c.axis("margin", t=90)
    c.fit_legend()
    return c.figure()


def _decades(c: Chart) -> dict[str, object]:
    """Powers of ten only when the costs span more than two decades; over a narrower span (an API-only
    scenario's options from S$3 to S$70) that left one labelled tick, "S$10", on the whole axis."""
    xs = [float(x) for t in c.data for x in t.get("x", []) if isinstance(x, int | float) and x > 0]  # type: ignore[attr-defined]
    return {"dtick": 1} if xs and max(xs) / min(xs) > 100 else {}


def monthly_figure(result: Result, rate: DisplayRate = USD) -> go.Figure:
    """Monthly cost per workload: its share of the recommended plan against its share of the API baseline (its
    best allowed API, lowest J; where no API may serve it, its share of the owned nodes that carry it there),
    in the display currency of ``rate``. Each colour sums, with idle bought nodes, to its headline card."""
    decisions = list(result.decisions)
    k, cur = rate.units_per_usd, currency_prefix(rate.code)
    names = [d.workload_name for d in decisions]
    c = Chart(
        # two lines: on one it was cut at 1,024 px
        'Monthly cost per workload<br><span style="font-size:12px">recommended plan vs the API baseline</span>',
        f"cost [{rate.code} per month]",
        "",
        height=max(300, 90 + 56 * len(decisions)),
        legend_rows=2,
    )
    routed = [k * d.monthly_cost_usd for d in decisions]

    base = [k * b if (b := d.baseline_share_usd_per_month) is not None else 0.0 for d in decisions]
    # every bar carries its amount: a route on GPUs the plan already pays for costs S$0 a month and drew no bar at
    # all, which read as a missing row; a workload no API may serve says so where its API bar would be
    c.add(
        "bar",
        y=names,
        x=routed,
        orientation="h",
        name="recommended plan",
        marker={"color": KIND_COLOR["owned-ar"]},
        text=[
            f"{cur}{v:,.0f}" if d.chosen_option_id else "no feasible route"
            for d, v in zip(decisions, routed, strict=True)
        ],
        textposition="outside",
        cliponaxis=False,
        hovertemplate=f"<b>%{{y}}</b><br>recommended plan: {cur}%{{x:,.0f}}/month<extra></extra>",
    )
    stays = any(d.all_api_monthly_cost_usd is None for d in decisions)
    c.add(
        "bar",
        y=names,
        x=base,
        orientation="h",
        # the baseline keeps a workload no API may serve on owned nodes: its bar is that share, said so; the
        # bar was missing ("no API allowed or feasible"), and the bars did not add up to the baseline card
        name="API baseline: its best API" + ("; owned where no API may serve it" if stays else ""),
        marker={"color": API_WINS_COLOR},
        opacity=0.75,
        text=[
            "no API allowed or feasible"
            if d.baseline_share_usd_per_month is None
            else f"{cur}{v:,.0f}" + (" (owned)" if d.all_api_monthly_cost_usd is None else "")
            for d, v in zip(decisions, base, strict=True)
        ],
        textposition="outside",
        cliponaxis=False,
        hovertemplate=f"<b>%{{y}}</b><br>in the API baseline: {cur}%{{x:,.0f}}/month<extra></extra>",
    )
    c.layout["barmode"] = "group"
    c.layout["uniformtext"] = {"minsize": 10, "mode": "show"}
    c.axis("xaxis", tickprefix=cur, tickformat=",.7~g", range=bar_range_with_amounts([*routed, *base]))
    c.axis("yaxis", categoryorder="array", categoryarray=list(reversed(names)), **_wrapped_ticks(names))
    return c.figure()


#: The rented bar's colours: a darker shade of the owned blue for the hours used, a lighter grey for the idle ones.
RENTED_USED_COLOR = "#332288"
RENTED_IDLE_COLOR = "#E3E3E3"


def fleet_figure(result: Result, rate: DisplayRate = USD) -> go.Figure:
    """The GPUs the plan pays for, a month at full cost (power included) in the display currency of ``rate``:
    the owned fleet (every owned node, bought or to buy) and, when the plan rents GPUs, the rented ones, each
    split into GPU-hours used and paid for while idle.

    Full cost whatever the lens, so the idle parts add up to the Overview's "Idle GPUs at full cost" card; the page
    says under it how much of it the plan counts in the cash lens (:func:`fleet_caption`). A plan that rents its
    GPUs read "Owned fleet: $0 per month, no owned GPUs in the plan" beside a bill of rented nodes."""
    f, p = result.fleet, result.plan
    full = p.owned_full_cost_usd_per_month if p else f.owned_cost_usd_per_month
    idle = p.idle_owned_full_cost_usd_per_month if p else f.idle_cost_usd_per_month
    rented_full, rented_idle = (p.rented_full_cost_usd_per_month, p.idle_rented_cost_usd_per_month) if p else (0.0, 0.0)
    k, cur = rate.units_per_usd, currency_prefix(rate.code)
    busy = k * max(0.0, full - idle)
    owned_shown, rented_shown = full > 0 or rented_full <= 0, rented_full > 0
    title = {
        (True, False): "Owned fleet" if f.owned_gpus else "GPUs in the plan",
        (False, True): "Rented GPUs",
        (True, True): "Owned and rented GPUs",
    }[(owned_shown, rented_shown)]
    # the amounts are in the legend, not on the bars: a narrow idle bar turned its amount on end
    bars: list[tuple[str, str, float, str]] = []
    # the legend's whole units add up: each idle part rounded as the "Idle GPUs at full cost" card rounds it, the
    # used part the rest of its row's total, the title their sum (rounded one by one, 7,882 + 12,556 read 20,439)
    shown: list[int] = []
    if owned_shown:
        row = f"{f.owned_gpus} owned GPUs"
        bars += [
            (row, f"used ({100 * f.owned_utilization:.0f}% of the fleet's GPU-hours)", busy, KIND_COLOR["owned-ar"]),
            (row, "paid for idle GPUs", k * idle, "#C9C9C9"),
        ]
        shown += [round(k * full) - round(k * idle), round(k * idle)]
    if rented_shown:
        row, share = f"{p.rented_gpus_paid if p else 0} rented GPUs", 1.0 - rented_idle / rented_full
        bars += [
            (
                row,
                f"rented, used ({100 * share:.0f}% of their GPU-hours)",
                k * (rented_full - rented_idle),
                RENTED_USED_COLOR,
            ),
            (row, "rented, paid for idle hours", k * rented_idle, RENTED_IDLE_COLOR),
        ]
        shown += [round(k * rented_full) - round(k * rented_idle), round(k * rented_idle)]
    c = Chart(
        f"{title}: {cur}{sum(shown):,} per month<br>"
        f'<span style="font-size:12px">full cost: every {"node" if rented_shown else "owned node"} the plan '
        "pays for, idle hours included</span>",
        f"cost [{rate.code} per month]",
        "",
        height=280 if owned_shown and rented_shown else 230,  # two bars
    )
    for (row, label, value, color), amount in zip(bars, shown, strict=True):
        c.add(
            "bar",
            y=[row],
            x=[value],
            orientation="h",
            name=f"{label}: {cur}{amount:,}",
            marker={"color": color},
            hovertemplate=f"{label}: {cur}%{{x:,.0f}}/month<extra></extra>",
        )
    c.layout.update(barmode="stack", legend={"traceorder": "normal"})
    # three ticks at most: in the Overview's narrow right column "S$5,000S$10,000S$15,000" ran together
    c.axis("xaxis", tickprefix=cur, tickformat=",.7~g", rangemode="nonnegative", nticks=3)
    c.axis("yaxis", categoryorder="array", categoryarray=list(dict.fromkeys(b[0] for b in reversed(bars))))
    c.axis("margin", t=70)
    if full + rented_full <= 0:  # nothing to draw: no "$−1 … $1" axis around an empty bar
        c.axis("xaxis", visible=False)
        c.axis("yaxis", visible=False)  # the GPU-count label would sit under the note
        c.layout["showlegend"] = False  # "used (0% of GPU-hours)" named bars that are not drawn
        c.axis("margin", l=10, r=10)  # no axis labels to hold: the note is centred on the whole chart
        c.annotations.append(
            {
                "text": f"{f.owned_gpus} owned GPUs, no cost" if f.owned_gpus else "no GPUs in the plan",
                "xref": "paper",
                "yref": "paper",
                "x": 0.5,
                "y": 0.5,
                "showarrow": False,
                "font": {"size": 13},
            }
        )
    return c.figure()


def fleet_caption(result: Result, lens: str, rate: DisplayRate = USD) -> str:
    """What of the owned fleet's full cost the plan's bill counts, in words ("" when it counts all of it)."""
    p = result.plan
    if p is None or lens != "cash" or p.sunk_usd_per_month <= 0:
        return ""
    bought = sum(n.nodes_owned for n in p.nodes if n.kind == "owned")
    counted = max(0.0, p.owned_full_cost_usd_per_month - p.sunk_usd_per_month)
    what = "the nodes to buy and power above idle" if p.nodes_to_buy else "power above idle"
    node_words = "node" if bought == 1 else "nodes"
    counted_text, sunk_text = (
        money(x, rate.code, rate.units_per_usd, cents=False) for x in (counted, p.sunk_usd_per_month)
    )
    return (
        f"The cash lens counts {counted_text} a month of it in the plan ({what}); "
        f"{sunk_text} a month of the {bought} {node_words} already bought "
        "(capital recovery, power at idle and fixed costs) is committed: paid whatever the plan does."
    )
