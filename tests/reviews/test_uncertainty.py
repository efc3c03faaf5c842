"""The uncertainty surrogate reproduces full evaluate() calls, and the tornado and Monte Carlo behave."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from economics import uncertainty
from economics.evaluate import evaluate, evaluate_arrays
from economics.io.scenarios import default_scenario, load_preset
from economics.offers import OwnedNode, RentedNode
from economics.scenario import Scenario
from economics.uncertainty import (
    OPTION_BAND_COLUMNS,
    WORKLOAD_BAND_COLUMNS,
    Range,
    Surrogate,
    UncertaintyRanges,
    _propagate,
    _with,
    build_surrogate,
    monte_carlo,
    tornado,
)

BANK = default_scenario()


@pytest.fixture(scope="module")
def bank_surrogate():  # type: ignore[no-untyped-def]
    return build_surrogate(BANK, basis="standalone")


def _pooled(s: Scenario) -> Scenario:
    return s.model_copy(update={"policy": s.policy.model_copy(update={"cost_mode": "pooled"})})


@functools.cache
def _case(preset: str, pooled: bool) -> tuple[Scenario, Surrogate]:
    scenario = _pooled(load_preset(preset)) if pooled else load_preset(preset)
    return scenario, build_surrogate(scenario, basis="standalone")


def _scale_prices(s: Scenario, api: float = 1.0, node: float = 1.0) -> Scenario:
    """Every API token price × api; every node's hourly cost × node (all cost inputs of an owned node)."""
    apis = [
        a.model_copy(
            update={
                "input_usd_per_mtok": a.input_usd_per_mtok * api,
                "output_usd_per_mtok": a.output_usd_per_mtok * api,
                "cached_input_usd_per_mtok": None
                if a.cached_input_usd_per_mtok is None
                else a.cached_input_usd_per_mtok * api,
            }
        )
        for a in s.apis
    ]
    nodes = []
    for n in s.nodes:
        if isinstance(n, RentedNode):
            nodes.append(n.model_copy(update={"price_usd_per_gpu_hour": n.price_usd_per_gpu_hour * node}))
        else:
            assert isinstance(n, OwnedNode)
            nodes.append(
                n.model_copy(
                    update={
                        "capex_usd": n.capex_usd * node,
                        "electricity_usd_per_kwh": n.electricity_usd_per_kwh * node,
                        "colocation_usd_per_kw_month": n.colocation_usd_per_kw_month * node,
                        "ops_fixed_usd_per_hour": n.ops_fixed_usd_per_hour * node,
                    }
                )
            )
    return s.model_copy(update={"apis": tuple(apis), "nodes": tuple(nodes)})


def _compare(surrogate_cost: np.ndarray, full: Scenario) -> tuple[float, np.ndarray]:
    table = evaluate_arrays(full).table
    expected = table.cost_usd
    got = np.where(table.allowed, surrogate_cost, np.inf)
    assert (np.isfinite(expected) == np.isfinite(got)).all()
    ok = np.isfinite(expected)
    return float(np.max(np.abs(got[ok] / expected[ok] - 1.0))), table.route().chosen


@pytest.mark.parametrize("preset", ["singapore-bank", "batch-shop", "startup-rented"])
@pytest.mark.parametrize("pooled", [False, True], ids=["dedicated", "pooled"])
@pytest.mark.parametrize(("name", "m"), [("api_price", 0.7), ("node_price", 1.2), ("node_price", 0.8)])
def test_price_multipliers_match_full_evaluation_exactly(preset: str, pooled: bool, name: str, m: float) -> None:
    # API cost is linear in the token prices and an owned node's C_h is linear in all its cost inputs, so
    # the surrogate's c₀·a and c₀·k are exact: compare with evaluate() on a scenario with scaled prices.
    scenario, sg = _case(preset, pooled)
    out = _propagate(sg, _with(sg, name, m))
    full = _scale_prices(scenario, api=m if name == "api_price" else 1.0, node=m if name == "node_price" else 1.0)
    err, chosen = _compare(out.cost[0], full)
    assert err < 1e-9
    assert (out.chosen[0] == chosen).all()


@pytest.mark.parametrize("preset", ["singapore-bank", "batch-shop", "startup-rented"])
@pytest.mark.parametrize("pooled", [False, True], ids=["dedicated", "pooled"])
@pytest.mark.parametrize(("name", "m", "tolerance"), [("mbu", 0.75, 1e-9), ("mfu", 1.2, 1e-9), ("mbu", 0.85, 0.3)])
def test_efficiency_draws_against_full_evaluation(
    preset: str, pooled: bool, name: str, m: float, tolerance: float
) -> None:
    # At the ends of the MBU/MFU ranges the secants are exact; between them the surrogate is log-linear in
    # capacity and replicas are whole numbers, so single options can be off by a replica step (≤ 25 % seen
    # since deferrable batch work is sized by its volume, with fewer replicas, issue 10).
    scenario, sg = _case(preset, pooled)
    eff = scenario.efficiency
    cap = 1.0 / (eff.mbu if name == "mbu" else max(eff.mfu_decode, eff.mfu_prefill))
    m = min(m, cap)
    fields = ("mbu",) if name == "mbu" else ("mfu_decode", "mfu_prefill")
    changed = eff.model_copy(update={f: getattr(eff, f) * m for f in fields})
    out = _propagate(sg, _with(sg, name, m))
    err, chosen = _compare(out.cost[0], scenario.model_copy(update={"efficiency": changed}))
    assert err < tolerance
    assert (out.chosen[0] == chosen).all()


def test_base_draw_reproduces_the_evaluated_routes_and_savings(bank_surrogate) -> None:  # type: ignore[no-untyped-def]
    # The surrogate draws the stand-alone router's routes (each workload on its own replicas, issue 10 keeps
    # them as the labelled comparison); the fleet plan is solved once per evaluate(), not per draw.
    ev = evaluate_arrays(BANK)
    base = _propagate(bank_surrogate, _with(bank_surrogate, "api_price", 1.0))
    assert base.chosen[0].tolist() == ev.route.chosen.tolist()
    options = evaluate(BANK).options
    chosen_ids = [ev.table.option_ids[i] for i in ev.route.chosen]
    standalone = [
        next(o.cost_usd_per_request for o in options if o.workload_id == w.id and o.option_id == oid)
        * w.avg_requests_per_s
        * 3600
        * 730
        for w, oid in zip(BANK.workloads, chosen_ids, strict=True)
    ]
    assert base.monthly_cost[0] == pytest.approx(standalone, rel=1e-12)


def test_tornado_bars_are_sorted_and_api_prices_move_bank_savings(bank_surrogate) -> None:  # type: ignore[no-untyped-def]
    t = tornado(bank_surrogate)
    swings = [b.swing_usd_per_month for b in t.bars]
    assert swings == sorted(swings, reverse=True)
    assert {b.input for b in t.bars} == {
        "api_price",
        "node_price",
        "mbu",
        "mfu",
        "diffusion_throughput",
        "diffusion_quality",
    }
    api = next(b for b in t.bars if b.input == "api_price")
    # The bank's non-sovereign work is already on the API the router picks among APIs (Mercury for code
    # completion, the frontier API for research, for quality), so the all-API baseline is the plan: savings
    # are 0 at base and stay 0 when every API price moves together. The API bill itself moves (0.6× to 1.2×).
    assert t.base_savings_usd_per_month == 0.0
    assert api.savings_at_low_usd_per_month == pytest.approx(0.0, abs=1e-6)
    assert api.savings_at_high_usd_per_month == pytest.approx(0.0, abs=1e-6)
    assert api.cost_at_high_usd_per_month > t.base_cost_usd_per_month > api.cost_at_low_usd_per_month
    node = next(b for b in t.bars if b.input == "node_price")
    assert node.cost_at_high_usd_per_month > t.base_cost_usd_per_month > node.cost_at_low_usd_per_month


def test_monte_carlo_is_seeded_and_has_documented_columns(bank_surrogate) -> None:  # type: ignore[no-untyped-def]
    a = monte_carlo(bank_surrogate, n=2000, seed=7)
    b = monte_carlo(bank_surrogate, n=2000, seed=7)
    c = monte_carlo(bank_surrogate, n=2000, seed=8)
    assert a.workloads.equals(b.workloads)
    assert not a.workloads.equals(c.workloads)
    assert list(a.workloads.columns) == list(WORKLOAD_BAND_COLUMNS)
    assert list(a.options.columns) == list(OPTION_BAND_COLUMNS)
    w = a.workloads
    assert (w["p05_usd_per_mtok"] <= w["p50_usd_per_mtok"]).all()
    assert (w["p50_usd_per_mtok"] <= w["p95_usd_per_mtok"]).all()
    assert ((w["prob_owned_beats_api"] >= 0) & (w["prob_owned_beats_api"] <= 1)).all()
    # Sovereign workloads have no allowed API; the probability is then against the API they may not use.
    sovereign = {wl.id for wl in BANK.workloads if wl.sovereign}
    assert set(w.loc[~w["api_allowed"], "workload_id"]) == sovereign
    assert a.savings_p05_usd_per_month <= a.savings_p50_usd_per_month <= a.savings_p95_usd_per_month


def test_zero_width_ranges_collapse_the_band_to_the_base() -> None:
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
    w = mc.workloads
    assert w["p05_usd_per_mtok"].tolist() == pytest.approx(w["base_usd_per_mtok"].tolist(), rel=1e-12)
    assert w["p95_usd_per_mtok"].tolist() == pytest.approx(w["base_usd_per_mtok"].tolist(), rel=1e-12)
    assert (w["prob_route_unchanged"] == 1.0).all()
    assert set(w["prob_owned_beats_api"].dropna()) <= {0.0, 1.0}


def test_cheap_apis_make_owned_lose_and_dear_apis_make_it_win() -> None:
    # Property of the probability: it is non-increasing as the API price range moves down.
    scenario = load_preset("startup-rented")
    cheap = monte_carlo(build_surrogate(scenario, UncertaintyRanges(api_price=Range(low=0.1, high=0.2))), n=500, seed=1)
    dear = monte_carlo(build_surrogate(scenario, UncertaintyRanges(api_price=Range(low=5.0, high=10.0))), n=500, seed=1)
    both = cheap.workloads["prob_owned_beats_api"].notna()
    p_cheap = cheap.workloads.loc[both, "prob_owned_beats_api"]
    p_dear = dear.workloads.loc[both, "prob_owned_beats_api"]
    assert (p_cheap <= p_dear).all()
    assert p_cheap.sum() < p_dear.sum()  # the range matters somewhere, not only in the limit


def test_a_range_must_be_ordered() -> None:
    with pytest.raises(ValueError, match="low ≤ high"):
        Range(low=1.2, high=1.1)
    assert math.isclose(Range(low=0.85, base=0.9, high=0.95).multipliers[0], 0.85 / 0.9)


def test_a_bought_route_runs_short_only_when_the_gpus_do_less_than_assumed() -> None:
    # The bank's fleet is one bought 8×H100 node, sized exactly for its sovereign routes: those routes cost nothing
    # in the cash lens. Price draws alone cannot change that (the node is sunk); draws of slower GPUs can, because
    # the plan then needs capacity beyond the node it has, charged at its full price.
    point = Range(low=1.0, high=1.0)
    prices_only = UncertaintyRanges(mbu=point, mfu=point, diffusion_throughput=point)
    faster_only = UncertaintyRanges(mbu=Range(low=1.0, high=1.2), mfu=Range(low=1.0, high=1.2))
    slower_only = UncertaintyRanges(mbu=Range(low=0.75, high=0.9), mfu=Range(low=0.75, high=0.9))
    runs = {
        name: monte_carlo(build_surrogate(BANK, r), n=400, seed=3).workloads
        for name, r in (
            ("prices", prices_only),
            ("faster", faster_only),
            ("slower", slower_only),
            ("default", UncertaintyRanges()),
        )
    }
    base = runs["default"]
    sunk = base["prob_fleet_short"].notna()
    assert (base.loc[sunk, "base_usd_per_mtok"] == 0).all()
    assert sunk.sum() >= 3  # the bank's sovereign routes on the bought node
    for name in ("prices", "faster"):
        w = runs[name]
        assert (w.loc[sunk, "prob_fleet_short"] == 0).all(), name
        assert (w.loc[sunk, "p95_usd_per_mtok"] == 0).all(), name
    assert runs["slower"].loc[sunk, "prob_fleet_short"].sum() > base.loc[sunk, "prob_fleet_short"].sum() > 0
    # what the Reviews page says of a median above S$0: the GPUs ran short in at least half the draws
    above = sunk & (base["p50_usd_per_mtok"] > 0)
    assert above.any()
    assert (base.loc[above, "prob_fleet_short"] >= 0.5).all()
    assert (base.loc[sunk & (base["p50_usd_per_mtok"] == 0), "prob_fleet_short"] <= 0.5).all()


def test_a_scenario_too_large_for_the_draws_gets_fewer(bank_surrogate, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    # a 5,000-workload upload at 10,000 draws grew past 15 GB: the draws are capped by draws × workloads × options
    sg = bank_surrogate
    cells = len(BANK.workloads) * len(sg.evaluation.table.option_ids)
    monkeypatch.setattr(uncertainty, "MAX_DRAW_CELLS", 100 * cells)
    mc = monte_carlo(sg, 10_000, seed=3)
    assert mc.draws == 100
    assert len(mc.workloads) == len(BANK.workloads)
    assert mc.savings_p05_usd_per_month <= mc.savings_p95_usd_per_month
    assert monte_carlo(sg, 50, seed=3).draws == 50  # under the cap: every draw asked for
