"""Rewrite references to the first design spec ("MODEL_SPEC §x.y", or a bare "§x.y") into ``docs/`` links.

The package was first written against a specification kept outside the repository; its content now lives in
``docs/``. This script maps each of the spec's sections to the page and anchor that restates it and rewrites
every reference in Python files (code, tests, benchmarks, scripts) and the README, in place:

    MODEL_SPEC §3.2            ->  docs/roofline.md#forward-pass
    (MODEL_SPEC §1.3, §2)      ->  (docs/inputs.md#model-shape, docs/model.md#parameter-counts)
    §7.2(c)                    ->  docs/diffusion.md#diffusion-examples (c)
    MODEL_SPEC (no section)    ->  the first design spec (docs/README.md#origin)

It is idempotent (a rewritten file has no "§" and no "MODEL_SPEC" left), so it can be re-run after merging
branches that still use the old references. A comment or docstring line that grows past the line limit is
re-wrapped at a space; any other overlong line is listed for a person to fix. Exit status 1 when a section has
no mapping or a line could not be wrapped.

Usage: python scripts/cite_docs.py [--check] [ROOT]
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import tokenize
from pathlib import Path

#: Section of the first spec -> page and anchor in docs/ that restates it.
SECTION_ANCHORS: dict[str, str] = {
    "0": "conventions.md#units",
    "1": "inputs.md#inputs",
    "1.1": "inputs.md#hardware",
    "1.2": "inputs.md#efficiency",
    "1.3": "inputs.md#model-shape",
    "2": "model.md#parameter-counts",
    "2.1": "model.md#parameter-counts",
    "2.2": "model.md#flops-per-token",
    "2.3": "model.md#kv-cache-bytes",
    "3": "roofline.md#forward-pass",
    "3.1": "roofline.md#forward-pass",
    "3.2": "roofline.md#forward-pass",
    "3.3": "roofline.md#worked-example-70b",
    "3.4": "roofline.md#prefill",
    "3.5": "roofline.md#roofline-checks",
    "4": "memory.md#kv-capacity",
    "5": "moe.md#mixture-of-experts",
    "5.1": "moe.md#distinct-experts",
    "5.2": "moe.md#moe-examples",
    "5.3": "moe.md#moe-checks",
    "6": "specdec.md#speculative-decoding",
    "6.1": "specdec.md#leviathan",
    "6.2": "specdec.md#batch-aware-speedup",
    "6.3": "specdec.md#optimized-ar",
    "6.4": "specdec.md#specdec-checks",
    "7": "diffusion.md#text-diffusion",
    "7.1": "diffusion.md#denoising-pass",
    "7.2": "diffusion.md#diffusion-examples",
    "7.3": "diffusion.md#quality-vs-parallelism",
    "7.4": "diffusion.md#diffusion-checks",
    "8": "serving.md#serving-and-queues",
    "8.1": "serving.md#continuous-batching",
    "8.2": "serving.md#slo-capacity",
    "8.3": "serving.md#static-batching",
    "8.4": "serving.md#serving-checks",
    "9": "costs.md#unit-costs",
    "9.1": "costs.md#node-cost",
    "9.2": "costs.md#cost-per-token",
    "9.3": "costs.md#api-price",
    "9.4": "costs.md#break-even",
    "9.5": "costs.md#cost-checks",
    "10": "quality.md#expected-cost",
    "11": "routing.md#routing-rule",
    "12": "calibration.md#golden-values",
    "13": "README.md#how-the-model-is-tested",
    "14": "limitations.md#limitations",
    "15": "references.md#references",
}

LINE_LIMIT = 120
ORIGIN = "the first design spec (docs/README.md#origin)"

# one section: "§3.2", "§ 8", "§7.2a", "§7.2(c)"; the letter names a worked example inside the section
_SECTION = r"§\s?(?P<num>\d+(?:\.\d+)?)(?:\((?P<p>[a-e])\)|(?P<l>[a-e])(?![A-Za-z]))?"
# "MODEL_SPEC" followed (possibly across a line break in a comment) by its first section
_PREFIXED = re.compile(r"MODEL_SPEC(?P<gap>[ \t]*(?:\n[ \t]*#?[ \t]*)?)(?=§)")
_SECTION_RE = re.compile(_SECTION)
_BARE_SPEC = re.compile(r"\bMODEL_SPEC\b")


class UnknownSection(ValueError):
    """A "§" reference to a section that has no entry in SECTION_ANCHORS."""


def _section(match: re.Match[str]) -> str:
    num = match.group("num")
    anchor = SECTION_ANCHORS.get(num)
    if anchor is None:
        raise UnknownSection(f"§{num}")
    letter = match.group("p") or match.group("l")
    return f"docs/{anchor}" + (f" ({letter})" if letter else "")


#: a reference followed by one of these words describes what the first spec said, which docs/ corrects
_CRITIQUE = re.compile(
    r"(?:MODEL_SPEC\s?)?"
    + _SECTION
    + r"(?P<verb> (?:writes|adds|prints|printed|would|has|divides|says)\b"
    + r"""|'s(?= (?:``|"|1/|extra|formula)))"""
)


def _critique(match: re.Match[str]) -> str:
    if match.group("verb") == "'s":
        return "the first spec's"
    return "the first spec (docs/departures.md#departures)" + match.group("verb")


_RANGE = re.compile(r"(?:MODEL_SPEC\s?)?§\s?(?P<a>\d+(?:\.\d+)?)\s?[–-]\s?§\s?(?P<b>\d+(?:\.\d+)?)")


def _range(match: re.Match[str]) -> str:
    first, last = (SECTION_ANCHORS.get(match.group(k)) for k in "ab")
    if first is None or last is None:
        raise UnknownSection(match.group(0))
    return f"docs/{first}" if first == last else f"docs/{first} to docs/{last}"


def rewrite_text(text: str) -> str:
    """Every spec reference in ``text`` as a docs/ link; text without one comes back unchanged.

    >>> rewrite_text("(MODEL_SPEC §1.3, §2, §7.2a)")
    '(docs/inputs.md#model-shape, docs/model.md#parameter-counts, docs/diffusion.md#diffusion-examples (a))'
    >>> rewrite_text("see MODEL_SPEC for the derivation")
    'see the first design spec (docs/README.md#origin) for the derivation'
    >>> rewrite_text("MODEL_SPEC §9.4 writes U ≤ 1/(p2a·u), §8.1's extra /e")
    "the first spec (docs/departures.md#departures) writes U ≤ 1/(p2a·u), the first spec's extra /e"
    >>> rewrite_text("(MODEL_SPEC §8–§11)")
    '(docs/serving.md#serving-and-queues to docs/routing.md#routing-rule)'
    >>> rewrite_text(rewrite_text("§8.2 and §8.3")) == rewrite_text("§8.2 and §8.3")
    True
    """
    text = _CRITIQUE.sub(_critique, text)
    text = _RANGE.sub(_range, text)
    text = re.sub("(" + _SECTION + ")'s", r"\1", text)  # "§9.1's defaults" -> "docs/costs.md#node-cost defaults"
    # drop the word and keep a line break between it and its section (a comment continues on the next line)
    text = _PREFIXED.sub(lambda m: m.group("gap") if "\n" in m.group("gap") else "", text)
    text = _SECTION_RE.sub(_section, text)
    text = _BARE_SPEC.sub(ORIGIN, text)
    return re.sub(r"(\.\s+(?:# )?)the first (spec|design spec)", r"\1The first \2", text)


def _prose_spans(source: str) -> dict[int, tuple[int, int, str]]:
    """Per 1-based line: the columns where prose may be cut, and the prefix of a continuation line.

    Prose is a comment or the inside of a triple-quoted string (docstrings); the quotes stay where they are.
    """
    spans: dict[int, tuple[int, int, str]] = {}
    lines = source.splitlines()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return spans
    for tok in tokens:
        (r0, c0), (r1, c1) = tok.start, tok.end
        if tok.type == tokenize.COMMENT:
            indent = lines[r0 - 1][: len(lines[r0 - 1]) - len(lines[r0 - 1].lstrip())]
            spans[r0] = (c0 + 2, len(lines[r0 - 1]), indent + "# ")
        elif tok.type == tokenize.STRING:
            quote = tok.string.lstrip("rRbBuUfF")[:3]
            if quote not in ('"""', "'''"):
                continue
            for row in range(r0, r1 + 1):
                line = lines[row - 1]
                indent = line[: len(line) - len(line.lstrip())]
                bullet = _BULLET.match(line[len(indent) :])
                if bullet:  # a list item continues under its text, not under its marker
                    indent += " " * len(bullet.group(0))
                lo = c0 + len(tok.string) - len(tok.string.lstrip("rRbBuUfF")) + 3 if row == r0 else len(indent)
                hi = c1 - 3 if row == r1 else len(line)
                spans[row] = (lo, hi, indent)
    return spans


_BANNER = re.compile(r"^(?P<head>\s*# -+ .*? )(?P<dashes>-{4,})$")
_BULLET = re.compile(r"(?:[*-]|\d+\.) ")
_NOT_PROSE = re.compile(r"""^(?:[-*|=+"']|>>>|\.\.\.|```|\d+[.)] )""")


def _continues(line: str, prefix: str, carry: str) -> bool:
    """True when ``line`` continues the paragraph that ``carry`` was cut from (same prefix, plain text)."""
    if carry.endswith(('"""', "'''")) or not line.startswith(prefix):
        return False
    body = line[len(prefix) :]
    return bool(body.strip()) and not body[0].isspace() and not _NOT_PROSE.match(body)


def rewrite_python(source: str) -> tuple[str, list[int]]:
    """Rewrite a Python file and re-flow prose that grew past the line limit.

    A comment or docstring line that is too long is cut at its last fitting space and the rest is pushed to the
    front of the next line of the same paragraph (or onto a line of its own), so paragraphs stay filled.
    Returns the text and the 1-based numbers of lines that could not be fixed.
    """
    new = rewrite_text(source)
    if new == source:
        return source, []
    before = {line for line in source.splitlines() if len(line) > LINE_LIMIT}
    spans = _prose_spans(new)
    out: list[str] = []
    bad: list[int] = []
    pending = [(row, line, spans.get(row)) for row, line in enumerate(new.splitlines(), start=1)]
    pending.reverse()  # a stack: pop() takes the next line
    while pending:
        row, line, span = pending.pop()
        if len(line) <= LINE_LIMIT or line in before:
            out.append(line)
            continue
        banner = _BANNER.match(line)
        if banner and len(banner["dashes"]) - (len(line) - LINE_LIMIT) >= 3:
            out.append(line[:LINE_LIMIT])
            continue
        doctest = line.lstrip().startswith((">>>", "..."))
        cut = -1 if span is None or doctest else line.rfind(" ", span[0] + 1, min(span[1], LINE_LIMIT + 1))
        if span is None or cut < 0 or not line[:cut].strip():
            bad.append(row)
            out.append(line)
            continue
        out.append(line[:cut])
        prefix, text = span[2], line[cut + 1 :]
        if pending and pending[-1][2] is not None and pending[-1][2][2] == prefix:
            nrow, nline, nspan = pending[-1]
            if nspan is not None and _continues(nline, prefix, text):
                pending[-1] = (
                    nrow,
                    prefix + text + " " + nline[len(prefix) :],
                    (nspan[0], nspan[1] + len(text) + 1, prefix),
                )
                continue
        rest = prefix + text
        pending.append((row, rest, (len(prefix), span[1] - cut - 1 + len(prefix), prefix)))
    return "\n".join(out) + ("\n" if new.endswith("\n") else ""), bad


def targets(root: Path) -> list[Path]:
    """Python files and READMEs, outside docs/, virtual environments and this script."""
    skip = {".venv", ".git", "docs", "node_modules", "build"}
    files = [p for p in root.rglob("*.py") if not skip & set(p.relative_to(root).parts)]
    files = [p for p in files if p.resolve() != Path(__file__).resolve()]
    readmes = [p for p in root.rglob("README.md") if not skip & set(p.relative_to(root).parts)]
    return sorted([*files, *readmes])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("root", nargs="?", default=Path(__file__).resolve().parent.parent, type=Path)
    parser.add_argument("--check", action="store_true", help="only list files that would change")
    args = parser.parse_args(argv)
    status = 0
    for path in targets(args.root):
        text = path.read_text(encoding="utf-8")
        try:
            if path.suffix == ".py":
                new, bad = rewrite_python(text)
            else:
                new, bad = rewrite_text(text), []
        except UnknownSection as exc:
            print(f"{path}: no docs/ anchor for {exc}", file=sys.stderr)
            status = 1
            continue
        for row in bad:
            print(f"{path}:{row}: longer than {LINE_LIMIT} characters after the rewrite; wrap it by hand")
            status = 1
        if new != text:
            print(f"{'would rewrite' if args.check else 'rewrote'} {path.relative_to(args.root)}")
            if args.check:
                status = 1
            else:
                path.write_text(new, encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main())
