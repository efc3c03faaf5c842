"""Words and amounts for text people read (the CLI, reasons, cards, messages): counts in the right number
("1 node", "2 nodes", never "node(s)"), amounts to compare with one number of decimals, and sentences that
start with a capital letter."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

#: Words whose written form or plural is not the word plus "s".
_FORMS: dict[str, tuple[str, str]] = {"gpu": ("GPU", "GPUs")}


#: The plan's route kinds (:data:`economics.routing.ROUTE_LABELS`, the engineer's "owned AR (batch)") in a finance
#: reader's words, wherever a person reads them: cards, tables, charts, the Argument page and the meeting pack.
#: "Batched": enough requests at once at peak to share a batch; "one request at a time": too few (the glossary has
#: the detail).
ROUTE_WORDS: dict[str, str] = {
    "owned AR (batch)": "owned GPUs, batched",
    "owned AR": "owned GPUs, one request at a time",
    "owned diffusion": "owned GPUs, diffusion model",
    "rented AR (batch)": "rented GPUs, batched",
    "rented AR": "rented GPUs, one request at a time",
    "rented diffusion": "rented GPUs, diffusion model",
    "frontier API": "frontier API",
    "API": "other API",
    "none feasible": "nothing feasible",
}


def route_words(label: str) -> str:
    """A route kind in words ("owned AR (batch)" → "owned GPUs, batched"); a label it does not know, as is."""
    return ROUTE_WORDS.get(label, label)


def joined(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def quoted(name: str) -> str:
    """A name from the scenario in quotation marks: “Code completion”."""
    return f"“{name}”"


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


def dollars_alike(*xs: float, max_places: int = 6, like: float | None = None) -> tuple[str, ...]:
    """Amounts to compare, with one number of decimals: cents, or four significant figures of the smallest
    amount under a dollar (at most ``max_places`` decimals: the pages and the pack show no more than six), zeros
    kept so that they line up. ``like``: the decimals of that amount instead, for the parts of a total, written
    as precisely as the total they add up to.

    >>> dollars_alike(0.2, 0.29063)
    ('$0.2000', '$0.2906')
    >>> dollars_alike(0.65, 1.04)
    ('$0.6500', '$1.0400')
    >>> dollars_alike(1.35, 6.5107)
    ('$1.35', '$6.51')
    >>> dollars_alike(0.00121, 0.001212, 0.001269)
    ('$0.001210', '$0.001212', '$0.001269')
    >>> dollars_alike(0.0000123), dollars_alike(0.0000123, max_places=8)
    (('$0.000012',), ('$0.00001230',))
    >>> dollars_alike(0.000423, 0.005)
    ('$0.000423', '$0.005000')
    >>> dollars_alike(0.003385, 0.1, like=0.103385), dollars_alike(0.039, 1.0, like=1.039)
    (('$0.0034', '$0.1000'), ('$0.04', '$1.00'))

    An amount that rounds to nothing at those decimals is "$0", as the pages write it in any other currency: a
    task whose cost is all failures read "$0.000000 paid to run it, $0.005000 expected cost of its failed tasks".

    >>> dollars_alike(0.0, 0.005, like=0.005), dollars_alike(-1e-9, 2e-7)
    (('$0', '$0.005000'), ('$0', '$0'))
    """
    small = [abs(x) for x in ((like,) if like is not None else xs) if 0 < abs(x) < 1]
    places = 2 if not small else min(max_places, max(2, 3 - math.floor(math.log10(min(small)))))
    return tuple("$0" if round(abs(x), places) == 0 else f"{'-' if x < 0 else ''}${abs(x):,.{places}f}" for x in xs)


#: A dollar amount in a sentence the model wrote ("$1,120,000", "-$0.2906", "−$5"): its sign and its digits.
#: The display edges (the app's and the meeting pack's ``ui.format.money_text``, the CLI's table) find the
#: amounts by this one pattern to re-state them in the display currency.
DOLLAR_AMOUNT = re.compile(r"([−-])?\$(\d[\d,]*(?:\.\d+)?)")


def dollar_value(match: re.Match[str]) -> float:
    """The signed amount a :data:`DOLLAR_AMOUNT` match stands for.

    >>> [dollar_value(m) for m in DOLLAR_AMOUNT.finditer("$1,120,000 less, −$5 and -$0.29 more")]
    [1120000.0, -5.0, -0.29]
    """
    value = float(match.group(2).replace(",", ""))
    return -value if match.group(1) else value


def sentence(text: str) -> str:
    """``text`` with a capital first letter: a reason or figure that opens with "it runs …" reads as a sentence.

    >>> sentence("it runs on GPUs the plan already pays for."), sentence("1.0 FLOP/byte"), sentence("")
    ('It runs on GPUs the plan already pays for.', '1.0 FLOP/byte', '')
    """
    return text[:1].upper() + text[1:]
