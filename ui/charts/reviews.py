"""Chart builders of the price-review pages and the meeting pack: typed results in, ``go.Figure`` out.

No Streamlit calls: the same builders draw the Reviews page (through ``ui.compute.chart``) and the meeting pack
(``reporting``). Every figure is built on the house :class:`~ui.charts.chart.Chart`, like the other pages.
Money is computed in USD and drawn in the display currency of ``rate`` (issue 14): values are multiplied by its
rate here, at the display edge, and the axes carry its code and prefix (US dollars by default).
"""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go

from economics.compare import Comparison
from economics.currency import USD, DisplayRate
from economics.result import Result
from economics.scenario import Scenario
from economics.uncertainty import INPUT_LABELS, MonteCarlo, Tornado, TornadoBar
from ui.axes import bar_range_with_amounts, left_margin, row_px, wrap_label
from ui.charts.chart import Chart
from ui.format import PRICE_UNIT_WORDS, currency_prefix, money, price_item_words, route_words
from ui.palette import API_WINS_COLOR, INFEASIBLE_COLOR, LIMIT_COLOR, OWNED_WINS_COLOR, option_styles

__all__ = [
    "comparison_chart",
    "monte_carlo_chart",
    "price_change_chart",
    "tornado_chart",
    "workload_cost_chart",
]

BEFORE_COLOR = "#999999"  # neutral grey for "before", so "after" (the decision now) carries the color


def _height(rows: int) -> int:
    return max(320, 140 + 46 * rows)


def _bars(title: str, x_title: str, rows: int, *, legend: bool = True, rate: DisplayRate = USD) -> Chart:
    """A horizontal-bar chart: categories top to bottom, values along x (money in ``rate``'s currency)."""
    chart = Chart(title, x_title, "", height=_height(rows), legend_rows=1 if legend else 0)
    chart.axis("yaxis", autorange="reversed")
    if f"[{rate.code}" in x_title:
        chart.axis("xaxis", tickprefix=currency_prefix(rate.code), separatethousands=True)
    return chart


def workload_cost_chart(scenario: Scenario, result: Result, rate: DisplayRate = USD) -> go.Figure:
    """Monthly cost per workload on its chosen route, next to the best allowed API (lowest J); money in
    ``rate``'s currency.

    Bars are colored by the chosen option's kind (owned blues/green, API warm colors).
    """
    styles = option_styles(scenario)
    decisions = list(result.decisions)
    k, cur = rate.units_per_usd, currency_prefix(rate.code)
    names = [d.workload_name for d in decisions]
    costs = [k * d.monthly_cost_usd for d in decisions]
    widest = max([*costs, *(k * (d.all_api_monthly_cost_usd or 0.0) for d in decisions), 0.0])
    chart = _bars(
        # two lines: one was too wide for a 1,024 px window
        "Monthly cost per workload<br>"
        '<span style="font-size:12px">its route, coloured by where it runs, vs its best allowed API '
        "(outline)</span>",
        f"cost [{rate.code}/month]",
        len(names),
        rate=rate,
    )
    chart.add(
        "bar",
        y=names,
        x=costs,
        orientation="h",
        name="its route",
        # the legend would show the first bar's colour for every route: each bar says its route instead
        showlegend=False,
        marker={"color": [styles.get(d.chosen_option_id or "", (INFEASIBLE_COLOR,))[0] for d in decisions]},
        # a route that adds nothing this month (a bought node in the cash view) has no bar: its name is
        # written beside the axis, with its figure, so the row is not read as missing
        text=[
            f"{route_words(d.route_label)}: {cur}{c:,.0f}" if c < 0.25 * widest else route_words(d.route_label)
            for d, c in zip(decisions, costs, strict=True)
        ],
        textposition=["outside" if c < 0.25 * widest else "inside" for c in costs],
        cliponaxis=False,
        customdata=[route_words(d.route_label) for d in decisions],
        hovertemplate=f"%{{y}}<br>%{{customdata}}: {cur}%{{x:,.0f}}/month<extra></extra>",
    )
    chart.add(
        "bar",
        y=names,
        x=[k * (d.all_api_monthly_cost_usd or 0.0) for d in decisions],
        orientation="h",
        name="best allowed API",
        marker={"color": "rgba(0,0,0,0)", "line": {"color": API_WINS_COLOR, "width": 2}},
        # where no API may serve the workload there is no outline: say so on its row
        text=["no API allowed or feasible" if d.all_api_monthly_cost_usd is None else "" for d in decisions],
        textposition="outside",
        cliponaxis=False,
        hovertemplate=f"%{{y}}<br>all-API: {cur}%{{x:,.0f}}/month<extra></extra>",
    )
    chart.layout["barmode"] = "group"
    return chart.figure()


def comparison_chart(comparison: Comparison, rate: DisplayRate = USD) -> go.Figure:
    """Monthly cost per workload before and after, both at ``rate`` (constant currency); flipped routes are
    named on the after bar."""
    wl = comparison.workloads
    k, cur = rate.units_per_usd, currency_prefix(rate.code)
    names = [f"{n} ⟲" if flipped else str(n) for n, flipped in zip(wl["workload_name"], wl["flipped"], strict=True)]
    chart = _bars(
        # two lines: the labels made one line too wide for a 1,024 px window
        f"Cost per workload<br>"
        f'<span style="font-size:12px">{comparison.before_label} → {comparison.after_label} '
        "(⟲ = route flipped)</span>",
        f"cost [{rate.code}/month]",
        len(names),
        rate=rate,
    )
    chart.axis("margin", t=90)
    before = (wl["monthly_cost_before_usd"] * k).tolist()
    after = (wl["monthly_cost_after_usd"] * k).tolist()

    def amount(v: float, route: str) -> str:
        # a route on GPUs already paid for costs S$0 a month and drew no bar: its row read as empty
        if not math.isfinite(v):
            return "absent"
        return f"{cur}{v:,.0f}" if route else "no feasible route"

    chart.add(
        "bar",
        y=names,
        x=[v if math.isfinite(v) else 0.0 for v in before],
        orientation="h",
        name=comparison.before_label,
        marker={"color": BEFORE_COLOR},
        text=[amount(v, r) for v, r in zip(before, wl["route_before_name"], strict=True)],
        textposition="outside",
        cliponaxis=False,
        customdata=wl["route_before_name"].tolist(),
        hovertemplate="%{y}<br>before: " + cur + "%{x:,.0f}/month on %{customdata}<extra></extra>",
    )
    after_text = [
        amount(v, b) + (f" · {a} → {b}" if flipped else "")
        for v, a, b, flipped in zip(after, wl["route_before_name"], wl["route_after_name"], wl["flipped"], strict=True)
    ]
    chart.add(
        "bar",
        y=names,
        x=[v if math.isfinite(v) else 0.0 for v in after],
        orientation="h",
        name=comparison.after_label,
        marker={"color": OWNED_WINS_COLOR},
        text=after_text,
        textposition="outside",
        cliponaxis=False,
        customdata=wl["route_after_name"].tolist(),
        hovertemplate="%{y}<br>after: " + cur + "%{x:,.0f}/month on %{customdata}<extra></extra>",
    )
    total = comparison.total_change_usd_per_month * k
    sign = "+" if total >= 0 else "−"
    chart.annotations.append(
        {
            "text": (
                "fleet total: n/a"
                if not math.isfinite(total)
                else "fleet total unchanged"  # not "+S$0/month"
                if round(total) == 0
                else f"fleet total {sign}{cur}{abs(total):,.0f}/month"
            ),
            "xref": "paper",
            "yref": "paper",
            "x": 1,
            "y": 1.02,
            "xanchor": "right",
            "yanchor": "bottom",
            "showarrow": False,
            "font": {"color": LIMIT_COLOR},
        }
    )
    chart.layout["barmode"] = "group"
    chart.layout["uniformtext"] = {"minsize": 10, "mode": "show"}
    chart.axis("xaxis", range=bar_range_with_amounts([*before, *after]))
    return chart.figure()


def price_change_chart(comparison: Comparison, rate: DisplayRate = USD) -> go.Figure:
    """Relative change of each price that changed (added and removed prices are listed in the table only); a
    price in US dollars is written in ``rate``'s currency."""
    changed = comparison.prices[comparison.prices["status"] == "changed"]

    def before_after(before: float, after: float, unit: str) -> str:
        """ "S$364,000 → S$455,000 per node", "S$1.14 → S$0.80 per million tokens", "25% → 20%" for a discount
        (the bar's text once read "3.64e+05 → 4.55e+05 SGD")."""
        if unit == "fraction":
            return f"{100 * before:.3g}% → {100 * after:.3g}%"
        if not unit.startswith("USD"):
            return f"{before:,.4g} → {after:,.4g} {unit}"
        words = PRICE_UNIT_WORDS.get(unit, unit.replace("USD", "$")).removeprefix("$").strip()
        low, high = (money(x, rate.code, rate.units_per_usd) for x in (before, after))
        return f"{low} → {high} {words}".rstrip()

    # the offer, then the price in words on a second line (one line was too wide for a 1,024 px window)
    labels = [f"{o}<br>{price_item_words(str(i))}" for o, i in zip(changed["offer_name"], changed["item"], strict=True)]
    pct = [100.0 * f if math.isfinite(f) else 0.0 for f in changed["change_fraction"]]
    chart = _bars("Prices that changed", "change [%]", max(1, len(labels)), legend=False)
    chart.add(
        "bar",
        y=labels,
        x=pct,
        orientation="h",
        marker={"color": [API_WINS_COLOR if p > 0 else OWNED_WINS_COLOR for p in pct]},
        text=[
            before_after(float(b), float(a), str(u))
            for b, a, u in zip(changed["before"], changed["after"], changed["unit"], strict=True)
        ],
        textposition="auto",
        hovertemplate="%{y}: %{x:+.1f}%<br>%{text}<extra></extra>",
        name="change",
    )
    if not labels:
        chart.annotations.append(
            {"text": "no price changed", "showarrow": False, "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5}
        )
    chart.layout["showlegend"] = False
    chart.vline(0.0, log_x=False, width=1, dash="solid")
    return chart.figure()


# ---- uncertainty --------------------------------------------------------------------------------------------

LOW_COLOR = "#56B4E9"  # sky blue: the input at the low end of its range
HIGH_COLOR = "#E69F00"  # orange: the input at the high end


def flat_inputs(tornado: Tornado, metric: str = "savings", rate: DisplayRate = USD) -> list[TornadoBar]:
    """The tornado's bars whose input moves the figure by less than one unit of money at both ends (the bars the
    chart labels "no effect"), in the chart's order."""
    savings = metric == "savings"
    k = rate.units_per_usd
    base = k * (tornado.base_savings_usd_per_month if savings else tornado.base_cost_usd_per_month)
    return [
        b
        for b in sorted(tornado.bars, key=lambda b: -(b.swing_usd_per_month if savings else b.cost_swing_usd_per_month))
        if all(
            abs(k * v - base) < 0.5
            for v in (
                (b.savings_at_low_usd_per_month, b.savings_at_high_usd_per_month)
                if savings
                else (b.cost_at_low_usd_per_month, b.cost_at_high_usd_per_month)
            )
        )
    ]


def tornado_chart(tornado: Tornado, metric: str = "savings", rate: DisplayRate = USD) -> go.Figure:
    """Tornado: savings vs all-API (or monthly cost of the chosen routes) with each input at its range ends.

    ``metric`` is ``"savings"`` or ``"cost"``. Bars start at the base value; widest swing on top. Money in
    ``rate``'s currency.
    """
    savings = metric == "savings"
    k = rate.units_per_usd
    base_usd = tornado.base_savings_usd_per_month if savings else tornado.base_cost_usd_per_month
    base = base_usd * k
    bars = sorted(
        tornado.bars,
        key=lambda b: -(b.swing_usd_per_month if savings else b.cost_swing_usd_per_month),
    )
    low = [k * (b.savings_at_low_usd_per_month if savings else b.cost_at_low_usd_per_month) for b in bars]
    high = [k * (b.savings_at_high_usd_per_month if savings else b.cost_at_high_usd_per_month) for b in bars]
    # an input that moves the figure by less than one unit of money draws no bar: its label says so rather than
    # leave an empty row (node cost per hour does not move the savings when every node is already bought)
    flat = {b.input for b in flat_inputs(tornado, metric, rate)}
    still = [b.input in flat for b in bars]
    # the range on a second line: one line left a ~90 px plot in a 1,024 px window, its ticks on end
    labels = [
        f"{b.label}<br>{b.low:.3g}–{b.high:.3g} {INPUT_LABELS[b.input][1]}{' · no effect' if flat else ''}"
        for b, flat in zip(bars, still, strict=True)
    ]
    what = "savings vs the best allowed API" if savings else "monthly cost of the chosen routes"
    chart = _bars(
        # two lines: one was cut in a 1,024 px window
        f"What moves the {what}<br>"
        f'<span style="font-size:12px">each input at its range ends · base '
        f"{money(base_usd, rate.code, k, cents=False)}/month; "
        f"{'as in the fleet plan' if tornado.priced_in_plan else 'workloads priced stand-alone'}</span>",
        f"{'savings' if savings else 'monthly cost'} [{rate.code}/month]",
        len(bars),
        rate=rate,
    )
    chart.axis("margin", t=90)
    for name, values, color in (("input at low end", low, LOW_COLOR), ("input at high end", high, HIGH_COLOR)):
        chart.add(
            "bar",
            y=labels,
            x=[v - base for v in values],
            base=[base] * len(values),
            orientation="h",
            name=name,
            marker={"color": color},
            customdata=values,
            hovertemplate="%{y}<br>"
            + name
            + ": "
            + currency_prefix(rate.code)
            + "%{customdata:,.0f}/month<extra></extra>",
        )
    chart.vline(base, log_x=False, width=1, dash="solid")
    chart.layout["barmode"] = "overlay"
    return chart.figure()


def _panel_domains(counts: list[int], gap: float) -> list[tuple[float, float]]:
    """Vertical domains of stacked panels, top to bottom, heights proportional to ``counts``."""
    free = 1.0 - gap * (len(counts) - 1)
    total = float(sum(counts))
    domains, top = [], 1.0
    for c in counts:
        bottom = max(0.0, top - free * c / total)
        domains.append((bottom, top))
        top = bottom - gap
    return domains


#: Longest line of an option's name beside a Monte Carlo row [characters]: a rented option's name with its offer
#: ("70B, AR + EAGLE (8 GPUs, rented, Google Cloud 1-year commitment)") on one line took all but ~10 px of the
#: chart for the margin at 1,024 px.
OPTION_LINE_CHARS = 30


def _option_label(name: str, *, allowed: bool, chosen: bool) -> str:
    """An option's row label: its name on lines of :data:`OPTION_LINE_CHARS`, then on a line of its own whether
    it is not allowed and chosen."""
    notes = " ".join(note for note, on in (("not allowed", not allowed), ("◀ chosen", chosen)) if on)
    name = wrap_label(name, OPTION_LINE_CHARS)
    return f"{name}<br>{notes}" if notes else name


#: The height of one line of a Monte Carlo panel's title (14 px text) [px].
PANEL_TITLE_LINE_PX = 19


def _panel_title(w: pd.Series, side: str = "owned") -> str:
    """A Monte Carlo panel's title: the workload, then the chance ``side`` (owned, rented: the scenario's
    :meth:`~economics.scenario.Scenario.gpu_side`) costs less per task than the API (failures
    counted, as routes are chosen), then how often the bought GPUs run short (why a route that costs nothing at
    the scenario's values has a band above zero), a line each."""
    lines = [str(w["workload_name"])]
    p = w["prob_owned_beats_api"]
    if math.isfinite(p):
        vs = "the API it may not use" if not w["api_allowed"] else "the best API"
        lines.append(f"chance {side} costs less per task than {vs}: {100 * p:.0f}%")
    short = w["prob_fleet_short"]
    if math.isfinite(short) and short > 0:
        lines.append(f"bought GPUs run short in {100 * short:.0f}% of draws")
    return "<br>".join(lines)


def monte_carlo_chart(monte_carlo: MonteCarlo, scenario: Scenario, rate: DisplayRate = USD) -> go.Figure:
    """One panel per workload: the 5–95 % band of $/Mtok of every option able to serve it (median marked,
    the chosen route flagged), with P(owned beats API) in the panel title. Log axis: options differ by orders.
    Hollow markers are options the workload may not use (an API for sovereign data). Money in ``rate``'s
    currency."""
    styles = option_styles(scenario)
    wl = monte_carlo.workloads
    money_columns = ["p05_usd_per_mtok", "p50_usd_per_mtok", "p95_usd_per_mtok", "base_usd_per_mtok"]
    opts = monte_carlo.options.assign(**{c: monte_carlo.options[c] * rate.units_per_usd for c in money_columns})
    cur = currency_prefix(rate.code)
    # A log axis has no 0, yet a bought node's route costs nothing in the cash view (and float noise leaves
    # 1e-13): such values are drawn at a floor four decades under the largest figure, and the hover gives the
    # true value. Without it the axis ran from S$1e-13 to S$1,000.
    largest = float(opts[money_columns].replace([math.inf, -math.inf], math.nan).max().max())
    top_value = largest if largest > 0 else 1.0  # NaN (no option) compares False
    floor = top_value * 1e-4
    drawn = opts.assign(**{c: opts[c].clip(lower=floor) for c in money_columns})
    counts = [max(1, int((opts["workload_id"] == w).sum())) for w in wl["workload_id"]]
    # each panel's title on lines of its own, right-aligned over the plot: on one line it ran past the chart's
    # left edge at 1,024 px ("al-time onboarding checks · chance owned beats …")
    titles = [_panel_title(w, scenario.gpu_side()) for _, w in wl.iterrows()]
    title_px = PANEL_TITLE_LINE_PX * max((t.count("<br>") + 1 for t in titles), default=1)
    every_label = [_option_label(n, allowed=False, chosen=True) for n in opts["option_name"]]
    plot_px = row_px(every_label) * sum(counts) + (title_px + 16) * (len(counts) - 1) + 20
    top_px = 92 + 18 + title_px  # the chart's four-line title from 14 px down, then the first panel's
    height = plot_px + top_px + 60
    chart = Chart(
        f"Cost per million output tokens over {monte_carlo.draws:,} draws<br>"
        # a reader took the dots for today's figures: they are the median draw
        '<span style="font-size:12px">dot: the median draw · line: 5–95 % of the draws</span><br>'
        f'<span style="font-size:12px">a cost under {cur}{floor:,.2g} (a bought node in the cash lens costs '
        "nothing)<br>is drawn at the left edge</span>",
        f"cost [{rate.code}/Mtok output, log]",
        "",
        height=height,
        legend_rows=0,
        x_log=True,
    )
    chart.layout["title"] = {**chart.layout["title"], "y": 1 - 14 / height, "yanchor": "top"}  # type: ignore[dict-item]
    # money: the prefix on every log tick (axes.dollars_on_every_log_tick), at the powers of ten only: the axis
    # spans four decades and more, and its 1-2-5 labels ran into each other
    chart.axis("xaxis", tickprefix=cur, dtick=1)
    chart.layout["margin"] = {"l": left_margin(every_label, has_title=False), "t": top_px, "b": 60}
    chart.layout["showlegend"] = False
    domains = _panel_domains(counts, (title_px + 16) / plot_px)
    for row, ((_, w), (bottom, top)) in enumerate(zip(wl.iterrows(), domains, strict=True), start=1):
        axis = "yaxis" if row == 1 else f"yaxis{row}"
        chart.axis(axis, domain=[bottom, top], autorange="reversed", anchor="x")
        mine = drawn[drawn["workload_id"] == w["workload_id"]]
        true = opts[opts["workload_id"] == w["workload_id"]]
        # what is said of the option on a second line: one line left a ~150 px plot in a 1,024 px window
        labels = [
            _option_label(n, allowed=bool(a), chosen=o == w["base_option_id"])
            for n, a, o in zip(mine["option_name"], mine["allowed"], mine["option_id"], strict=True)
        ]
        chart.add(
            y=labels,
            x=mine["p50_usd_per_mtok"].tolist(),
            yaxis="y" if row == 1 else f"y{row}",
            mode="markers",
            marker={
                "color": [styles.get(o, (INFEASIBLE_COLOR,))[0] for o in mine["option_id"]],
                "size": 11,
                "symbol": ["circle" if a else "circle-open" for a in mine["allowed"]],
                "line": {"width": 2},
            },
            error_x={
                "type": "data",
                "symmetric": False,
                "array": (mine["p95_usd_per_mtok"] - mine["p50_usd_per_mtok"]).tolist(),
                "arrayminus": (mine["p50_usd_per_mtok"] - mine["p05_usd_per_mtok"]).tolist(),
                "thickness": 5,
                "width": 0,
                "color": "rgba(110,110,110,0.5)",
            },
            customdata=true[["p05_usd_per_mtok", "p95_usd_per_mtok", "base_usd_per_mtok", "p50_usd_per_mtok"]]
            .round(6)
            .to_numpy(),
            hovertemplate=(
                f"%{{y}}<br>median {cur}%{{customdata[3]:,.3g}}/Mtok<br>5–95 %: {cur}%{{customdata[0]:,.3g}}–"
                f"{cur}%{{customdata[1]:,.3g}}<br>at the scenario's values {cur}%{{customdata[2]:,.3g}}<extra></extra>"
            ),
        )
        chart.annotations.append(
            {
                "text": titles[row - 1],
                "align": "right",
                "xref": "paper",
                "yref": "paper",
                # right-aligned over the plot: a long title runs left over the labels, not past the edge
                "x": 1,
                "y": top,
                "xanchor": "right",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 14},
            }
        )
    chart.axis(
        "xaxis",
        anchor="y" if len(counts) == 1 else f"y{len(counts)}",
        range=[math.log10(floor) - 0.1, math.log10(top_value) + 0.1],
    )
    return chart.figure()
