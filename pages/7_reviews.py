"""Price reviews: save the scenario with its prices and results, reopen a review, see what changed, which
decisions would flip, how sure we are, and take a meeting pack away."""

from __future__ import annotations

import streamlit as st

from economics.currency import currency_statement
from reporting import tables as pack_tables
from reporting.meeting_pack import pack_downloads
from ui import compute, state, tables
from ui import format as fmt
from ui.bands import route_accuracy_frame as accuracy_frame
from ui.charts import reviews as charts
from ui.energy import page_rate
from ui.widgets import reviews as rv
from ui.widgets.key_figures import baseline_metrics
from ui.widgets.table import number, table

st.title("Price reviews")
st.caption(
    "The routing decision is only as durable as the API rate and the hardware rate. Open last quarter's review, "
    "load today's prices, see what changed, which workloads should move and how sure we are."
)
rv.flash()

current = state.scenario()
reviews = rv.saved_reviews()
subject = rv.subject_picker(current, reviews)
if subject.review is not None:
    summary = subject.review.summary
    st.caption(
        f"Saved {summary.saved_at:%d %b %Y %H:%M} UTC · prices as of {summary.review_date:%d %b %Y} · shown exactly "
        f"as saved (not recomputed)" + (f" · notes: {fmt.md_escape(summary.notes)}" if summary.notes else "")
    )
    st.caption(fmt.md_escape(rv.provenance(summary)))
f = subject.result.fleet
rate, rate_problem = page_rate(subject.scenario)  # a saved review keeps the rate it was saved with (issue 14)
cur = "$" if rate.is_identity else rate.code


def shown(x: float | None) -> str:
    """A headline figure in the display currency, whole units like its neighbours."""
    return fmt.money(x, rate.code, rate.units_per_usd, cents=False)


m = st.columns(4)
lens_help = (  # the Overview's "Recommended": a reader took "Total cost" for everything the GPUs cost
    "What the plan spends a month: APIs, rented nodes, power above idle and nodes to buy. Nodes already bought "
    "are paid for whatever the plan does and not in it (cash lens): their idle hours are in the line below."
    if subject.scenario.policy.lens == "cash"
    else "What the plan costs a month at full cost: APIs, rented nodes, and every owned node it uses with its "
    "capital recovery, power and fixed costs."
)
m[0].metric(f"Recommended plan, {cur}/month", shown(f.total_cost_usd_per_month), help=lens_help)
baseline_metrics(m[1:3], cur, shown(f.all_api_cost_usd_per_month), shown(tables.fleet_savings(f)))
if f.owned_nodes:
    m[3].metric(
        "Fleet GPU utilization",
        fmt.pct(f.owned_utilization),
        help="Share of the owned GPUs' hours doing work, all workloads together. The Cost per token and "
        "Break-even pages show one workload's utilization of the replicas it would need on its own.",
    )
else:  # "0%" read as idle GPUs; "no owned GPUs" ran past its column at 1,440 px
    m[3].metric("Fleet GPU utilization", "none", help="This scenario owns no GPUs: there is no utilization to show.")
st.caption(rv.bill_in_words(subject.result, rate))
if not rate.is_identity:
    st.caption(fmt.md_escape(currency_statement(rate)))
if rate_problem:
    st.warning(fmt.md_escape(rate_problem))

with st.expander("Save the current scenario as a review", icon=":material/save:", expanded=not reviews):
    rv.save_form(current, reviews)
with st.expander(f"Saved reviews ({len(reviews)})", icon=":material/history:"):
    rv.review_list(reviews, subject)

st.subheader("What changed")
comparison = rv.comparison_picker(subject, current, reviews)
if comparison is not None:
    c = st.columns(3)
    c[0].metric(f"Monthly bill change, {cur}/month", shown(comparison.total_change_usd_per_month))
    c[1].metric("Routes that flipped", f"{len(comparison.flipped)} of {len(comparison.workloads)}")
    c[2].metric("Prices that changed", f"{len(comparison.prices)}")
    rv.change_in_words(rate)
    if note := rv.comparison_rate_note(rate):
        st.caption(fmt.md_escape(note))
    compute.chart(charts.comparison_chart, comparison, rate, key="rv_chart_comparison")
    changes = pack_tables.workload_changes_display(comparison, rate)
    table(changes, key="rv_workload_changes", file_name="workload_changes.csv")  # money formatted by its header
    if comparison.prices.empty:
        st.info("No price changed.", icon=":material/price_check:")
    else:
        compute.chart(charts.price_change_chart, comparison, rate, key="rv_chart_prices")
        table(
            pack_tables.price_changes_display(comparison, rate),
            key="rv_price_changes",
            file_name="price_changes.csv",
            # units differ by row (per node, per kWh, per million tokens): thousands separators, no fixed decimals
            column_config={
                **{c: number(fmt="localized") for c in ("Before", "After", "Change")},
                "Change [%]": number(fmt="%+.1f%%"),
            },
        )

st.subheader("What would flip each decision")
st.caption(
    "How far each driver can move, everything else fixed, before the workload's route changes. Beside each "
    "threshold, “now” is the driver's value in this review; for a price, the price the threshold is computed from."
)
rv.flip_sentences(subject.result, rate)
with st.expander("Thresholds as a table"):
    table(rv.flips_frame(subject.result, rate), key="rv_flips", file_name="flip_thresholds.csv")

st.subheader("How sure are we")
with st.expander("How accurate the throughput model is for each route", icon=":material/straighten:"):
    st.caption(  # issue 13: the band of each owned route's cost from the throughput model's measured accuracy
        "An owned route's cost per token rests on the modelled tokens per second. The likely range is the 10–90% "
        "band of the model's error on published benchmarks like it, or of your calibration when one is in use."
    )
    table(
        accuracy_frame(subject.result.options, subject.result.decisions, rate),
        key="rv_accuracy",
        file_name="accuracy.csv",
    )
ranges, draws, seed = rv.ranges_editor()
tornado, mc = compute.uncertainty(subject.scenario, ranges, draws, seed)
metric = st.radio(
    "Tornado of",
    ["savings", "cost"],
    horizontal=True,
    key="rv_tornado_metric",
    format_func={
        "savings": "savings vs the best API per workload",
        "cost": "monthly cost of the chosen routes",
    }.__getitem__,
)
compute.chart(charts.tornado_chart, tornado, metric, rate, key="rv_chart_tornado")
if (flat := charts.flat_inputs(tornado, metric, rate)) and len(flat) < len(tornado.bars):
    # a reader met "no effect" beside an input and was not told why
    st.caption(
        fmt.md_escape(
            f"No effect: {'; '.join(b.label for b in flat)}. At both ends of its range the figure moves by less "
            f"than {fmt.currency_prefix(rate.code)}1 a month"
            + (
                ". In the cash lens what a node already bought costs is committed (paid whatever the plan does), "
                "so its price moves nothing unless the plan would buy or rent more."
                if subject.scenario.policy.lens == "cash" and any(b.input == "node_price" for b in flat)
                else "."
            )
        )
    )
if metric == "savings" and all(
    b.savings_at_low_usd_per_month == b.savings_at_high_usd_per_month == tornado.base_savings_usd_per_month == 0
    for b in tornado.bars
):  # the chart is a line at zero with no bar: say why rather than leave an empty chart to be read
    st.caption(
        "No input moves the savings within its range: every workload stays on an API at both ends of every "
        "range, so nothing runs on owned or rented GPUs to save against the APIs. Choose “monthly cost of the "
        "chosen routes” above to see what moves the bill."
    )
side = subject.scenario.gpu_side()  # "owned", "rented" or "owned or rented": what the GPU options are
a_side = f"{'an' if side.startswith('owned') else 'a'} {side}"
st.caption(  # a reader saw an owned band under the API's and "chance owned beats the API: 30%" and asked which to trust
    f"The bands below are inference cost per million output tokens. The chance that {side} costs less compares "
    f"expected cost per task, which adds the cost of failed answers as the routes are chosen, so {a_side} band "
    "under the API's can still lose to a more accurate API."
)
compute.chart(charts.monte_carlo_chart, mc, subject.scenario, rate, key="rv_chart_mc")
bands = pack_tables.bands_display(mc, rate, side)
table(
    bands,
    key="rv_bands",
    file_name="monte_carlo.csv",
    column_config={  # money columns are formatted by their header (ui.widgets.table.money_formats)
        f"Chance {side} costs less per task": st.column_config.NumberColumn(format="percent"),
        "Chance the route holds": st.column_config.NumberColumn(format="percent"),
        "Chance the bought GPUs run short": st.column_config.NumberColumn(format="percent"),
    },
)
if (mc.workloads["prob_fleet_short"] > 0).any():  # a sunk route's median above its S$0: say why, in words
    st.caption(
        "A route on GPUs already bought costs nothing at the scenario's values, yet its band can reach above zero: "
        "in a draw where the GPUs do less than assumed (the efficiency ranges above), a fleet sized exactly for the "
        "scenario runs short, and the extra capacity is charged at its full price. The last column says how often."
    )
if mc.draws < draws:  # a large scenario gets fewer draws than asked for, to fit in memory: say so
    st.info(
        f"{mc.draws:,} draws instead of the {draws:,} asked for: this scenario has "
        f"{fmt.plural(len(subject.scenario.workloads), 'workload')} and that many draws of every option would not fit "
        "in memory. The bands are wider-grained; a smaller scenario gets every draw."
    )
st.caption(
    f"{mc.draws:,} seeded draws (seed {mc.seed}) through the evaluated operating point, each routed by the fleet "
    "plan (the workload's marginal cost in it, the rest of the plan held fixed); "
    f"savings vs the best API per workload, 5–95 %: {shown(mc.savings_p05_usd_per_month)} to "
    f"{shown(mc.savings_p95_usd_per_month)} a month."
)

st.subheader("Meeting pack")
st.caption(
    "One self-contained HTML file (interactive charts, tables, assumptions, price dates, the link) and a CSV zip."
)
rv.meeting_pack(subject, comparison, tornado, mc, ranges, build=pack_downloads)

with st.expander("Glossary: the words and symbols used here"):
    st.markdown(fmt.GLOSSARY)
