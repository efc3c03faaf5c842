"""The "Add or take out GPUs" dialog on Cost per token, driven through the real app (AppTest)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from economics.io.scenarios import PRESET_DIR, encode, load_scenario
from economics.scenario import Scenario

from .helpers import run_page


def _api_only() -> AppTest:
    at = run_page("2_cost_per_token", {"s": encode(load_scenario(PRESET_DIR / "api-only.json"))})
    at.button(key="ag_open").click().run()
    return at


def _plain(markdown: object) -> str:
    """An escaped message as it reads on the page."""
    return str(markdown).replace("\\", "")


def _scenario(at: AppTest) -> Scenario:
    s: Scenario = at.session_state["_scenario"]
    return s


def test_a_reader_rents_gpus_for_an_api_only_scenario_and_takes_them_out_again() -> None:
    at = _api_only()
    assert not _scenario(at).nodes
    at.selectbox(key="ag_instance").set_value("aws-p5.48xlarge-on-demand").run()
    at.selectbox(key="ag_model").set_value("llama-3.1-8b").run()
    at.button(key="ag_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    s = _scenario(at)
    assert [n.price_id for n in s.nodes] == ["aws-p5.48xlarge-on-demand"]
    assert [o.name for o in s.owned_options] == ["Llama 3.1 8B, AR (1 GPU, rented H100 SXM5 80GB)"]
    assert any("Added Llama 3" in str(m.value) for m in at.success)
    # the page now prices the node: its cost line, and no "no owned or rented node" message
    assert not [i for i in at.info if "no owned or rented node" in str(i.value)]
    lines = " ".join(str(m.value) for m in at.markdown)
    assert "Rented 8× H100 SXM5 80GB (AWS p5" in lines.replace("\\", "")
    # taken out again from the dialog's second tab: the node goes with its only option
    at.button(key="ag_open").click().run()
    at.button(key="ag_remove_go").click().run()
    assert not at.exception
    assert not _scenario(at).nodes
    assert not _scenario(at).owned_options
    assert any("went with it" in str(m.value) for m in at.success)


def test_a_bad_purchase_price_names_the_field_and_adds_nothing() -> None:
    at = _api_only()
    at.radio(key="ag_source").set_value("Buy a node").run()
    at.selectbox(key="ag_gpu").set_value("b200").run()  # the catalog has no price for a B200 node
    capex = next(t for t in at.text_input if t.label == "Purchase price of one node [USD]")
    assert capex.value == ""
    capex.set_value("12,50").run()
    assert [_plain(e.value) for e in at.error] == [
        "Purchase price of one node: “12,50” has a comma in the wrong place; use a point for cents (9.50) and commas "
        "only between thousands (1,250)"
    ]
    assert not _scenario(at).nodes
    capex = next(t for t in at.text_input if t.label == "Purchase price of one node [USD]")
    capex.set_value("$450,000").run()
    at.button(key="ag_go").click().run()
    assert [_plain(e.value) for e in at.error] == [
        "Node power: a node to buy needs its GPU, purchase price and power"
    ], "the power was left blank"
    assert not _scenario(at).nodes
    next(n for n in at.number_input if n.label == "Node power at most [kW]").set_value(14.3).run()
    at.button(key="ag_go").click().run()
    node = _scenario(at).nodes[-1]
    assert (node.name, node.capex_usd, node.node_power_kw) == ("Owned 8×B200 (HGX/DGX) node", 450_000, 14.3)
    assert node.source.startswith("purchase price and node power entered by the user on ")


def test_a_model_that_fits_nowhere_is_said_before_anything_is_added() -> None:
    at = _api_only()
    at.selectbox(key="ag_instance").set_value("runpod-rtx-4090-community").run()
    at.selectbox(key="ag_model").set_value("llama-3.1-405b").run()
    assert [str(w.value) for w in at.warning if "does not fit" in str(w.value)] == [
        "Llama 3.1 405B does not fit on 8 GPUs of RTX 4090 in BF16: its weights need more memory than they have. "
        "Choose a larger node, more GPUs, a smaller model or a narrower precision."
    ]
    assert not [b for b in at.button if b.key == "ag_go"]
