"""Every dashboard page runs in-process (AppTest) without an exception, and its inputs move the right numbers.

Expected values are derived by hand in the comments (or read from the scenario's own inputs), never from the
page code under test.
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from economics.io import scenarios
from economics.io.scenarios import default_scenario, load_preset
from tests.ui.helpers import chart, metrics, number, plotly_specs, run_page, trace

PAGES = ("1_overview", "2_cost_per_token", "3_break_even", "4_batching", "5_workloads")


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_with_charts_and_no_exception(page: str) -> None:
    at = run_page(page)
    assert at.title, "every page has a title"
    assert plotly_specs(at), "every page draws at least one chart"
    for spec in plotly_specs(at):
        layout = spec["layout"]
        assert layout.get("title", {}).get("text"), "every chart has a title"
        # every chart with x/y axes names them (units in brackets)
        if "xaxis" in layout and spec["data"] and spec["data"][0].get("type") not in ("bar",):
            assert "[" in str(layout["xaxis"].get("title", {}).get("text", "[")), layout["xaxis"]


def test_overview_shows_the_bank_case_and_a_link_changes_its_numbers() -> None:
    at = run_page("1_overview")
    base = metrics(at)
    assert number(base["Idle GPUs at full cost, SGD/month"]) > 0  # the GPU hangover of the bank case
    assert next(c.value for c in at.caption).startswith("Singapore bank")

    # The same bank with a node that costs twice as much: the node is bought, so in the cash lens (the default)
    # the plan spends the same; its idle GPUs and sunk capital cost more (issue 10: nothing prices sunk capital
    # as if it could still be saved).
    s = default_scenario()
    node = s.nodes[0].model_copy(update={"capex_usd": 2 * s.nodes[0].capex_usd})  # type: ignore[union-attr]
    dearer = s.model_copy(update={"nodes": (node,)})
    at2 = run_page("1_overview", query={"s": scenarios.encode(dearer)})
    moved = metrics(at2)
    assert number(moved["Recommended, SGD/month"]) == number(base["Recommended, SGD/month"])
    assert number(moved["Sunk capital"]) == 2 * number(base["Sunk capital"])
    assert number(moved["Idle GPUs at full cost, SGD/month"]) > number(base["Idle GPUs at full cost, SGD/month"])
    assert not at2.warning
    assert not at2.error


def _node_title(at: AppTest) -> str:
    """The node's cost line under its price inputs (markdown, unescaped)."""
    return next(str(m.value).replace("\\", "") for m in at.markdown if "per node" in str(m.value))


def _curves(at: AppTest) -> dict[str, Any]:
    """The cost-per-token curves, drawn when their tab is open (a price edit redraws only the open tab)."""
    at.session_state["cost_view"] = "Across all utilizations"
    at.run()
    assert not at.exception
    return chart(at, "Effective cost per token")


def test_cost_page_node_breakdown_follows_capex() -> None:
    at = run_page("2_cost_per_token")
    # Bank node: $280k, 4 years at 8%, 10.2 kW, power 70%, PUE 1.3, $0.20/kWh, colocation $250/kW-month, ops 8%.
    # CRF(8%, 4) = 0.08·1.08⁴/(1.08⁴ − 1) = 0.301921; capital 280000·0.301921/8760 = $9.650/h; ops
    # 0.08·280000/8760 = $2.557/h; power 10.2·0.7·1.3·0.20 = $1.856/h; colocation 250·10.2/730 = $3.493/h.
    # $17.557/h in all; the bank shows SGD at 1.30 (data/prices/fx_rates.csv): 17.557 × 1.30 = S$22.82/h
    assert "S$22.82 per node-hour" in _node_title(at)
    at.text_input(key="node_sg-h100-node_capex_usd").set_value("$350,000").run()
    assert not at.exception
    # capital 350000·0.301921/8760 = $12.063/h, ops 0.08·350000/8760 = $3.196/h: total $20.609/h × 1.30 = S$26.79
    assert "S$26.79 per node-hour" in _node_title(at)
    assert scenarios.decode(at.query_params["s"], default_scenario()).scenario.nodes[0].capex_usd == 350_000  # type: ignore[union-attr]


def test_cost_page_node_edit_is_applied_in_its_callback_and_explains_a_bad_price() -> None:
    # an edit is applied in the field's callback (ui.widgets.nodes.live_node_edit): the cost line follows, and its
    # source line says who set the price; text that is not a price names the field and changes nothing
    at = run_page("2_cost_per_token")
    at.text_input(key="node_sg-h100-node_capex_usd").set_value("lots").run()
    assert not at.exception
    assert [e.value for e in at.error if "Purchase price per node" in e.value]
    assert "S$22.82 per node-hour" in _node_title(at)  # unchanged
    at.text_input(key="node_sg-h100-node_capex_usd").set_value("$350k").run()  # as finance writes a quote
    assert not [e.value for e in at.error if "Purchase price per node" in e.value]
    assert "S$26.79 per node-hour" in _node_title(at)  # as above: $20.609/h × 1.30
    node = scenarios.decode(at.query_params["s"], default_scenario()).scenario.nodes[0]  # type: ignore[union-attr]
    assert node.capex_usd == 350_000  # exactly: "$350k" is 350 × 1,000 in decimal
    sources = [str(c.value) for c in at.caption if "entered by the user on" in str(c.value)]
    assert len(sources) == 1, sources
    at.number_input(key="node_sg-h100-node_cost_of_capital_per_year").set_value(0.0).run()  # 0%: CRF = 1/n
    # capital 280000/4/8760 = $7.991/h → with ops $2.557, power $1.856, colocation $3.493 (at 350k: ops $3.196,
    # capital 350000/4/8760 = $9.989/h): 9.989 + 3.196 + 1.856 + 3.493 = $18.534/h × 1.30 = S$24.09
    assert "S$24.09 per node-hour" in _node_title(at)


def test_cost_page_rented_node_edit_follows_in_its_cost_line() -> None:
    # startup-rented: four rented nodes in tabs; RunPod's 8 GPUs at $3.49 = $27.92 a node-hour, at $4.00 = $32.00
    at = run_page("2_cost_per_token", query={"s": scenarios.encode(load_preset("startup-rented"))})
    lines = [str(m.value).replace("\\", "") for m in at.markdown if "per node" in str(m.value)]
    assert len(lines) == 4
    runpod = "**Rented 8× H100 (RunPod Secure Cloud, per GPU-hour): $27.92 per node-hour** ($3.49 per GPU-hour)"
    assert lines[0] == runpod  # a rental has no parts, and costs the same whatever the load
    at.text_input(key="node_runpod_price_usd_per_gpu_hour").set_value("$4.00").run()
    assert not at.exception
    assert "$32.00 per node-hour** ($4.00 per GPU-hour)" in _node_title(at)
    assert [c for c in at.caption if "entered by the user on" in str(c.value)]


def test_cost_page_halving_utilization_doubles_cost_per_token() -> None:
    at = run_page("2_cost_per_token")
    curve = _curves(at)
    first = next(t for t in curve["data"] if t.get("mode") == "lines" and "plain AR" in t["name"])
    x, y = first["x"], first["y"]
    # Power is load-independent in the bank case (idle = busy = 70%), so C_h is flat and $/Mtok ∝ 1/U.
    i25, i50 = min(range(len(x)), key=lambda i: abs(x[i] - 25)), min(range(len(x)), key=lambda i: abs(x[i] - 50))
    assert y[i25] / y[i50] == pytest.approx(x[i50] / x[i25], rel=1e-9)


def test_cost_page_measured_throughput_replaces_the_model() -> None:
    at = run_page("2_cost_per_token")
    at.number_input(key="measured_owned-70b-ar_tok_s").set_value(1000.0).run()
    assert not at.exception
    curve = _curves(at)
    measured = [t for t in curve["data"] if "(measured throughput)" in str(t.get("name"))]
    assert len(measured) == 2  # plain AR and with speculation: the benchmark measured the option as deployed
    # one replica of 8 GPUs = the whole $17.557/h node; at U = 100%: 17.557e6/(3600·1000) = $4.877 per Mtok,
    # drawn in the bank's SGD at 1.30
    assert measured[0]["y"][-1] == pytest.approx(1.3 * 17.557065 * 1e6 / 3600 / 1000, rel=1e-4)
    option = next(o for o in at.session_state["_scenario"].owned_options if o.id == "owned-70b-ar")
    assert option.measured.output_tokens_per_s == 1000.0  # part of the scenario: the share link carries it


def test_an_old_link_with_a_measured_view_setting_moves_it_into_the_scenario() -> None:
    at = run_page(query={"cost_source": "measured", "cost_measured": "1000.0", "cost_option": "owned-8b-ar"})
    option = next(o for o in at.session_state["_scenario"].owned_options if o.id == "owned-8b-ar")
    assert option.measured.output_tokens_per_s == 1000.0
    assert at.session_state["_view"].cost_source == "model"


def test_break_even_page_prices_the_api_for_the_workload() -> None:
    at = run_page("3_break_even")
    at.selectbox(key="v_be_api").set_value("frontier-api").run()  # it opens on the cheapest, Mercury 2
    # KYC batch: 6000 in / 800 out on the frontier API at $3/$15 per Mtok: (6000·3 + 800·15)/1e6 = $0.030
    # per task = $37.50 per Mtok output; the default (Singapore bank) shows SGD at 1.30: S$48.75.
    assert metrics(at)["API [SGD/Mtok output]"] == "S$48.75"
    at.selectbox(key="v_be_api").set_value("mercury-api").run()
    # Mercury 2 at $0.25/$0.75: (6000·0.25 + 800·0.75)/1e6 = $0.0021 per task = $2.625 per Mtok output × 1.30
    assert number(metrics(at)["API [SGD/Mtok output]"]) == pytest.approx(2.625 * 1.3, abs=0.006)
    assert at.session_state["_view"].be_api == "mercury-api"


def test_break_even_draws_only_the_open_tab() -> None:
    at = run_page("3_break_even")
    assert len(plotly_specs(at)) == 1
    chart(at, "utilization")  # the open tab's: the curve against utilization
    assert not [w for w in at.selectbox if w.key in ("v_be_x", "v_be_y")], "map axes live in the map's tab"


def test_break_even_map_axes_follow_the_selection() -> None:
    at = run_page("3_break_even", query={"be_chart": "map"})  # a link can open the map's tab
    at.selectbox(key="v_be_x").set_value("node_price").run()
    at.selectbox(key="v_be_y").set_value("demand").run()
    spec = chart(at, "Where owned beats the API")
    assert "node cost" in spec["layout"]["xaxis"]["title"]["text"]
    assert "demand" in spec["layout"]["yaxis"]["title"]["text"]
    assert len(plotly_specs(at)) == 1
    # x moved onto y's axis: y falls back to the first axis still allowed, without an error
    at.selectbox(key="v_be_x").set_value("demand").run()
    assert not at.exception
    assert at.selectbox(key="v_be_y").value == "api_price"
    assert at.session_state["_view"].be_chart == "map"


def test_batching_page_batch_size_moves_throughput_and_cost() -> None:
    at = run_page("4_batching")
    at.number_input(key="v_bt_batch").set_value(1).run()
    m1 = metrics(at)
    # docs/roofline.md#worked-example-70b: a dense model at batch 1 in BF16 does ≈ 2 FLOP per 2-byte weight: ≈ 1 FLOP/B
    assert number(m1["FLOP per byte read (memory-bound)"]) == pytest.approx(1.0, abs=0.5)
    assert m1["Cost per token falls, batch 1 → 1"] == "1.0×"
    at.number_input(key="v_bt_batch").set_value(64).run()
    m64 = metrics(at)
    assert number(m64["AR tok/s at batch 64"]) > 10 * number(m1["AR tok/s at batch 1"])
    falls = m64["Cost per token falls, batch 1 → 64"]
    swing = number(falls)
    assert 10 < swing < 64  # the essay's 10-30× swing; never more than the batch itself
    title = chart(at, "Cost per token while busy")["layout"]["title"]["text"]
    assert f"{falls} lower at batch 64 than at batch 1" in title  # the chart and the figure beside it agree


def test_batching_page_draws_roofline_points_for_every_scheme() -> None:
    at = run_page("4_batching")
    roof = chart(at, "Roofline")
    for part in ("AR ·", "AR + ", "diffusion ·"):
        pts = trace(roof, part)
        assert len(pts["x"]) >= 2, part


def test_workloads_page_places_every_workload_on_the_quadrant() -> None:
    at = run_page("5_workloads")
    q = chart(at, "Routing quadrant")
    points = trace(q, "workloads")
    assert sorted(points["text"]) == sorted(w.name for w in default_scenario().workloads)
    regions = [t for t in q["data"] if t.get("type") == "heatmap"]
    assert len(regions) == 1
    assert len(regions[0]["z"]) > 10


@pytest.mark.parametrize(
    ("token", "level", "text"),
    [
        ("v1.not-a-real-link", "error", "could not be opened"),
        ("v9.abc", "error", "format 'v9'"),
    ],
)
def test_bad_links_show_a_message_and_the_default(token: str, level: str, text: str) -> None:
    at = run_page(None, query={"s": token})
    boxes = at.error if level == "error" else at.warning
    assert any(text in b.value for b in boxes), [b.value for b in boxes]
    assert metrics(at) == metrics(run_page(None))  # the default scenario is shown


def test_repaired_link_keeps_the_valid_rest_and_names_the_dropped_field() -> None:
    obj = json.loads(scenarios.canonical_json(default_scenario()))
    obj["workloads"][4]["avg_requests_per_s"] = -1  # analyst research: invalid
    token = "v1." + base64.urlsafe_b64encode(zlib.compress(json.dumps(obj).encode())).decode().rstrip("=")
    at = run_page(None, query={"s": token})
    shown = [w.value.replace("\\", "") for w in at.warning]  # the page escapes markdown in messages
    # in a reader's words (tests/ui/test_error_words.py): the item by number, the field in words
    assert any("Workload 5, average requests per second: must be more than 0" in w for w in shown), shown
    assert not any("workloads.4" in w for w in shown), shown
    assert len(at.get("plotly_chart")) > 0
    assert not at.exception


@pytest.mark.parametrize("page", ["5_workloads", "1_overview", "2_cost_per_token"])
def test_the_smallest_allowed_request_rate_draws_every_chart(page: str) -> None:
    s = default_scenario()
    tiny = s.workloads[0].model_copy(update={"avg_requests_per_s": 1e-9, "peak_requests_per_s": 1e-9})
    token = scenarios.encode(s.model_copy(update={"workloads": (tiny, *s.workloads[1:])}))
    at = run_page(page, query={"s": token})  # 5e-324 underflowed in the quadrant's demand sweep: a traceback
    assert len(at.get("plotly_chart")) > 0


def test_invalid_view_parameter_is_reported_and_reset() -> None:
    at = run_page(None, query={"bt_batch": "lots"})
    shown = [w.value.replace("\\", "") for w in at.warning]
    # in words first (page, setting, problem), the parameter after it for whoever edits the link
    wanted = "Batching page, batch size marked on the charts (link setting bt_batch='lots'): must be a whole number"
    assert any(wanted in w for w in shown), shown
    at.switch_page("pages/4_batching.py").run()
    assert at.number_input(key="v_bt_batch").value == 32  # the default, not the bad value


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ({"be_x": "api_price"}, "the two axes must differ"),  # alone valid; the default y is the API price
        ({"be_x": "demand", "be_y": "demand"}, "the two axes must differ"),
        ({"be_y": "demand"}, "utilization and demand cannot both be axes"),  # the default x is utilization
    ],
)
def test_break_even_axes_that_clash_in_a_link_are_named_and_reset(query: dict[str, str], problem: str) -> None:
    at = run_page(None, query=query)
    shown = [w.value.replace("\\", "") for w in at.warning]
    said = next((w for w in shown if "Break-even page, map axes (link settings be_" in w), "")
    assert problem in said, shown
    at.switch_page("pages/3_break_even.py").run()
    assert not at.exception  # it raised "x and y must be different axes" as a traceback
    assert len(at.get("plotly_chart")) > 0


def test_batching_opens_at_a_batch_showing_the_essays_swing() -> None:
    at = run_page("4_batching")
    swing = next(v for k, v in metrics(at).items() if k.startswith("Cost per token falls"))
    # the essay: cost per token swings 10–30× between batch 1 and a realistic batch
    assert 10 <= number(swing) <= 30


def test_cost_page_marks_where_the_workload_runs_today() -> None:
    at = run_page("2_cost_per_token")
    curve = _curves(at)
    here = [t for t in curve["data"] if str(t.get("name", "")).startswith("you are here")]
    assert len(here) == 1
    # the Overview's KYC card: "the replica runs at 18% of its capacity" on Owned 70B
    assert 17.5 <= here[0]["x"][0] <= 18.5
    assert "Owned 70B" in here[0]["name"]


def test_argument_page_states_every_claim_with_a_verdict_and_a_link() -> None:
    at = run_page("8_argument")
    text = " ".join(str(m.value) for m in at.markdown).replace("\\", "")
    assert "memory-bound" in text
    assert text.count("**holds**") == 9
    assert len(at.get("page_link")) == 9


def _catch_up(at: AppTest) -> list[str]:
    """Every 'AR … catches up with diffusion at N clients' figure in the page's text."""
    text = " ".join(str(e.value) for e in (*at.markdown, *at.caption))
    return re.findall(r"catches up with diffusion at ([\d,]+) clients", text)


def test_argument_and_batching_pages_state_the_same_catch_up_figure() -> None:
    argument = _catch_up(run_page("8_argument"))
    batching = _catch_up(run_page("4_batching"))
    assert len(argument) == 1
    assert batching == argument
