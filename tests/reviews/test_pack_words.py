"""The meeting pack in a finance reader's words (issue 12, items 1 and 9), for every preset scenario.

What the pack computes and writes (narrative, key figures, warnings, tables, reasons) must carry no field path
(``apis.0``), no option, node or price id, no model field name (``node_capex``, ``target_utilization``), no
engineer's symbol (β, J, TPOT, TTFT, SLO), no ``[1]`` unit, no Python ``None``/``nan``, no ``(s)`` plural and no
float noise. The scenario's own texts (names, notes, descriptions, sources as their authors wrote them) are
quoted, not computed, and are taken out before the check. The idle hours read the same figure in the narrative
and the key figures.
"""

from __future__ import annotations

import html
import io
import re
import zipfile
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest

from economics.compare import Snapshot
from economics.evaluate import evaluate
from economics.io.scenarios import list_presets, load_preset
from economics.price_book import price_book
from reporting.meeting_pack import MeetingPack, build_pack, csv_bundle, render_html

_ID_KEYS = re.compile(r"(^|_)ids?$")


def _strings(value: Any, *, ids: bool, key: str = "") -> Iterator[str]:
    """The scenario's ids (``ids=True``: strings under an ``id``/``…_id(s)`` key) or its free texts (names, notes,
    sources: every other string)."""
    if isinstance(value, str):
        if bool(_ID_KEYS.search(key)) == ids:
            yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, ids=ids, key=k)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, ids=ids, key=key)


def _texts(value: Any) -> Iterator[str]:
    return _strings(value, ids=False)


def _ids(value: Any) -> Iterator[str]:
    return _strings(value, ids=True)


def _visible(pack: MeetingPack) -> str:
    """The pack's visible text, without scripts and styles and without the scenario's own texts."""
    # the collapsed appendix with the scenario file (JSON, to reproduce every number) is data, not prose
    page = re.sub(r'<pre id="scenario-json">.*?</pre>', " ", render_html(pack), flags=re.S)
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", "\n", page))
    dump = pack.scenario.model_dump(mode="json")
    for s in sorted(set(_texts(dump)), key=len, reverse=True):
        if len(s) > 3:
            text = text.replace(s, " ")
    return text


@pytest.fixture(scope="module", params=[p.id for p in list_presets()])
def pack(request: pytest.FixtureRequest) -> MeetingPack:
    scenario = load_preset(request.param)
    # compared with itself after a 30% discount on every API, so the "what changed" tables are in the pack
    before = Snapshot(label="last quarter", scenario=scenario, result=evaluate(scenario), prices=price_book(scenario))
    discounted = scenario.model_copy(
        update={"apis": tuple(a.model_copy(update={"negotiated_discount_fraction": 0.3}) for a in scenario.apis)}
    )
    return build_pack(discounted, before=before, draws=100)


_FORBIDDEN = {
    "a field path": re.compile(r"\b(?:nodes|apis|owned_options|workloads|gpus|models)\.\d"),
    "a model field name": re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b"),
    "an engineer's symbol": re.compile(r"β|\bJ =|\bTPOT\b|\bTTFT\b|\bSLOs?\b|\bMBU =|\bMFU ="),
    "a dimensionless unit": re.compile(r"\[1\]|\[-\]"),
    "Python's None or nan": re.compile(r"\bNone\b|\bnan\b|\bNaN\b"),
    "a (s) plural": re.compile(r"\w\(s\)"),
    "float noise": re.compile(r"\d\.\d{7,}"),
}


def test_the_pack_reads_in_plain_words(pack: MeetingPack) -> None:
    text = _visible(pack)
    found = {
        what: sorted({text[max(0, m.start() - 40) : m.end() + 20] for m in pattern.finditer(text)})[:3]
        for what, pattern in _FORBIDDEN.items()
    }
    assert not {k: v for k, v in found.items() if v}


def test_the_pack_names_options_and_nodes_not_their_ids(pack: MeetingPack) -> None:
    text = _visible(pack)
    # an id is code (lowercase, dashes or underscores); a name that happens to equal its id is a word
    names = {str(x) for x in _texts(pack.scenario.model_dump(mode="json"))}
    ids = {i for i in _ids(pack.scenario.model_dump(mode="json")) if re.search(r"[-_]", i) and i not in names}
    leaked = sorted(i for i in ids if re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", text))
    assert not leaked


def test_the_narrative_and_the_key_figures_give_one_idle_figure() -> None:
    # the bank: one owned node, sunk in the cash view; its idle hours at full cost are S$10,624/month
    # (Overview's "Idle GPUs" card); the narrative used to say "the idle share costs S$0/month"
    pack = build_pack(load_preset("singapore-bank"), uncertainty=False, finance=False)
    plan = pack.result.plan
    assert plan is not None
    (node,) = [n for n in plan.nodes if n.kind == "owned"]
    idle = f"S${node.full_cost_usd_per_month * (1.0 - node.utilization) * 1.30:,.0f}/month"
    text = _visible(pack)
    assert text.count(idle) >= 2, idle  # the key figure and the narrative's sentence
    assert "costs S$0/month" not in text


def test_the_csv_bundle_reads_in_words(pack: MeetingPack) -> None:
    # headers in words with units in brackets, cells without ids or field names; decisions.csv keeps one
    # "Workload id" column on purpose, to join the files to the scenario
    dump = pack.scenario.model_dump(mode="json")
    names = {str(x) for x in _texts(dump)}
    ids = {i for i in _ids(dump) if re.search(r"[-_]", i) and i not in names}
    quoted = {"Why", "Why not", "Notes", "Source", "Meaning", "In words"}  # sentences checked on the page
    problems = []
    with zipfile.ZipFile(io.BytesIO(csv_bundle(pack))) as zf:
        for name in (n for n in zf.namelist() if n.endswith(".csv")):
            frame = pd.read_csv(zf.open(name), keep_default_na=False)
            problems += [f"{name}: header {c!r}" for c in frame.columns if re.search(r"[a-z]_[a-z]", c)]
            for column in frame.columns:
                if column in quoted or column == "Workload id":
                    continue
                cells = {str(v) for v in frame[column]}
                problems += [f"{name}: {column} = {v!r}" for v in cells & ids]
                problems += [f"{name}: {column} = {v!r}" for v in cells if re.fullmatch(r"[a-z]+(_[a-z0-9]+)+", v)]
            # float noise (7866.2609999999995; 0.9500000000000001) in a file finance opens in a spreadsheet: more
            # significant digits than any figure has (a price's own digits, 0.00036855, are not noise)
            numbers = re.findall(r"(?<![\w.])-?(\d+\.\d+)(?![\w.])", zf.read(name).decode("utf-8"))
            noise = [v for v in numbers if len(v.replace(".", "").lstrip("0")) > 12]
            problems += [f"{name}: {v}" for v in sorted(set(noise))[:3]]
    assert not problems
