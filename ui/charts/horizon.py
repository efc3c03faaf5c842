"""Charts of the Horizon page: each plan's yearly bill, and the crossover year against the API price decline."""

from __future__ import annotations

import plotly.graph_objects as go

from economics.currency import DisplayRate, to_display
from economics.finance.horizon import Horizon
from ui.axes import wrap_label
from ui.format import currency_prefix
from ui.theme import DASHES, KIND_COLOR, LIMIT_COLOR, Chart

_PLAN_COLOR = {
    "own": KIND_COLOR["owned-ar"],
    "all": KIND_COLOR["owned-diffusion"],
    "rent": KIND_COLOR["owned-ar-spec"],
    "api": KIND_COLOR["api-frontier"],
}


def bills_figure(h: Horizon, rate: DisplayRate) -> go.Figure:
    """Each plan's bill per year, in the display currency, re-planned every year."""
    names = [_legend_name(p.name if p.serves_everything else f"{p.name} (leaves workloads unserved)") for p in h.plans]
    c = Chart(
        f"What each plan costs per year [{rate.code}]",
        "year",
        f"bill [{rate.code} per year]",
        legend_rows=sum(1 + n.count("<br>") for n in names),
    )
    for i, (p, name) in enumerate(zip(h.plans, names, strict=True)):
        c.add(
            x=[str(b.year) for b in p.bills],
            y=[to_display(b.total_usd, rate) for b in p.bills],
            mode="lines+markers",
            name=name,
            line={
                "color": _PLAN_COLOR.get(p.plan_id.split("-")[0], LIMIT_COLOR),
                "dash": DASHES[i % len(DASHES)],
                "width": 3,
            },
            hovertemplate=f"%{{x}}: {rate.code} %{{y:,.0f}}<extra>{p.name}</extra>",
        )
    # money on the axis as on every other page ("S$700,000", not "700k")
    c.axis("yaxis", tickprefix=currency_prefix(rate.code), tickformat=",.0f")
    # years are categories: Plotly read "2027" as a number and ticked "2,027.5" between the years
    c.axis("xaxis", type="category")
    return c.figure()


#: Longest legend line the half-width bills chart shows whole at 1,440 px [characters].
LEGEND_LINE_CHARS = 45


def _legend_name(name: str) -> str:
    """A plan's name on legend lines of at most :data:`LEGEND_LINE_CHARS`, broken between words: the rented plan's
    "Rent reserved instead of owning (GCP a3-highgpu-8g reserved-1y, in-country)" ran past the chart's edge."""
    return wrap_label(name, LEGEND_LINE_CHARS)


def sensitivity_figure(h: Horizon, sensitivity: tuple[tuple[float, int | None], ...]) -> go.Figure:
    """The year owning stops paying at each API price change; 'never' drawn above the horizon's last year."""
    never = h.years[-1] + 1
    c = Chart("When owning stops paying, by API price decline", "API price change per year [%]", "crossover year")
    xs = [100 * a for a, _ in sensitivity]
    ys = [y if y is not None else never for _, y in sensitivity]
    c.add(
        x=xs,
        y=ys,
        mode="lines+markers",
        line={"color": KIND_COLOR["api-frontier"], "shape": "hv", "width": 3},
        text=[str(y) if y is not None else f"owning pays through {h.years[-1]}" for _, y in sensitivity],
        hovertemplate="%{x:.0f}%/year: %{text}<extra></extra>",
        name="crossover year",
    )
    c.axis(
        "yaxis",
        tickvals=[*h.years, never],
        ticktext=[*(str(y) for y in h.years), "never"],
        range=[h.years[0] - 0.5, never + 0.5],
    )
    c.axis("xaxis", autorange="reversed", ticksuffix="%")  # "−20%", as the page's inputs say it, not "−20"
    return c.figure()
