"""A throwaway PostgreSQL server for the gradebook tests: initdb and pg_ctl from Debian's
`postgresql` package (on PATH or in /usr/lib/postgresql/*/bin), a cluster in a temporary folder
listening on a Unix socket in that folder and on no TCP address at all, stopped and removed at
the end of the run. Under CI (CI=true; .ci/run installs the package) a missing PostgreSQL fails
the tests that need it; elsewhere they skip.

PostgreSQL refuses to run as root, so as root (CI is) the server runs as the package's
`postgres` user, which owns the temporary folder.
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

import pytest

PORT = 5432  # only names the socket file (.s.PGSQL.5432) in our own folder; no TCP is opened


@dataclass
class Server:
    folder: Path
    bin: Path
    user: str | None  # the OS user it runs as, when we are root

    @property
    def socket_dir(self) -> Path:
        return self.folder / "socket"

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://drill@/{database}?host={self.socket_dir}&port={PORT}"

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(
            host=str(self.socket_dir), port=PORT, user="drill", dbname="postgres", autocommit=True
        ) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def find_bin() -> Path | None:
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return Path(initdb).resolve().parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if Path(folder, "initdb").exists() and Path(folder, "pg_ctl").exists():
            return Path(folder)
    return None


def missing(why: str):
    if os.environ.get("CI") == "true":
        pytest.fail(f"PostgreSQL is needed under CI and {why}; .ci/run installs `postgresql`")
    pytest.skip(f"no PostgreSQL here: {why}")


def start_server() -> Server:
    found = find_bin()
    if found is None:
        missing("initdb and pg_ctl are not on PATH or in /usr/lib/postgresql/*/bin")
    user = None
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            missing("drill's tests run as root and there is no `postgres` user to run it as")
        user = "postgres"
    folder = Path(tempfile.mkdtemp(prefix="drill-pg-"))
    (folder / "socket").mkdir()
    if user is not None:
        for path in (folder, folder / "socket"):
            shutil.chown(path, user=user, group=None)
    server = Server(folder, found, user)
    run = _runner(server)
    run(
        [
            str(found / "initdb"),
            "-D",
            str(folder / "data"),
            "-U",
            "drill",
            "--auth=trust",
            "--no-sync",
            "-E",
            "UTF8",
        ]
    )
    run(
        [
            str(found / "pg_ctl"),
            "-D",
            str(folder / "data"),
            "-l",
            str(folder / "server.log"),
            "-w",
            "-o",
            f"-c listen_addresses='' -k {folder / 'socket'} -p {PORT} -c fsync=off",
            "start",
        ]
    )
    return server


def stop_server(server: Server) -> None:
    try:
        _runner(server)(
            [
                str(server.bin / "pg_ctl"),
                "-D",
                str(server.folder / "data"),
                "-m",
                "fast",
                "-w",
                "stop",
            ]
        )
    finally:
        shutil.rmtree(server.folder, ignore_errors=True)


def _runner(server: Server):
    def run(command: list[str]) -> None:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=120,
            user=server.user,
            cwd=server.folder,
            check=False,
        )
        if done.returncode != 0:
            log = server.folder / "server.log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise RuntimeError(f"{command[0]} failed: {done.stderr}{done.stdout}{tail}")

    return run
