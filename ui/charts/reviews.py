"""Chart builders of the price-review pages and the meeting pack: typed results in, ``go.Figure`` out.

No Streamlit calls: the same builders draw the Reviews page and the meeting pack (``reporting``).
"""

from __future__ import annotations

import math

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from economics.compare import Comparison
from economics.result import Result
from economics.scenario import Scenario
from economics.uncertainty import INPUT_LABELS, MonteCarlo, Tornado
from ui.format import usd_per_month
from ui.theme import (
    API_WINS_COLOR,
    INFEASIBLE_COLOR,
    LIMIT_COLOR,
    OWNED_WINS_COLOR,
    TEMPLATE_NAME,
    option_styles,
)

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


def base_figure(title: str, x_title: str, y_title: str, *, height: int) -> go.Figure:
    """An empty figure in the house template (``ui.theme``) with a title and unit-bearing axis titles; an
    axis in USD shows $ and thousands separators on every tick."""

    def axis(text: str) -> dict[str, object]:
        money = {"tickprefix": "$", "tickformat": ",~s"} if "USD" in text else {}
        return {"title": {"text": text}, **money}

    return go.Figure(
        layout={
            "template": TEMPLATE_NAME,
            "title": {"text": title},
            "xaxis": axis(x_title),
            "yaxis": axis(y_title),
            "height": height,
            "margin": {"b": 110},
        }
    )


def workload_cost_chart(scenario: Scenario, result: Result) -> go.Figure:
    """Monthly cost per workload on its chosen route, next to the best allowed API (lowest J).

    Bars are colored by the chosen option's kind (owned blues/green, API warm colors).
    """
    styles = option_styles(scenario)
    decisions = list(result.decisions)
    names = [d.workload_name for d in decisions]
    fig = base_figure(
        "Monthly cost per workload: chosen route vs all-API", "cost [USD/month]", "", height=_height(len(names))
    )
    fig.add_trace(
        go.Bar(
            y=names,
            x=[d.monthly_cost_usd for d in decisions],
            orientation="h",
            name="chosen route",
            marker_color=[styles.get(d.chosen_option_id or "", (INFEASIBLE_COLOR,))[0] for d in decisions],
            text=[f"{d.route_label}" for d in decisions],
            textposition="auto",
            hovertemplate="%{y}<br>%{text}: $%{x:,.0f}/month<extra></extra>",
        )
    )
    fig.add_trace(
        go.Bar(
            y=names,
            x=[d.all_api_monthly_cost_usd if d.all_api_monthly_cost_usd is not None else 0.0 for d in decisions],
            orientation="h",
            name="best allowed API",
            marker={"color": "rgba(0,0,0,0)", "line": {"color": API_WINS_COLOR, "width": 2}},
            hovertemplate="%{y}<br>all-API: $%{x:,.0f}/month<extra></extra>",
        )
    )
    fig.update_layout(barmode="group", yaxis={"autorange": "reversed"})
    return fig


def comparison_chart(comparison: Comparison) -> go.Figure:
    """Monthly cost per workload before and after; flipped routes are named on the after bar."""
    wl = comparison.workloads
    names = [f"{n} ⟲" if flipped else str(n) for n, flipped in zip(wl["workload_name"], wl["flipped"], strict=True)]
    fig = base_figure(
        f"Cost per workload: {comparison.before_label} → {comparison.after_label} (⟲ = route flipped)",
        "cost [USD/month]",
        "",
        height=_height(len(names)),
    )
    fig.add_trace(
        go.Bar(
            y=names,
            x=wl["monthly_cost_before_usd"].fillna(0.0),
            orientation="h",
            name=comparison.before_label,
            marker_color=BEFORE_COLOR,
            customdata=wl["route_before"],
            hovertemplate="%{y}<br>before: $%{x:,.0f}/month on %{customdata}<extra></extra>",
        )
    )
    after_text = [
        f"{a} → {b}" if flipped else ""
        for a, b, flipped in zip(wl["route_before"], wl["route_after"], wl["flipped"], strict=True)
    ]
    fig.add_trace(
        go.Bar(
            y=names,
            x=wl["monthly_cost_after_usd"].fillna(0.0),
            orientation="h",
            name=comparison.after_label,
            marker_color=OWNED_WINS_COLOR,
            text=after_text,
            textposition="outside",
            customdata=wl["route_after"],
            hovertemplate="%{y}<br>after: $%{x:,.0f}/month on %{customdata}<extra></extra>",
        )
    )
    total = comparison.total_change_usd_per_month
    sign = "+" if total >= 0 else "−"
    fig.add_annotation(
        text=f"fleet total {sign}${abs(total):,.0f}/month" if math.isfinite(total) else "fleet total: n/a",
        xref="paper",
        yref="paper",
        x=1,
        y=1.02,
        xanchor="right",
        yanchor="bottom",
        showarrow=False,
        font={"color": LIMIT_COLOR},
    )
    fig.update_layout(barmode="group", yaxis={"autorange": "reversed"})
    return fig


def price_change_chart(comparison: Comparison) -> go.Figure:
    """Relative change of each price that changed (added and removed prices are listed in the table only)."""
    changed = comparison.prices[comparison.prices["status"] == "changed"]
    labels = [f"{o} · {i}" for o, i in zip(changed["offer_name"], changed["item"], strict=True)]
    pct = [100.0 * f if math.isfinite(f) else 0.0 for f in changed["change_fraction"]]
    fig = base_figure("Prices that changed", "change [%]", "", height=_height(max(1, len(labels))))
    fig.add_trace(
        go.Bar(
            y=labels,
            x=pct,
            orientation="h",
            marker_color=[API_WINS_COLOR if p > 0 else OWNED_WINS_COLOR for p in pct],
            text=[
                f"{b:g} → {a:g} {u}"
                for b, a, u in zip(changed["before"], changed["after"], changed["unit"], strict=True)
            ],
            textposition="auto",
            hovertemplate="%{y}: %{x:+.1f}%<br>%{text}<extra></extra>",
            name="change",
        )
    )
    if not labels:
        fig.add_annotation(text="no price changed", showarrow=False, xref="paper", yref="paper", x=0.5, y=0.5)
    fig.update_layout(yaxis={"autorange": "reversed"}, showlegend=False)
    fig.add_vline(x=0, line_color=LIMIT_COLOR, line_width=1)
    return fig


# ---- uncertainty --------------------------------------------------------------------------------------------

LOW_COLOR = "#56B4E9"  # sky blue: the input at the low end of its range
HIGH_COLOR = "#E69F00"  # orange: the input at the high end


def tornado_chart(tornado: Tornado, metric: str = "savings") -> go.Figure:
    """Tornado: savings vs all-API (or monthly cost of the chosen routes) with each input at its range ends.

    ``metric`` is ``"savings"`` or ``"cost"``. Bars start at the base value; widest swing on top.
    """
    savings = metric == "savings"
    base = tornado.base_savings_usd_per_month if savings else tornado.base_cost_usd_per_month
    bars = sorted(
        tornado.bars,
        key=lambda b: -(b.swing_usd_per_month if savings else b.cost_swing_usd_per_month),
    )
    labels = [f"{b.label} ({b.low:.3g}–{b.high:.3g} {INPUT_LABELS[b.input][1]})" for b in bars]
    low = [b.savings_at_low_usd_per_month if savings else b.cost_at_low_usd_per_month for b in bars]
    high = [b.savings_at_high_usd_per_month if savings else b.cost_at_high_usd_per_month for b in bars]
    what = "savings vs the best allowed API" if savings else "monthly cost of the chosen routes"
    fig = base_figure(
        f"Tornado: {what} (base {usd_per_month(base)}; workloads priced stand-alone)",
        f"{what} [USD/month]",
        "",
        height=_height(len(bars)),
    )
    for name, values, color in (("input at low end", low, LOW_COLOR), ("input at high end", high, HIGH_COLOR)):
        fig.add_trace(
            go.Bar(
                y=labels,
                x=[v - base for v in values],
                base=[base] * len(values),
                orientation="h",
                name=name,
                marker_color=color,
                customdata=values,
                hovertemplate="%{y}<br>" + name + ": $%{customdata:,.0f}/month<extra></extra>",
            )
        )
    fig.add_vline(x=base, line_color=LIMIT_COLOR, line_width=1)
    fig.update_layout(barmode="overlay", yaxis={"autorange": "reversed"})
    return fig


def monte_carlo_chart(monte_carlo: MonteCarlo, scenario: Scenario) -> go.Figure:
    """One panel per workload: the 5–95 % band of $/Mtok of every option able to serve it (median marked,
    the chosen route flagged), with P(owned beats API) in the panel title. Log axis: options differ by orders.
    Hollow markers are options the workload may not use (an API for sovereign data)."""
    styles = option_styles(scenario)
    wl = monte_carlo.workloads
    opts = monte_carlo.options
    counts = [max(1, int((opts["workload_id"] == w).sum())) for w in wl["workload_id"]]
    titles = []
    for _, w in wl.iterrows():
        p = w["prob_owned_beats_api"]
        vs = "the API it may not use" if not w["api_allowed"] else "the best API"
        prob = "" if not math.isfinite(p) else f" · P(owned beats {vs}) = {100 * p:.0f}%"
        titles.append(f"{w['workload_name']}{prob}")
    fig = make_subplots(
        rows=len(counts),
        cols=1,
        shared_xaxes=True,
        row_heights=[float(c) for c in counts],
        subplot_titles=titles,
        vertical_spacing=min(0.3 / max(1, len(counts)), 0.08),
    )
    for row, (_, w) in enumerate(wl.iterrows(), start=1):
        mine = opts[opts["workload_id"] == w["workload_id"]]
        labels = [
            f"{n}{'' if a else ' (not allowed)'}{' ◀ chosen' if o == w['base_option_id'] else ''}"
            for n, a, o in zip(mine["option_name"], mine["allowed"], mine["option_id"], strict=True)
        ]
        fig.add_trace(
            go.Scatter(
                y=labels,
                x=mine["p50_usd_per_mtok"],
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
                    "array": mine["p95_usd_per_mtok"] - mine["p50_usd_per_mtok"],
                    "arrayminus": mine["p50_usd_per_mtok"] - mine["p05_usd_per_mtok"],
                    "thickness": 5,
                    "width": 0,
                    "color": "rgba(110,110,110,0.5)",
                },
                customdata=mine[["p05_usd_per_mtok", "p95_usd_per_mtok", "base_usd_per_mtok"]].to_numpy(),
                hovertemplate=(
                    "%{y}<br>median $%{x:,.3g}/Mtok<br>5–95 %: $%{customdata[0]:,.3g}–$%{customdata[1]:,.3g}"
                    "<br>base $%{customdata[2]:,.3g}<extra></extra>"
                ),
                showlegend=False,
            ),
            row=row,
            col=1,
        )
        fig.update_yaxes(autorange="reversed", row=row, col=1)
        fig.update_xaxes(type="log", tickformat="$,~g", row=row, col=1)
    fig.update_xaxes(title_text="cost [USD/Mtok output, log]", row=len(counts), col=1)
    fig.update_layout(
        template=TEMPLATE_NAME,
        title={"text": f"Cost per million output tokens: 5–95 % band over {monte_carlo.draws:,} draws"},
        height=140 + 34 * sum(counts) + 60 * len(counts),
        margin={"l": 300, "t": 100},
    )
    fig.update_annotations(font_size=14, xanchor="left", x=0)
    return fig
