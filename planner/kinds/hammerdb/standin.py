"""HammerDB's rehearsal stand-in: the kit folder a plan's ``home:`` names gets a ``hammerdbcli`` that runs the
stand-in (bin/hammerdbcli here, NOT HammerDB) as the release the inventory's ``hammerdb_release`` names.

The kit's ``hammerdbcli`` is a small sh wrapper, not a link: it holds the line HammerDB's own hammerdbcli holds
(``set hdb_version "v4.5"``, hammerdbcli line 28 at v3.3-v4.5, line 30 at v4.6-v4.12, 31 at v5.0-v6.0), which
planner reads to know the release, and starts the stand-in with that release.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planner.errors import input_error
from planner.kinds.hammerdb.args import client_instance
from planner.rehearsal.kitsite import ClientSite, KitSite, write_host_env

BIN = Path(__file__).resolve().parent / "bin"
PROGRAM = "hammerdbcli"
LINK = ".hammerdbcli-standin"
RELEASE_VAR = "hammerdb_release"
RELEASES = ("3.3", "4.0", "4.5", "4.6", "4.12")  # the tags whose behaviour differs: the rehearsal matrix's values
# 5.0 and 6.0 behave as 4.12 (docs/oracle-behaviour.md 43.h10): imitated, but a matrix world on them adds nothing
SAME_AS_4_12 = ("5.0", "6.0")
DEFAULT_RELEASE = "4.12"


def release_of(host_vars: Mapping[str, Any] | None) -> str:
    """The release the inventory names for the stand-in kit, else the default; another one is refused."""
    given = str((host_vars or {}).get(RELEASE_VAR) or DEFAULT_RELEASE).strip().lstrip("v")
    if given not in RELEASES + SAME_AS_4_12:
        raise input_error(f"{RELEASE_VAR} {given!r} is not a HammerDB release the stand-in imitates",
                          f"set {RELEASE_VAR} to one of {', '.join(RELEASES + SAME_AS_4_12)}")
    return given


def write_kit(folder: Path, release: str) -> Path:
    """``<folder>/hammerdbcli`` for ``release``, and the link to the stand-in it runs (tests call it for a bare
    kit). The link keeps the program's path in the sandbox: the stand-in finds the sandbox's state above it."""
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / LINK
    if not link.is_symlink():
        link.symlink_to(BIN / PROGRAM)
    program = folder / PROGRAM
    program.write_text(
        "#!/bin/sh\n# PLANNER STAND-IN for HammerDB's hammerdbcli (NOT HammerDB): runs planner's stand-in as "
        f"HammerDB {release}\nPLANNER_STANDIN_HAMMERDB_VERSION={shlex.quote(release)}\n"
        "export PLANNER_STANDIN_HAMMERDB_VERSION\n"
        f'exec "$(dirname -- "$0")/{LINK}" "$@"\n'
        f'set hdb_version "v{release}"\n')
    program.chmod(0o755)
    return program


def serve_client(site: ClientSite) -> None:
    """A rehearsal's client host sees the lab's listener on the database host: the connect string the step writes
    (planner.kinds.hammerdb.step HammerDB.instance: a service written as //host:port/service is the user's, else
    //<listener>/<service>) -> that host's stand-in state. HammerDB on PostgreSQL (db: pg) needs no listener."""
    service = str(site.args.get("service") or "").strip()
    if not service or str(site.args.get("db") or "ora").strip().lower() == "pg":
        return
    home = str(site.args.get("home") or "")
    env = site.root / home.lstrip("/") / "standin.env"
    if home.startswith("/") and env.is_file():
        # the AWR snapshots HammerDB's timed driver takes from the client are the database's: their host line is
        # the database server's, never the client's (the kit's standin.env was written for the host it is on)
        env.write_text("")
        write_host_env(env, site.database)
    host, port = site.listener()
    site.serve(client_instance(service, host, port))


def install(site: KitSite) -> None:
    """The stand-in at ``<home>/hammerdbcli``, once; a relative home (planned on no host path) gets nothing."""
    if not site.absolute:
        return
    if not (site.target / PROGRAM).exists():
        write_kit(site.target, release_of(site.host.vars))
        site.host_env(site.target / "standin.env")  # the AWR host line of the windows it snapshots


def version(host_vars: Mapping[str, Any] | None = None) -> str:
    """The release the stand-in imitates for a host (its ``hammerdb_release``), for the rehearsal's world record."""
    return release_of(host_vars)

