"""A throw-away PostgreSQL server in a temporary folder: ``initdb`` + ``pg_ctl``, no system service.

Debian's ``postgresql`` package puts the binaries in ``/usr/lib/postgresql/<major>/bin`` (newest used;
``PG_BIN`` overrides). PostgreSQL refuses to run as root, so when we are root the cluster is created and run
as the unprivileged ``postgres`` system user (created with ``useradd --system`` if missing), in a folder it
owns. The server listens on 127.0.0.1 on a free port (and a unix socket in its folder), trusts local
connections (it is reachable only from this machine) and has one database and role, ``llmecon``.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from deploy.processes import StartError, free_port

DB_NAME = DB_USER = "llmecon"


def pg_bin() -> Path:
    """The folder of initdb/pg_ctl: ``$PG_BIN``, else the newest ``/usr/lib/postgresql/*/bin``."""
    if os.environ.get("PG_BIN"):
        return Path(os.environ["PG_BIN"])
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if not found:
        raise StartError(
            "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb). Install it with: "
            "sudo apt-get install -y postgresql   (bash scripts/test does this when run as root)"
        )
    return Path(found[-1]).parent


def _run_as() -> list[str]:
    """The command prefix that runs a PostgreSQL binary as an unprivileged user."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "postgres"], check=True)
    return ["runuser", "-u", "postgres", "--"]


@dataclass
class Postgres:
    """A running cluster; ``url`` is the SQLAlchemy URL of its ``llmecon`` database."""

    folder: Path
    port: int
    bin_dir: Path

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://{DB_USER}@127.0.0.1:{self.port}/{DB_NAME}"

    def _pg_ctl(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*_run_as(), str(self.bin_dir / "pg_ctl"), "-D", str(self.data), *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )

    def stop(self, remove: bool = True) -> None:
        """Stop the server (fast shutdown) and remove its folder."""
        self._pg_ctl("stop", "-m", "fast", "-w")
        if remove:
            shutil.rmtree(self.folder, ignore_errors=True)


def start_postgres(folder: Path | None = None, *, fsync: bool = True) -> Postgres:
    """initdb a new cluster, start it on a free port, create the ``llmecon`` database; return it."""
    bin_dir = pg_bin()
    folder = Path(folder or tempfile.mkdtemp(prefix="llmecon-pg-"))
    folder.mkdir(parents=True, exist_ok=True)
    prefix = _run_as()
    if prefix:
        shutil.chown(folder, "postgres")
        os.chmod(folder, 0o700)
    init = subprocess.run(
        [
            *prefix,
            str(bin_dir / "initdb"),
            "-D",
            str(folder / "data"),
            "-U",
            DB_USER,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-instructions",
            "--no-sync",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if init.returncode != 0:
        raise StartError(f"initdb failed: {init.stderr[-2000:]}")
    last = ""
    for _ in range(5):  # a port taken meanwhile: try another
        server = Postgres(folder, free_port(), bin_dir)
        options = f"-p {server.port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=200"
        if not fsync:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        started = server._pg_ctl("start", "-w", "-t", "60", "-l", str(folder / "server.log"), "-o", options)
        if started.returncode == 0:
            break
        last = started.stderr + (folder / "server.log").read_text(errors="replace")[-2000:]
    else:
        raise StartError(f"pg_ctl start failed: {last}")
    created = subprocess.run(
        [
            *prefix,
            str(bin_dir.parent / "bin" / "createdb"),
            "-h",
            str(folder),
            "-p",
            str(server.port),
            "-U",
            DB_USER,
            DB_NAME,
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    if created.returncode != 0:
        server.stop()
        raise StartError(f"createdb failed: {created.stderr[-2000:]}")
    return server
