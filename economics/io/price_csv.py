"""CSV import of negotiated prices, validated as a whole, and the template to fill in.

The file has a header row and one row per negotiated price::

    offer_id,item,value,as_of,source
    h100-rented,gpu_hour_price,2.10,2025-06-01,MSA 2025-14
    frontier-api,api_discount,20%,2025-05-15,enterprise agreement

``offer_id``, ``item`` and ``value`` are required; ``as_of`` (``YYYY-MM-DD``) and ``source`` are optional.
Discounts may be written ``0.2`` or ``20%``. Rows whose first cell starts with ``#`` and blank rows are
skipped. Every problem is reported with its line (1 = the header), column and reason, and nothing is applied
unless the whole file is clean: :func:`read_negotiated_csv` never raises on bad input.

>>> from economics.io.price_csv import CsvProblem
>>> str(CsvProblem(line=3, column="value", reason="not a number: 'abc'"))
"line 3, value: not a number: 'abc'"
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections import Counter

from pydantic import Field

from economics._base import Frozen
from economics.price_book import (
    NEGOTIABLE_ITEMS,
    NegotiatedPrice,
    NegotiatedPriceError,
    apply_negotiated,
    check_negotiated,
    check_value,
    parse_as_of,
)
from economics.price_text import date_range_problem
from economics.scenario import Scenario

__all__ = [
    "CSV_COLUMNS",
    "MAX_CSV_BYTES",
    "MAX_CSV_ROWS",
    "CsvImport",
    "CsvProblem",
    "read_negotiated_csv",
    "template_csv",
]

CSV_COLUMNS: tuple[str, ...] = ("offer_id", "item", "value", "as_of", "source")
_REQUIRED: tuple[str, ...] = ("offer_id", "item", "value")
MAX_CSV_BYTES = 1_000_000  # larger files are refused before parsing [B]
MAX_CSV_ROWS = 5_000  # data rows [count]


class CsvProblem(Frozen):
    """One problem in an imported file."""

    line: int = Field(ge=1, description="line of the file, 1 = the header [-]")
    column: str = Field(description="column name, or '' for the whole line [-]")
    reason: str = Field(description="what is wrong and how to fix it [-]")

    def __str__(self) -> str:
        where = f"line {self.line}, {self.column}" if self.column else f"line {self.line}"
        return f"{where}: {self.reason}"


class CsvImport(Frozen):
    """What :func:`read_negotiated_csv` read: the prices when the file is clean, else the problems."""

    prices: tuple[NegotiatedPrice, ...] = Field(description="every row, in file order; empty unless ok [-]")
    problems: tuple[CsvProblem, ...] = Field(description="every problem, by line [-]")
    rows_read: int = Field(ge=0, description="data rows read (comments and blank rows excluded) [count]")

    @property
    def ok(self) -> bool:
        """True when the file is clean and its prices can be applied."""
        return not self.problems

    def applied_to(self, scenario: Scenario) -> Scenario:
        """The scenario with these prices applied (call only when :attr:`ok`)."""
        if not self.ok:
            raise NegotiatedPriceError([str(p) for p in self.problems])
        return apply_negotiated(scenario, self.prices)


def _decode(data: bytes | str) -> tuple[str | None, CsvProblem | None]:
    if isinstance(data, str):  # the same cap as a file's bytes, a character at most four of them
        if len(data) > MAX_CSV_BYTES and len(data.encode("utf-8")) > MAX_CSV_BYTES:
            size = len(data.encode("utf-8"))
            return None, CsvProblem(
                line=1, column="", reason=f"file too large: {size:,} bytes (limit {MAX_CSV_BYTES:,})"
            )
        return data, None
    if len(data) > MAX_CSV_BYTES:
        return None, CsvProblem(
            line=1, column="", reason=f"file too large: {len(data):,} bytes (limit {MAX_CSV_BYTES:,})"
        )
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        byte = data[exc.start : exc.start + 1].hex()
        reason = f"not UTF-8 text (byte 0x{byte} at offset {exc.start}); save the file as CSV UTF-8"
        return None, CsvProblem(line=line, column="", reason=reason)


#: Unknown columns named one by one; more are counted in one line (a header of 50,000 cells took 23 s, and
#: its 50,000 lines of problems were what the app drew).
_NAMED_UNKNOWN_COLUMNS = 10


def _header_problems(header: list[str]) -> list[CsvProblem]:
    problems: list[CsvProblem] = []
    expected = ",".join(CSV_COLUMNS)
    counts = Counter(header)
    for name in sorted(h for h, n in counts.items() if n > 1 and h in CSV_COLUMNS):
        problems.append(CsvProblem(line=1, column=name, reason=f"column {name!r} appears twice; expected {expected}"))
    unknown = [h for h in counts if h not in CSV_COLUMNS]  # each name once, in the header's order
    for name in unknown[:_NAMED_UNKNOWN_COLUMNS]:
        shown = name or "(empty)"
        twice = " (more than once)" if counts[name] > 1 else ""
        problems.append(
            CsvProblem(line=1, column=shown, reason=f"unknown column {shown[:60]!r}{twice}; expected {expected}")
        )
    if len(unknown) > _NAMED_UNKNOWN_COLUMNS:
        more = len(unknown) - _NAMED_UNKNOWN_COLUMNS
        problems.append(CsvProblem(line=1, column="", reason=f"and {more:,} more unknown columns; expected {expected}"))
    for name in _REQUIRED:
        if name not in header:
            problems.append(CsvProblem(line=1, column=name, reason=f"missing column {name!r}; expected {expected}"))
    return problems


#: A plain decimal number as a spreadsheet writes it: ASCII digits, a point, an optional exponent and "%".
_PLAIN_NUMBER = re.compile(r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")


def _number(text: str, item: str | None) -> float | str:
    """The value as a float, or the reason it is not one."""
    raw = text.strip()
    if not raw:
        return "empty; give a number"
    percent = raw.endswith("%")
    if percent and item is not None and NEGOTIABLE_ITEMS[item].unit != "fraction":
        return f"{raw!r}: a percentage is only allowed for discounts"
    digits = raw.removesuffix("%").strip()
    if not _PLAIN_NUMBER.match(digits):  # float() would also take "1_000", "１２" and "infinity"
        if digits.lower().lstrip("+-") in ("inf", "infinity", "nan"):
            return f"not a finite number: {raw!r}"
        odd = not digits.isascii() or any(c in raw for c in "$,€ _")
        hint = " (write digits 0-9 only, with a dot for decimals, e.g. 2.5)" if odd else ""
        return f"not a number: {raw!r}{hint}"
    value = float(digits)
    if not math.isfinite(value):
        return f"not a finite number: {raw!r}"
    return value / 100.0 if percent else value


def _row(cells: dict[str, str], line: int, problems: list[CsvProblem]) -> NegotiatedPrice | None:
    """One data row as a NegotiatedPrice, or None after appending its problems."""
    before = len(problems)
    offer_id = cells.get("offer_id", "").strip()
    if not offer_id:
        problems.append(CsvProblem(line=line, column="offer_id", reason="empty; give the id of a node or API offer"))
    elif len(offer_id) > 64:
        problems.append(
            CsvProblem(line=line, column="offer_id", reason=f"too long ({len(offer_id)} characters, max 64)")
        )
    item: str | None = cells.get("item", "").strip()
    if item not in NEGOTIABLE_ITEMS:
        shown = item or "(empty)"
        known = ", ".join(NEGOTIABLE_ITEMS)
        problems.append(CsvProblem(line=line, column="item", reason=f"unknown item {shown!r}; one of {known}"))
        item = None
    value = _number(cells.get("value", ""), item)
    if isinstance(value, str):
        problems.append(CsvProblem(line=line, column="value", reason=value))
    elif item is not None and (reason := check_value(item, value)) is not None:
        problems.append(CsvProblem(line=line, column="value", reason=reason))
    as_of_text = cells.get("as_of", "").strip()
    as_of = parse_as_of(as_of_text) if as_of_text else None
    if as_of_text and (as_of is None or len(as_of_text) != 10):
        problems.append(CsvProblem(line=line, column="as_of", reason=f"not a date: {as_of_text!r}; write YYYY-MM-DD"))
    elif as_of is not None and (far := date_range_problem(as_of)) is not None:
        problems.append(CsvProblem(line=line, column="as_of", reason=far))
    source = cells.get("source", "").strip()
    if len(source) > 500:
        problems.append(CsvProblem(line=line, column="source", reason=f"too long ({len(source)} characters, max 500)"))
    if len(problems) > before or item is None or isinstance(value, str):
        return None
    return NegotiatedPrice.model_validate(
        {"offer_id": offer_id, "item": item, "value": value, "as_of": as_of, "source": source}
    )


def read_negotiated_csv(data: bytes | str, scenario: Scenario) -> CsvImport:
    """Read and validate a negotiated-price CSV against ``scenario`` as a whole; never raises on bad input.

    Checks, each reported with line, column and reason: encoding (UTF-8, BOM allowed), size, the header
    (unknown, missing or repeated columns), each row's cell count, item name, number, range and date, then
    across rows (:func:`economics.price_book.check_negotiated`): unknown offer ids, items that do not apply to
    the offer, duplicates and conflicting pairs. ``prices`` is empty unless there are no problems at all.
    """
    text, problem = _decode(data)
    if text is None or problem is not None:
        return CsvImport(prices=(), problems=(problem,) if problem else (), rows_read=0)
    # strict: a quote opened and never closed is an error, not a cell that swallows every line after it
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    problems: list[CsvProblem] = []
    header: list[str] | None = None
    parsed: list[tuple[int, NegotiatedPrice]] = []
    rows_read = 0
    last_line = 0
    try:
        for cells in reader:
            line, last_line = last_line + 1, reader.line_num
            if not any(c.strip() for c in cells) or cells[0].lstrip().startswith("#"):
                continue
            if header is None:
                header = [c.strip().lower() for c in cells]
                problems.extend(_header_problems(header))
                if problems:
                    break
                continue
            rows_read += 1
            if rows_read > MAX_CSV_ROWS:
                problems.append(CsvProblem(line=line, column="", reason=f"too many rows (limit {MAX_CSV_ROWS:,})"))
                break
            if len(cells) > len(header):
                problems.append(
                    CsvProblem(line=line, column="", reason=f"{len(cells)} cells but the header has {len(header)}")
                )
                continue
            price = _row(dict(zip(header, cells, strict=False)), line, problems)
            if price is not None:
                parsed.append((line, price))
    except csv.Error as exc:
        if "end of data" in str(exc):  # the row that opened the quote starts on the line after the last row read
            reason = (
                'a quote (") opened in this row is never closed, so every line after it would be one cell; '
                "close the quote or remove it"
            )
            problems.append(CsvProblem(line=last_line + 1, column="", reason=reason))
        else:
            problems.append(CsvProblem(line=reader.line_num or 1, column="", reason=f"not a readable CSV file: {exc}"))
    if header is None and not problems:
        problems.append(
            CsvProblem(line=1, column="", reason="the file is empty; expected the header " + ",".join(CSV_COLUMNS))
        )
    lines = [line for line, _ in parsed]
    labels = [f"line {line}" for line in lines]
    for index, column, reason in check_negotiated(scenario, [p for _, p in parsed], labels):
        problems.append(CsvProblem(line=lines[index], column=column, reason=reason))
    if not problems:
        try:
            apply_negotiated(scenario, [p for _, p in parsed])
        except NegotiatedPriceError as exc:  # a model bound the checks above do not mirror
            problems.extend(CsvProblem(line=1, column="", reason=msg) for msg in exc.problems)
    problems.sort(key=lambda p: (p.line, CSV_COLUMNS.index(p.column) if p.column in CSV_COLUMNS else -1))
    prices = () if problems else tuple(p for _, p in parsed)
    return CsvImport(prices=prices, problems=tuple(problems), rows_read=rows_read)


def template_csv(scenario: Scenario) -> str:
    """A CSV to fill in: comment lines explaining each item, then one row per offer with its current price.

    Importing the template unchanged applies the current prices as negotiated ones; delete the rows you have
    not negotiated.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    writer.writerow(["# items: one row per negotiated price; delete rows you have not negotiated"])
    for name, rule in NEGOTIABLE_ITEMS.items():
        writer.writerow([f"# {name} ({rule.kind} offers, {rule.unit}): {rule.help}"])
    today = scenario.review_date.isoformat()
    for node in scenario.nodes:
        if node.kind == "rented":
            writer.writerow([node.id, "gpu_hour_price", f"{node.price_usd_per_gpu_hour:g}", today, ""])
        else:
            writer.writerow([node.id, "node_capex", f"{node.capex_usd:g}", today, ""])
            writer.writerow([node.id, "electricity_price", f"{node.electricity_usd_per_kwh:g}", today, ""])
    for api in scenario.apis:
        writer.writerow([api.id, "api_discount", f"{api.negotiated_discount_fraction:g}", today, ""])
    return out.getvalue()
