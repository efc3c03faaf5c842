"""The essay's argument, recomputed from a scenario: each claim in one line, its figure under these numbers,
whether it holds, and the dashboard page that shows it (the "argument" page).

:func:`argument` is the one entry point. A claim that does not hold under the scenario's numbers says so
(``holds=False`` with the figure that breaks it); a claim the scenario cannot test (no diffusion option, no
sovereign workload) is ``holds=None`` with the reason.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import Field

from economics._base import Frozen
from economics.costs import cost_per_mtok_capacity_form, hourly_cost_usd
from economics.lookup import by_id
from economics.result import Result
from economics.scenario import Scenario
from economics.views.batching import (
    BatchingAnalysis,
    BatchingInputs,
    batch_point,
    batching_analysis,
    catch_up_words,
    default_study,
)
from economics.views.cost import CostInputs, cost_analysis, variant_capacities
from economics.words import plural, route_words, sentence

__all__ = ["Claim", "argument"]

#: A batch a busy AR server reaches for batchable work; the swing is read from batch 1 to here [sequences].
SWING_BATCH = 32
#: The essay's range for the cost swing between batch 1 and a realistic batch [1].
SWING_RANGE = (10.0, 30.0)
#: Owned fleet utilization below which "bought GPUs sit idle" holds [1].
IDLE_UTILIZATION = 0.5
#: Per-stream speed-up over plain AR at one client that makes diffusion "efficient at batch one" [1].
DIFFUSION_EDGE = 1.5

#: The claims read from the Batching page's study, in one line each (listed, untested, when there is no study).
MEMORY_WALL = "At batch one, autoregressive decoding is memory-bound: about 1 FLOP per byte read."
SWING = f"Cost per token swings {SWING_RANGE[0]:.0f}–{SWING_RANGE[1]:.0f}× with batch size."
DIFFUSION = "Text diffusion stays efficient at batch one: a narrow fix for latency-bound work."
FAIR_BASELINE = "The fair baseline for diffusion is AR with speculative decoding (or MoE), not plain AR."


class Claim(Frozen):
    """One claim of the essay under the scenario's numbers."""

    claim: str = Field(description="the essay's claim in one line [-]")
    figure: str = Field(description="the number behind it, from this scenario [-]")
    holds: bool | None = Field(description="True/False under these numbers; None when the scenario cannot tell [-]")
    page: str = Field(description="url path of the page that shows it [-]")


#: Writes an amount given in US dollars.
Money = Callable[[float], str]


def usd_money(x: float) -> str:
    """The CLI's and the default's way: whole dollars from $100, cents below."""
    return f"${x:,.0f}" if abs(x) >= 100 else f"${x:,.2f}"


def _pct(x: float) -> str:
    """A share with one decimal, so that figures side by side line up ("0.8%", "5.0%", "17.7%")."""
    return "under 0.1%" if 0 < x < 0.0005 else f"{100 * x:.1f}%"


def _memory_wall(s: Scenario, inputs: BatchingInputs, a: BatchingAnalysis) -> Claim:
    p1 = batch_point(s, inputs, 1, a)
    ridge = a.roofs[0].effective_flops_per_s / a.roofs[0].effective_bandwidth_bytes_per_s
    return Claim(
        claim=MEMORY_WALL,
        # both ridges: the Batching page marks the peak one, and "211" here beside its "295" read as a contradiction
        figure=f"{p1.intensity_flop_per_byte:,.1f} FLOP/byte at batch 1; the GPU needs {ridge:,.0f} to be busy at "
        f"the efficiency it reaches ({a.roofs[0].ridge_flop_per_byte:,.0f} at peak, the Batching page's ridge point)",
        holds=not p1.compute_bound and p1.intensity_flop_per_byte < 4,
        page="batching",
    )


def _swing(s: Scenario, inputs: BatchingInputs, a: BatchingAnalysis, money: Money) -> Claim:
    p = batch_point(s, inputs, SWING_BATCH, a)
    lo = SWING_RANGE[0]
    option = by_id(s.owned_options, inputs.ar_option_id, "owned option").name
    workload = by_id(s.workloads, inputs.workload_id, "workload").name
    return Claim(
        claim=SWING,
        # the study is named: the Batching page opens on this same study (economics.views.batching.default_study)
        # and shows another swing once the reader picks other options or requests there
        figure=f"falls {p.cost_swing:,.1f}× from batch 1 to batch {SWING_BATCH}, to "
        f"{money(p.cost_usd_per_mtok)}/Mtok while busy, on {option} with the requests of {workload}",
        holds=p.cost_swing >= lo,  # a larger swing makes the point more strongly
        page="batching",
    )


def _latency_bound(s: Scenario, r: Result) -> Claim:
    if not s.owned_options:  # batchability is measured at an AR option's batch-one speed: there is none
        return Claim(
            claim="Latency-bound work cannot wait for a batch, so owned GPUs that serve it sit mostly idle.",
            figure="the scenario has no owned or rented GPU option, so no batchability to measure",
            holds=None,
            page="workloads",
        )
    bound = [d for d in r.decisions if d.batchability < 1]
    if not bound:
        return Claim(
            claim="Latency-bound work cannot wait for a batch, so owned GPUs that serve it sit mostly idle.",
            figure="no workload here has fewer than one request at a time at peak",
            holds=None,
            page="workloads",
        )
    util = {(o.workload_id, o.option_id): o.utilization for o in r.options}
    owned = [(d, util.get((d.workload_id, d.chosen_option_id or ""), 0.0)) for d in bound if d.chosen_kind != "api"]
    # each workload alone on the replicas it would need (the Cost per token page's utilization), not its share of
    # the pooled fleet, whose busy share is the "bought GPUs idle" claim's figure: say which
    shown = "; ".join(
        f"{d.workload_name}: {d.batchability:.2g} requests at a time, its replica busy {_pct(u)} if it ran alone"
        for d, u in owned
    )
    return Claim(
        claim="Latency-bound work cannot wait for a batch, so owned GPUs that serve it sit mostly idle.",
        figure=shown or f"{len(bound)} latency-bound workloads, all on APIs (they pay per token, not for idle time)",
        holds=all(u < IDLE_UTILIZATION for _, u in owned),
        page="workloads",
    )


def _diffusion(a: BatchingAnalysis) -> tuple[Claim, Claim]:
    series = {c.kind: c for c in a.concurrency_series}
    diff, ar, spec = series.get("owned-diffusion"), series.get("owned-ar"), series.get("owned-ar-spec")
    if diff is None or ar is None:
        missing = Claim(
            claim=DIFFUSION,
            figure="the scenario has no owned diffusion option to test",
            holds=None,
            page="batching",
        )
        fair = missing.model_copy(update={"claim": FAIR_BASELINE})
        return missing, fair
    edge = float(diff.per_stream_tokens_per_s[0] / ar.per_stream_tokens_per_s[0])
    point = next((p for p in a.points if p.kind == "owned-diffusion" and p.batch == 1), None)
    bound = (
        ""
        if point is None
        else f"; {point.intensity_flop_per_byte:,.0f} FLOP/byte, "
        + ("compute-bound" if point.compute_bound else "still memory-bound")
    )
    cross = a.crossover_concurrency
    narrow = f"; {catch_up_words(cross)}, with the requests of {a.workload_name}"
    efficient = Claim(
        claim=DIFFUSION,
        figure=f"{diff.per_stream_tokens_per_s[0]:,.0f} tok/s per stream at one client, {edge:,.1f}× plain AR"
        f"{bound}{narrow}",
        holds=edge >= DIFFUSION_EDGE and cross != float("inf"),
        page="batching",
    )
    if spec is None:
        fair = Claim(
            claim=FAIR_BASELINE,
            figure=f"no AR + speculation option for this model: diffusion's {edge:,.1f}× is against plain AR only",
            holds=None,
            page="batching",
        )
    else:
        fair_edge = float(diff.per_stream_tokens_per_s[0] / spec.per_stream_tokens_per_s[0])
        fair = Claim(
            claim=FAIR_BASELINE,
            figure=f"diffusion's edge at one client: {edge:,.1f}× over plain AR, "
            f"{fair_edge:,.1f}× over AR + speculation",
            holds=fair_edge < edge,
            page="batching",
        )
    return efficient, fair


def _formula(s: Scenario, r: Result, money: Money) -> Claim:
    """The formula on the first workload routed to GPUs we run (owned or rented); when every workload is on an
    API, on the cheapest GPU option a workload could use, said so: the identity holds whichever option it is."""
    claim = "Effective cost per token = node cost per hour ÷ (throughput × utilization)."
    gpu = ("owned-ar", "owned-diffusion")
    names = {d.workload_id: d.workload_name for d in r.decisions}
    picked = [
        (d.workload_id, d.chosen_option_id, "") for d in r.decisions if d.chosen_kind in gpu and d.chosen_option_id
    ]
    if not picked:
        for d in r.decisions:
            able = [o for o in r.options if o.workload_id == d.workload_id and o.kind in gpu and o.feasible]
            if able:
                best = min(able, key=lambda o: o.cost_usd_per_request)
                aside = f", if run on {best.option_name} instead of the API the plan chose"
                picked.append((d.workload_id, best.option_id, aside))
                break
        else:
            return Claim(
                claim=claim,
                figure="no workload here could run on GPUs owned or rented in this scenario",
                holds=None,
                page="cost_per_token",
            )
    workload_id, option_id, aside = picked[0]
    a = cost_analysis(s, CostInputs(workload_id=workload_id), variant_capacities(s, workload_id))
    curve = min(
        (c for c in a.curves if c.option_id == option_id and c.feasible),
        key=lambda c: float(c.cost_usd_per_mtok[-1]),
    )
    o = next(o for o in r.options if o.workload_id == workload_id and o.option_id == option_id)
    c_h = hourly_cost_usd(curve.replica_fixed_usd_per_hour, curve.replica_variable_usd_per_hour, o.utilization)
    value = float(cost_per_mtok_capacity_form(c_h, curve.capacity_tokens_per_s, o.utilization))
    return Claim(
        claim=claim,
        figure=f"{names[workload_id]}{aside}: {money(c_h)}/h ÷ ({curve.capacity_tokens_per_s:,.0f} tok/s × "
        f"{_checkable_percent(c_h, curve.capacity_tokens_per_s, o.utilization, value)}%) = {money(value)}/Mtok output",
        holds=True,
        page="cost_per_token",
    )


def _checkable_percent(c_h: float, tokens_per_s: float, utilization: float, value: float) -> str:
    """The utilization in percent with the fewest decimals (one to three) that let a reader redo the sum from
    the figures as printed (the hourly cost in cents, whole tok/s) and land on the printed result: "17.7%" gave
    $17.18 for a printed $17.23, "17.65%" gives it.

    >>> _checkable_percent(17.554, 2084.4, 0.17652, 13.2525)
    '17.65'
    """
    for places in (1, 2, 3):
        shown = round(100 * utilization, places)
        if shown <= 0:
            continue
        redone = float(cost_per_mtok_capacity_form(round(c_h, 2), round(tokens_per_s), shown / 100))
        if abs(redone - value) <= 0.0003 * value:
            return f"{shown:.{places}f}"
    return f"{100 * utilization:.3f}"


def _routing(s: Scenario, r: Result) -> Claim:
    labels = {route_words(d.route_label) for d in r.decisions}
    if not s.owned_options:
        return Claim(
            claim="Route each workload by batchability × value per token.",
            figure=f"{plural(len(r.decisions), 'workload')} on {plural(len(labels), 'route')} "
            f"({'; '.join(sorted(labels))}), chosen by value alone: with no GPU option there is no batchability",
            holds=None,
            page="workloads",
        )
    return Claim(
        claim="Route each workload by batchability × value per token.",
        figure=f"{plural(len(r.decisions), 'workload')} on {plural(len(labels), 'route')}: "
        + "; ".join(sorted(labels)),
        holds=len(labels) > 1,
        page="workloads",
    )


def _sovereignty(s: Scenario, r: Result) -> Claim:
    sovereign = {w.id for w in s.workloads if w.sovereign}
    if not sovereign:
        return Claim(
            claim="Sovereignty keeps regulated data on owned hardware, whatever the API price.",
            figure="no workload here is marked sovereign",
            holds=None,
            page="overview",
        )
    on_api = [d.workload_name for d in r.decisions if d.workload_id in sovereign and d.chosen_kind == "api"]
    return Claim(
        claim="Sovereignty keeps regulated data on owned hardware, whatever the API price.",
        figure=f"{plural(len(sovereign), 'sovereign workload')}, "
        + ("all on owned hardware" if not on_api else f"on an API: {', '.join(on_api)}"),
        holds=not on_api,
        page="overview",
    )


def _idle(r: Result, money: Money) -> Claim:
    f = r.fleet
    if f.owned_nodes == 0:
        return Claim(
            claim="Bought GPUs sit idle: the owned fleet is paid for every hour, busy or not.",
            figure="no owned nodes in this plan",
            holds=None,
            page="overview",
        )
    # the Overview's "Idle GPUs" figure: the full cost of the idle hours, sunk in the cash lens but paid all the
    # same (the lens's own idle cost is 0 there, which read as "nothing is wasted" beside the Overview's figure)
    idle = r.plan.idle_owned_full_cost_usd_per_month if r.plan is not None else f.idle_cost_usd_per_month
    return Claim(
        claim="Bought GPUs sit idle: the owned fleet is paid for every hour, busy or not.",
        figure=f"{_pct(f.owned_utilization)} of paid GPU-hours busy; {money(idle)}/month of the owned fleet's "
        "full cost pays for idle GPUs",
        holds=f.owned_utilization < IDLE_UTILIZATION,
        page="overview",
    )


def _untested(claim: str) -> Claim:
    """A claim read from the Batching page's study, listed as one the scenario cannot test: it has no AR option."""
    return Claim(
        claim=claim,
        figure="the scenario has no owned or rented autoregressive option to study",
        holds=None,
        page="batching",
    )


def argument(scenario: Scenario, result: Result, money: Money = usd_money) -> tuple[Claim, ...]:
    """Every claim of the essay, recomputed from ``scenario`` and its evaluated ``result``.

    The batching claims read the Batching page's default study (the AR option closest in size to the first
    diffusion option, the request shape of the first latency-bound workload); the others read ``result``.
    Amounts are written by ``money`` from US dollars: the app passes its display currency's formatter, so an
    amount is converted before it is rounded (converting the rounded USD text put S$22.83 beside S$22.82).
    """
    claims: list[Claim] = []
    inputs = default_study(scenario)
    a: BatchingAnalysis | None = None
    if inputs is None:  # no AR option to study: the batching claims are listed, as claims it cannot test
        claims += [_untested(MEMORY_WALL), _untested(SWING)]
    else:
        a = batching_analysis(scenario, inputs)
        claims += [_memory_wall(scenario, inputs, a), _swing(scenario, inputs, a, money)]
    claims.append(_latency_bound(scenario, result))
    claims += list(_diffusion(a)) if a is not None else [_untested(DIFFUSION), _untested(FAIR_BASELINE)]
    claims += [
        _formula(scenario, result, money),
        _routing(scenario, result),
        _sovereignty(scenario, result),
        _idle(result, money),
    ]
    # each figure reads as a sentence under its claim: "Diffusion's edge at one client …", not "diffusion's …"
    return tuple(c.model_copy(update={"figure": sentence(c.figure)}) for c in claims)
