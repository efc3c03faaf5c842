"""Unit economics (docs/costs.md#unit-costs): hand-derived values, identities and properties.

Expected values are the spec's worked examples or arithmetic written out in the test, never the output of
the function under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from economics.costs import (
    api_cost_per_request,
    api_offer_cost_per_request,
    batch_tier_usable,
    blended_price,
    break_even_demand,
    break_even_utilization,
    capital_recovery_factor,
    cost_per_mtok,
    cost_per_mtok_capacity_form,
    cost_per_request_dedicated,
    cost_per_request_pooled,
    effective_output_price,
    idle_cost_usd_per_month,
    max_utilization,
    node_cost_fixed_and_variable,
    node_cost_usd_per_hour,
    owned_node_cost_breakdown,
    rented_node_cost_usd_per_hour,
)
from economics.offers import ApiOffer, OwnedNode, RentedNode
from tests.strategies import PROPERTIES

PROPS = settings(PROPERTIES, max_examples=60)

positive = st.floats(min_value=1e-3, max_value=1e3, allow_nan=False, allow_infinity=False)
unit = st.floats(min_value=1e-3, max_value=1.0, allow_nan=False)


def default_owned() -> OwnedNode:
    return OwnedNode(id="h100-node", name="8×H100 HGX", gpu_id="h100-sxm")


# ---- docs/costs.md#node-cost -----------------------------------------------------------------------------------------


def test_node_cost_reproduces_the_spec_breakdown() -> None:
    # docs/costs.md#node-cost: capex 9.65 + power 0.93 + facility 2.10 + ops 2.56 = $15.23 per node-hour, $1.90 per
    # GPU-hour.
    b = owned_node_cost_breakdown(default_owned(), utilization=0.3)
    assert float(b.capex_usd_per_hour) == pytest.approx(9.65, abs=0.005)
    assert float(b.power_usd_per_hour) == pytest.approx(0.93, abs=0.005)
    assert float(b.facility_usd_per_hour) == pytest.approx(2.10, abs=0.005)
    assert float(b.ops_usd_per_hour) == pytest.approx(2.56, abs=0.005)
    assert float(b.total_usd_per_hour) == pytest.approx(15.23, abs=0.01)
    assert float(b.total_usd_per_hour) / 8 == pytest.approx(1.90, abs=0.005)


def test_capex_term_by_hand() -> None:
    # 280000 · 0.08·1.08^4/(1.08^4 − 1) / 8760, with 1.08^4 = 1.36048896.
    g = 1.36048896
    expected = 280_000 * 0.08 * g / (g - 1) / 8760
    assert float(owned_node_cost_breakdown(default_owned(), 0.0).capex_usd_per_hour) == pytest.approx(
        expected, rel=1e-12
    )


def test_crf_zero_rate_is_straight_line() -> None:
    for n in (1.0, 3.0, 4.0, 6.5):
        assert float(capital_recovery_factor(0.0, n)) == 1.0 / n


@PROPS
@given(r=st.floats(min_value=0.0, max_value=0.4), dr=st.floats(min_value=1e-4, max_value=0.1), n=st.floats(1, 15))
def test_crf_increases_with_the_rate(r: float, dr: float, n: float) -> None:
    assert capital_recovery_factor(r + dr, n) > capital_recovery_factor(r, n)


@PROPS
@given(r=st.floats(min_value=1e-9, max_value=1e-6), n=st.floats(1, 15))
def test_crf_is_continuous_at_zero_rate(r: float, n: float) -> None:
    assert float(capital_recovery_factor(r, n)) == pytest.approx(1.0 / n, rel=1e-5)


@PROPS
@given(capex=st.floats(min_value=1e4, max_value=1e6), k=st.floats(min_value=0.1, max_value=10))
def test_node_cost_is_affine_in_capex_and_linear_when_nothing_else_costs(capex: float, k: float) -> None:
    node = default_owned().model_copy(update={"capex_usd": capex})
    scaled = node.model_copy(update={"capex_usd": capex * k})
    # Everything except power and facility is proportional to CapEx.
    fixed = float(owned_node_cost_breakdown(node, 0.5).power_usd_per_hour) + float(
        owned_node_cost_breakdown(node, 0.5).facility_usd_per_hour
    )
    lhs = float(node_cost_usd_per_hour(scaled, 0.5)) - fixed
    rhs = k * (float(node_cost_usd_per_hour(node, 0.5)) - fixed)
    assert lhs == pytest.approx(rhs, rel=1e-12)


def test_power_depends_on_utilization_when_idle_and_busy_differ() -> None:
    node = default_owned().model_copy(update={"power_fraction_idle": 0.3, "power_fraction_busy": 0.9})
    # 10.2 kW · f · 1.3 · $0.10, f = 0.3 + 0.6·U.
    u = np.array([0.0, 0.5, 1.0])
    got = owned_node_cost_breakdown(node, u).power_usd_per_hour
    np.testing.assert_allclose(got, 10.2 * 1.3 * 0.10 * np.array([0.3, 0.6, 0.9]), rtol=1e-12)
    fixed, variable = node_cost_fixed_and_variable(node)
    assert variable == pytest.approx(10.2 * 1.3 * 0.10 * 0.6, rel=1e-12)
    assert fixed + variable == pytest.approx(float(node_cost_usd_per_hour(node, 1.0)), rel=1e-12)


def test_rented_node_cost() -> None:
    # docs/costs.md#node-cost: renting at $2.50/GPU-h costs $20/h.
    node = RentedNode(id="r", name="r", gpu_id="h100-sxm", price_usd_per_gpu_hour=2.5)
    assert rented_node_cost_usd_per_hour(node) == 20.0
    assert float(node_cost_usd_per_hour(node, 0.1)) == 20.0
    assert node_cost_fixed_and_variable(node) == (20.0, 0.0)


# ---- docs/costs.md#cost-per-token ------------------------------------------------------------------------------------


@PROPS
@given(
    c_h=positive,
    lam_max=st.floats(min_value=1e-3, max_value=100),
    t_out=st.integers(1, 5000),
    replicas=st.integers(1, 50),
    share=unit,
)
def test_capacity_and_operating_point_forms_agree(
    c_h: float, lam_max: float, t_out: int, replicas: int, share: float
) -> None:
    # Any λ_avg ≤ R·λ_max: form (a) with U = λ_avg/(R·λ_max) equals form (b) to 1e-9.
    lam_avg = share * replicas * lam_max
    u = lam_avg / (replicas * lam_max)
    a = cost_per_mtok_capacity_form(c_h, lam_max * t_out, u)
    b = cost_per_mtok(cost_per_request_dedicated(c_h, replicas, lam_avg), t_out)
    assert float(a) == pytest.approx(float(b), rel=1e-9)


@PROPS
@given(c_h=positive, x=positive, u=unit, k=st.floats(min_value=1.01, max_value=10))
def test_cost_per_mtok_monotone_in_utilization_and_throughput_and_linear_in_cost(
    c_h: float, x: float, u: float, k: float
) -> None:
    base = float(cost_per_mtok_capacity_form(c_h, x, u))
    assert float(cost_per_mtok_capacity_form(c_h, x, min(1.0, u * k))) <= base
    assert float(cost_per_mtok_capacity_form(c_h, x * k, u)) <= base
    assert float(cost_per_mtok_capacity_form(c_h * k, x, u)) == pytest.approx(k * base, rel=1e-12)


def test_zero_utilization_or_demand_costs_infinity() -> None:
    assert math.isinf(float(cost_per_mtok_capacity_form(15.23, 6000, 0.0)))
    assert math.isinf(float(cost_per_request_dedicated(15.23, 1, 0.0)))


def test_dedicated_cost_by_hand() -> None:
    # One 8×H100 node at $15.23/h serving 0.1 req/s: 15.23 / 360 = $0.0423 per request.
    assert float(cost_per_request_dedicated(15.23, 1, 0.1)) == pytest.approx(15.23 / 360, rel=1e-12)


def test_pooled_cost_by_hand() -> None:
    # docs/serving.md#continuous-batching: at λ = 0.1 the 70B replica holds 0.48 sequences; a request occupies 0.48/0.1
    # = 4.8 replica-seconds; at U_pool = 0.7 that is 15.23/3600 · 4.8 / 0.7 = $0.02901.
    assert float(cost_per_request_pooled(15.23, 0.48, 0.1, 0.7)) == pytest.approx(15.23 / 3600 * 4.8 / 0.7, rel=1e-12)
    # Once a batch forms (B* ≥ 1) each request occupies 1/λ replica-seconds.
    assert float(cost_per_request_pooled(15.23, 30.0, 5.0, 1.0)) == pytest.approx(15.23 / 3600 / 5.0, rel=1e-12)


def test_per_output_and_per_total_token() -> None:
    # $0.0105 per request of 1000 in / 500 out: $21/Mtok output, $7/Mtok total.
    assert float(cost_per_mtok(0.0105, 500)) == pytest.approx(21.0)
    assert float(cost_per_mtok(0.0105, 1500)) == pytest.approx(7.0)


def test_idle_cost() -> None:
    # $15.23/h · 730 h · (1 − 0.25).
    assert float(idle_cost_usd_per_month(15.23, 0.25)) == pytest.approx(15.23 * 730 * 0.75)
    assert float(idle_cost_usd_per_month(15.23, 0.0)) == pytest.approx(15.23 * 730)
    assert float(idle_cost_usd_per_month(15.23, 1.5)) == 0.0


# ---- docs/costs.md#api-price -----------------------------------------------------------------------------------------


def test_api_cost_examples() -> None:
    # docs/costs.md#break-even: frontier $3/$15, 1000 in / 500 out → $0.0105; hosted open $0.88/$0.88 → $0.00132.
    assert float(api_cost_per_request(1000, 500, 3.0, 15.0)) == pytest.approx(0.0105, rel=1e-12)
    assert float(api_cost_per_request(1000, 500, 0.88, 0.88)) == pytest.approx(0.00132, rel=1e-12)
    # Caching half the prompt at $0.30: 500·3 + 500·0.3 + 500·15 = 9150 µ$.
    assert float(api_cost_per_request(1000, 500, 3.0, 15.0, 0.3, 0.5)) == pytest.approx(0.00915, rel=1e-12)
    # No cached price: hits cost the input price.
    assert float(api_cost_per_request(1000, 500, 3.0, 15.0, None, 0.5)) == pytest.approx(0.0105, rel=1e-12)


def test_api_batch_tier_and_negotiated_discount_compound() -> None:
    api = ApiOffer(
        id="f",
        name="f",
        input_usd_per_mtok=3.0,
        output_usd_per_mtok=15.0,
        batch_discount_fraction=0.5,
        negotiated_discount_fraction=0.2,
    )
    # $0.0105 · 0.8 = $0.0084 at list; · 0.5 = $0.0042 at the batch tier.
    assert float(api_offer_cost_per_request(api, 1000, 500)) == pytest.approx(0.0084, rel=1e-12)
    assert float(api_offer_cost_per_request(api, 1000, 500, batch_tier=True)) == pytest.approx(0.0042, rel=1e-12)


def test_batch_tier_needs_a_long_enough_deadline_and_no_latency_slo() -> None:
    api = ApiOffer(id="f", name="f", input_usd_per_mtok=3, output_usd_per_mtok=15, batch_discount_fraction=0.5)
    assert batch_tier_usable(api, 86_400.0, latency_slo=False)
    assert not batch_tier_usable(api, 8 * 3600.0, latency_slo=False)  # the KYC batch: 8 h < 24 h turnaround
    assert not batch_tier_usable(api, None, latency_slo=False)
    assert not batch_tier_usable(api, 86_400.0, latency_slo=True)
    no_tier = api.model_copy(update={"batch_discount_fraction": 0.0})
    assert not batch_tier_usable(no_tier, 86_400.0, latency_slo=False)


@PROPS
@given(p=positive, r=st.floats(min_value=0.0, max_value=100))
def test_blend_of_equal_prices_is_the_price(p: float, r: float) -> None:
    assert float(blended_price(p, p, r)) == pytest.approx(p, rel=1e-12)


def test_blend_and_effective_output_price_by_hand() -> None:
    # r = 2: blend = (2·3 + 15)/3 = 7; p_eff_out = 15 + 2·3 = 21 = 3 · blend.
    assert float(blended_price(3.0, 15.0, 2.0)) == pytest.approx(7.0)
    assert float(effective_output_price(3.0, 15.0, 2.0)) == pytest.approx(21.0)


# ---- docs/costs.md#break-even ----------------------------------------------------------------------------------------


def test_break_even_examples_from_the_spec() -> None:
    # docs/costs.md#break-even: $15.23/h, λ_cap = 12.14 req/s; hosted open (c = $0.00132) U* = 26%, λ* = 3.2 req/s;
    # frontier (c = $0.0105) U* = 3.3%, λ* = 0.40 req/s.
    assert float(break_even_utilization(15.23, 12.14, 0.00132)) == pytest.approx(0.26, abs=0.005)
    assert float(break_even_utilization(15.23, 12.14, 0.0105)) == pytest.approx(0.033, abs=0.0005)
    assert float(break_even_demand(1, 15.23, 0.00132, 12.14)) == pytest.approx(3.2, abs=0.01)
    assert float(break_even_demand(1, 15.23, 0.0105, 12.14)) == pytest.approx(0.40, abs=0.005)


def test_break_even_demand_capacity_check() -> None:
    # λ* = 15.23/(3600·0.0001) = 42 req/s, but one replica carries 12.14: the node never breaks even.
    assert math.isinf(float(break_even_demand(1, 15.23, 0.0001, 12.14)))
    # Power that costs more per request than the API even at full load: never.
    assert math.isinf(float(break_even_utilization(1.0, 1.0, 1e-4, variable_cost_usd_per_hour=1.0)))


@PROPS
@given(c_h=positive, lam_cap=positive, c_api=st.floats(min_value=1e-6, max_value=1.0), k=st.floats(1.1, 10))
def test_break_even_utilization_scaling(c_h: float, lam_cap: float, c_api: float, k: float) -> None:
    base = float(break_even_utilization(c_h, lam_cap, c_api))
    assert float(break_even_utilization(c_h * k, lam_cap, c_api)) == pytest.approx(k * base, rel=1e-12)
    assert float(break_even_utilization(c_h, lam_cap, c_api * k)) == pytest.approx(base / k, rel=1e-12)
    assert float(break_even_utilization(c_h, lam_cap * 2, c_api)) == pytest.approx(base / 2, rel=1e-12)


@PROPS
@given(
    fixed=positive,
    variable=st.floats(min_value=0.0, max_value=10.0),
    lam_cap=st.floats(min_value=0.01, max_value=100),
    replicas=st.integers(1, 20),
    c_api=st.floats(min_value=1e-5, max_value=1.0),
)
def test_at_break_even_owned_equals_api(
    fixed: float, variable: float, lam_cap: float, replicas: int, c_api: float
) -> None:
    lam = float(break_even_demand(replicas, fixed, c_api, lam_cap, variable))
    if math.isinf(lam):
        return
    # Owned cost per request at λ*, written out: R replicas at U = λ*/(R·λ_cap), each C_fixed + C_var·U.
    u = lam / (replicas * lam_cap)
    owned = replicas * (fixed + variable * u) / (3600 * lam)
    assert owned == pytest.approx(c_api, rel=1e-9)
    assert float(break_even_utilization(fixed, lam_cap, c_api, variable)) == pytest.approx(u, rel=1e-9)


@PROPS
@given(
    fixed=positive,
    variable=st.floats(min_value=0.0, max_value=10.0),
    lam_cap=st.floats(min_value=0.01, max_value=100),
    c_api=st.floats(min_value=1e-5, max_value=1.0),
)
def test_closed_form_break_even_equals_brute_force(fixed: float, variable: float, lam_cap: float, c_api: float) -> None:
    # Brute force: scan U on a fine grid and find where owned $/req = (C_fixed + C_var·U)/(3600·λ_cap·U)
    # drops below the API; owned cost is decreasing in U, so the first such U is the break-even.
    u = np.linspace(1e-6, 1.0, 200_001)
    owned = (fixed + variable * u) / (3600 * lam_cap * u)
    cheaper = np.nonzero(owned <= c_api)[0]
    closed = float(break_even_utilization(fixed, lam_cap, c_api, variable))
    if cheaper.size == 0:
        assert closed > 1.0 - 1e-5
    else:
        assert closed == pytest.approx(u[cheaper[0]], abs=1e-5 + 1e-4 * closed)


@PROPS
@given(
    lam_max=st.floats(min_value=0.01, max_value=100),
    lam_peak=st.floats(min_value=0.001, max_value=1000),
    p2a=st.floats(min_value=1.0, max_value=10.0),
    u_t=st.floats(min_value=0.1, max_value=1.0),
)
def test_utilization_never_exceeds_target_over_peak_to_average(
    lam_max: float, lam_peak: float, p2a: float, u_t: float
) -> None:
    # R = ceil(λ_peak/(u·λ_max)) written out; U = λ_avg/(R·λ_max) ≤ u/p2a (the first spec
    # (docs/departures.md#departures) has 1/(p2a·u)).
    r = max(1, math.ceil(lam_peak / (u_t * lam_max)))
    u = (lam_peak / p2a) / (r * lam_max)
    assert u <= float(max_utilization(p2a, u_t)) * (1 + 1e-12)


def test_spec_utilization_ceiling_was_inverted() -> None:
    # λ_peak = 0.8·λ_max exactly, p2a = 1: one replica at U = 0.8. The spec's 1/(p2a·u) = 1.25 is no bound.
    lam_max, u_t = 10.0, 0.8
    r = math.ceil(8.0 / (u_t * lam_max))
    assert r == 1
    assert 8.0 / (r * lam_max) == pytest.approx(float(max_utilization(1.0, u_t)))
    assert 1.0 / (1.0 * u_t) > 1.0
