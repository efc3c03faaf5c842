"""Every display name in a preset is in a finance reader's words: no option, node, price or catalog id, and no
code-case string such as an instance type ("p5.48xlarge", "a3-highgpu-8g") or an offer id ("aws-p5")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from economics.io.scenarios import PRESET_DIR, load_scenario
from economics.scenario import Scenario

PRESET_FILES = sorted(PRESET_DIR.glob("*.json"))
#: A lower-case word joined by '-' or '.' to something holding a digit ("aws-p5", "p5.48xlarge",
#: "a3-highgpu-8g", "gpt-5"), or a word mixing lower-case letters and digits ("p5", "a3", "8g"); product names
#: a reader knows ("H100", "70B", "GPT-5", "EAGLE-3", "LLaDA-8B", "3.1") start upper-case or are numbers.
CODE_CASE = re.compile(r"(?<![\w.-])(?:[a-z][a-z0-9]*[-.][\w.-]*\d[\w.-]*|[a-z]+\d+[a-z\d]*|\d+[a-z]{2,}\w*)(?![\w-])")


def display_names(s: Scenario) -> list[str]:
    names = [s.name, *(n.name for n in s.nodes), *(o.name for o in s.owned_options), *(a.name for a in s.apis)]
    names += [w.name for w in s.workloads] + [g.name for g in s.gpus] + [m.name for m in s.models]
    return names


def ids(s: Scenario) -> set[str]:
    out = {n.id for n in s.nodes} | {o.id for o in s.owned_options} | {a.id for a in s.apis}
    out |= {w.id for w in s.workloads} | {g.id for g in s.gpus} | {m.id for m in s.models}
    out |= {p for p in (getattr(x, "price_id", None) for x in [*s.nodes, *s.apis]) if p}
    return out


def id_like_tokens(name: str, known_ids: set[str]) -> list[str]:
    """The tokens of ``name`` that are one of ``known_ids`` (as a whole word, case as written) or code-case."""
    found = [i for i in known_ids if re.search(r"(?<![\w.-])" + re.escape(i) + r"(?![\w-])", name)]
    return found + CODE_CASE.findall(name)


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("70B, AR + EAGLE (8 GPUs, runpod)", True),  # the node id, the bug this test was written for
        ("AWS p5.48xlarge on demand", True),
        ("GCP a3-highgpu-8g 1-year commitment", True),
        ("Rented on aws-p5", True),
        ("Rented 8× H100 (AWS, on demand)", False),
        ("8B, AR + EAGLE-3 (1 GPU, rented, Google Cloud 1-year commitment)", False),
        ("GPT-5 mini API", False),
        ("Llama 3.1 70B (also Llama 3.3 70B)", False),
    ],
)
def test_the_check_tells_ids_from_plain_words(name: str, bad: bool) -> None:
    assert bool(id_like_tokens(name, {"runpod", "aws-p5", "gpt-5"})) is bad


@pytest.mark.parametrize("path", PRESET_FILES, ids=lambda p: p.stem)
def test_no_display_name_carries_an_id(path: Path) -> None:
    s = load_scenario(path)
    known = ids(s)
    found = [(n, t) for n in display_names(s) if (t := id_like_tokens(n, known))]
    assert not found, found
