"""The meeting pack as one self-contained HTML file: interactive plotly charts (plotly.js inline), tables,
assumptions, price dates and the share link. No network access is needed to open it.

Every piece of text from the scenario is HTML-escaped; tables come from :mod:`reporting.tables`.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from economics.share import scenario_json
from reporting import tables
from reporting.pack import MeetingPack
from ui.charts.reviews import (
    comparison_chart,
    monte_carlo_chart,
    price_change_chart,
    tornado_chart,
    workload_cost_chart,
)
from ui.format import pct, usd, usd_per_month, usd_per_mtok

__all__ = ["LIMITATIONS", "figures", "render_html"]

#: MODEL_SPEC §14, stated in every pack.
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
    "feasibility fixed at the base point (see economics/uncertainty.py).",
)

_CSS = """
body{font-family:Inter,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;margin:2rem auto;max-width:1200px;color:#222;
line-height:1.45;padding:0 1rem}
h1{font-size:1.7rem;margin-bottom:.2rem}h2{font-size:1.3rem;margin-top:2.2rem;border-bottom:1px solid #ddd;
padding-bottom:.2rem}
table{border-collapse:collapse;font-size:.85rem;margin:.6rem 0 1rem;width:100%}
th,td{border:1px solid #e2e2e2;padding:.25rem .45rem;text-align:left;vertical-align:top}
th{background:#f5f5f5}td.num{text-align:right;font-variant-numeric:tabular-nums}
.meta{color:#555}.kpis{display:flex;flex-wrap:wrap;gap:1rem;margin:1rem 0}
.kpi{border:1px solid #ddd;border-radius:6px;padding:.6rem .9rem;min-width:11rem}
.kpi b{display:block;font-size:1.25rem}.stale{color:#b00020;font-weight:600}.warn{color:#8a5a00}
.scroll{overflow-x:auto}
pre{white-space:pre-wrap;font-size:.75rem;background:#fafafa;border:1px solid #eee;padding:.6rem}
"""


def figures(pack: MeetingPack) -> dict[str, go.Figure]:
    """The pack's charts by file stem, in the order they appear."""
    figs = {"workload_costs": workload_cost_chart(pack.scenario, pack.result)}
    if pack.comparison is not None:
        figs["comparison"] = comparison_chart(pack.comparison)
        if not pack.comparison.prices.empty:
            figs["price_changes"] = price_change_chart(pack.comparison)
    if pack.tornado is not None:
        figs["tornado"] = tornado_chart(pack.tornado, "savings")
        figs["tornado_cost"] = tornado_chart(pack.tornado, "cost")
    if pack.monte_carlo is not None:
        figs["monte_carlo"] = monte_carlo_chart(pack.monte_carlo, pack.scenario)
    return figs


def _cell(column: str, value: object) -> tuple[str, bool]:
    """(text, is_number) for one table cell; units come from the column name."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—", False
    if isinstance(value, bool):
        return ("yes" if value else ""), False
    if isinstance(value, int | float) and not isinstance(value, bool):
        x = float(value)
        if "[USD/month]" in column:
            return usd_per_month(x), True
        if "USD/Mtok" in column:
            return usd_per_mtok(x), True
        if "[USD/task]" in column or "[USD]" in column:
            return usd(x), True
        if "P(" in column:
            return pct(x), True
        if math.isinf(x):
            return "∞", True
        return (f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"), True
    return str(value), False


def table(frame: pd.DataFrame, *, stale_column: str | None = None) -> str:
    """An escaped HTML table; rows whose ``stale_column`` is true are marked stale."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = []
    for _, row in frame.iterrows():
        cells = []
        for column in frame.columns:
            text, numeric = _cell(str(column), row[column])
            cls = ' class="num"' if numeric else ""
            if column == stale_column and row[column] is True:
                text, cls = "stale", ' class="stale"'
            cells.append(f"<td{cls}>{html.escape(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"


def _kpis(pack: MeetingPack) -> str:
    f = pack.result.fleet
    savings = (
        None if f.all_api_cost_usd_per_month is None else f.all_api_cost_usd_per_month - f.total_cost_usd_per_month
    )
    items = [
        ("Total cost", usd_per_month(f.total_cost_usd_per_month)),
        ("Everything on APIs", usd_per_month(f.all_api_cost_usd_per_month)),
        ("Savings vs all-API", usd_per_month(savings)),
        ("Owned GPUs", f"{f.owned_gpus:,}"),
        ("Owned utilization", pct(f.owned_utilization)),
        ("Idle owned capacity", usd_per_month(f.idle_cost_usd_per_month)),
    ]
    if pack.monte_carlo is not None:
        mc = pack.monte_carlo
        items.append(
            (
                "Savings vs best API, 5–95 %",
                f"{usd_per_month(mc.savings_p05_usd_per_month)} … {usd_per_month(mc.savings_p95_usd_per_month)}",
            )
        )
    boxes = "".join(f'<div class="kpi">{html.escape(k)}<b>{html.escape(v)}</b></div>' for k, v in items)
    return f'<div class="kpis">{boxes}</div>'


def _chart(fig: go.Figure, first: bool, div_id: str) -> str:
    return str(
        pio.to_html(
            fig,
            full_html=False,
            include_plotlyjs=first,
            div_id=div_id,
            config={"displaylogo": False, "responsive": True},
        )
    )


def _list(items: Iterable[str], cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    return "<ul>" + "".join(f"<li{attr}>{html.escape(i)}</li>" for i in items) + "</ul>"


def _flips(pack: MeetingPack) -> str:
    parts = []
    for d in pack.result.decisions:
        texts = [f.text for f in d.flips if f.threshold is not None] or ["No driver in range changes this route."]
        parts.append(
            f"<h3>{html.escape(d.workload_name)} — {html.escape(d.route_label)}</h3>"
            f"<p>{html.escape(d.reason)}</p>{_list(texts)}"
        )
    return "".join(parts)


def _changes(pack: MeetingPack, charts: dict[str, str]) -> list[str]:
    c = pack.comparison
    assert c is not None  # called only with a comparison
    out = [
        f"<h2 id='changes'>What changed: {html.escape(c.before_label)} → {html.escape(c.after_label)}</h2>",
        charts["comparison"],
        "<h3>Workloads</h3>",
        table(tables.workload_changes_display(c)),
        "<h3>Prices</h3>",
    ]
    if c.prices.empty:
        out.append("<p>No price changed.</p>")
    else:
        out += [charts["price_changes"], table(tables.price_changes_display(c))]
    return [*out, "<h3>Fleet</h3>", table(tables.fleet_changes_display(c))]


def render_html(pack: MeetingPack) -> str:
    """The whole pack as one HTML document (plotly.js inline once, then every chart)."""
    s, figs = pack.scenario, figures(pack)
    charts = {name: _chart(fig, i == 0, f"chart-{name}") for i, (name, fig) in enumerate(figs.items())}
    esc = html.escape
    link = (
        f'<a id="share-link" href="{esc(pack.share_url)}">open this scenario in the dashboard</a>'
        if pack.share_url
        else "the scenario is too large for a link; its JSON is at the end of this document"
    )
    out = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{esc(pack.title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{esc(pack.title)}</h1>",
        f"<p class='meta'>Scenario <b>{esc(s.name)}</b> · prices as of <b>{s.review_date.isoformat()}</b> · "
        f"generated {pack.generated_at.strftime('%Y-%m-%d %H:%M UTC')} · {link}</p>",
    ]
    if pack.notes:
        out.append(f"<p><b>Notes:</b> {esc(pack.notes)}</p>")
    if s.description:
        out.append(f"<p class='meta'>{esc(s.description)}</p>")
    out += ["<h2>Summary</h2>", _kpis(pack)]
    if pack.result.warnings:
        out += ["<h3>Warnings</h3>", _list(pack.result.warnings, "warn")]
    decisions = tables.decisions_with_bands(pack).drop(columns=["Workload id", "Why"])
    out += ["<h2 id='decisions'>Where each workload runs</h2>", table(decisions)]
    out.append(charts["workload_costs"])
    out += ["<h2 id='flips'>Why, and what would change the decision</h2>", _flips(pack)]
    if pack.comparison is not None:
        out += _changes(pack, charts)
    if pack.tornado is not None and pack.monte_carlo is not None:
        out += [
            "<h2 id='uncertainty'>How sure we are</h2>",
            charts["tornado"],
            charts["tornado_cost"],
            charts["monte_carlo"],
            table(tables.bands_display(pack.monte_carlo)),
        ]
    out += [
        "<h2 id='prices'>Price book</h2>",
        f"<p>Prices older than {s.policy.stale_after_days} days before the review date, or undated, are stale.</p>",
        table(tables.price_book_display(pack), stale_column="Stale"),
        "<h2 id='assumptions'>Assumptions</h2>",
        "<h3>Workloads</h3>",
        table(tables.workloads_frame(pack)),
        "<h3>Policy, efficiency and uncertainty ranges</h3>",
        table(tables.assumptions_frame(pack)),
        "<h3>Every option for every workload</h3>",
        table(tables.options_frame(pack.result, s)),
        "<h3>Known limitations</h3>",
        _list(LIMITATIONS),
        "<h2 id='scenario'>Scenario (JSON)</h2>",
        "<details><summary>The full scenario, to reproduce every number</summary>",
        f"<pre id='scenario-json'>{esc(scenario_json(s))}</pre></details>",
        "</body></html>",
    ]
    return "\n".join(out)
