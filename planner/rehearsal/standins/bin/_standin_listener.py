"""PLANNER STAND-IN (host-side, NOT Oracle): the lab's listener as a client host sees it, for every kind whose load
generator runs on a client host (docs/load-generator-host.md). The rehearsal (or a test) writes ``LISTENER_REL`` in
the client's sandbox: each Easy Connect string the database hosts serve -> that database's stand-in state. A
stand-in program on the client finds the file above itself and reaches the state its connect string names, as the
real client reaches the database host's listener; a service no listener serves is refused with ORA-12514's words.
No listener file: the host's own state (the database host itself). Plain Python, no planner import: the programs
load it from this folder, planner.rehearsal.standins (the writer) too."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping

LISTENER_REL = os.path.join("var", "lib", "planner-standin", "listener.json")
# The listener's answer to a service it does not know (ORA-12514), without its prefix: the OCI client prints
# "ORA-12514: ...", the JDBC thin driver "ORA-12514, ..." (each program says it in its own client's words)
UNKNOWN_SERVICE = "TNS:listener does not currently know of service requested in connect descriptor"
DEFAULT_PORT = 1521  # Easy Connect's port when the string names none (Oracle Net Services Reference)


def key(connect: str) -> tuple[str, int, str] | None:
    """An Easy Connect string as (host, port, service), host and service case-blind, the port 1521 when not given;
    None for anything else (a TNS alias, a descriptor)."""
    if not connect.startswith("//"):
        return None
    where, _, service = connect[2:].partition("/")
    host, _, port = where.partition(":")
    return host.lower(), int(port) if port.isdigit() else DEFAULT_PORT, service.lower()


def listener_file() -> str:
    """The listener file above the running program ("" when there is none): the sandbox's, not the package's."""
    here = os.path.dirname(os.path.abspath(sys.argv[0]))  # not resolved: the sandbox's kit, not the package
    while True:
        found = os.path.join(here, LISTENER_REL)
        if os.path.isfile(found):
            return found
        if os.path.dirname(here) == here:
            return ""
        here = os.path.dirname(here)


def reach(connect: str) -> bool | None:
    """Whether the lab's listener serves ``connect``: None when this host has no listener file (its own state),
    True when it does (PLANNER_STANDIN_STATE then names that database's state for every later read,
    _standin.state_path), False when no listener knows the service (ORA-12514)."""
    found = listener_file()
    if not found:
        return None
    with open(found) as f:
        served = {key(k): v for k, v in json.load(f).items()}
    state = served.get(key(connect)) if key(connect) is not None else None
    if state is None:
        return False
    os.environ["PLANNER_STANDIN_STATE"] = state
    return True


def write(root: str, served: Mapping[str, str]) -> str:
    """``LISTENER_REL`` in the client's sandbox ``root``: each connect string -> the database's state file."""
    path = os.path.join(root, LISTENER_REL)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(json.dumps(dict(served), indent=1))
    return path


def served(root: str) -> dict[str, str]:
    """What the listener file in ``root`` already serves (another step of the play's service): {} when none."""
    path = os.path.join(root, LISTENER_REL)
    if not os.path.isfile(path):
        return {}
    with open(path) as f:
        return dict(json.load(f))


# ojdbc's answer to a listener that knows no such service (JDBC thin 11.2-19c), as a Java program's UCP pool raises
# it (docs/oracle-behaviour.md 43.s8)
UCP_REFUSED = ("oracle.ucp.UniversalConnectionPoolException: Cannot get Connection from Datasource: "
               "java.sql.SQLException: Listener refused the connection with the following error:\n"
               f"ORA-12514, {UNKNOWN_SERVICE}")


def ucp_refusal(connect: str) -> str:
    """What a UCP-pooled JDBC program prints when ``connect`` reaches no database ("" when it does, or when this
    host has no listener file: a string that is no Easy Connect one is refused there, as the lab knows no other)."""
    return UCP_REFUSED if reach(connect) is False else ""
