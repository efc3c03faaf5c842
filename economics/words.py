"""Counts in words for text people read (the CLI, reasons, messages): "1 node", "2 nodes", never "node(s)"."""

from __future__ import annotations

#: Words whose written form or plural is not the word plus "s".
_FORMS: dict[str, tuple[str, str]] = {"gpu": ("GPU", "GPUs")}


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and ``word`` in the right number; ``many`` for a plural that is not the word plus "s". The app's
    and the meeting pack's counts are this one (``ui.format.plural``, ``reporting.narrative.plural``).

    >>> plural(1, "node"), plural(0, "instance"), plural(2, "gpu"), plural(1, "more problem")
    ('1 node', '0 instances', '2 GPUs', '1 more problem')
    >>> plural(2, "batch", "batches"), plural(7, "workload"), plural(0, "GPU")
    ('2 batches', '7 workloads', '0 GPUs')
    """
    one, other = _FORMS.get(word, (word, many or f"{word}s"))
    return f"{n:,} {one if n == 1 else other}"
