"""Oracle stand-ins: fake sqlplus/srvctl/asmcmd for sandbox hosts (tests and rehearsals). NOT Oracle.

``install_standins(root)`` links the programs in ``bin/`` into ``<root>/<oracle_home>/bin`` and seeds the
state file ``<root>/var/lib/planner-standin/db.json``. planner runs ``<oracle_home>/bin/sqlplus`` by
absolute path mapped through the host's ``planner_root``, so the same step code drives a real Oracle home
on a real host and these stand-ins in a sandbox.
"""

from __future__ import annotations

import getpass
import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from planner.rehearsal.standins.profile import HostProfile, apply_profile

BIN = Path(__file__).resolve().parent / "bin"
PROGRAMS = ("sqlplus", "srvctl", "asmcmd", "tnsping")
STATE_REL = "var/lib/planner-standin/db.json"
DEFAULT_HOME = "/u01/app/oracle/product/19.0.0/dbhome_1"


def _default_state() -> dict[str, Any]:
    sys.path.insert(0, str(BIN))
    try:
        import _standin  # type: ignore[import-not-found]  # the stand-ins' own module: one definition of the seed state

        return _standin.default_state()
    finally:
        sys.path.remove(str(BIN))


def _listener() -> Any:
    """The stand-ins' listener module (bin/_standin_listener.py): one definition of the file's place and form for
    the programs that read it and the lab that writes it."""
    sys.path.insert(0, str(BIN))
    try:
        import _standin_listener  # type: ignore[import-not-found]

        return _standin_listener
    finally:
        sys.path.remove(str(BIN))


def write_listener(client_root: Path, served: Mapping[str, Path]) -> Path:
    """A client host's view of the lab's listeners (docs/load-generator-host.md): each Easy Connect string
    (//host:port/service) the database hosts serve -> the stand-in state of the database it reaches. A stand-in
    load generator on the client (each kind's program) reaches that state through its connect string,
    as the real tool reaches the listener, and refuses one no listener serves (ORA-12514)."""
    return Path(_listener().write(str(client_root), {k: str(v) for k, v in served.items()}))


def serve_listener(client_root: Path, connect: str, database_root: Path) -> Path:
    """The listener file of a client host's sandbox, ``connect`` added (-> the database host's state in its
    sandbox ``database_root``) to what it served already (another step of the play: its service too)."""
    served = {k: Path(v) for k, v in _listener().served(str(client_root)).items()}
    return write_listener(client_root, {**served, connect: state_file(database_root)})


def state_file(root: Path) -> Path:
    return Path(root) / STATE_REL


def rac_state(state: dict[str, Any], nodes: int = 2, unique_name: str = "SLOB") -> None:
    """Make a seed state a RAC node's: ``nodes`` instances SLOB1..n of the database ``unique_name`` (its db_unique_name,
    distinct from every instance name), this sandbox being node 1 (labhost, instance SLOB1, ASM instance +ASM1),
    registered with Grid (srvctl), CLUSTER_DATABASE true. Shared convention with the global-AWR stand-in:
    ``database.cluster_database``, ``database.instances`` [{inst_id, instance_name, host_name}],
    ``database.unique_name``."""
    db = state["database"]
    names = [f"{unique_name}{n}" for n in range(1, nodes + 1)]
    hosts = [db["host_name"], *(f"{db['host_name']}{n}" for n in range(2, nodes + 1))]
    listed = [{"inst_id": n, "instance_name": i, "host_name": h}
              for n, (i, h) in enumerate(zip(names, hosts, strict=True), 1)]
    db.update(name=unique_name, unique_name=unique_name, instance_name=names[0], registered=True,
              cluster_database=True, instances=listed)
    state["asm"]["sid"] = "+ASM1"


def install_standins(root: Path, oracle_home: str = DEFAULT_HOME, *, grid_home: str | None = None,
                     registered: bool | None = None, rac: bool = False, grid_user: str | None = None,
                     profile: HostProfile | None = None, **database: Any) -> Path:
    """Put the stand-ins under ``root`` (a host's sandbox) and seed their state; returns the state file.

    ``registered`` says whether srvctl knows the database (default: only on a RAC seed); ``rac`` seeds a RAC node
    (``rac_state``: SLOB1/SLOB2 of db_unique_name SLOB, +ASM1, registered); ``grid_user`` names the only OS user in the
    OSASM group (role separation: ``/ as sysasm`` by anyone else fails ORA-01031; default: the user running this, the
    lab's);
    ``profile`` is what the inventory says the host is (planner.rehearsal.standins.profile: version, CDB, pfile,
    Resource Manager, SLOB release, failure modes; its ``rac`` is the same as ``rac=True``);
    ``database`` overrides seed fields of ``state["database"]`` (e.g. ``flashback_on="NO"``).
    """
    root = Path(root)
    for home in {oracle_home, grid_home or oracle_home}:
        bindir = root / home.lstrip("/") / "bin"
        bindir.mkdir(parents=True, exist_ok=True)
        for prog in PROGRAMS:
            link = bindir / prog
            if link.is_symlink() or link.exists():
                link.unlink()
            # a symlink, not a copy: Python resolves it for sys.path, so the programs find their modules
            link.symlink_to(BIN / prog)
    state = _default_state()
    if profile is not None:
        apply_profile(state, profile)
        set_slob_pool(state, profile.slob.buffer_pool)
    if rac or (profile is not None and profile.rac):
        rac_state(state)
    state["database"].update(registered=rac if registered is None else registered, **database)
    state["asm"]["osasm_users"] = [grid_user or getpass.getuser()]
    state["oracle_home"] = oracle_home
    path = state_file(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(state, indent=1))
    return path


def standin_vars(root: Path, oracle_home: str = DEFAULT_HOME) -> dict[str, Any]:
    """Inventory vars for a sandbox host with stand-ins (no oracle_user: the lab cannot sudo). ORACLE_SID is
    the seeded instance's (SLOB1 on a RAC node seed): another SID reaches an idle instance, as on a real node."""
    try:
        sid = str(load_state(root)["database"].get("instance_name") or "orcl")
    except (OSError, ValueError, KeyError):
        sid = "orcl"  # not installed yet: the seed's default
    # the licence is stated, as a lab's inventory must (planner.db.licence): the stand-in labs take AWR
    return {"planner_root": str(root), "oracle_home": oracle_home, "oracle_sid": sid, "oracle_access": "sqlplus",
            "oracle_poll_interval_s": 0, "oracle_diagnostics_pack": True}


def set_slob_pool(state: dict[str, Any], pool: str) -> None:
    """The BUFFER_POOL of the seeded SLOB tables (USER1.CF1, CF2): what that kit release's setup.sh created."""
    for key, seg in state.get("segments", {}).items():
        if seg.get("segment_type") == "TABLE" and key.startswith("USER"):
            seg["buffer_pool"] = pool


def load_state(root: Path) -> dict[str, Any]:
    return json.loads(state_file(root).read_text())


def update_state(root: Path, change: Callable[[dict[str, Any]], None]) -> Mapping[str, Any]:
    state = load_state(root)
    change(state)
    state_file(root).write_text(json.dumps(state, indent=1))
    return state
