"""The codebase's shape in numbers: Python files per folder and the longest functions (issue 11's closing figures).

    python scripts/layout_report.py [ROOT]      # default: this checkout

Counts ``*.py`` files per folder of the app's code (``economics``, ``cli``, ``reporting``, ``ui``, ``pages``,
``storage``, ``deploy``, with each sub-package on its own line), and lists the ten longest functions (lines
from ``def`` to the last line of the body). Pair it with ``duplicates`` for near-duplicate blocks.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

ROOMS = ("economics", "cli", "reporting", "ui", "pages", "storage", "deploy")


def files_per_folder(root: Path) -> Counter[str]:
    counts: Counter[str] = Counter()
    for room in ROOMS:
        for path in (root / room).rglob("*.py"):
            counts[str(path.parent.relative_to(root))] += 1
    return counts


def longest_functions(root: Path, most: int = 10) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for room in ROOMS:
        for path in sorted((root / room).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None:
                    length = node.end_lineno - node.lineno + 1
                    found.append((length, f"{path.relative_to(root)}:{node.lineno} {node.name}"))
    return sorted(found, reverse=True)[:most]


def main(argv: list[str]) -> int:
    root = Path(argv[0] if argv else Path(__file__).resolve().parent.parent)
    counts = files_per_folder(root)
    print(f"Python files per folder ({sum(counts.values())} in all):")
    for folder, n in sorted(counts.items()):
        print(f"  {folder:<24} {n:>3}")
    print("Ten longest functions [lines]:")
    for length, where in longest_functions(root):
        print(f"  {length:>4}  {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
