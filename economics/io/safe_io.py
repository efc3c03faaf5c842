"""Untrusted input, read safely: files with a size cap and a regular-file check, text cells made inert for
spreadsheets, links restricted to http(s). Pure (no streamlit); shared by the CLI, the dashboard and the
meeting pack.

* :func:`read_capped` never hangs and never reads without limit: a FIFO, a device such as ``/dev/zero``, a
  directory or a socket is refused **before** it is opened for reading (``os.stat`` does not block), the file
  is opened non-blocking (a file swapped for a FIFO after the check still cannot block) and at most
  ``max_bytes + 1`` bytes are read.
* :func:`csv_safe` neutralises CSV formula injection: a cell that starts with ``=``, ``+``, ``-``, ``@``, a
  tab or a carriage return is prefixed with an apostrophe, which spreadsheets show as text and never
  evaluate (OWASP, "CSV Injection"). Numbers stay numbers: only text cells are changed, so ``-3.5`` as a
  float is untouched while the text ``"-3+4"`` becomes ``"'-3+4"``.
* :func:`http_url` accepts only absolute ``http://`` or ``https://`` URLs with a host (no ``javascript:``,
  ``data:``, ``file:``), for any link written into a generated file.

Reference: OWASP, "CSV Injection", https://owasp.org/www-community/attacks/CSV_Injection
"""

from __future__ import annotations

import csv
import errno
import json
import math
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

__all__ = [
    "FORMULA_PREFIXES",
    "InputFileError",
    "JsonProblem",
    "csv_safe",
    "csv_safe_frame",
    "csv_safe_rows",
    "csv_text",
    "http_url",
    "load_json_text",
    "read_capped",
]

#: First characters that make a spreadsheet treat a cell as a formula (OWASP list) [-].
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


class InputFileError(ValueError):
    """A file that cannot be read safely: what and why, in one line."""


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def read_capped(path: str | Path, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` bytes; :class:`InputFileError` otherwise.

    >>> read_capped("/dev/zero", 10)
    Traceback (most recent call last):
    ...
    economics.io.safe_io.InputFileError: /dev/zero is a character device, not a regular file; give a file
    """
    p = Path(path)
    try:
        info = os.stat(p)
    except OSError as exc:
        raise InputFileError(f"cannot read {p}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputFileError(f"{p} is {_kind(info.st_mode)}, not a regular file; give a file")
    if info.st_size > max_bytes:
        raise InputFileError(f"{p} is {info.st_size:,} bytes; the limit is {max_bytes:,}")
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise InputFileError(f"cannot read {p}: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped between the two checks
            raise InputFileError(f"{p} is not a regular file; give a file")
        chunks: list[bytes] = []
        total = 0
        while total <= max_bytes:
            try:
                chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            except OSError as exc:
                if exc.errno == errno.EAGAIN:
                    raise InputFileError(f"{p} is not a regular file; give a file") from None
                raise InputFileError(f"cannot read {p}: {exc.strerror or exc}") from None
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(fd)
    if total > max_bytes:  # the file grew while it was read
        raise InputFileError(f"{p} is over {max_bytes:,} bytes; the limit is {max_bytes:,}")
    return b"".join(chunks)


T = TypeVar("T")


def csv_safe(value: T) -> T | str:
    """A cell made inert for spreadsheets: text starting with ``= + - @``, tab or CR gets a leading ``'``.

    >>> csv_safe('=HYPERLINK("http://x","y")')
    '\\'=HYPERLINK("http://x","y")'
    >>> csv_safe(-3.5), csv_safe("Batch KYC")
    (-3.5, 'Batch KYC')
    """
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def csv_safe_frame(frame: Any) -> Any:
    """A copy of a pandas DataFrame whose text cells and column names went through :func:`csv_safe`.

    Typed as ``Any`` so that this pure module does not import pandas; only object (text) columns change.
    """
    from pandas.api.types import is_bool_dtype as is_bool  # pandas only where a frame is given
    from pandas.api.types import is_numeric_dtype as is_numeric

    out = frame.copy()
    out.columns = [csv_safe(c) for c in out.columns]
    for column in out.columns:
        series = out[column]
        if not (is_numeric(series.dtype) or is_bool(series.dtype)):
            out[column] = series.map(csv_safe)
    return out


#: Significant digits a number keeps in a CSV download: float noise (7866.2609999999995, 0.9500000000000001)
#: sits at the 16th-17th; ten keep every figure a person could mean, and a tiny price's own digits (0.00036855).
CSV_SIGNIFICANT_DIGITS = 10


def _without_float_noise(x: Any) -> Any:
    """A finite float with at most ``CSV_SIGNIFICANT_DIGITS`` significant digits (written by ``repr``, the
    shortest form: 7866.261, 0.95); anything else as it is.

    >>> [_without_float_noise(x) for x in (7866.2609999999995, 0.00036855000000000004, 0.9500000000000001, "a")]
    [7866.261, 0.00036855, 0.95, 'a']
    """
    if isinstance(x, float) and math.isfinite(x):
        return float(f"{x:.{CSV_SIGNIFICANT_DIGITS}g}")
    return x


def csv_text(frame: Any) -> str:
    """A pandas DataFrame as CSV text for a download: cells through :func:`csv_safe`, no index, every text
    cell quoted (a carriage return inside a cell then stays inside it; numbers stay unquoted), and no float
    noise (:func:`_without_float_noise`: pandas' ``float_format`` would have quoted the numbers)."""
    safe = csv_safe_frame(frame)
    floats = [c for c in safe.columns if safe[c].dtype.kind == "f"]
    if floats:
        safe = safe.copy()
        safe[floats] = safe[floats].map(_without_float_noise)
    return str(safe.to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC))


def csv_safe_rows(rows: Iterable[Iterable[Any]]) -> list[list[Any]]:
    """Rows for :mod:`csv` writers with every cell through :func:`csv_safe`."""
    return [[csv_safe(cell) for cell in row] for row in rows]


def http_url(url: str) -> str:
    """``url`` stripped, if it is an absolute http(s) URL with a host; ValueError naming the problem otherwise.

    >>> http_url(" https://llm.example.org/ ")
    'https://llm.example.org/'
    >>> http_url("javascript:alert(1)")
    Traceback (most recent call last):
    ...
    ValueError: 'javascript:alert(1)' is not an http(s) address; give one like https://llm.example.org/
    """
    text = url.strip()
    parts = urlsplit(text)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc or any(c in text for c in "\x00\r\n<>\"'` "):
        raise ValueError(f"{url[:100]!r} is not an http(s) address; give one like https://llm.example.org/")
    return text


# ---- JSON from untrusted text ------------------------------------------------------------------------------

#: JSON's non-standard constants; Python's json module reads them, scenarios may not contain them.
_CONSTANT_RE = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


class JsonProblem(ValueError):
    """Text that is not acceptable JSON; the message names the line and column (and field, when known)."""


class _Constant:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


def _float(literal: str) -> float | _Constant:
    value = float(literal)
    return value if math.isfinite(value) else _Constant(literal)


def _constant_path(data: Any) -> tuple[str, str] | None:
    """``(dotted path, constant)`` of the first NaN/Infinity in parsed data (iterative: any depth)."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, _Constant):
            return path or "(top level)", value.name
        if isinstance(value, dict):
            items = list(value.items())
        elif isinstance(value, list):
            items = list(enumerate(value))
        else:
            continue
        stack.extend((f"{path}.{k}" if path else str(k), v) for k, v in reversed(items))
    return None


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are unique; a key written twice is refused (``json`` would keep the last silently,
    so an edited file could carry a value the author never sees)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _duplicate_line(text: str, key: str) -> str:
    """``line L: `` of the key's second appearance (where a reader would look), or "" when it cannot be found."""
    offsets = [m.start() for m in re.finditer(re.escape(json.dumps(key)) + r"\s*:", text)]
    return f"line {_line_col(text, offsets[1])[0]}: " if len(offsets) > 1 else ""


def load_json_text(raw: bytes | str) -> Any:
    """Parse untrusted JSON: UTF-8 (a byte-order mark is allowed), no NaN/Infinity, no key twice in one
    object, bounded nesting.

    Raises :class:`JsonProblem` whose message says where: ``line 3 column 12: ...`` and, for NaN or
    Infinity, the field path too.

    >>> load_json_text('\\ufeff{"a": [1, 2]}')
    {'a': [1, 2]}
    >>> try:
    ...     load_json_text('{"w": [{"x": 1},\\n {"x": NaN}]}')
    ... except JsonProblem as exc:
    ...     print(exc)
    line 2 column 8: w.1.x: NaN is not a number JSON files may contain; write a finite number
    >>> try:
    ...     load_json_text('{"name": "a",\\n "name": "b"}')
    ... except JsonProblem as exc:
    ...     print(exc)
    line 2: the key "name" is written twice in one object; keep one
    >>> try:
    ...     load_json_text(b"\\n  \\n")
    ... except JsonProblem as exc:
    ...     print(exc)
    empty: there is no JSON text at all
    """
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            raise JsonProblem(f"line {line}: the file is not UTF-8 text (byte 0x{raw[exc.start]:02x})") from None
    else:
        text = raw.removeprefix("\ufeff")
    if not text.strip():  # json's own words were "line 1 column 1: Expecting value"
        raise JsonProblem("empty: there is no JSON text at all")
    try:
        data = json.loads(text, parse_constant=_Constant, parse_float=_float, object_pairs_hook=_unique_keys)
    except _DuplicateKey as exc:
        shown = json.dumps(exc.key[:60], ensure_ascii=True)
        where = _duplicate_line(text, exc.key)
        raise JsonProblem(f"{where}the key {shown} is written twice in one object; keep one") from None
    except json.JSONDecodeError as exc:
        raise JsonProblem(f"line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise JsonProblem("the JSON is nested too deeply to be read (more than ~1,000 levels)") from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise JsonProblem(f"a number cannot be read: {str(exc)[:120]}") from None
    found = _constant_path(data)
    if found is not None:
        path, name = found
        if name in ("NaN", "Infinity", "-Infinity"):
            match = next((m for m in _CONSTANT_RE.finditer(text) if m.group(1)), None)
            offset = match.start(1) if match else -1
        else:  # a literal too large for a float, e.g. 1e999
            offset = text.find(name)
            name = f"{name[:40]} (too large for a number)"
        where = "line {} column {}: ".format(*_line_col(text, offset)) if offset >= 0 else ""
        raise JsonProblem(f"{where}{path}: {name} is not a number JSON files may contain; write a finite number")
    return data
