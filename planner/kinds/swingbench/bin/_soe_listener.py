"""PLANNER STAND-IN (host-side, NOT Swingbench): where charbench's and oewizard's ``-cs`` lands. On a client host
(a load generator host: no database of its own) the lab's listener stand-in, ``LISTENER_REL`` above the program
(connect string -> the database host's stand-in state, written by the lab for every kind's client), points the
program at that state, as the JDBC thin driver reaches the database host's listener; a service it does not serve
is refused with the thin driver's words (docs/oracle-behaviour.md 43.s8). No listener file: the host's own state
(the database host itself), as before."""

from __future__ import annotations

import json
import os
import sys

LISTENER_REL = os.path.join("var", "lib", "planner-standin", "listener.json")
# ojdbc's answer to a listener that knows no such service (JDBC thin 11.2-19c), as charbench's UCP pool raises it
REFUSED = ("oracle.ucp.UniversalConnectionPoolException: Cannot get Connection from Datasource: "
           "java.sql.SQLException: Listener refused the connection with the following error:\n"
           "ORA-12514, TNS:listener does not currently know of service requested in connect descriptor")


def _key(connect: str) -> tuple[str, int, str] | None:
    """An Easy Connect string as (host, port, service), the port 1521 when not given; None for anything else."""
    if not connect.startswith("//"):
        return None
    where, _, service = connect[2:].partition("/")
    host, _, port = where.partition(":")
    return host.lower(), int(port) if port.isdigit() else 1521, service.lower()


def _listener_file() -> str:
    here = os.path.dirname(os.path.abspath(sys.argv[0]))  # not resolved: the sandbox's kit, not the package
    while True:
        found = os.path.join(here, LISTENER_REL)
        if os.path.isfile(found):
            return found
        if os.path.dirname(here) == here:
            return ""
        here = os.path.dirname(here)


def refusal(connect: str) -> str:
    """"" when ``connect`` reaches a database (PLANNER_STANDIN_STATE then names it for every later read of the
    state), else the words the program prints."""
    found = _listener_file()
    if not found:
        return ""
    with open(found) as f:
        served = {_key(k): v for k, v in json.load(f).items()}
    state = served.get(_key(connect)) if _key(connect) is not None else None
    if state is None:
        return REFUSED
    os.environ["PLANNER_STANDIN_STATE"] = state
    return ""
