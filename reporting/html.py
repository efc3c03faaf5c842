"""The meeting pack as one self-contained HTML file: a generated narrative, interactive plotly charts (plotly.js
inline), tables, assumptions, price dates and the share link. No network access is needed to open it.

The page is the Jinja2 template ``reporting/templates/pack.html.j2`` with autoescaping on: every value from
the scenario is text, never markup. The one exception is the chart markup plotly writes, passed as
:class:`markupsafe.Markup`. Tables come from :mod:`reporting.tables`, sentences from :mod:`reporting.narrative`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import urlsplit

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from jinja2 import Environment, PackageLoader, StrictUndefined, Template
from markupsafe import Markup

from economics.io.scenarios import scenario_json
from economics.units import MS, SECONDS_PER_HOUR
from reporting import tables
from reporting.finance import finance_frames
from reporting.narrative import duration, in_prefix, per_month, show_description
from reporting.narrative import narrative as pack_narrative
from reporting.pack import MeetingPack
from ui.charts.reviews import (
    comparison_chart,
    monte_carlo_chart,
    price_change_chart,
    tornado_chart,
    workload_cost_chart,
)
from ui.format import money_header, money_text, pct, plain, route_words, usd, usd_per_month, usd_per_mtok

__all__ = ["LIMITATIONS", "HtmlTable", "figures", "html_table", "narrative", "render_html"]

#: docs/limitations.md#limitations, stated in every pack.
LIMITATIONS: tuple[str, ...] = (
    "The roofline ignores kernel-level effects (tile quantization, cache reuse, attention-kernel details, MoE "
    "load imbalance); the efficiency factors MBU, MFU and the per-pass overhead absorb them. Calibrate per engine.",
    "Output-length variability enters only through the mean; preemption and recompute in the serving engine are "
    "not modeled.",
    "Diffusion internals of closed models are undisclosed; their block size, steps and refresh passes are "
    "hypotheses fitted to reported speeds.",
    "Prices, CapEx and power are assumptions with the sources and dates listed in the price book; quality must come "
    "from task-specific evals. The router is only as good as quality and failure cost.",
    "Multi-node tensor parallelism needs the link bandwidth set accordingly; pipeline parallelism is not modeled.",
    "The uncertainty band uses a surrogate: one evaluation, secant elasticities at the MBU/MFU range ends, "
    "feasibility fixed at the base point (the model's documentation explains it).",
)


def figures(pack: MeetingPack) -> dict[str, go.Figure]:
    """The pack's charts by file stem, in the order they appear, money in the pack's display currency."""
    rate = pack.rate
    figs = {"workload_costs": workload_cost_chart(pack.scenario, pack.result, rate)}
    if pack.comparison is not None:
        figs["comparison"] = comparison_chart(pack.comparison, rate)
        if not pack.comparison.prices.empty:
            figs["price_changes"] = price_change_chart(pack.comparison, rate)
    if pack.tornado is not None:
        figs["tornado"] = tornado_chart(pack.tornado, "savings", rate)
        figs["tornado_cost"] = tornado_chart(pack.tornado, "cost", rate)
    if pack.monte_carlo is not None:
        figs["monte_carlo"] = monte_carlo_chart(pack.monte_carlo, pack.scenario, rate)
    return figs


def narrative(pack: MeetingPack) -> tuple[str, ...]:
    """The pack's summary sentences (see :mod:`reporting.narrative`)."""
    return pack_narrative(
        pack.scenario,
        pack.result,
        baseline=pack.baseline,
        comparison=pack.comparison,
        monte_carlo=pack.monte_carlo,
        rate=pack.rate,
    )


@dataclass(frozen=True)
class Cell:
    """One table cell as shown: text and an optional CSS class."""

    text: str
    cls: str = ""


@dataclass(frozen=True)
class HtmlTable:
    """A table ready for the template: header texts and rows of cells."""

    header: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]


#: A duration column's unit in its header and its length in seconds: its cells are written with their own unit
#: ("8 h", "30 ms", as the app writes them) and its header without it.
DURATION_UNITS: dict[str, float] = {" [s]": 1.0, " [ms]": MS, " [h]": SECONDS_PER_HOUR}


def _number(column: str, x: float) -> str:
    """``x`` as the column's header says: money (already in the header's currency) with its prefix."""
    if (money := money_header(column)) is not None:  # "[SGD/month]", "[USD/Mtok output]", "[SGD/h]", "[SGD]"
        code, unit = money
        written = usd_per_month if unit.startswith("/month") else usd_per_mtok if unit.startswith("/Mtok") else usd
        return in_prefix(written(x), code)
    if "P(" in column or column.startswith("Chance"):
        return pct(x)
    if math.isinf(x):
        return "∞"
    for unit, seconds in DURATION_UNITS.items():
        if column.endswith(unit):
            return duration(x * seconds)
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"


def _cell(column: str, value: object) -> Cell:
    """One table cell; units come from the column name."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return Cell("—")
    if isinstance(value, bool):
        return Cell("yes" if value else "")
    if isinstance(value, int | float):
        return Cell(_number(column, float(value)), "num")
    return Cell(str(value))


def _without_duration_unit(column: str) -> str:
    return column.removesuffix(next((u for u in DURATION_UNITS if column.endswith(u)), ""))


def html_table(frame: pd.DataFrame, *, stale_column: str | None = None) -> HtmlTable:
    """Format a DataFrame for the template; a ``stale_column`` cell that warns ("⚠ stale", "⚠ dated after the
    review date") is marked stale."""
    rows = []
    for record in frame.itertuples(index=False, name=None):
        cells = []
        for column, value in zip(frame.columns, record, strict=True):
            stale = column == stale_column and str(value).startswith("⚠")
            cells.append(Cell(str(value), "stale") if stale else _cell(str(column), value))
        rows.append(tuple(cells))
    # durations are written with their own unit ("8 h", "30 ms"), so the header drops the CSV's "[h]"
    header = tuple(_without_duration_unit(str(c)) for c in frame.columns)
    return HtmlTable(header, tuple(rows))


def _kpis(pack: MeetingPack) -> list[dict[str, str]]:
    f = pack.result.fleet
    savings = (
        None if f.all_api_cost_usd_per_month is None else f.all_api_cost_usd_per_month - f.total_cost_usd_per_month
    )
    rate = pack.rate
    plan = pack.result.plan
    idle = plan.idle_owned_full_cost_usd_per_month if plan is not None else f.idle_cost_usd_per_month
    items = [
        ("Recommended plan", per_month(f.total_cost_usd_per_month, rate)),
        ("API baseline", per_month(f.all_api_cost_usd_per_month, rate)),
        ("Savings vs baseline", per_month(savings, rate)),
        ("Owned GPUs", f"{f.owned_gpus:,}"),
        ("Fleet GPU utilization", pct(f.owned_utilization)),
        # the Overview's "Idle GPUs": the full cost of the idle hours (sunk, so 0 in the cash lens's own figure)
        ("Idle owned GPUs, full cost", per_month(idle, rate)),
    ]
    if pack.monte_carlo is not None:
        mc = pack.monte_carlo
        band = f"{per_month(mc.savings_p05_usd_per_month, rate)} … {per_month(mc.savings_p95_usd_per_month, rate)}"
        items.append(("Savings vs best API, 5–95 %", band))
    return [{"label": k, "value": v} for k, v in items]


def _chart(fig: go.Figure, first: bool, div_id: str) -> Markup:
    markup = pio.to_html(
        fig, full_html=False, include_plotlyjs=first, div_id=div_id, config={"displaylogo": False, "responsive": True}
    )
    return Markup(markup)  # noqa: S704 (plotly's own output, built from figures, never from user text)


def _sentence(text: str) -> str:
    """A text that starts a paragraph, with a capital."""
    return text[:1].upper() + text[1:]


def _flips(pack: MeetingPack) -> list[dict[str, Any]]:
    code, k = pack.rate.code, pack.rate.units_per_usd
    return [
        {
            "name": d.workload_name,
            "route": route_words(d.route_label),
            "reason": _sentence(money_text(plain(d.reason), code, k)),
            "texts": [money_text(plain(f.text), code, k) for f in d.flips if f.threshold is not None]
            or ["No driver in range changes this route."],
        }
        for d in pack.result.decisions
    ]


def _comparison(pack: MeetingPack) -> dict[str, Any] | None:
    c, rate = pack.comparison, pack.rate
    if c is None:
        return None
    return {
        "before_label": c.before_label,
        "after_label": c.after_label,
        "workloads": html_table(tables.workload_changes_display(c, rate)),
        "prices": None if c.prices.empty else html_table(tables.price_changes_display(c, rate)),
        "fleet": html_table(tables.fleet_changes_display(c, rate)),
    }


def _safe_link(url: str | None) -> str | None:
    """Only http(s) links reach the page."""
    return url if url and urlsplit(url).scheme in {"http", "https"} else None


@cache
def _template() -> Template:
    env = Environment(
        loader=PackageLoader("reporting", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template("pack.html.j2")


def render_html(pack: MeetingPack) -> str:
    """The whole pack as one HTML document (plotly.js inline once, then every chart)."""
    s, figs = pack.scenario, figures(pack)
    charts = {name: _chart(fig, i == 0, f"chart-{name}") for i, (name, fig) in enumerate(figs.items())}
    decisions = tables.decisions_with_bands(pack).drop(columns=["Workload id", "Why"])
    bands = pack.monte_carlo if pack.tornado is not None else None
    return _template().render(
        title=pack.title,
        scenario=s,
        generated=pack.generated_at.strftime("%Y-%m-%d %H:%M UTC"),
        share_url=_safe_link(pack.share_url),
        notes=pack.notes,
        narrative=narrative(pack),
        description=s.description if show_description(s, pack.baseline) else "",
        kpis=_kpis(pack),
        warnings=[plain(w) for w in pack.result.warnings],
        decisions=html_table(decisions),
        charts=charts,
        flips=_flips(pack),
        comparison=_comparison(pack),
        uncertainty=None
        if bands is None
        else html_table(tables.bands_display(bands, pack.rate, pack.scenario.gpu_side())),
        price_book=html_table(tables.price_book_display(pack), stale_column="Status"),
        workloads=html_table(tables.workloads_frame(pack)),
        assumptions=html_table(tables.assumptions_frame(pack)),
        options=html_table(tables.options_frame(pack.result, s, pack.rate)),
        currency=pack.currency_statement,
        limitations=LIMITATIONS,
        scenario_json=scenario_json(s),
        finance=_finance(pack),
    )


def _finance(pack: MeetingPack) -> dict[str, Any] | None:
    """The finance section for the template: sentences and tables (issue 14)."""
    data = pack.finance
    if data is None:
        return None
    if "problems" in data:
        return {"problems": data["problems"]}
    frames = finance_frames(data)
    return {
        "problems": None,
        "rates": [
            f"API prices {data['api_price_change']['basis']}.",
            f"Rented GPU prices {data['rental_price_change']['basis']}.",
            f"NPV at {data['discount_rate']['per_year']:.1%} a year ({data['discount_rate']['basis']}), "
            "bills at each year's end.",
            data["bill_basis"],
        ],
        "bills": html_table(frames["bills"]),
        "crossover": data["crossover"]["text"],
        "sensitivity": html_table(frames["sensitivity"]) if not frames["sensitivity"].empty else None,
        "books": html_table(frames["books"]) if not frames["books"].empty else None,
        "decision_view": data["decision_view"],
        "carbon": data["carbon"],
        "energy": html_table(frames["energy"]) if not frames["energy"].empty else None,
    }
