"""Command line: ``python -m economics <subcommand> ...``.

Each subcommand lives in its own module that exposes ``add_parser(subparsers)`` (which registers its
options and ``set_defaults(run=...)``) and ``run(args) -> int``; add a new one to :data:`SUBCOMMANDS`.

Bad input never shows a traceback: argparse errors, :class:`CliError`, pydantic validation errors and
catalog errors become exit status 2 and one line on stderr that names the argument and the problem.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn, Protocol, TextIO, cast

from pydantic import ValidationError

from economics.words import plural

PROG = "python -m economics"


class CliError(ValueError):
    """Bad command-line input: which argument and what is wrong with it."""

    def __init__(self, argument: str, problem: str) -> None:
        self.argument = argument
        self.problem = problem
        super().__init__(f"{argument}: {problem}")


def read_scenario(path: str, argument: str) -> Any:
    """The scenario file ``path``, or :class:`CliError` naming ``argument`` and the file's problems."""
    from economics.io.scenarios import ScenarioError, load_scenario

    try:
        return load_scenario(path)
    except ScenarioError as exc:
        raise CliError(argument, f"{path}: {'; '.join(exc.problems)[:500]}") from None


def write_scenario(scenario: Any, path: str) -> None:
    """Write ``scenario`` to ``path`` as a preset file, or :class:`CliError` naming ``--out``."""
    from pathlib import Path

    from economics.io.scenarios import preset_json

    try:
        Path(path).write_text(preset_json(scenario), encoding="utf-8")
    except OSError as exc:
        raise CliError("--out", f"{path}: {exc.strerror}") from None


class Subcommand(Protocol):
    """What a subcommand module provides."""

    def add_parser(self, subparsers: argparse._SubParsersAction[Any]) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (no usage block): ``prog: error: argument --x: ...``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


#: Registry of subcommands: name → module that provides ``add_parser`` and ``run``. Add ``evaluate``,
#: ``schema`` or ``report`` here.
SUBCOMMANDS: dict[str, str] = {
    "throughput": "cli.throughput",
    "catalog": "cli.catalog",
    "evaluate": "cli.evaluate",
    "schema": "cli.schema",
    "report": "cli.report",
    "calibrate": "cli.calibrate",
    "horizon": "cli.horizon",
    "add-gpus": "cli.gpus",  # also registers remove-option
}


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog=PROG, description="LLM inference throughput, cost and routing.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_name in SUBCOMMANDS.values():
        module = cast(Subcommand, importlib.import_module(module_name))
        module.add_parser(subparsers)
    return parser


def one_line(exc: BaseException, flags: dict[str, str] | None = None) -> str:
    """A one-line description of a validation, catalog or input error, naming the argument."""
    if isinstance(exc, ValidationError):
        errors = exc.errors()
        first = errors[0]
        field = ".".join(str(part) for part in first["loc"])
        name = (flags or {}).get(field, field)
        message = str(first["msg"]).removeprefix("Value error, ")
        more = f" (and {plural(len(errors) - 1, 'more problem')})" if len(errors) > 1 else ""
        return f"{name}: {message}{more}" if name else f"{exc.title}: {message}{more}"
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return " ".join(lines[:2]) if len(lines) > 1 else (lines[0] if lines else type(exc).__name__)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot raise a second BrokenPipeError."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


#: Control characters and text-direction marks a name from a file could carry to the terminal, each written as
#: its escape instead ("\\x1b", "\\u202e"): a workload named "\x1b[31m…" recoloured the terminal, a NUL or a
#: right-to-left override changed what the reader saw. Line breaks and tabs stay (the tables use them).
_SHOWN_AS_ESCAPES = {
    c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}")
    for c in (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0), 0x061C, 0x200E, 0x200F,
              *range(0x202A, 0x202F), *range(0x2066, 0x206A))
}  # fmt: skip


class _Printable:
    """A text stream that writes control characters as their escapes (:data:`_SHOWN_AS_ESCAPES`)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(text.translate(_SHOWN_AS_ESCAPES))

    def __getattr__(self, name: str) -> object:  # flush, fileno, encoding …: the wrapped stream's
        return getattr(self._stream, name)


@contextlib.contextmanager
def _printable_output() -> Iterator[None]:
    """stdout and stderr escape control characters while the command runs (names come from files)."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Printable(out), _Printable(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input or output closed early).

    Never a traceback for bad input: a reader that closes the output early (``| head -1``) and JSON nested
    too deeply each give one line on stderr and status 2. Control characters in names are shown as escapes.
    """
    try:
        with _printable_output():
            status = _main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        print(f"{PROG}: error: the output was closed before it was all written (broken pipe)", file=sys.stderr)
        return 2
    except RecursionError:
        print(f"{PROG}: error: the input is nested too deeply to be read", file=sys.stderr)
        return 2
    return status


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has already printed its one line (or the help)
        return int(exc.code or 0)
    try:
        status: int = args.run(args)
    except CliError as exc:
        print(f"{PROG} {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:  # pydantic ValidationError and CatalogError are ValueErrors
        print(f"{PROG} {args.command}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    return status
