"""Where a kind's stand-in is installed: the sandbox, the kit path the plan names, and the host it plays.

A workload kind's stand-in (planner/kinds/<kind>/standin.py, named by its spec's ``standin``) is a function
``install(site: KitSite) -> None``; the sandbox calls it for each kit argument of the plan's steps. A kind whose
load generator may run on a client host names in ``Oltp.rehearse_client`` a function ``(site: ClientSite) -> None``
the rehearsal calls for each simulated client host, once its database host's sandbox is built.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.host import Host
from planner.rehearsal.standins import serve_listener
from planner.rehearsal.standins.profile import HostProfile

# Inventory vars that describe the real host; the stand-ins print them in their AWR host line.
_HOST_LINE = {"cpus": "PLANNER_STANDIN_CPUS", "cores": "PLANNER_STANDIN_CORES", "sockets": "PLANNER_STANDIN_SOCKETS",
              "memory_gb": "PLANNER_STANDIN_MEMORY_GB"}
STANDIN_BIN = Path(__file__).resolve().parent / "standins" / "bin"  # the shared stand-in programs


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 else None


def _from_facts(host: Host) -> dict[str, float]:
    """The host line from Ansible's processor facts where the inventory states those instead: vcpus are the
    CPUs, processor_count the sockets, processor_cores the cores per socket (ansible/ansible PR #78223: "count"
    is sockets, "cores" per socket), so cores = cores x count."""
    v = host.vars
    vcpus, per_socket, sockets = (_number(v.get(f"ansible_processor_{k}")) for k in ("vcpus", "cores", "count"))
    line = {"cpus": vcpus, "sockets": sockets, "cores": per_socket * sockets if per_socket and sockets else None,
            "memory_gb": m / 1024 if (m := _number(v.get("ansible_memtotal_mb"))) else None}
    return {k: n for k, n in line.items() if n is not None}


def host_line(host: Host) -> dict[str, str]:
    """The inventory's host line as the stand-ins' PLANNER_STANDIN_* variables (awrgen.discover_host): its
    cpus/cores/sockets/memory_gb, else Ansible's facts for them, never this machine's."""
    line = {"PLANNER_STANDIN_HOSTNAME": host.name}
    stated = {**_from_facts(host), **{k: n for k in _HOST_LINE if (n := _number(host.vars.get(k))) is not None}}
    line.update({var: f"{stated[key]:g}" for key, var in _HOST_LINE.items() if key in stated})
    return line


def write_host_env(path: Path, host: Host) -> None:
    """The inventory's host line for a stand-in kit. The file is sourced by sh on the host: every value is
    shlex-quoted (an inventory name is user input)."""
    env = [f"export {var}={shlex.quote(value)}" for var, value in host_line(host).items()]
    with path.open("a") as f:
        f.write("\n".join(env) + "\n")


@dataclass(frozen=True, slots=True)
class KitSite:
    """One kit argument's place in a sandbox."""

    root: Path  # the sandbox: the simulated host's "/"
    path: str  # the path the plan's argument names on the host
    host: Host
    profile: HostProfile  # what the inventory says the host's Oracle and kits are

    @property
    def target(self) -> Path:
        return self.root / self.path.lstrip("/")

    @property
    def absolute(self) -> bool:
        return self.path.startswith("/")

    def host_env(self, path: Path) -> None:
        write_host_env(path, self.host)


@dataclass(frozen=True, slots=True)
class ClientSite:
    """A simulated client host (a database host's ``load_generator_host``) and what it reaches over the lab's
    network: the database host, its sandbox, and the generator step's arguments as rendered for it."""

    root: Path  # the client's sandbox: its "/"
    host: Host  # the client, as the rehearsal reaches it
    database: Host  # the database host, as the rehearsal reaches it (its address is the lab's)
    database_root: Path  # the database host's sandbox (its stand-in state lives there)
    args: Mapping[str, Any]  # the generator step's arguments, rendered for the database host

    def listener(self) -> tuple[str, int]:
        """Where a client reaches the database host's listener: the inventory's oracle_host, else the host's
        address, and oracle_port, else 1521, as planner.db.config.DbConfig.from_vars reads them for the step."""
        v = self.database.vars
        return str(v.get("oracle_host") or self.database.address), int(v.get("oracle_port") or 1521)

    def serve(self, connect: str) -> None:
        """The client's listener file (planner.rehearsal.standins.write_listener): the connect string the step
        writes -> the database host's stand-in state, beside what it served already."""
        serve_listener(self.root, connect, self.database_root)
