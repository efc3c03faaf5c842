"""Small helpers shared by the PostgreSQL, nginx and replica launchers: free ports, waiting, stopping."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable

_PR_SET_PDEATHSIG = 1


class StartError(RuntimeError):
    """A service did not start; the message carries the tail of its log."""


def free_port() -> int:
    """A port that was free on 127.0.0.1 a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def die_with_parent() -> Callable[[], None]:
    """A ``preexec_fn`` asking the kernel for SIGTERM when the starting process dies (no orphans)."""
    parent = os.getpid()

    def _preexec() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return _preexec


def wait_until(check: Callable[[], bool], timeout_s: float, what: str, log: Callable[[], str] = str) -> None:
    """Poll ``check`` every 0.1 s until it is true; :class:`StartError` with ``log()`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise StartError(f"{what} not ready after {timeout_s:.0f} s\n{log()}")


def port_open(port: int) -> bool:
    """Something accepts TCP connections on 127.0.0.1:port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def stop_group(process: subprocess.Popen[bytes], timeout_s: float = 10.0) -> None:
    """SIGTERM the process group, SIGKILL it after ``timeout_s``."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout_s)


def tail(path: os.PathLike[str] | str, n_chars: int = 3000) -> str:
    """The end of a log file ('' if unreadable)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - n_chars))
            return handle.read().decode(errors="replace")
    except OSError:
        return ""
