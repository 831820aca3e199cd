"""A real PostgreSQL server for a rehearsal: ``initdb`` and ``pg_ctl`` on a loopback port, torn down at its end.

A kind whose tool is a PostgreSQL client runs for real in a rehearsal, against a server this module
starts: as an unprivileged user (initdb and postgres refuse root: when planner runs as root the server runs as
``nobody``), its socket and data in the rehearsal's own folder, TCP on 127.0.0.1 only, with password (SCRAM)
logins, so the kind's password path (a private PGPASSFILE) is the one exercised. Each database the plan names
is created. The hosts that need it get ``pg_host``/``pg_port``/``pg_user``/``pg_password`` pointing at it.
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from planner.errors import PlannerError

SERVER_USER = "nobody"  # when planner runs as root
SUPERUSER = "planner"
_TIMEOUT_S = 120.0


def server_bin() -> Path | None:
    """The folder holding initdb and pg_ctl: Debian's /usr/lib/postgresql/<major>/bin (newest), else the PATH."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class RehearsalServer:
    """One running server; ``host_vars`` are what a host that uses it gets."""

    root: Path
    bin: Path
    port: int
    password: str
    as_user: list[str]
    version: str

    def host_vars(self) -> dict[str, object]:
        return {"pg_host": "127.0.0.1", "pg_port": self.port, "pg_user": SUPERUSER, "pg_password": self.password}

    def _run(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self.as_user, *argv], capture_output=True, text=True, cwd=self.root,
                              timeout=_TIMEOUT_S, check=False)

    def create_databases(self, names: Iterable[str]) -> None:
        for name in sorted(set(names)):
            r = self._run([str(self.bin / "createdb"), "-h", str(self.root / "sock"), "-p", str(self.port),
                           "-U", SUPERUSER, name])
            if r.returncode != 0 and "already exists" not in r.stderr:
                raise PlannerError(f"rehearsal: the PostgreSQL server could not create database {name!r}: "
                                 f"{r.stderr.strip()[-300:]}")

    def stop(self) -> None:
        self._run([str(self.bin / "pg_ctl"), "-D", str(self.root / "data"), "-m", "immediate", "-w", "stop"])


def start(base: Path) -> RehearsalServer:
    """A fresh server under ``base``; InputError naming what is missing when this machine cannot run one."""
    bin_dir = server_bin()
    if bin_dir is None or not (bin_dir / "pg_ctl").exists():
        raise PlannerError("rehearsal: this plan runs a PostgreSQL client for real, and this machine has no "
                         "PostgreSQL server programs (initdb, pg_ctl)",
                         hint="install them (Debian/Ubuntu: apt-get install postgresql), or run the plan on "
                              "its lab")
    root = base / "postgresql"
    (root / "sock").mkdir(parents=True)
    password = secrets.token_hex(16)
    (root / "pw").write_text(password + "\n")
    as_user: list[str] = []
    if os.geteuid() == 0:
        ids = pwd.getpwnam(SERVER_USER)
        base.chmod(0o755)
        for p in (root, root / "sock", root / "pw"):
            os.chown(p, ids.pw_uid, ids.pw_gid)
        as_user = ["runuser", "-u", SERVER_USER, "--"]
    version = subprocess.run([str(bin_dir / "postgres"), "--version"], capture_output=True, text=True,
                             timeout=_TIMEOUT_S, check=False).stdout.strip()
    server = RehearsalServer(root, bin_dir, _free_port(), password, as_user, version)
    init = server._run([str(bin_dir / "initdb"), "-D", str(root / "data"), "-U", SUPERUSER, f"--pwfile={root / 'pw'}",
                        "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync"])
    started = init.returncode == 0 and server._run([
        str(bin_dir / "pg_ctl"), "-D", str(root / "data"), "-l", str(root / "log"), "-w", "-o",
        f"-c listen_addresses=127.0.0.1 -p {server.port} -k {root / 'sock'} -c max_connections=100",
        "start"]).returncode == 0
    (root / "pw").unlink()
    if not started:
        log = (root / "log").read_text(errors="replace")[-600:] if (root / "log").exists() else init.stderr[-600:]
        raise PlannerError(f"rehearsal: the PostgreSQL server for the rehearsal did not start: {log.strip()}")
    return server
