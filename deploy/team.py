"""Run the app for a team on this machine: PostgreSQL, N Streamlit replicas, nginx in front.

    python -m deploy.team up [--replicas 2] [--port 8080]     # prints the address; Ctrl-C stops everything

Everything lives in one temporary folder and listens on 127.0.0.1 (free ports unless ``--port`` is given):

* PostgreSQL (:mod:`deploy.postgres`), schema migrated once (``python -m storage upgrade``) before the
  replicas start; every replica gets ``LLMECON_DATABASE_URL``, so a review saved through one is read
  through any other.
* ``streamlit run app.py`` per replica, all with the same ``server.cookieSecret`` (the XSRF token of an
  upload, and a sign-in cookie, stay valid when nginx moves a session to another replica) and XSRF
  protection and CORS left on.
* nginx: websocket proxying for ``/_stcore/stream``, sticky sessions by a cookie (``llmecon_replica``, set
  on a browser's first request, hashed consistently onto the replicas), and failover to another replica when
  one is down; the Streamlit client reconnects and restores the scenario from the link's ``?s=`` parameter.
  Every response names the replica that served it in ``X-Replica`` (tests and the load benchmark use it).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from deploy.postgres import Postgres, start_postgres
from deploy.processes import StartError, die_with_parent, free_port, port_open, stop_group, tail, wait_until

ROOT = Path(__file__).resolve().parents[1]
NGINX = os.environ.get("NGINX_BIN", "/usr/sbin/nginx")

STREAMLIT_ENV = {
    "STREAMLIT_SERVER_HEADLESS": "true",
    "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
    "STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none",
    "STREAMLIT_SERVER_RUN_ON_SAVE": "false",
    "STREAMLIT_SERVER_ENABLE_XSRF_PROTECTION": "true",
    "STREAMLIT_SERVER_ENABLE_CORS": "true",
}

_NGINX_CONF = """
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
    log_format replica '$remote_addr [$time_local] "$request" $status upstream=$upstream_addr';
    access_log {folder}/nginx-access.log replica;
    client_body_temp_path {folder}/client_body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    client_max_body_size 20m;  # the largest valid scenario file (16 MB) plus form overhead

    map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
    # sticky sessions: a browser keeps the replica its cookie hashes to; a new browser gets a random key
    map $cookie_llmecon_replica $sticky_key {{ "" $request_id; default $cookie_llmecon_replica; }}
    map $cookie_llmecon_replica $sticky_cookie {{
        "" "llmecon_replica=$request_id; Path=/; HttpOnly; SameSite=Lax";
        default "";
    }}

    upstream app {{
        hash $sticky_key consistent;
{servers}
    }}

    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://app;
            proxy_http_version 1.1;
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_read_timeout 86400s;  # a websocket stays open for the whole session
            proxy_next_upstream error timeout http_502 http_503;
            proxy_connect_timeout 2s;
            add_header Set-Cookie $sticky_cookie always;
            add_header X-Replica $upstream_addr always;
        }}
    }}
}}
"""


@dataclass
class Replica:
    """One ``streamlit run app.py`` process."""

    port: int
    env: dict[str, str]
    log: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=1) as response:  # noqa: S310
                return bool(response.status == 200)
        except OSError:
            return False

    def start(self, timeout_s: float = 90.0) -> None:
        cmd = [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(ROOT / "app.py"),
            "--server.address",
            "127.0.0.1",
            "--server.port",
            str(self.port),
        ]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                cmd,
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=die_with_parent(),
            )
        process = self.process

        def up() -> bool:
            if process.poll() is not None:
                raise StartError(f"replica on port {self.port} exited: {tail(self.log)}")
            return self.healthy()

        wait_until(up, timeout_s, f"replica on port {self.port}", lambda: tail(self.log))

    def stop(self) -> None:
        if self.process is not None:
            stop_group(self.process)
            self.process = None


@dataclass
class Team:
    """A running deployment: PostgreSQL, the replicas, nginx; ``url`` is nginx's address."""

    folder: Path
    postgres: Postgres
    replicas: list[Replica]
    nginx_port: int
    nginx: subprocess.Popen[bytes] | None = None
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.nginx_port}"

    @property
    def database_url(self) -> str:
        return self.postgres.url

    def replica_named(self, upstream_addr: str) -> Replica:
        """The replica whose address nginx reported in ``X-Replica`` (e.g. ``127.0.0.1:41234``)."""
        port = int(upstream_addr.rsplit(":", 1)[-1])
        return next(r for r in self.replicas if r.port == port)

    def streams_served_by(self, replica: Replica) -> int:
        """Finished websocket sessions (``/_stcore/stream``) nginx proxied to ``replica``, from its access log
        (a websocket is logged when it closes)."""
        try:
            lines = (self.folder / "nginx-access.log").read_text().splitlines()
        except OSError:
            return 0
        return sum(1 for line in lines if "/_stcore/stream" in line and line.endswith(f":{replica.port}"))

    def stop(self) -> None:
        if self.nginx is not None:
            stop_group(self.nginx)
        for replica in self.replicas:
            replica.stop()
        self.postgres.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


def _start_nginx(folder: Path, port: int, replica_ports: list[int]) -> subprocess.Popen[bytes]:
    if not Path(NGINX).is_file():
        raise StartError(
            f"nginx is not installed ({NGINX}). Install it with: sudo apt-get install -y nginx "
            "(bash scripts/test does this when run as root), or set NGINX_BIN"
        )
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;" for p in replica_ports)
    conf = folder / "nginx.conf"
    conf.write_text(_NGINX_CONF.format(folder=folder, port=port, servers=servers))
    log = folder / "nginx-stdout.log"
    with log.open("ab") as out:
        process = subprocess.Popen(
            [NGINX, "-p", str(folder), "-c", str(conf), "-g", "daemon off;"],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=die_with_parent(),
        )

    def up() -> bool:
        if process.poll() is not None:
            raise StartError(f"nginx exited: {tail(log)} {tail(folder / 'nginx-error.log')}")
        return port_open(port)

    wait_until(up, 30, "nginx", lambda: tail(folder / "nginx-error.log"))
    return process


def start_team(
    replicas: int = 2, *, port: int | None = None, extra_env: Mapping[str, str] | None = None, fsync: bool = True
) -> Team:
    """Start PostgreSQL, ``replicas`` app replicas and nginx; stop it all with :meth:`Team.stop`."""
    folder = Path(tempfile.mkdtemp(prefix="llmecon-team-"))
    os.chmod(folder, 0o755)  # noqa: S103  (the postgres user must reach its data folder inside)
    postgres = start_postgres(folder / "pg", fsync=fsync)
    team = Team(folder, postgres, [], port or free_port())
    try:
        env = {
            **os.environ,
            **(extra_env or {}),
            **STREAMLIT_ENV,
            "LLMECON_DATABASE_URL": postgres.url,
            "STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(32),
        }
        migrated = subprocess.run(
            [sys.executable, "-m", "storage", "upgrade"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if migrated.returncode != 0:
            raise StartError(f"schema migration failed: {migrated.stderr[-2000:]}")
        for i in range(replicas):
            replica = Replica(free_port(), env, folder / f"replica-{i}.log")
            team.replicas.append(replica)
            replica.start()
        team.nginx = _start_nginx(folder, team.nginx_port, [r.port for r in team.replicas])
    except BaseException:
        team.stop()
        raise
    return team


@contextlib.contextmanager
def running_team(replicas: int = 2, **kwargs: object) -> Iterator[Team]:
    """Context manager around :func:`start_team` that always stops everything."""
    team = start_team(replicas, **kwargs)  # type: ignore[arg-type]
    try:
        yield team
    finally:
        team.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.team", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="start PostgreSQL, the replicas and nginx; Ctrl-C stops them")
    up.add_argument("--replicas", type=int, default=2, help="app replicas behind nginx (default 2)")
    up.add_argument("--port", type=int, default=None, help="nginx port (default: a free one)")
    args = parser.parse_args(argv)
    try:
        team = start_team(args.replicas, port=args.port)
    except StartError as exc:
        print(f"python -m deploy.team: error: {exc}", file=sys.stderr)
        return 2
    print(f"LLM unit economics for a team: {team.url}")
    print(f"  reviews in PostgreSQL: {team.database_url}")
    for replica in team.replicas:
        print(f"  replica: {replica.url}  (log {replica.log})")
    print("Ctrl-C stops everything.", flush=True)
    stop = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    try:
        while not stop["now"]:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    team.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
