"""Display formatting: the one place where SI values become $/Mtok, ms, GB, % and thousands separators.

Every function takes the SI value the economics package returns (USD, seconds, bytes, fractions) and returns
a string. ``inf``, ``nan`` and ``None`` become an explicit word instead of a misleading number.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import pandas as pd

from economics import DOLLAR_AMOUNT, dollar_value
from economics import plural as plural  # 1 workload, 3 workloads, 2 batches: one helper for app, pack and CLI
from economics.price_book import ITEM_LABEL
from economics.units import GB
from economics.words import ROUTE_WORDS as ROUTE_WORDS  # the route kinds in words: app, pack and CLI
from economics.words import route_words as route_words

DASH = "—"


def _none(x: float | None, inf_text: str) -> str:
    if x is None or math.isnan(x):
        return DASH
    return inf_text


def usd(x: float | None, *, inf_text: str = "not reachable", cents: bool = True) -> str:
    """Money with a sensible number of digits: $1,234,567 · $15.23 · $0.0021; ``cents=False`` rounds amounts
    of a dollar or more to whole dollars (a row of headline figures: $692 beside $2,665, not $691.82)."""
    if x is None or not math.isfinite(x):
        return _none(x, inf_text)
    a = abs(x)
    if a >= 1000 or (not cents and a >= 1):
        text = f"${a:,.0f}"
    elif round(a, 4) >= 1:  # $1.00 and up; 0.99999 too, which four decimals round to "1.0000" ("$1." once)
        text = f"${a:,.2f}"
    elif round(a, 6) == 0:  # below a millionth of a dollar: zero with float noise ("$1e-09" read as code)
        return "$0"
    else:  # two significant digits under a tenth of a cent ($0.00052, $0.000053), else up to four decimals; at
        # least the cents ("$0.50", not "$0.5")
        places = min(6, 1 - math.floor(math.log10(a))) if a < 0.001 else 4
        digits = f"{a:.{places}f}".rstrip("0")
        text = "$" + digits + "0" * max(0, 2 - len(digits.split(".")[1]))
    return f"−{text}" if x < 0 else text


def usd_range(low: float, high: float) -> str:
    """A likely range with both ends as precise as each other: "$700–$907" or "$13.60–$18.72", not
    "$910.21–$1,179" (an amount of $1,000 or more is whole dollars in :func:`usd`, one under it has cents)."""
    cents = max(abs(low), abs(high)) < 1000
    return f"{usd(low, cents=cents)}–{usd(high, cents=cents)}"


def whole_parts(amounts: Sequence[float]) -> list[int]:
    """``amounts`` rounded to whole units so that they add up to their own total rounded (largest remainder):
    parts shown beside their total then add up to it, as finance expects of a page. Rounded one by one,
    2,459.81 and 4,714.63 showed 2,460 + 4,715 = 7,175 under a total of 7,174.

    >>> whole_parts([2459.81, 4714.63]), whole_parts([0.4, 0.4, 0.4]), whole_parts([7881.4, 12556.6])
    ([2460, 4714], [1, 0, 0], [7881, 12557])
    """
    floors = [math.floor(a) for a in amounts]
    left = round(math.fsum(amounts)) - sum(floors)
    by_remainder = sorted(range(len(amounts)), key=lambda i: (floors[i] - amounts[i], i))  # largest remainder first
    for i in by_remainder[: max(0, left)]:
        floors[i] += 1
    return floors


def usd_per_mtok(x: float | None, *, inf_text: str = "not feasible") -> str:
    """A cost per million tokens [USD/Mtok]: $0.87/Mtok, $12.40/Mtok."""
    if x is None or not math.isfinite(x):
        return _none(x, inf_text)
    if abs(x) < 0.0005:  # rounds to $0.000: a zero with float noise, or sunk capacity in the cash view
        return "$0/Mtok"
    return f"{usd(x)}/Mtok" if abs(x) >= 1 else f"${x:.3f}/Mtok"


def usd_per_month(x: float | None) -> str:
    """[USD/month], rounded to whole dollars."""
    if x is None or not math.isfinite(x):
        return _none(x, "unbounded")
    return f"{'−' if x < 0 else ''}${abs(x):,.0f}/month"


def pct(x: float | None, digits: int = 0) -> str:
    """A fraction as a percentage: 0.263 → 26%."""
    if x is None or not math.isfinite(x):
        return _none(x, "never")
    return f"{_no_negative_zero(100 * x, digits):.{digits}f}%"


def gb(bytes_: float) -> str:
    """Decimal gigabytes (1 GB = 1e9 B)."""
    return f"{bytes_ / GB:,.1f} GB"


def count(x: float | None, digits: int = 0) -> str:
    """A plain number with thousands separators; ∞ for inf."""
    if x is None or not math.isfinite(x):
        return _none(x, "∞")
    return f"{_no_negative_zero(x, digits):,.{digits}f}"


def _no_negative_zero(x: float, digits: int) -> float:
    """``x``, or 0.0 when it rounds to zero at ``digits`` decimals: -0.00001 read "-0%" and -0.0 read "-0"."""
    return 0.0 if round(x, digits) == 0 else x


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")
#: Where Streamlit's markdown (GitHub-flavoured) would turn plain text into a link even when every markdown
#: character is escaped: a scheme's "://", "www." and an e-mail's "@". A word joiner (U+2060, invisible and
#: zero-width) after the colon, after "www" or after the "@" keeps the text as it reads and makes it no link.
_AUTOLINK = re.compile(r"(?i)(:)(?=//)|\b(www)(?=\.)|(@)")
WORD_JOINER = "\u2060"


def md_escape(text: str) -> str:
    """Text from a scenario (a name typed by someone else) made inert in Streamlit markdown: no links,
    images, HTML or formatting can be smuggled in through a shared link or an uploaded file's name.

    >>> md_escape("**Q4** [go](https://x.example)").replace(WORD_JOINER, "|")
    '\\\\*\\\\*Q4\\\\*\\\\* \\\\[go\\\\]\\\\(https\\\\:|//x\\\\.example\\\\)'
    """
    text = _AUTOLINK.sub(lambda m: m.group(0) + WORD_JOINER, text.replace("\n", " "))
    return _MD_SPECIAL.sub(r"\\\1", text)


#: How a display currency is written before an amount; others get their ISO code and a space.
CURRENCY_PREFIX = {"USD": "$", "SGD": "S$", "EUR": "€", "GBP": "£", "JPY": "¥"}
#: A money column's header: "[USD/Mtok output]", "[SGD/task]", "[CHF]": a currency code (any in the FX table a
#: user may extend, not only those with a prefix above), then its unit.
_MONEY_HEADER = re.compile(r"\[([A-Z]{3})(/[^\]]*)?\]")


def money_header(column: str) -> tuple[str, str] | None:
    """The currency code and unit of a money column's header, ``None`` for any other column (the dashboard's
    tables and the meeting pack format money by it).

    >>> money_header("Cost [SGD/Mtok output]"), money_header("NPV [CHF]"), money_header("Energy [kWh/Mtok output]")
    (('SGD', '/Mtok output'), ('CHF', ''), None)
    """
    m = _MONEY_HEADER.search(column)
    return None if m is None else (m.group(1), m.group(2) or "")


def money(
    x_usd: float | None,
    code: str = "USD",
    units_per_usd: float = 1.0,
    *,
    inf_text: str = "not reachable",
    cents: bool = True,
) -> str:
    """An amount computed in USD, shown in the display currency at ``units_per_usd``: S$1,300 · $15.23.

    The conversion happens here, at the display edge, and nowhere else. A rate of 1 in USD is :func:`usd`.
    """
    if x_usd is None or not math.isfinite(x_usd):
        return usd(x_usd, inf_text=inf_text)
    text = usd(x_usd * units_per_usd, inf_text=inf_text, cents=cents)
    return text.replace("$", CURRENCY_PREFIX.get(code, f"{code} "), 1) if code != "USD" else text


def currency_prefix(code: str) -> str:
    """How ``code`` is written before an amount on an axis or in a hover: $, S$, or the code and a space."""
    return CURRENCY_PREFIX.get(code, f"{code} ")


#: An amount under one unit as :func:`money` writes it ("S$0.26", "−€0.0047"): its decimals.
_SMALL_AMOUNT = re.compile(r"(?<![\d,])0\.(\d+)$")


def money_text(text: str, code: str = "USD", units_per_usd: float = 1.0) -> str:
    """A sentence the economics package wrote in US dollars, every dollar amount shown in the display currency.

    Economics keeps computing and writing in USD; this is the display edge's conversion of its texts (reasons,
    flip thresholds, close calls). In USD at a rate of 1 the text is returned unchanged.

    Converted amounts under one unit are written with the same decimals within a sentence (up to six, as the
    pages show no more), so a comparison reads as one: "S$0.2600/task vs S$0.3778", not "S$0.26/task vs
    S$0.3778" (the first had lost its zeros in the conversion), and the parts of a cost line up with it.

    >>> money_text("J = $0.2/task vs $3,984/Mtok", "SGD", 1.3)
    'J = S$0.26/task vs S$5,179/Mtok'
    >>> money_text("likely $700.16–$907.20 per Mtok", "SGD", 1.3)
    'likely S$910–S$1,179 per Mtok'
    >>> money_text("J = $0.2/task; vs $0.2906", "SGD", 1.3)
    'J = S$0.2600/task; vs S$0.3778'
    >>> money_text("J = $0.003640/task ($0.000410 paid to run it, $0.003230 expected cost of its failed tasks)",
    ...            "SGD", 1.3)
    'J = S$0.00473/task (S$0.00053 paid to run it, S$0.00420 expected cost of its failed tasks)'
    """
    if code == "USD" and units_per_usd == 1.0:
        return text
    found = list(DOLLAR_AMOUNT.finditer(text))
    values = [dollar_value(m) for m in found]
    amounts = [money(v, code, units_per_usd) for v in values]
    for i in range(len(found) - 1):  # a range "$700–$907" converted stays alike: "S$910–S$1,179"
        joined = text[found[i].end() : found[i + 1].start()] == "–"
        if joined and max(abs(values[i]), abs(values[i + 1])) * units_per_usd >= 1000:
            amounts[i], amounts[i + 1] = (money(v, code, units_per_usd, cents=False) for v in values[i : i + 2])
    small = [_SMALL_AMOUNT.search(a) for a in amounts]
    places = min(6, max((len(m.group(1)) for m in small if m), default=0))

    def alike(amount: str, m: re.Match[str] | None, value: float) -> str:
        """``amount`` with ``places`` decimals, rounded from the converted value (not padded with zeros: 0.004732
        is "0.00473" beside "0.00053", not "0.00470")."""
        if m is None or len(m.group(1)) >= places:
            return amount
        return amount[: m.start(0)] + f"{value:.{places}f}" + amount[m.end(1) :]

    out, end = [], 0
    for where, amount, m, value in zip(found, amounts, small, values, strict=True):
        out += [text[end : where.start()], alike(amount, m, abs(value) * units_per_usd)]
        end = where.end()
    out.append(text[end:])
    return "".join(out)


def duration(seconds: float | None) -> str:
    """A duration in the unit a person uses: 30 ms, 1.5 s, 12 min, 8 h, 3 days."""
    if seconds is None or not math.isfinite(seconds):
        return _none(seconds, "no limit")
    for size, unit in ((86_400.0, "days"), (3600.0, "h"), (60.0, "min"), (1.0, "s")):
        if seconds >= size:
            value = seconds / size
            text = f"{value:,.0f}" if value >= 10 or value == int(value) else f"{value:.1f}"
            return f"{text} {'day' if unit == 'days' and text == '1' else unit}"
    return f"{seconds * 1000:.3g} ms"


#: Units of the price book in words ("USD" is replaced by the display currency's prefix where shown).
PRICE_UNIT_WORDS: dict[str, str] = {
    "USD/GPU-h": "$ per GPU-hour",
    "USD": "$ per node",  # the one price in plain dollars is a node's purchase price
    "USD/GPU": "$ per GPU",
    "USD/kWh": "$ per kWh",
    "USD/(kW·month)": "$ per kW-month",
    "USD/Mtok": "$ per million tokens",
}


def price_status(stale: bool, age_days: float | None, source: str) -> str:
    """ "⚠ stale", "⚠ dated after the review date" or "current", then "(assumed)" when the source says it is an
    assumption: a reader saw the owned node's prices with a blank status and could not tell checked from assumed.
    The page's price book and the meeting pack's say it alike."""
    if age_days is not None and not pd.isna(age_days) and age_days < 0:
        status = "⚠ dated after the review date"
    else:
        status = "⚠ stale" if stale else "current"
    return f"{status} (assumed)" if "[assumption]" in source else status


def price_statuses(book: pd.DataFrame) -> list[str]:
    """:func:`price_status` of every row of a price book frame (:func:`economics.price_book.price_book_frame`)."""
    return [
        price_status(bool(x), a, str(src))
        for x, a, src in zip(book["stale"], book["age_days"], book["source"], strict=True)
    ]


def price_age(age_days: pd.Series) -> pd.Series:
    """Prices' ages at the review date [days], blank for a price dated after it (its status says so): "−7 days"
    read as a typo in the meeting pack's price book."""
    return age_days.where(age_days >= 0)


def price_item_words(item: str) -> str:
    """A price book item in words (:data:`economics.price_book.ITEM_LABEL`, the app's and the pack's one list);
    an item it does not know is written with spaces."""
    return ITEM_LABEL.get(item, item.replace("_", " "))


#: Symbols and code words in texts the economics package writes, and the words a finance reader uses.
#: Applied at the display edge only (the economics texts keep their notation for engineers and the CLI).
#: The scenario's list sections in words, for problems found in a file.
_SECTION_WORDS = {
    "nodes": "Node offer",
    "apis": "API",
    "owned_options": "Owned option",
    "workloads": "Workload",
    "gpus": "GPU",
    "models": "Model",
}
#: A field path's section, as the economics package writes it ("workloads" in "workloads.0.name").
_SECTIONS = "(?:" + "|".join(_SECTION_WORDS) + ")"
_PLAIN: tuple[tuple[re.Pattern[str], str], ...] = (
    (  # "apis.0 (Frontier API (Claude Sonnet 4.5))": the name, which may hold one level of parentheses
        re.compile(rf"\b{_SECTIONS}\.\d+(?:\.[a-z_]+)* \(((?:[^()]|\([^()]*\))+)\)"),
        r"\1",
    ),
    (re.compile(rf"\b{_SECTIONS}\.\d+\.([a-z_]+)"), r"⟨\1⟩"),
    (re.compile(rf"\b{_SECTIONS}\.\d+:?\s*"), ""),
    (
        re.compile(r"\(β = ([^<≥)]+?) < 1: no batch forms\)"),
        r"(too few requests at once to share a batch: \1 at a time at peak, on average)",
    ),
    (
        re.compile(r"\(β = ([^<≥)]+?) ≥ 1\)"),
        r"(enough requests at once to share a batch: \1 at a time at peak, on average)",
    ),
    (re.compile(r"β ?= ?"), "batchability "),
    (re.compile(r"\bMBU = 1\b"), "the full memory bandwidth"),
    (re.compile(r"\bMFU = 1\b"), "the full arithmetic peak"),
    (re.compile(r"\bJ = "), "expected cost "),
    (re.compile(r"\bTPOT SLO\b"), "per-token latency target"),
    (re.compile(r"\bTTFT SLO\b"), "first-token latency target"),
    (re.compile(r"\bSLO capacity\b"), "capacity within its latency targets"),
    (re.compile(r"\bSLOs?\b"), "latency target"),
    (re.compile(r"\bTPOT\b"), "time per token"),
    (re.compile(r"\bTTFT\b"), "time to first token"),
    (re.compile(r"\b(\w+)\(s\)"), r"\1s"),
    (re.compile(r"\b([a-z]+(?:_[a-z0-9]+)+)\b"), r"⟨\1⟩"),  # any other field name: in words below
    (re.compile(r"\b1 (node|GPU|price|row|problem|workload)s\b"), r"1 \1"),
)


def plain(text: str) -> str:
    """A sentence from the economics package in a finance reader's words: no field paths (``nodes.0``),
    no symbols (β, J, TPOT, SLO), no "node(s)".

    >>> plain("nodes.0 (Owned 8×H100): the chosen routes need 1 node(s), β = 0.87 < 1")
    'Owned 8×H100: the chosen routes need 1 node, batchability 0.87 < 1'
    >>> plain("apis.0 (Frontier API (Claude Sonnet 4.5)): price last checked 2025-10-10")
    'Frontier API (Claude Sonnet 4.5): price last checked 2025-10-10'
    """
    for pattern, repl in _PLAIN:
        text = pattern.sub(repl, text)
    return _FIELD.sub(lambda m: _field_words(m.group(1)), text)


_FIELD = re.compile(r"⟨([a-z_]+)⟩")
_UNIT_WORDS = {
    "avg": "average",
    "usd": "$",
    "mtok": "Mtok",
    "per": "per",
    "s": "seconds",
    "kwh": "kWh",
    "kw": "kW",
    "gpu": "GPU",
    "gpus": "GPUs",
}


#: Fields whose name does not read as words part by part.
_FIELD_NAMES = {"fx_units_per_usd": "exchange rate (units per US dollar)", "fx_as_of": "exchange rate date"}


def _field_words(name: str) -> str:
    """A model field name in words: ``output_usd_per_mtok`` → "output $ per Mtok", ``peak_requests_per_s`` →
    "peak requests per second"."""
    if name in _FIELD_NAMES:
        return _FIELD_NAMES[name]
    words = [_UNIT_WORDS.get(part, part) for part in name.split("_")]
    return " ".join("second" if w == "seconds" and i and words[i - 1] == "per" else w for i, w in enumerate(words))


_PROBLEM = re.compile(
    r"^(?P<path>[a-z_]+(?:\.[a-z0-9_]+)*|\(scenario\))(?: \((?P<label>'[^']*'|\"[^\"]*\")\))?: (?P<msg>.*)$", re.DOTALL
)
#: The scenario checks' own messages about ids (economics/scenario.py, economics/io/scenarios.py), in words.
_ID_WORDS = (
    (re.compile(r"^unknown option '(.*)'$"), r"names the option “\1”, which is not in the scenario"),
    (re.compile(r"^unknown (GPU|model|node|workload) '(.*)'$"), r"names the \1 “\2”, which is not in the scenario"),
    (re.compile(r"^duplicate id '(.*)'$"), r"“\1” is also the id of an earlier one (each needs its own)"),
)
_DROPPED = re.compile(r"^dropped(?: \((?P<field>[a-z_]+): (?P<msg>.*)\))?$", re.DOTALL)
_PYDANTIC_WORDS = (
    (re.compile(r"^Field required$"), "missing"),
    (re.compile(r"^Input should be greater than or equal to "), "must be at least "),
    (re.compile(r"^Input should be greater than "), "must be more than "),
    (re.compile(r"^Input should be less than or equal to "), "must be at most "),
    (re.compile(r"^Input should be less than "), "must be less than "),
    (re.compile(r"^Input should be a valid number.*"), "must be a number"),
    (re.compile(r"^Input should be a valid integer.*"), "must be a whole number"),
    (re.compile(r"^String should match pattern .*"), "may hold only letters, digits, '.', '_' and '-'"),
    (re.compile(r"^String should have at most (\d+) characters?"), r"must be at most \1 characters long"),
    (re.compile(r"^String should have at least (\d+) characters?"), r"must be at least \1 characters long"),
    (re.compile(r"^Input should be ('[^']*'(?:, '[^']*')*(?: or '[^']*')?)$"), r"must be \1"),
    (re.compile(r"^Input should be a valid (\w+).*"), r"must be a \1"),
    (re.compile(r"^Tuple should have at least (\d+) items? after validation, not \d+"), r"needs at least \1"),
    (re.compile(r"^expected a list, got \w+"), "must be a list"),
    (re.compile(r"^expected an object, got \w+"), "must be a group of settings"),
    (re.compile(r"^the scenario has version None\b"), "the scenario has no version number"),
)


def validation_words(message: str) -> str:
    """One validation message (pydantic's, or the scenario checks') in a reader's words.

    >>> validation_words("Input should be a valid integer, unable to parse string as an integer")
    'must be a whole number'
    """
    for pattern, repl in (*_PYDANTIC_WORDS, *_ID_WORDS):
        message = pattern.sub(repl, message)
    return plain(message)


def file_problem(message: str, data: object = None) -> str:
    """One problem found in an uploaded scenario file, in a reader's words: the item by its number and name
    (read from the file's own ``data`` when given), the field in words, the pydantic message in words.

    >>> file_problem("workloads.0: peak_requests_per_s must be at least avg_requests_per_s",
    ...              {"workloads": [{"name": "Code completion"}]})
    'Workload 1 “Code completion”: peak requests per second must be at least average requests per second'
    >>> file_problem("apis.1.output_usd_per_mtok: Input should be greater than or equal to 0")
    'API 2, output $ per Mtok: must be at least 0'
    >>> file_problem("review_date: Field required")
    'Review date: missing'
    """
    m = _PROBLEM.match(message)
    if m is None:
        return plain(message)
    msg = m["msg"]
    dropped = _DROPPED.match(msg)
    if dropped is not None:  # an item a damaged link or file could not keep: why, in words
        field = dropped["field"]
        msg = f"left out because its {_field_words(field)} {validation_words(dropped['msg'])}" if field else "left out"
    else:
        msg = validation_words(msg)
    parts = m["path"].split(".")
    where: list[str] = []
    if parts[0] in _SECTION_WORDS and len(parts) > 1 and parts[1].isdigit():
        index = int(parts[1])
        item = f"{_SECTION_WORDS[parts[0]]} {index + 1}"
        section = data.get(parts[0]) if isinstance(data, dict) else None
        if isinstance(section, list) and index < len(section) and isinstance(section[index], dict):
            name = section[index].get("name")
            if isinstance(name, str) and name.strip():
                item += f" “{name.strip()[:80]}”"
        elif m["label"]:  # the item's name as the message gives it ("owned_options.2 ('8B diffusion')")
            item += f" “{m['label'][1:-1]}”"
        where.append(item)
        parts = parts[2:]
    elif parts[0] == "(scenario)":
        parts = []
    fields = " › ".join(_field_words(p) if not p.isdigit() else f"item {int(p) + 1}" for p in parts)
    if fields:
        where.append(fields if where else fields[:1].upper() + fields[1:])
    return f"{', '.join(where) or 'The scenario'}: {msg}"


#: The symbols engineers use, in words: for the glossary expanders (pages keep symbols out of labels).
GLOSSARY = """
| symbol | in words | unit |
|:--|:--|:--|
| β (batchability) | requests in flight at once at peak, at batch-1 speed; below 1 no batch can form | requests |
| J | expected cost per task: inference cost plus the expected cost of failures | money per task |
| TTFT | time to the first token of an answer | s |
| TPOT | time per output token after the first | ms |
| SLO | latency target a workload must meet (TTFT or TPOT) | s, ms |
| MBU | memory bandwidth used ÷ the GPU's peak bandwidth | % |
| MFU | arithmetic done ÷ the GPU's peak arithmetic | % |
| FLOP/byte | arithmetic per byte read from GPU memory; low means the GPU waits on memory | FLOP/byte |
| Mtok | one million tokens (a token is about ¾ of a word) | tokens |
| utilization | busy share of the hours paid for | % |
| PUE | facility power (cooling, power conversion) per unit the node draws; 1.3 adds 30% | ratio |
| owned (route) | on dedicated GPUs we run and pay for by the hour, bought or rented (tables say "rented") | – |
| AR (autoregressive) | the usual way a model writes: one token per pass over all its weights | – |
| diffusion | a text-diffusion model: refines a block of tokens per pass, so one request keeps the GPU busier | – |
| speculation, EAGLE, EAGLE-3 | a small draft model guesses tokens, the large one checks several a pass (EAGLE) | – |
| MoE | mixture of experts: each token uses only some of the model's weights | – |
| prefill | reading the prompt before the first output token | – |
| utilization (fleet) | share of the owned GPUs' hours doing work, all workloads together (Overview, Reviews) | % |
| utilization (one workload) | its average load over the replicas it needs on its own (Cost per token) | % |
| capacity limit | the highest average utilization a workload can reach while keeping headroom for its peak | % |
| expected cost of failed tasks | share of tasks that fail × what one costs; a risk, not a bill | money per task |
| full cost | a node's capital recovery, power and fixed costs, whether or not it is already bought | money per month |
| cash lens | counts only spending that changes: a bought node is paid for whatever the plan does | – |
"""
