"""A throwaway PostgreSQL cluster for the store tests: initdb + pg_ctl on a loopback port, torn down at the end.

The server runs as an unprivileged user when the tests run as root (CI does; initdb refuses root), its
unix socket in the cluster's own temporary folder, TCP on 127.0.0.1 only, with password (SCRAM) logins
over TCP so the tests exercise libpq's real credential lookup (PGPASSFILE). Missing PostgreSQL skips the
PostgreSQL half with the reason, except under CI=true, where it is an error: CI must test both backends.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from planner.rehearsal.postgres import server_bin

SERVER_USER = "nobody"  # when root: initdb and postgres refuse to run as root
SUPERUSER = "planner"


@dataclass
class PgCluster:
    root: Path
    bin: Path
    port: int
    password: str
    as_user: list[str]
    pgpass: Path

    def url(self, db: str) -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{db}"

    def psql(self, sql: str, db: str = "postgres") -> str:
        """Run SQL as the superuser through the unix socket (trust), as the admin of a real server would."""
        out = subprocess.run([*self.as_user, str(self.bin / "psql"), "-X", "-q", "-A", "-t", "-v",
                              "ON_ERROR_STOP=1", "-h", str(self.root / "sock"), "-p", str(self.port),
                              "-U", SUPERUSER, "-d", db, "-c", sql], capture_output=True, text=True,
                             cwd=self.root, check=True)
        return out.stdout

    def new_database(self) -> str:
        name = "t_" + uuid.uuid4().hex[:12]
        self.psql(f"CREATE DATABASE {name}")
        return name

    def stop(self) -> None:
        subprocess.run([*self.as_user, str(self.bin / "pg_ctl"), "-D", str(self.root / "data"), "-m", "immediate",
                        "-w", "stop"], capture_output=True, cwd=self.root, check=False)
        shutil.rmtree(self.root, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_cluster() -> PgCluster:
    bin_dir = server_bin()  # the rehearsal finds the server programs the same way
    if bin_dir is None:
        raise FileNotFoundError("PostgreSQL server binaries not found (/usr/lib/postgresql/*/bin)")
    root = Path(tempfile.mkdtemp(prefix="planner-pg-"))  # not pytest's tmp: root-only, the server user can't enter
    (root / "sock").mkdir()
    password = secrets.token_hex(16)
    (root / "pw").write_text(password + "\n")
    as_user: list[str] = []
    if os.geteuid() == 0:
        u = pwd.getpwnam(SERVER_USER)
        for p in (root, root / "sock", root / "pw"):
            os.chown(p, u.pw_uid, u.pw_gid)
        as_user = ["runuser", "-u", SERVER_USER, "--"]
    port = _free_port()
    try:
        subprocess.run([*as_user, str(bin_dir / "initdb"), "-D", str(root / "data"), "-U", SUPERUSER,
                        f"--pwfile={root / 'pw'}", "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8",
                        "--no-sync", "--no-instructions"], capture_output=True, text=True, cwd=root, check=True)
        subprocess.run([*as_user, str(bin_dir / "pg_ctl"), "-D", str(root / "data"), "-l", str(root / "log"), "-w",
                        "-o", f"-c listen_addresses=127.0.0.1 -p {port} -k {root / 'sock'} -c fsync=off "
                              "-c max_connections=50 -c shared_preload_libraries=pg_stat_statements", "start"],
                       capture_output=True, text=True, cwd=root, check=True)
    except subprocess.CalledProcessError as e:
        log = (root / "log").read_text() if (root / "log").exists() else ""
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"{e.cmd[len(as_user)]} failed: {e.stderr or e.stdout}{log}") from None
    pgpass = root / "pgpass"
    pgpass.write_text(f"127.0.0.1:{port}:*:{SUPERUSER}:{password}\n")
    pgpass.chmod(0o600)  # libpq ignores a group- or world-readable password file
    return PgCluster(root, bin_dir, port, password, as_user, pgpass)


def own_cluster(purpose: str) -> Iterator[PgCluster]:
    """A cluster of a fixture's own (tests that restart or reconfigure the server must not share it), stopped
    after; skipped where PostgreSQL cannot start, a failure in CI, which must test ``purpose`` for real."""
    try:
        cluster = start_cluster()
    except (FileNotFoundError, RuntimeError, KeyError) as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must test {purpose} on a real server, but none could be started: {e}")
        pytest.skip(f"PostgreSQL unavailable: {e}")
    yield cluster
    cluster.stop()


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    yield from own_cluster("the PostgreSQL store")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh, empty store of each backend (the PostgreSQL one in its own database, credentials from
    PGPASSFILE as a team's controller would have them). PLANNER_STORE is cleared: tests name the store."""
    monkeypatch.delenv("PLANNER_STORE", raising=False)
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store' / 'team.sqlite'}"
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    monkeypatch.setenv("PGPASSFILE", str(cluster.pgpass))
    monkeypatch.delenv("PGPASSWORD", raising=False)
    return cluster.url(cluster.new_database())
