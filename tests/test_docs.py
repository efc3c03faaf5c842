"""The model's documentation stays reachable: every ``docs/<page>.md#<section>`` cited anywhere points at a
section that exists, no reference to the old outside specification is left, and the docs' own links resolve.

Sections are the GitHub anchors of Markdown headings (lower case, punctuation dropped, spaces to hyphens) or
explicit ``<a id="…">`` tags, so a link that works here works on GitHub.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SKIP = {".venv", ".git", "node_modules", "build", "test-results"}
CITE = re.compile(r"docs/(?P<page>[A-Za-z0-9_./-]+\.md)#(?P<anchor>[a-z0-9_-]+)")
# spelled so that this file does not match itself (and scripts/cite_docs.py leaves it alone)
OLD_NAME = "MODEL" + "_SPEC"
OLD_SECTION = re.compile("\u00a7" + r"\s?\d")
LINK = re.compile(r"\]\((?P<page>[A-Za-z0-9_./-]*\.md)?#(?P<anchor>[a-z0-9_-]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading.

    >>> slug("Worked example 70B")
    'worked-example-70b'
    >>> slug("Quality vs parallelism")
    'quality-vs-parallelism'
    """
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@cache
def anchors(page: Path) -> frozenset[str]:
    """Every section anchor of a Markdown page."""
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)  # a '#' inside a code block is not a heading
    found = {slug(m) for m in re.findall(r"^#{1,6} +(.+?) *#*$", text, flags=re.MULTILINE)}
    found |= set(re.findall(r'<a id="([^"]+)">', text))
    return frozenset(found)


def sources() -> list[Path]:
    """Code, tests, scripts, templates and READMEs outside docs/ (where citations live)."""
    files = [
        p
        for pattern in ("*.py", "*.md", "*.html", "*.j2", "*.toml")
        for p in ROOT.rglob(pattern)
        if not SKIP & set(p.relative_to(ROOT).parts) and DOCS not in p.parents
    ]
    return sorted(files)


def citations() -> list[tuple[str, str, str]]:
    """(where, page, anchor) for every docs/ citation outside docs/."""
    out = []
    for path in sources():
        for row, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for m in CITE.finditer(line):
                out.append((f"{path.relative_to(ROOT)}:{row}", m["page"], m["anchor"]))
    return out


def test_the_code_cites_the_docs() -> None:
    # guards the test itself: if the pattern stopped matching, every citation would pass vacuously
    assert len(citations()) > 100


@pytest.mark.parametrize(("where", "page", "anchor"), citations())
def test_every_docs_citation_points_at_a_section(where: str, page: str, anchor: str) -> None:
    target = DOCS / page
    assert target.is_file(), f"{where}: docs/{page} does not exist"
    assert anchor in anchors(target), f"{where}: docs/{page} has no section #{anchor}"


def test_no_reference_to_the_old_outside_spec_is_left() -> None:
    stale = []
    for path in sources():
        if path.name == "cite_docs.py":  # holds the old → new table on purpose
            continue
        for row, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if OLD_NAME in line or OLD_SECTION.search(line):
                stale.append(f"{path.relative_to(ROOT)}:{row}: {line.strip()[:80]}")
    assert not stale, "run scripts/cite_docs.py:\n" + "\n".join(stale)


def test_links_between_docs_pages_resolve() -> None:
    broken = []
    for page in sorted(DOCS.glob("*.md")):
        for m in LINK.finditer(page.read_text(encoding="utf-8")):
            target = DOCS / m["page"] if m["page"] else page
            if not target.is_file() or m["anchor"] not in anchors(target):
                broken.append(f"{page.name}: {m.group(0)}")
    assert not broken, "\n".join(broken)


def test_every_page_is_in_the_index() -> None:
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    missing = [p.name for p in DOCS.glob("*.md") if p.name != "README.md" and f"]({p.name}" not in index]
    assert not missing


def test_the_rewrite_table_points_at_existing_sections() -> None:
    from scripts.cite_docs import SECTION_ANCHORS

    for section, target in SECTION_ANCHORS.items():
        page, anchor = target.split("#")
        assert anchor in anchors(DOCS / page), f"{section} -> {target}"


@pytest.mark.parametrize(("page", "anchor"), [("routing.md", "fleet-plan"), ("calibration.md", "calibration")])
def test_sections_other_issues_fill_exist(page: str, anchor: str) -> None:
    # issue 10 writes the fleet plan and issue 13 the calibration into these sections
    assert anchor in anchors(DOCS / page)


# ---- scripts/cite_docs.py, the rewrite the coordinator re-runs after merging --------------------------------------

OLD = "MODEL" + "_SPEC \u00a7"  # the old citation, spelled so this file stays out of the rewrite


def test_the_rewrite_reflows_prose_and_is_idempotent() -> None:
    from scripts.cite_docs import LINE_LIMIT, rewrite_python

    source = (
        "def f() -> None:\n"
        f'    """A long summary that cites the spec and grows past the line limit after the rewrite ({OLD}9.4) [1].\n'
        "\n"
        f"    * a list item that also cites the spec twice, once here ({OLD}8.2) and once there ({OLD}8.3), and\n"
        "      continues on a second line of the same item.\n"
        '    """\n'
        f"    x = 1  # a trailing comment that cites {OLD}3.2 and is long enough to need a second line, surely\n"
    )
    once, bad = rewrite_python(source)
    assert bad == []
    assert all(len(line) <= LINE_LIMIT for line in once.splitlines())
    assert "docs/costs.md#break-even" in once
    assert "docs/serving.md#slo-capacity" in once
    assert "docs/serving.md#static-batching" in once
    assert "\u00a7" not in once
    compile(once, "<rewritten>", "exec")  # still Python
    # the list item's continuation stays under the item's text
    item = once.splitlines().index(next(x for x in once.splitlines() if x.lstrip().startswith("* a list item")))
    assert once.splitlines()[item + 1].startswith("      ")
    assert rewrite_python(once) == (once, [])


def test_the_tree_needs_no_rewrite() -> None:
    from scripts.cite_docs import main

    assert main(["--check", str(ROOT)]) == 0


def test_files_the_docs_name_exist() -> None:
    # "Code: `economics/costs.py`" must keep pointing at a file when modules move
    named = set()
    for page in DOCS.glob("*.md"):
        named |= set(re.findall(r"`((?:economics|ui|reporting|tests|benchmarks|scripts)/[\w/.-]+)`", page.read_text()))
    missing = sorted(n for n in named if not (ROOT / n.rstrip("/")).exists())
    assert len(named) > 10
    assert missing == []
