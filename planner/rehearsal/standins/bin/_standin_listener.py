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
UNKNOWN_SID = "TNS:listener does not currently know of SID given in connect descriptor"  # ORA-12505
DEFAULT_PORT = 1521  # Easy Connect's port when the string names none (Oracle Net Services Reference)
SERVICE, SID, MALFORMED = "service", "sid", "malformed"  # why the listener (or the driver) refuses a string


def key(connect: str) -> tuple[str, int, str] | None:
    """An Easy Connect string (``[//]host[:port]/service``) as (host, port, service), host and service case-blind,
    the port 1521 when not given; None for anything else (a TNS alias, a descriptor: see ``target``)."""
    body = connect.strip()
    if body.startswith("(") or "/" not in body.lstrip("/"):
        return None
    where, _, service = body.lstrip("/").partition("/")
    host, _, port = where.partition(":")
    return host.lower(), int(port) if port.isdigit() else DEFAULT_PORT, service.lower()


# What the JDBC thin driver accepts after ``jdbc:oracle:thin:@`` besides Easy Connect: an Oracle Net connect
# descriptor, keywords case-blind, blanks between tokens allowed (docs/oracle-behaviour.md 53.d1)
Pairs = list[tuple[str, "str | Pairs"]]  # a descriptor's name-value pairs, names upper-cased


def _pairs(text: str, i: int) -> tuple[Pairs, int]:
    """The ``(NAME=value)`` pairs from ``text[i]`` on: a value is a word or more pairs. ValueError when malformed
    (a parenthesis left open or closed twice, a pair without ``=``): the thin driver's NL Exception."""
    out: Pairs = []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text) or text[i] != "(":
            return out, i
        eq = text.find("=", i)
        if eq < 0 or any(c in text[i + 1:eq] for c in "()"):
            raise ValueError("a pair without NAME=")
        name, j = text[i + 1:eq].strip().upper(), eq + 1
        while j < len(text) and text[j].isspace():
            j += 1
        if j < len(text) and text[j] == "(":
            value, j = _pairs(text, j)
        else:
            end = j
            while end < len(text) and text[end] not in "()=":
                end += 1
            value, j = text[j:end].strip(), end
        while j < len(text) and text[j].isspace():
            j += 1
        if j >= len(text) or text[j] != ")" or not name:
            raise ValueError("a pair left open")
        out.append((name, value))
        i = j + 1


def _all(pairs: Pairs, name: str) -> list[str | Pairs]:
    return [v for n, v in pairs if n == name]


def _addresses(pairs: Pairs) -> list[tuple[str, int]]:
    """Every ADDRESS of a DESCRIPTION, in its ADDRESS_LISTs too, in the order the driver tries them."""
    out: list[tuple[str, int]] = []
    for name, value in pairs:
        if name == "ADDRESS_LIST" and isinstance(value, list):
            out += _addresses(value)
        elif name == "ADDRESS" and isinstance(value, list):
            host, port = _all(value, "HOST"), _all(value, "PORT")
            if host and isinstance(host[0], str):
                out.append((host[0].lower(), int(port[0]) if port and str(port[0]).isdigit() else DEFAULT_PORT))
    return out


def target(connect: str) -> tuple[list[tuple[str, int]], str, str] | None:
    """Where a connect string leads: (its addresses in order, "SERVICE_NAME" or "SID", that name case-blind).
    An Easy Connect string has one address and a service; a descriptor its ADDRESS / ADDRESS_LIST entries and its
    CONNECT_DATA's SERVICE_NAME, else SID (DESCRIPTION_LIST: each DESCRIPTION's, in order). None for a TNS alias
    (the lab has no tnsnames.ora). ValueError for a descriptor the driver cannot read."""
    ez = key(connect)
    if ez is not None:
        return [(ez[0], ez[1])], "SERVICE_NAME", ez[2]
    body = connect.strip()
    if not body.startswith("("):
        return None
    pairs, end = _pairs(body, 0)
    if end != len(body) or not pairs:
        raise ValueError("text after the descriptor")
    described = [v for n, v in pairs if n == "DESCRIPTION" and isinstance(v, list)]
    for n, v in pairs:
        if n == "DESCRIPTION_LIST" and isinstance(v, list):
            described += [d for d in _all(v, "DESCRIPTION") if isinstance(d, list)]
    addresses = [a for d in described for a in _addresses(d)]
    data = [c for d in described for c in _all(d, "CONNECT_DATA") if isinstance(c, list)]
    if not addresses or not data:
        raise ValueError("no ADDRESS with a HOST, or no CONNECT_DATA")
    for kind in ("SERVICE_NAME", "SID"):
        named = [v for c in data for v in _all(c, kind) if isinstance(v, str) and v]
        if named:
            return addresses, kind, named[0].lower()
    raise ValueError("CONNECT_DATA names no SERVICE_NAME or SID")


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


def _served(found: str) -> dict[tuple[str, int, str], str]:
    """The listener file's entries as (host, port, service) -> state, one per address of each served string."""
    with open(found) as f:
        listed = json.load(f)
    out: dict[tuple[str, int, str], str] = {}
    for connect, state in listed.items():
        try:
            where = target(connect)
        except ValueError:
            continue
        if where is not None and where[1] == "SERVICE_NAME":
            out.update({(h, p, where[2]): state for h, p in where[0]})
    return out


def _instance(state: str) -> str:
    """The SID a database registers with its listener: its state's instance name ("" when unreadable)."""
    try:
        with open(state) as f:
            return str(json.load(f)["database"].get("instance_name") or "").lower()
    except (OSError, ValueError, KeyError, AttributeError):
        return ""


def route(connect: str) -> str | None:
    """Where the lab's listener sends ``connect``: None when this host has no listener file (its own state); ""
    when a listener at one of its addresses serves its service (or knows its SID): PLANNER_STANDIN_STATE then
    names that database's state for every later read (_standin.state_path); else why it is refused: SERVICE
    (ORA-12514), SID (ORA-12505) or MALFORMED (a descriptor the driver cannot read)."""
    found = listener_file()
    if not found:
        return None
    try:
        where = target(connect)
    except ValueError:
        return MALFORMED
    if where is None:
        return SERVICE  # a TNS alias: the lab's clients have no tnsnames.ora to name a service by
    addresses, kind, name = where
    served = _served(found)
    if kind == "SERVICE_NAME":
        state = next((served[(h, p, name)] for h, p in addresses if (h, p, name) in served), None)
    else:
        state = next((st for (h, p, _), st in served.items() if (h, p) in addresses and _instance(st) == name), None)
    if state is None:
        return SERVICE if kind == "SERVICE_NAME" else SID
    os.environ["PLANNER_STANDIN_STATE"] = state
    return ""


def reach(connect: str) -> bool | None:
    """Whether the lab's listener serves ``connect``: None when this host has no listener file, True when it
    does (``route``), False when it refuses it."""
    routed = route(connect)
    return None if routed is None else routed == ""


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


# ojdbc's answers (JDBC thin 11.2-19c) as a Java program's UCP pool raises them: a listener that knows no such
# service (docs/oracle-behaviour.md 43.s8) or SID, a descriptor the driver cannot read (53.d1)
_UCP = "oracle.ucp.UniversalConnectionPoolException: Cannot get Connection from Datasource: "
_LISTENER_REFUSED = "java.sql.SQLException: Listener refused the connection with the following error:\n"
UCP_REFUSED = f"{_UCP}{_LISTENER_REFUSED}ORA-12514, {UNKNOWN_SERVICE}"
UCP_REFUSALS = {SERVICE: UCP_REFUSED, SID: f"{_UCP}{_LISTENER_REFUSED}ORA-12505, {UNKNOWN_SID}",
                MALFORMED: f"{_UCP}java.sql.SQLRecoverableException: IO Error: NL Exception was generated"}


def ucp_refusal(connect: str) -> str:
    """What a UCP-pooled JDBC program prints when ``connect`` reaches no database ("" when it does, or when this
    host has no listener file: its own database)."""
    return UCP_REFUSALS.get(route(connect) or "", "")
