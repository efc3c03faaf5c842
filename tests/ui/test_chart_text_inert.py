"""A shared scenario's names are typed by whoever made the link, and plotly draws some HTML in any text it shows
(trace names, hover text, categories, titles): a workload called ``<a href="https://…">…</a>`` became a
clickable link in four pages' charts. Every chart a page draws is checked here with such names everywhere a
scenario has one; the browser side (no link in the drawn SVG) is tests/browser/test_untrusted_names.py."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from economics.io.scenarios import default_scenario, encode
from economics.scenario import Scenario
from tests.ui.helpers import run_page
from tests.ui.test_chart_specs import PAGES
from ui.charts.chart import Chart, inert_text

LINK = '<a href="https://evil.example">pay here</a>'
#: The same in markdown, and bare addresses markdown would link: widget labels and captions are markdown.
MD_LINKS = "[pay](https://evil.example/md) www.evil.example/w"
#: Any tag plotly would draw that the house charts do not write themselves.
FOREIGN_TAG = re.compile(r'<(?!br>|/?b>|/?extra>|/span>|span style="font-size:\d+px">)[a-z/!][^<>]*>', re.IGNORECASE)


def hostile_scenario() -> Scenario:
    s = default_scenario()
    return s.model_copy(
        update={
            "name": f"Bank {LINK} {MD_LINKS}",
            "workloads": tuple(
                w.model_copy(update={"name": f"{LINK}{i} {MD_LINKS}"}) for i, w in enumerate(s.workloads)
            ),
            "apis": tuple(a.model_copy(update={"name": f"API {LINK}{i} {MD_LINKS}"}) for i, a in enumerate(s.apis)),
            "nodes": tuple(n.model_copy(update={"name": f"Node {LINK}{i} {MD_LINKS}"}) for i, n in enumerate(s.nodes)),
        }
    )


@pytest.mark.parametrize(("page", "query"), PAGES)
def test_no_chart_draws_a_tag_from_a_name(page: str, query: dict[str, str]) -> None:
    at = run_page(page, query={**query, "s": encode(hostile_scenario())})
    specs = [c.proto.spec for c in at.get("plotly_chart")]
    assert specs
    for spec in specs:
        texts = _strings(json.loads(spec)["data"]) + _strings(
            {k: v for k, v in json.loads(spec)["layout"].items() if k != "template"}
        )
        assert not [t for t in texts if FOREIGN_TAG.search(t)], [t for t in texts if FOREIGN_TAG.search(t)][:3]
    if page in {"5_workloads", "1_overview"}:  # the names are there, written as characters
        assert any("&lt;a href=" in s for s in specs)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_the_house_markup_stays_and_everything_else_is_written_as_characters() -> None:
    c = Chart('Title<br><span style="font-size:12px">for <i>you</i></span>', "x [1]", "y [1]")
    c.add(
        x=["<b>A</b>", "<script>x</script>"],
        y=[1.0, 2.0],
        name="<b>bold</b> <A HREF='https://x.example'>x</a>",
        hovertemplate="<b>%{x}</b><br>%{y}<extra></extra>",
        customdata=np.array([["<img src=x>", 1.0], ["ok", 2.0]], dtype=object),
    )
    fig = c.figure()
    trace = fig.data[0]
    assert trace.name == "<b>bold</b> &lt;A HREF='https://x.example'&gt;x&lt;/a&gt;"
    assert list(trace.x) == ["<b>A</b>", "&lt;script&gt;x&lt;/script&gt;"]
    assert trace.hovertemplate == "<b>%{x}</b><br>%{y}<extra></extra>"
    assert trace.customdata[0][0] == "&lt;img src=x&gt;"
    assert trace.customdata[0][1] == 1.0
    assert fig.layout.title.text == 'Title<br><span style="font-size:12px">for &lt;i&gt;you&lt;/i&gt;</span>'
    assert inert_text("3 < 4 > 2") == "3 &lt; 4 &gt; 2"
