"""A multi-year horizon: re-plan every year, bill it, discount it, and find when owning stops paying.

Each year ``k = 0…n−1`` of the horizon is a new :class:`~economics.scenario.Scenario` in which

* every workload's demand is ``λ·(1+g_w)^k`` (``g_w`` its own growth, else the default),
* API list prices (input, cached input, output) are ``p·(1+a)^k``,
* rented GPU prices are ``p·(1+ρ)^k``, except that a reservation keeps its price for its term and renews at
  the price of the renewal year (``p·(1+ρ)^(N·⌊k/N⌋)`` for an N-year term),
* an owned node is replaced at the end of its economic life by the same node at ``CapEx·(1+h)^k``
  (hardware refresh; ``h`` defaults to ``ρ``), its capital recovered again over a new life,
* a carbon price, if any, is added to owned electricity (by :func:`economics.evaluate.evaluate` itself),

and the fleet plan of :func:`economics.evaluate.evaluate` is solved on it as a black box, in the full-cost lens
whatever the scenario's own lens: over years, a node already bought is not free (the decision's economic view
charges its capital recovery every year, and its replacement at refresh). The year's bill is its total monthly
cost × 12. The default rates ``a`` and ``ρ`` are derived from the price history in our
catalog (:func:`price_trends`) and say so.

Plans compared (each re-planned every year): **own** (owned nodes and APIs), **rent** (rented nodes and
APIs; for a scenario without rented nodes, its owned nodes rented instead at the catalog's longest
reservation for the same GPU, in the owned node's data location), **rent <mode> only** for each billing mode
when the rented nodes use more than one (reserved vs spot vs on-demand), **APIs only** (when no workload is
sovereign) and, when a scenario has both owned and rented nodes, **every option**. NPV discounts each year's
bill at the end of the year at the scenario's cost of capital. The crossover is the first year in which the
cheapest plan that owns nothing costs no more than the own plan (then owned nodes save nothing: the own plan
has moved its work off them or pays more for them).
"""

from __future__ import annotations

import datetime as dt
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from economics._errors import ScenarioError, validation_problems
from economics.catalog import Catalog
from economics.evaluate import evaluate_arrays, plan_fleet
from economics.finance.data import billing_terms
from economics.finance.depreciation import DECISION_VIEW, OwnedBooks, owned_books
from economics.finance.npv import annual_change_from_history, npv_usd
from economics.finance.rental import DEFAULT_TERM_DAYS, unused_commitment_usd_per_month
from economics.finance.settings import FinanceSettings, HorizonSettings
from economics.io.catalog import load_catalog
from economics.offers import OwnedNode, RentedNode
from economics.result import Plan
from economics.scenario import Scenario

__all__ = [
    "DEFAULT_SENSITIVITY_RATES",
    "Horizon",
    "PlanHorizon",
    "PriceTrends",
    "YearBill",
    "crossover_sensitivity",
    "horizon",
    "price_trends",
    "year_scenario",
]

#: API price changes per year over which the crossover's sensitivity is shown [1/year].
DEFAULT_SENSITIVITY_RATES: tuple[float, ...] = (0.0, -0.1, -0.2, -0.3, -0.4, -0.5, -0.6)
#: Cost of capital when neither the scenario's finance settings nor an owned node gives one: the owned-node
#: default of docs/costs.md#node-cost (catalog row ``default-cost-of-capital``).
_DEFAULT_RATE_ROW = "default-cost-of-capital"
_MONTHS = 12.0


# ---- default rates from the catalog's history ----------------------------------------------------------------
@dataclass(frozen=True)
class PriceTrends:
    """Yearly price changes derived from the catalog's price history, with the sentence that says how."""

    api_change_per_year: float
    api_basis: str
    rental_change_per_year: float
    rental_basis: str


def _series_changes(rows: Iterable[Any], price: Any, on: dt.date) -> list[float]:
    by_id: dict[str, list[Any]] = {}
    for r in rows:
        if r.effective_from is not None and r.effective_from <= on:
            by_id.setdefault(r.id, []).append(r)
    changes = []
    for series in by_id.values():
        if len(series) < 2:
            continue
        series.sort(key=lambda r: r.effective_from)
        first, last = series[0], series[-1]
        years = (on - first.effective_from).days / 365.0
        if years > 0 and price(first) > 0:
            changes.append(annual_change_from_history(price(last) / price(first), years))
    return changes


def price_trends(catalog: Catalog, on: dt.date) -> PriceTrends:
    """Median yearly change of the catalog's API and rental price series that have more than one price.

    Each series contributes ``(p_now/p_first)^(1/years) − 1`` from its first price to the one in force on
    ``on`` (API prices blended 3:1 input:output). The median keeps one promotional price from steering it.
    """
    api = _series_changes(catalog.api_prices, lambda r: (3 * r.input_usd_per_mtok + r.output_usd_per_mtok) / 4, on)
    rent = _series_changes(catalog.instance_prices, lambda r: r.usd_per_instance_hour, on)
    a = statistics.median(api) if api else 0.0
    p = statistics.median(rent) if rent else 0.0
    return PriceTrends(
        api_change_per_year=a,
        api_basis=(
            f"{a:+.0%}/year: median yearly change of the {len(api)} API price series in our catalog with more than "
            f"one price, from each series' first price to the one in force on {on.isoformat()} (3:1 blend)"
        ),
        rental_change_per_year=p,
        rental_basis=(
            f"{p:+.0%}/year: median yearly change of the {len(rent)} rented-GPU price series in our catalog with "
            f"more than one price, from each series' first price to the one in force on {on.isoformat()}"
        ),
    )


# ---- one year of the horizon ---------------------------------------------------------------------------------
def _reserved_years(node: dict[str, Any]) -> int:
    terms = node.get("billing") or {}
    days = terms.get("term_days") or DEFAULT_TERM_DAYS.get(node.get("pricing_type", ""))
    return max(1, round(days / 365.0)) if days and days >= 365.0 else 1


def year_scenario(
    scenario: Scenario, k: int, api_change: float, rental_change: float, hardware_change: float
) -> Scenario:
    """Year ``k`` (0 = the scenario itself) of the horizon, as described in the module doc."""
    h = (scenario.finance or FinanceSettings()).horizon
    data = scenario.model_dump()
    data["policy"]["lens"] = "full"  # the economic view: an owned node carries its capital every year it is kept
    for w in data["workloads"]:
        grow = (1.0 + h.demand_growth_by_workload.get(w["id"], h.demand_growth_per_year)) ** k
        w["avg_requests_per_s"] *= grow
        w["peak_requests_per_s"] *= grow
    api_scale = (1.0 + api_change) ** k
    for a in data["apis"]:
        for key in ("input_usd_per_mtok", "output_usd_per_mtok", "cached_input_usd_per_mtok"):
            if a.get(key) is not None:
                a[key] *= api_scale
    for n in data["nodes"]:
        if n["kind"] == "rented":
            term = _reserved_years(n)
            n["price_usd_per_gpu_hour"] *= (1.0 + rental_change) ** (term * (k // term))
        else:
            life = max(1, math.floor(n["economic_life_years"]))
            n["capex_usd"] *= (1.0 + hardware_change) ** (life * (k // life))
    try:
        return Scenario.model_validate(data)
    except ValidationError as e:
        grown = [_grown_too_far(data, k, err) for err in e.errors()]
        if all(grown):  # prices or demand grown past the model's range: which, how far, and what to lower
            raise ScenarioError([g for g in grown if g]) from None
        raise ScenarioError(
            [f"finance.horizon: year {k + 1} cannot be built: {p}" for p in validation_problems(e)]
        ) from None


#: The amounts a horizon year scales, in words: (what, before the number, after it, the input that drives it).
_GROWN: dict[tuple[str, str], tuple[str, str, str, str]] = {
    ("apis", "input_usd_per_mtok"): ("input price", "$", " per million tokens", "the yearly change in API prices"),
    ("apis", "output_usd_per_mtok"): ("output price", "$", " per million tokens", "the yearly change in API prices"),
    ("apis", "cached_input_usd_per_mtok"): (
        "cached input price", "$", " per million tokens", "the yearly change in API prices"),
    ("workloads", "avg_requests_per_s"): ("average demand", "", " requests per second", "the demand growth"),
    ("workloads", "peak_requests_per_s"): ("peak demand", "", " requests per second", "the demand growth"),
    ("nodes", "price_usd_per_gpu_hour"): (
        "rental price", "$", " per GPU-hour", "the yearly change in rental prices"),
    ("nodes", "capex_usd"): ("purchase price", "$", "", "the yearly change in hardware prices"),
}  # fmt: skip


def _grown_too_far(data: dict[str, Any], k: int, err: Any) -> str | None:
    """A horizon year whose grown prices or demand leave the range the model accepts, in words: whose amount,
    what it would reach, the bound, and which input to lower. None for any other problem."""
    loc, bound = tuple(err.get("loc", ())), (err.get("ctx") or {}).get("le")
    if len(loc) != 3 or not isinstance(loc[1], int) or bound is None or (loc[0], loc[2]) not in _GROWN:
        return None
    what, before, after, lever = _GROWN[(str(loc[0]), str(loc[2]))]
    item = data[str(loc[0])][loc[1]]
    return (
        f"In year {k + 1} of the horizon the {what} of “{item.get('name') or item.get('id')}” "
        f"would reach {before}{item[str(loc[2])]:,.0f}{after}, above the {before}{bound:,.0f}{after} the model "
        f"accepts: lower {lever} or plan fewer years"
    )


# ---- plans -----------------------------------------------------------------------------------------------------
def _without_nodes(scenario: Scenario, drop: set[str]) -> Scenario | None:
    """The scenario without the node offers ``drop`` (and their options); None when no option is left."""
    options = tuple(o for o in scenario.owned_options if o.node_id not in drop)
    if not options and not scenario.apis:
        return None
    keep = {o.id for o in options} | {a.id for a in scenario.apis}
    workloads = tuple(
        w.model_copy(update={"quality_overrides": {k: v for k, v in w.quality_overrides.items() if k in keep}})
        for w in scenario.workloads
    )
    return scenario.model_copy(
        update={
            "nodes": tuple(n for n in scenario.nodes if n.id not in drop),
            "owned_options": options,
            "workloads": workloads,
        }
    )


def _rented_instead(scenario: Scenario, catalog: Catalog) -> Scenario | None:
    """Each owned node replaced by a rental of the same GPU at the catalog's longest reservation, same id and
    same data location: [assumption] the provider's in-country region is priced like its published rate and
    meets the same data rules as the owned node (a bank's sovereign work may run there)."""
    nodes: list[Any] = []
    for n in scenario.nodes:
        if not isinstance(n, OwnedNode):
            nodes.append(n)
            continue
        rows = [
            r
            for r in catalog.instance_prices_in_force(scenario.review_date)
            if r.gpu_id == n.gpu_id and r.pricing_type in ("reserved-3y", "reserved-1y")
        ]
        if not rows:
            return None
        row = min(rows, key=lambda r: (r.pricing_type != "reserved-3y", r.usd_per_gpu_hour))
        terms = billing_terms().get(row.id)
        nodes.append(
            RentedNode(
                id=n.id,
                name=f"{row.provider} {row.sku} {row.pricing_type} (instead of {n.name})"[:120],
                gpu_id=n.gpu_id,
                gpus_per_node=n.gpus_per_node,
                billing=terms.terms() if terms is not None else None,
                data_location=n.data_location,
                **row.node_price_fields(),
            )
        )
    return scenario.model_copy(update={"nodes": tuple(nodes)})


def plans(scenario: Scenario, catalog: Catalog) -> list[tuple[str, str, Scenario]]:
    """``(id, name, scenario)`` of every plan the horizon compares (module doc)."""
    owned = {n.id for n in scenario.nodes if isinstance(n, OwnedNode)}
    rented = {n.id for n in scenario.nodes if isinstance(n, RentedNode)}
    out: list[tuple[str, str, Scenario | None]] = []
    if owned and rented:
        out.append(("all", "Every option", scenario))
    if owned:
        out.append(("own", "Own the nodes", _without_nodes(scenario, rented)))
    if rented:
        out.append(("rent", "Rent only", _without_nodes(scenario, owned)))
    elif owned:
        instead = _rented_instead(scenario, catalog)
        what = next((n.name.split(" (instead")[0] for n in instead.nodes if n.id in owned), "") if instead else ""
        out.append(("rent", f"Rent reserved instead of owning ({what}, in-country)", instead))
    modes = sorted({n.pricing_type for n in scenario.nodes if isinstance(n, RentedNode)})
    if len(modes) > 1:  # reserved vs spot vs on-demand: one plan per billing mode, each with the APIs
        for mode in modes:
            others = {n.id for n in scenario.nodes if not (isinstance(n, RentedNode) and n.pricing_type == mode)}
            out.append((f"rent-{mode}", f"Rent {mode} only", _without_nodes(scenario, others)))
    if scenario.apis and not any(w.sovereign for w in scenario.workloads):
        out.append(("api", "APIs only", _without_nodes(scenario, owned | rented)))
    kept = [(i, name, s) for i, name, s in out if s is not None]
    return kept or [("as-planned", "As planned", scenario)]


# ---- results ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class YearBill:
    """One plan's bill for one year [USD/year]."""

    year: int  # calendar year the bill falls in
    total_usd: float
    owned_usd: float
    rented_usd: float
    api_usd: float
    unused_commitment_usd: float  # committed rented nodes no replica uses, already in total_usd
    unserved_workloads: int  # workloads no option in the plan can serve [count]


@dataclass(frozen=True)
class PlanHorizon:
    """One plan over the horizon."""

    plan_id: str
    name: str
    bills: tuple[YearBill, ...]
    npv_usd: float
    serves_everything: bool


@dataclass(frozen=True)
class Horizon:
    """The horizon: every plan's yearly bills and NPV, the crossover, and the rates used with their basis."""

    scenario_name: str
    years: tuple[int, ...]
    discount_rate: float
    discount_rate_basis: str
    api_change_per_year: float
    api_basis: str
    rental_change_per_year: float
    rental_basis: str
    hardware_change_per_year: float
    plans: tuple[PlanHorizon, ...]
    crossover_year: int | None
    crossover_text: str
    books: tuple[OwnedBooks, ...]
    decision_view: str = DECISION_VIEW


def _bill(year: int, scenario: Scenario, plan: Plan) -> YearBill:
    """The year's bill: the plan's monthly total × 12. Committed rented nodes are in the plan (paid whether used
    or not); the part of them no replica uses is reported beside the total, not added to it."""
    unused = 0.0
    by_id = {n.node_id: n for n in plan.nodes}
    for node in scenario.nodes:
        if isinstance(node, RentedNode) and node.billing is not None and node.billing.committed_nodes:
            unused += unused_commitment_usd_per_month(node, by_id[node.id].gpus_used / node.gpus_per_node)
    unserved = sum(w.option_id is None for w in plan.workloads)
    return YearBill(
        year=year,
        total_usd=plan.total_cost_usd_per_month * _MONTHS,
        owned_usd=plan.owned_cost_usd_per_month * _MONTHS,
        rented_usd=plan.rented_cost_usd_per_month * _MONTHS,
        api_usd=plan.api_cost_usd_per_month * _MONTHS,
        unused_commitment_usd=unused * _MONTHS,
        unserved_workloads=unserved,
    )


def _discount_rate(scenario: Scenario, catalog: Catalog) -> tuple[float, str]:
    settings = scenario.finance
    if settings is not None and settings.cost_of_capital_per_year is not None:
        return settings.cost_of_capital_per_year, "the scenario's cost of capital"
    owned = [n for n in scenario.nodes if isinstance(n, OwnedNode)]
    if owned:
        return owned[0].cost_of_capital_per_year, f"the cost of capital of {owned[0].name}"
    rate = catalog.owned_input_as_of(_DEFAULT_RATE_ROW, scenario.review_date).value
    return rate, "the catalog's default cost of capital"


def _check(scenario: Scenario, h: HorizonSettings) -> None:
    ids = {w.id for w in scenario.workloads}
    bad = [k for k in h.demand_growth_by_workload if k not in ids]
    if bad:
        raise ScenarioError([f"finance.horizon.demand_growth_by_workload: unknown workload {k!r}" for k in bad])


def _run_plan(
    plan_id: str, name: str, base: Scenario, years: Sequence[int], rates: tuple[float, float, float], r: float
) -> PlanHorizon:
    bills = []
    for k, year in enumerate(years):
        s = year_scenario(base, k, *rates)
        bills.append(_bill(year, s, plan_fleet(evaluate_arrays(s)).plan))  # the plan alone: no flips needed
    totals = [b.total_usd for b in bills]
    return PlanHorizon(plan_id, name, tuple(bills), npv_usd(totals, r), all(b.unserved_workloads == 0 for b in bills))


def _crossover(plans_: Sequence[PlanHorizon], api_change: float) -> tuple[int | None, str]:
    own = next((p for p in plans_ if p.plan_id == "own"), None)
    others = [p for p in plans_ if p.plan_id.startswith(("rent", "api")) and p.serves_everything]
    if own is None:
        return None, "No crossover: the scenario has no owned nodes."
    if not others:
        return None, (
            "Owning keeps paying: no plan without owned nodes serves every workload (the data rules keep some work "
            "on owned or sovereign nodes), so there is no year in which owning stops paying."
        )
    for i, bill in enumerate(own.bills):
        best = min(others, key=lambda p: p.bills[i].total_usd)
        if best.bills[i].total_usd <= bill.total_usd * (1.0 + 1e-9):
            return bill.year, (
                f"Owning stops paying in {bill.year} at {api_change:+.0%}/year API prices: "
                f"{best.name.lower()} costs no more that year."
            )
    return None, (
        f"Owning keeps paying through {own.bills[-1].year} at {api_change:+.0%}/year API prices: no plan without "
        "owned nodes is cheaper in any year of the horizon."
    )


def horizon(
    scenario: Scenario,
    *,
    years: int | None = None,
    api_change_per_year: float | None = None,
    catalog: Catalog | None = None,
) -> Horizon:
    """Re-plan ``scenario`` year by year over its horizon (``years`` and ``api_change_per_year`` override the
    scenario's settings) and compare the plans (module doc)."""
    catalog = catalog or load_catalog()
    settings = scenario.finance or FinanceSettings()
    h = settings.horizon
    _check(scenario, h)
    n = years if years is not None else h.years
    if not 1 <= n <= 5:
        raise ScenarioError([f"years: the horizon is 1 to 5 years, got {n}"])
    trends = price_trends(catalog, scenario.review_date)
    a = api_change_per_year if api_change_per_year is not None else h.api_price_change_per_year
    api_basis = "set for this run" if api_change_per_year is not None else "set in the scenario"
    if a is None:
        a, api_basis = trends.api_change_per_year, trends.api_basis
    rho, rental_basis = h.rental_price_change_per_year, "set in the scenario"
    if rho is None:
        rho, rental_basis = trends.rental_change_per_year, trends.rental_basis
    hw = h.hardware_price_change_per_year if h.hardware_price_change_per_year is not None else rho
    r, r_basis = _discount_rate(scenario, catalog)
    calendar = tuple(scenario.review_date.year + k for k in range(1, n + 1))
    runs = tuple(_run_plan(i, name, s, calendar, (a, rho, hw), r) for i, name, s in plans(scenario, catalog))
    year, text = _crossover(runs, a)
    books = tuple(owned_books(node) for node in scenario.nodes if isinstance(node, OwnedNode))
    return Horizon(
        scenario_name=scenario.name,
        years=calendar,
        discount_rate=r,
        discount_rate_basis=r_basis,
        api_change_per_year=a,
        api_basis=api_basis,
        rental_change_per_year=rho,
        rental_basis=rental_basis,
        hardware_change_per_year=hw,
        plans=runs,
        crossover_year=year,
        crossover_text=text,
        books=books,
    )


def _known_horizon(
    scenario: Scenario, years: int | None, first_rate: float, catalog: Catalog, known: Horizon | None
) -> Horizon:
    """``known`` when it covers this scenario's years (ValueError otherwise), else a whole horizon at the first
    rate."""
    if known is None:
        return horizon(scenario, years=years, api_change_per_year=first_rate, catalog=catalog)
    n = years if years is not None else (scenario.finance or FinanceSettings()).horizon.years
    if len(known.years) != n or known.scenario_name != scenario.name:
        raise ValueError(f"the known horizon covers {len(known.years)} years of {known.scenario_name!r}, "
                         f"not {n} of {scenario.name!r}")  # fmt: skip
    return known


def crossover_sensitivity(
    scenario: Scenario,
    rates: Sequence[float] = DEFAULT_SENSITIVITY_RATES,
    *,
    years: int | None = None,
    known: Horizon | None = None,
) -> tuple[tuple[float, int | None], ...]:
    """The crossover year at each API price change in ``rates`` (None: owning pays through the horizon, or the
    scenario owns nothing, or no plan without owned nodes serves every workload, which is answered without
    re-planning the other rates).

    ``known``: a :func:`horizon` of this scenario over the same years at any API price change, such as the one
    a page or report already shows; without it the first rate gets a whole horizon. From there each rate
    re-plans only what its crossover year needs, and it gets the same year as a whole horizon would:
    * the plans the crossover compares: the own plan and the plans without owned nodes that serve every
      workload. Whether a plan serves every workload depends on data rules, SLOs and demand, not on API
      prices, so the known horizon's answer holds at every rate.
    * year by year, stopping at the first year in which such a plan costs no more than the own plan;
    * the first year (k = 0) is the scenario itself at every rate, so its bills are the known horizon's.
    On the 5,000-workload portfolio (two plans, five years, seven rates, owning pays throughout) this solves
    58 fleet plans instead of 70, and 56 beside a known horizon; an early crossover saves more."""
    if not any(isinstance(n, OwnedNode) for n in scenario.nodes):
        return tuple((a, None) for a in rates)
    if not rates:
        return ()
    catalog = load_catalog()
    known = _known_horizon(scenario, years, rates[0], catalog, known)
    answered = {known.api_change_per_year: known.crossover_year}
    own = next((p for p in known.plans if p.plan_id == "own"), None)
    compared = {p.plan_id for p in known.plans if p.plan_id.startswith(("rent", "api")) and p.serves_everything}
    if own is None or not compared:
        # which plans can serve every workload depends on data rules and SLOs, not on API prices: owning keeps
        # paying at every rate, answered without re-planning
        return tuple((a, None) for a in rates)
    year_one = {p.plan_id: p.bills[0].total_usd for p in known.plans}
    bases = [(i, s) for i, _, s in plans(scenario, catalog) if i == "own" or i in compared]
    rental, hardware = known.rental_change_per_year, known.hardware_change_per_year

    def crossover_year(a: float) -> int | None:
        for k, year in enumerate(known.years):
            totals = {
                i: year_one[i]
                if k == 0
                else plan_fleet(evaluate_arrays(year_scenario(s, k, a, rental, hardware))).plan.total_cost_usd_per_month
                * _MONTHS
                for i, s in bases
            }
            if min(totals[i] for i in compared) <= totals["own"] * (1.0 + 1e-9):
                return year
        return None

    for a in rates:
        if a not in answered:
            answered[a] = crossover_year(a)
    return tuple((a, answered[a]) for a in rates)
