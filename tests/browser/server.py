"""Start and stop a real ``streamlit run`` server on a free local port (browser tests, benchmarks, screenshots).

    with running_server(ROOT / "app.py") as server:
        page.goto(server.url)

The server runs headless with telemetry, the file watcher and run-on-save off. It lives in its own process
group (stopped with SIGTERM to the group) and receives SIGTERM when the thread that started it dies
(``prctl(PR_SET_PDEATHSIG)``), so a killed pytest never leaves an orphan holding the port. Its output goes to
a log file whose tail is included in any start-up error.
"""

from __future__ import annotations

import contextlib
import ctypes
import http.client
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Streamlit settings for an unattended server; these win over the caller's environment.
STREAMLIT_ENV: dict[str, str] = {
    "STREAMLIT_SERVER_HEADLESS": "true",
    "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
    "STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none",
    "STREAMLIT_SERVER_RUN_ON_SAVE": "false",
}

_PR_SET_PDEATHSIG = 1


class ServerStartError(RuntimeError):
    """The server exited or never became healthy."""


@dataclass
class StreamlitServer:
    """A running ``streamlit run`` child process."""

    process: subprocess.Popen[bytes]
    port: int
    log_path: Path

    @property
    def url(self) -> str:
        """Base URL without a trailing slash, e.g. ``http://127.0.0.1:41234``."""
        return f"http://127.0.0.1:{self.port}"

    def log_tail(self, n_chars: int = 4000) -> str:
        """The end of the server's combined stdout/stderr."""
        try:
            return self.log_path.read_text(errors="replace")[-n_chars:]
        except OSError:
            return ""

    def stop(self, timeout_s: float = 10.0) -> None:
        """SIGTERM the process group, then SIGKILL it if it has not exited after ``timeout_s``."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout_s)
        with contextlib.suppress(OSError):
            self.log_path.unlink()


def free_port() -> int:
    """A port that was free on 127.0.0.1 a moment ago (the caller retries if it is taken meanwhile)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _die_with_parent(parent_pid: int) -> None:
    """``preexec_fn``: ask the kernel for SIGTERM when the parent goes away; exit if it is already gone."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    if os.getppid() != parent_pid:
        os._exit(1)


def is_healthy(port: int, timeout_s: float = 1.0) -> bool:
    """``GET /_stcore/health`` answers 200. Health is not readiness: the script runs only once a browser
    connects (see ``streamlit_page.wait_for_app``)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout_s)
    try:
        conn.request("GET", "/_stcore/health")
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


def _spawn(app: Path, port: int, env: Mapping[str, str], log_path: Path) -> StreamlitServer:
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(app),
        "--server.address",
        "127.0.0.1",
        "--server.port",
        str(port),
    ]
    parent_pid = os.getpid()
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=lambda: _die_with_parent(parent_pid),
        )
    return StreamlitServer(process=process, port=port, log_path=log_path)


def start_server(
    app: Path | str = ROOT / "app.py",
    *,
    attempts: int = 5,
    timeout_s: float = 60.0,
    extra_env: Mapping[str, str] | None = None,
    port: int | None = None,
) -> StreamlitServer:
    """Start ``streamlit run app`` on a free port (or on ``port``) and wait for ``/_stcore/health``.

    A port clash makes Streamlit exit within a second; the start is then retried on another port, up to
    ``attempts`` times (never with a fixed ``port``). Call :meth:`StreamlitServer.stop` when done (or use
    :func:`running_server`).
    """
    app_path = Path(app).resolve()
    if not app_path.is_file():
        raise ServerStartError(f"no such Streamlit script: {app_path}")
    env = {**os.environ, **(extra_env or {}), **STREAMLIT_ENV}
    last_error = ""
    for _ in range(attempts if port is None else 1):
        fd, name = tempfile.mkstemp(prefix="streamlit-", suffix=".log")
        os.close(fd)
        server = _spawn(app_path, port or free_port(), env, Path(name))
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if server.process.poll() is not None:
                break
            if is_healthy(server.port):
                return server
            time.sleep(0.1)
        exited = server.process.poll() is not None
        last_error = (
            f"streamlit exited with code {server.process.returncode}"
            if exited
            else f"streamlit not healthy after {timeout_s:.0f} s"
        ) + f" on port {server.port}. Log tail:\n{server.log_tail()}"
        server.stop()
        if not exited:
            break  # a hang is not a port clash: do not retry
    raise ServerStartError(last_error)


@contextlib.contextmanager
def running_server(
    app: Path | str = ROOT / "app.py",
    *,
    attempts: int = 5,
    timeout_s: float = 60.0,
    extra_env: Mapping[str, str] | None = None,
) -> Iterator[StreamlitServer]:
    """Context manager around :func:`start_server` that always stops the server."""
    server = start_server(app, attempts=attempts, timeout_s=timeout_s, extra_env=extra_env)
    try:
        yield server
    finally:
        server.stop()
