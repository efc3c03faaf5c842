"""Overview: the fleet plan — where each workload runs, what the plan spends, in which lens — and the cards."""

from __future__ import annotations

import streamlit as st

from economics import OwnedNode
from economics.currency import currency_statement
from economics.uncertainty import UncertaintyRanges
from ui import bands, compute, state, tables
from ui import format as fmt
from ui.charts import overview as charts
from ui.energy import carbon_line, page_rate
from ui.widgets.decisions import decision_cards
from ui.widgets.key_figures import baseline_metrics
from ui.widgets.reviews import MIN_OVERVIEW_DRAWS, OVERVIEW_DRAW_CELLS, REVIEW_DRAWS, REVIEW_SEED
from ui.widgets.table import routes_columns, table

CARDS_PER_PAGE = 25

s = state.scenario()  # first: a deep link's very first run must not draw before app.py ran
r = compute.evaluate(s)
f = r.fleet
p = r.plan

st.title("Where each workload should run, and what it really costs")
lens_text = (
    "cash lens: nodes already bought are paid for whatever the plan does, so only what changes spending counts"
    if s.policy.lens == "cash"
    else "full-cost lens: every node the plan uses carries its capital and fixed costs"
)
st.caption(f"{fmt.md_escape(s.name)} · prices as of {s.review_date:%d %b %Y} · {lens_text}")

rate, rate_problem = page_rate(s)  # money is converted here, at the display edge (issue 14)
cur = rate.code if not rate.is_identity else "$"


def shown(x: float | None) -> str:
    """A headline figure in the display currency, whole units like its neighbours."""
    return fmt.money(x, rate.code, rate.units_per_usd, cents=False)


idle_usd = p.idle_full_cost_usd_per_month if p else 0.0
m = st.columns(5)
m[0].metric(
    f"Recommended, {cur}/month",
    shown(f.total_cost_usd_per_month),
    help="What the plan spends per month in its lens: APIs (retries included), rented nodes, power above idle "
    "and nodes to buy; in the full-cost lens also the bought nodes. Each card below is its workload's share.",
)
baseline_metrics(m[1:3], cur, shown(f.all_api_cost_usd_per_month), shown(tables.fleet_savings(f)))
m[3].metric(
    "Sunk capital",
    shown(p.sunk_capital_usd if p else 0.0),
    help=f"Purchase price of the nodes already bought: spent, whatever the plan does. Keeping them costs "
    f"{shown(p.sunk_usd_per_month if p else 0.0)}/month of capital recovery and fixed costs, committed whatever "
    "the plan does.",
)
m[4].metric(
    f"Idle GPUs at full cost, {cur}/month",
    shown(idle_usd),
    help=f"Full cost of the idle hours of the GPUs the plan pays for: the owned fleet's (GPU utilization "
    f"{fmt.pct(f.owned_utilization)} of {f.owned_gpus} GPUs), the essay's 'GPU hangover', and the rented GPUs' "
    f"({shown(p.idle_rented_cost_usd_per_month if p else 0.0)}): the grey parts of the GPU chart below. In the "
    "cash lens the part on nodes already bought is committed: paid whatever the plan does, so it is not in "
    "Recommended.",
)
if s.policy.lens == "cash" and p is not None and p.sunk_usd_per_month > 0:
    # the headline is what the plan changes; say beside it what is paid anyway, so it is not read as the run cost
    # a card's "S$0 paid to run it" on a bought node follows from an input, not a finding: say which, when it holds
    owned = [n for n in s.nodes if isinstance(n, OwnedNode) and n.nodes_owned > 0]
    flat = [n.name for n in owned if n.power_fraction_busy <= n.power_fraction_idle]
    st.caption(
        fmt.md_escape(
            f"Not in Recommended: {shown(p.sunk_usd_per_month)} a month that the nodes already bought cost "
            "whatever the plan does (capital recovery, power at idle, colocation and operations). Recommended "
            "plus this is what the plan costs a month in full, capital recovery included."
            + (
                f" {', '.join(flat)} {'draws' if len(flat) == 1 else 'draw'} as much power idle as busy (the "
                "power inputs on Cost per token), so work on "
                f"{'it' if len(flat) == 1 else 'them'} adds nothing to the bill in this lens."
                if flat
                else ""
            )
        )
    )
st.caption(fmt.md_escape(currency_statement(rate) + " " + carbon_line(s, r, rate)))
# the Reviews page's Monte Carlo at its default ranges (the bank's is the same cache entry), within a budget of
# draws × workload-option pairs: 1,000 workloads took 1.7 s more on the first load
draws = min(REVIEW_DRAWS, OVERVIEW_DRAW_CELLS // max(1, len(r.options)))
if p is not None and f.owned_gpus and draws < MIN_OVERVIEW_DRAWS:
    st.caption("How firm these figures are: the Reviews page's Monte Carlo (too large a portfolio to run here).")
elif p is not None and f.owned_gpus:
    _, mc = compute.uncertainty(s, UncertaintyRanges(), draws, REVIEW_SEED)
    if sure := bands.how_sure(tables.fleet_savings(f), mc, shown):
        # a bordered box, not an alert: alerts are for problems with the inputs, and tests and readers take them so
        st.container(border=True).markdown(
            f":material/casino: **How sure** (the Reviews page's default ranges of prices and GPU efficiency, "
            f"{mc.draws:,} draws):\n" + "".join(f"\n- {fmt.md_escape(line)}" for line in sure)
        )
if rate_problem:
    st.warning(fmt.md_escape(rate_problem))
if p and p.nodes_to_buy:
    st.warning(
        f"The plan needs {fmt.plural(p.nodes_to_buy, 'more node')}: +{shown(p.capital_to_buy_usd)} capital, "
        f"+{shown(p.new_nodes_usd_per_month)}/month.",
        icon=":material/shopping_cart:",
    )
if p and p.solver_status != "optimal":
    gap = "unknown" if p.solver_status.startswith("no plan found") else fmt.pct(p.mip_gap)
    st.warning(f"Plan: {fmt.md_escape(p.solver_status)} (gap {gap}).")
if r.warnings:
    with st.expander(f"{fmt.plural(len(r.warnings), 'point')} to check", icon=":material/warning:"):
        st.markdown("\n".join(f"- {fmt.md_escape(fmt.plain(w))}" for w in r.warnings))

st.subheader("What to do")
st.caption(
    "One plan for the whole portfolio, solved exactly. Each card shows its workload's share of the plan: its "
    "own API bill and power, and a share of the nodes it runs on by the GPU-hours it takes (idle GPUs of "
    "those nodes included). The shares add up to the headline"
    + (
        f", with {shown(p.unallocated_usd_per_month)}/month of bought nodes no workload uses."
        if p and p.unallocated_usd_per_month
        else "."
    )
    + (
        " A card that says how many fewer nodes the plan would buy without its workload counts what that "
        "workload alone makes the plan buy; workloads can need the same new nodes, so those counts need not add "
        f"up to the {fmt.plural(p.nodes_to_buy, 'node')} the plan buys."
        if p and not p.marginal_nodes_add_up
        else ""
    )
)
n = len(r.decisions)
pages = max(1, -(-n // CARDS_PER_PAGE))
page = 1
if pages > 1:
    if int(st.session_state.get("ov_page", 1)) > pages:  # fewer workloads than on the last run
        st.session_state["ov_page"] = pages
    label = f"Page of cards (of {pages}, {CARDS_PER_PAGE} per page)"
    page = int(st.number_input(label, min_value=1, max_value=pages, step=1, key="ov_page"))
start = (page - 1) * CARDS_PER_PAGE
decision_cards(r.model_copy(update={"decisions": r.decisions[start : start + CARDS_PER_PAGE]}), s, rate)
with st.expander("Routes as a table"):
    table(
        tables.decisions_frame(r, s, rate),
        key="decisions",
        file_name="routes.csv",
        column_config=routes_columns(rate.code),
    )

if n <= 200:  # per-workload charts are unreadable (and slow) beyond a few hundred workloads
    compute.chart(charts.option_cost_figure, r, s, rate, key="chart_option_costs")
    left, right = st.columns([3, 2])
    compute.chart(charts.monthly_figure, r, rate, key="chart_monthly", where=left)
    if s.nodes:
        compute.chart(charts.fleet_figure, r, rate, key="chart_fleet", where=right)
        if caption := charts.fleet_caption(r, s.policy.lens, rate):
            right.caption(fmt.md_escape(caption))
    else:  # an empty chart reading "no owned GPUs in the plan" took a third of the row
        right.markdown("**Owned or rented GPUs**")
        right.caption("This scenario has none: every workload is paid per token on an API, so no GPU sits idle.")
        right.page_link(
            "pages/2_cost_per_token.py", label="Add GPUs to compare (Cost per token)", icon=":material/add_circle:"
        )

with st.expander("Every option for every workload (stand-alone comparison: each on its own dedicated replicas)"):
    table(tables.options_frame(r, s, rate), key="options", file_name="options.csv")

with st.expander("Glossary: the words and symbols used here"):
    st.markdown(fmt.GLOSSARY)
