"""Charts of the Cost-per-token page: $/Mtok against utilization with API prices, and the node $/h breakdown.

Money is computed in USD and drawn in the display currency of ``rate`` (issue 14): multiplied by its rate here,
at the display edge; axes, hovers and legends carry its code and prefix (US dollars by default).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from economics.currency import USD, DisplayRate
from economics.views.cost import CostAnalysis, CostAtUtilization
from economics.views.kinds import DisplayKind
from ui.axes import LEGEND_LINE_CHARS, row_px, wrap_label
from ui.format import currency_prefix
from ui.theme import DASHES, KIND_COLOR, KIND_SHADES, LIMIT_COLOR, Chart

#: Longest line of an option's name beside a bar [characters].
BAR_LINE_CHARS = 32


def cost_curve_figure(
    a: CostAnalysis,
    here: tuple[str, float] | None = None,
    ratios: Mapping[str, tuple[float, float]] | None = None,
    rate: DisplayRate = USD,
) -> go.Figure:
    """$/Mtok output against utilization for every owned variant; API prices as flat lines; break-evens; and
    "you are here" on the curve of ``here`` = (option id, the workload's actual utilization [1]) from the
    evaluated scenario. Independent of the marked utilization, so moving the marker does not redraw it.
    ``ratios`` (option id → plausible throughput low/high as multiples of the model's) shades each modelled
    curve's likely range: cost ∝ 1/throughput. Money in ``rate``'s currency."""
    k, cur = rate.units_per_usd, currency_prefix(rate.code)
    c = Chart(
        f"Effective cost per token vs utilization<br>{a.workload_name}" + (" (shaded: likely range)" if ratios else ""),
        "utilization [% of capacity within latency targets]",  # the longer title was cut at 1,024 px
        f"effective cost [{rate.code} per Mtok output] (log)",
        height=520,
        legend_rows=len(a.curves) + len(a.apis) + 1,  # sized again from the names once drawn (Chart.fit_legend)
        y_log=True,
    )
    option_rank: dict[str, int] = {}
    finite: list[float] = []
    for curve in a.curves:
        rank = option_rank.setdefault(curve.option_id, len(option_rank))
        if not curve.feasible:
            continue
        finite.append(k * float(np.nanmin(curve.cost_usd_per_mtok)))
        if ratios and curve.source == "model" and curve.option_id in ratios:
            _likely_range(c, 100 * curve.utilization, k * curve.cost_usd_per_mtok, ratios[curve.option_id],
                          shade(curve.kind, rank))  # fmt: skip
        c.add(
            x=100 * curve.utilization,
            y=k * curve.cost_usd_per_mtok,
            mode="lines",
            line={"color": shade(curve.kind, rank), "width": 3, "dash": DASHES[rank % len(DASHES)]},
            name=_with_note(
                wrap_label(curve.label, LEGEND_LINE_CHARS),
                "(measured throughput)" if curve.source == "measured" else "",
            ),
            customdata=np.full(len(curve.utilization), curve.capacity_tokens_per_s),
            hovertemplate=(
                f"utilization %{{x:.0f}}%<br>{cur}%{{y:,.3g}} per Mtok output"
                "<br>capacity %{customdata:,.0f} tok/s per replica<extra>%{fullData.name}</extra>"
            ),
        )
    api_rank: dict[DisplayKind, int] = {}
    for api in a.apis:
        if not (api.feasible and math.isfinite(api.cost_usd_per_mtok)):
            continue
        # two APIs of one kind (GPT-5 and GPT-5 mini) drew the same orange line: a shade of the kind each
        rank = api_rank[api.kind] = api_rank.get(api.kind, -1) + 1
        note = "" if api.allowed else " (not allowed: sovereign data)"
        price = k * api.cost_usd_per_mtok
        finite.append(price)
        c.add(
            x=[0, 100],
            y=[price, price],
            mode="lines",
            line={"color": shade(api.kind, rank), "width": 2, "dash": "solid" if api.allowed else "dot"},
            name=_with_note(wrap_label(f"{api.label}: {cur}{price:,.3g}/Mtok", LEGEND_LINE_CHARS), note.strip()),
            hovertemplate=f"{api.label}<br>{cur}%{{y:,.3g}} per Mtok output at any utilization{note}<extra></extra>",
        )
    if a.cheapest_api is not None:
        marks = [cv for cv in a.curves if cv.feasible and 0 < cv.break_even_utilization <= 1]
        if marks:
            c.add(
                x=[100 * cv.break_even_utilization for cv in marks],
                y=[k * a.cheapest_api.cost_usd_per_mtok] * len(marks),
                mode="markers",
                marker={"symbol": "x-thin", "size": 16, "color": LIMIT_COLOR, "line": {"width": 3}},
                name=f"break-even vs {a.cheapest_api.label}",
                text=[f"{cv.label}: owned cheaper above {100 * cv.break_even_utilization:.0f}%" for cv in marks],
                hovertemplate="%{text}<extra></extra>",
            )
    if here is not None:
        _you_are_here(c, a, *here, rate=rate)
    if finite:
        lo, hi = max(min(finite) / 2, 1e-4), max(finite) * 1.5
        c.axis("yaxis", range=[math.log10(lo), math.log10(min(hi * 20, max(lo * 1e4, hi)))])
    c.axis("yaxis", tickprefix=cur)
    c.axis("xaxis", range=[0, 100], ticksuffix="%")
    c.fit_legend()
    return c.figure()


def _likely_range(c: Chart, x: np.ndarray, cost: np.ndarray, ratio: tuple[float, float], color: str) -> None:
    """A shaded band from cost/high to cost/low throughput ratio (the model's value always inside it).

    One closed shape (``fill="toself"``: along the upper edge, back along the lower one) rather than two
    traces filled to each other: the browser draws every trace of a changed chart again after each edit
    (``benchmarks/plotly_draw_cost.py``), and the cost chart's five bands were ten of its twenty traces.
    """
    low, high = min(ratio[0], 1.0), max(ratio[1], 1.0)
    finite = np.isfinite(cost)  # a gap would split the shape in pieces, each closed on itself
    x, cost = x[finite], cost[finite]
    c.add(
        "scatter",
        x=np.concatenate([x, x[::-1]]),
        y=np.concatenate([cost / low, (cost / high)[::-1]]),
        mode="lines",
        line={"width": 0, "color": color},
        fill="toself",
        fillcolor=_translucent(color, 0.18),
        hoverinfo="skip",
        showlegend=False,
        name="likely range (model accuracy)",
    )


def _with_note(name: str, note: str) -> str:
    """A legend name, then ``note`` ("(measured throughput)", "at 18% utilization"; none when empty): on the last
    line when it fits in :data:`LEGEND_LINE_CHARS`, else on a line of its own (never split)."""
    if not note:
        return name
    last = name.rsplit("<br>", 1)[-1]
    return f"{name} {note}" if len(last) + 1 + len(note) <= LEGEND_LINE_CHARS else f"{name}<br>{note}"


def _translucent(color: str, alpha: float) -> str:
    """``#RRGGBB`` → ``rgba(r, g, b, alpha)`` (a fill the curves show through); other colours as given."""
    if len(color) == 7 and color.startswith("#"):
        r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
        return f"rgba({r}, {g}, {b}, {alpha})"
    return color


def _you_are_here(c: Chart, a: CostAnalysis, option_id: str, utilization: float, *, rate: DisplayRate = USD) -> None:
    """A marker at the workload's actual utilization on the cheapest feasible curve of ``option_id``."""
    curves = [cv for cv in a.curves if cv.option_id == option_id and cv.feasible]
    if not curves or not 0 < utilization <= 1:
        return
    u = a.curves[0].utilization
    i = int(np.argmin(np.abs(u - utilization)))
    curve = min(curves, key=lambda cv: float(cv.cost_usd_per_mtok[i]))
    c.add(
        x=[100 * utilization],
        y=[rate.units_per_usd * float(curve.cost_usd_per_mtok[i])],
        mode="markers+text",
        marker={"symbol": "star", "size": 18, "color": "#111111", "line": {"color": "white", "width": 1.5}},
        text=[f"you are here: {100 * utilization:.0f}%"],
        textposition="top right",
        textfont={"size": 13, "color": "#111111"},
        name=_with_note(
            wrap_label(f"you are here: {curve.label}", LEGEND_LINE_CHARS),
            # a reader compared it with the fleet's 39% on the Overview: it is this workload's own replicas
            f"at {100 * utilization:.0f}% utilization (of its own replicas)",
        ),
        hovertemplate=f"{curve.label}<br>actual utilization %{{x:.1f}}%<br>{currency_prefix(rate.code)}%{{y:,.3g}} "
        "per Mtok output<extra></extra>",
    )


def shade(kind: DisplayKind, rank: int) -> str:
    """The kind's color for the option ranked ``rank``: two owned options never share a color."""
    shades = KIND_SHADES[kind]
    return shades[rank % len(shades)]


def cost_at_utilization_figure(at: CostAtUtilization, rate: DisplayRate = USD) -> go.Figure:
    """Every option's $/Mtok output at the marked utilization, cheapest first; APIs at their flat price; money in
    ``rate``'s currency."""
    rows = at.rows
    k, cur = rate.units_per_usd, currency_prefix(rate.code)
    # an option's name on lines of BAR_LINE_CHARS, the variant ("with speculation") on its own: on one line the
    # plot was ~120 px wide at 1,024 px; rows sized by their lines (at 38 px a row two-line names ran together)
    labels = ["<br>".join(wrap_label(part, BAR_LINE_CHARS) for part in r[0].split(" · ", 1)) for r in rows]
    c = Chart(
        f"At {100 * at.utilization:.0f}% utilization: cost per Mtok output, cheapest first",
        f"effective cost [{rate.code} per Mtok output] (log)",
        "",
        # every row as tall as the tallest label (plotly spaces categories evenly)
        height=max(260, 140 + len(labels) * row_px(labels)),
        legend_rows=0,
        x_log=True,
    )
    c.add(
        "bar",
        y=labels,
        x=[k * r[2] for r in rows],
        orientation="h",
        marker={
            "color": [KIND_COLOR[r[1]] for r in rows],
            "pattern": {"shape": ["/" if "not" in r[3] else "" for r in rows]},
        },
        text=[f"{cur}{k * r[2]:,.2f}" for r in rows],
        textposition="outside",
        cliponaxis=False,  # a value label may run into the right margin rather than be cut at the plot's edge
        customdata=[r[3] for r in rows],
        hovertemplate=f"%{{y}}<br>{cur}%{{x:,.3g}} per Mtok output (%{{customdata}})<extra></extra>",
        showlegend=False,
    )
    c.axis("yaxis", autorange="reversed")
    costs = [k * r[2] for r in rows if r[2] > 0]
    if costs:  # room on the right for the value labels
        c.axis("xaxis", range=[math.log10(min(costs) / 1.5), math.log10(max(costs) * 3)])
    # one tick per decade: beside the options' names the plot is narrow at 1,024 px, where 1-2-5 ticks ran into
    # each other ("$0.5$1$2$5$10")
    c.axis("xaxis", tickprefix=cur, dtick=1)
    margin = c.layout["margin"]
    assert isinstance(margin, dict)
    margin["r"] = 80  # room for the largest value label
    return c.figure()
