"""The Reviews page's Monte Carlo on the fleet plan (issue 10): each draw's route is the plan's decision."""

from __future__ import annotations

import pytest

from economics.evaluate import evaluate
from economics.io.scenarios import default_scenario
from economics.uncertainty import (
    Range,
    UncertaintyRanges,
    _base_draws,
    _propagate,
    build_surrogate,
    monte_carlo,
    tornado,
)
from ui.charts.reviews import tornado_chart

BANK = default_scenario()


def test_the_base_draw_takes_the_plans_route_where_stand_alone_routing_disagrees() -> None:
    # The bank's code completion may use an API. Stand-alone, its own dedicated 8-GPU replica costs more than
    # the Mercury API, so the stand-alone router sends it there; in the plan it rides on the bought node the
    # sovereign work already keeps running (marginal cost: power above idle only), so the plan keeps it
    # on the owned 70B option. The Monte Carlo draw at base values must take the plan's side.
    plan = {d.workload_id: d.chosen_option_id for d in evaluate(BANK).decisions}
    on_plan = build_surrogate(BANK)
    alone = build_surrogate(BANK, basis="standalone")
    ids = on_plan.evaluation.table.option_ids
    w = [wl.id for wl in BANK.workloads].index("code-completion")
    plan_draw = _propagate(on_plan, _base_draws(on_plan, 1)).chosen[0]
    alone_draw = _propagate(alone, _base_draws(alone, 1)).chosen[0]
    assert ids[int(alone_draw[w])] == "mercury-api"
    assert ids[int(plan_draw[w])] == plan["code-completion"] == "owned-70b-ar"
    assert [ids[int(i)] for i in plan_draw] == [plan[wl.id] for wl in BANK.workloads]


def test_with_every_range_a_point_the_plans_routes_never_flip() -> None:
    point = Range(low=1.0, high=1.0)
    ranges = UncertaintyRanges(
        api_price=point,
        node_price=point,
        mbu=point,
        mfu=point,
        diffusion_throughput=point,
        diffusion_quality=Range(low=0.9, base=0.9, high=0.9),
    )
    mc = monte_carlo(build_surrogate(BANK, ranges), n=50, seed=0)
    plan = {d.workload_id: d.chosen_option_id for d in evaluate(BANK).decisions}
    assert dict(zip(mc.workloads["workload_id"], mc.workloads["base_option_id"], strict=True)) == plan
    assert (mc.workloads["prob_route_unchanged"] == 1.0).all()


def test_the_tornado_base_is_the_plans_bill_and_says_so() -> None:
    # The Reviews tornado's base line must agree with the Overview's cards (evaluate's fleet summary), and its
    # title must not call plan-priced costs "stand-alone" (it did, while the figures were the plan's).
    fleet = evaluate(BANK).fleet
    t = tornado(build_surrogate(BANK))
    assert t.priced_in_plan
    assert t.base_cost_usd_per_month == pytest.approx(fleet.total_cost_usd_per_month, rel=1e-9)
    assert fleet.all_api_cost_usd_per_month is not None
    assert t.base_savings_usd_per_month == pytest.approx(
        fleet.all_api_cost_usd_per_month - fleet.total_cost_usd_per_month, rel=1e-9
    )
    alone = tornado(build_surrogate(BANK, basis="standalone"))
    assert not alone.priced_in_plan
    assert alone.base_cost_usd_per_month > t.base_cost_usd_per_month  # dedicated replicas cost more
    title = tornado_chart(t, "cost").layout.title.text
    assert "as in the fleet plan" in title
    assert "stand-alone" not in title
    assert "stand-alone" in tornado_chart(alone, "cost").layout.title.text


def test_a_tornado_row_that_does_not_move_says_so() -> None:
    # on the bank every node is already bought: node cost per hour moved nothing and its row was left empty
    t = tornado(build_surrogate(BANK))
    fig = tornado_chart(t, "savings")
    still = {
        b.label
        for b in t.bars
        if round(b.savings_at_low_usd_per_month) == round(t.base_savings_usd_per_month)
        and round(b.savings_at_high_usd_per_month) == round(t.base_savings_usd_per_month)
    }
    moving = {b.label for b in t.bars} - still
    assert still  # the bank has such rows
    assert moving
    noted = {str(y).split("<br>")[0] for y in fig.data[0].y if str(y).endswith(" · no effect")}
    assert noted == still
