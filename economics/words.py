"""Counts in words for text people read (the CLI, reasons, messages): "1 node", "2 nodes", never "node(s)"."""

from __future__ import annotations

#: Words whose written form or plural is not the word plus "s".
_FORMS: dict[str, tuple[str, str]] = {"gpu": ("GPU", "GPUs")}


def count(n: int, word: str) -> str:
    """``n`` and ``word`` in the right number.

    >>> count(1, "node"), count(0, "instance"), count(2, "gpu"), count(1, "more problem")
    ('1 node', '0 instances', '2 GPUs', '1 more problem')
    """
    one, many = _FORMS.get(word, (word, f"{word}s"))
    return f"{n:,} {one if n == 1 else many}"
