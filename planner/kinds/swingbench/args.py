"""The swingbench step's arguments, read once into a frozen ``SwingbenchArgs`` (the schema has checked their
types; the whole numbers are checked again here, as a rendered template gives text)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from planner.errors import StepError
from planner.steps.base import whole_number


@dataclass(frozen=True, slots=True)
class SoeBuild:
    """``build:``: oewizard's scale, tablespace and threads (Swingbench's defaults: scale 1, 4 threads)."""

    scale: float = 1.0
    tablespace: str = ""
    threads: int = 4

    @classmethod
    def of(cls, raw: Any) -> SoeBuild:
        build = dict(raw) if isinstance(raw, Mapping) else {}
        return cls(float(build.get("scale", 1)), str(build.get("tablespace") or ""), int(build.get("threads", 4)))


@dataclass(frozen=True, slots=True)
class SwingbenchArgs:
    """One point's arguments. ``run_time`` None: not given (the point then has no expected run time)."""

    home: str
    config: str
    connect: str
    users: int
    run_time: int | None
    user: str = "soe"
    min_think_ms: int | None = None
    max_think_ms: int | None = None
    build: SoeBuild | None = None  # None: no build: (the schema must be there)
    data_on: str = ""  # where the play put the storage: +GROUP or a directory ("": not checked)
    stats_start_s: int | None = None  # charbench -bs: statistics recorded from this second of the run
    stats_end_s: int | None = None  # charbench -be: ... until this one

    @classmethod
    def of(cls, args: Mapping[str, Any]) -> SwingbenchArgs:
        return cls(
            home=str(args.get("home") or ""), config=str(args.get("config") or ""),
            connect=str(args.get("connect") or ""),
            users=whole_number(args, "users", 1, "swingbench", minimum=1),
            run_time=whole_number(args, "run_time", None, "swingbench", minimum=1),
            user=str(args.get("user") or "soe"),
            min_think_ms=whole_number(args, "min_think_ms", None, "swingbench", minimum=0),
            max_think_ms=whole_number(args, "max_think_ms", None, "swingbench", minimum=0),
            build=None if args.get("build") is None else SoeBuild.of(args.get("build")),
            data_on=str(args.get("data_on") or ""),
            stats_start_s=whole_number(args, "stats_start_s", None, "swingbench", minimum=0),
            stats_end_s=whole_number(args, "stats_end_s", None, "swingbench", minimum=1))

    @property
    def tablespace(self) -> str:
        """oewizard's -ts: the build's, else SOE (oewizard's own default) when data_on asks for a place."""
        given = self.build.tablespace if self.build is not None else ""
        return (given or ("SOE" if self.data_on else "")).upper()

    def datafile(self) -> str:
        """oewizard's -df on data_on: the disk group itself (an Oracle-managed file in it, as CREATE TABLESPACE
        ... DATAFILE '+GROUP' makes), else ``<dir>/<tablespace>01.dbf`` (as SLOB's create_tablespace)."""
        if not self.data_on or self.data_on.startswith("+"):
            return self.data_on
        return f"{self.data_on.rstrip('/')}/{self.tablespace.lower()}01.dbf"

    @property
    def config_path(self) -> str:
        """The config file on the host: as given when absolute, else under home."""
        return self.config if self.config.startswith("/") else posixpath.join(self.home, self.config)


_DESCRIPTOR_HOST = re.compile(r"\(\s*HOST\s*=\s*([^)\s]+)\s*\)", re.I)


def named_hosts(connect: str) -> list[str]:
    """The hosts a connect string names: each HOST= of a descriptor, the host of an Easy Connect string
    (``[//]host[:port][/service]``, an IPv6 address in brackets); none for a bare word (a service or an alias)."""
    body = connect.strip()
    if body.startswith("("):
        return _DESCRIPTOR_HOST.findall(body)
    if not body.startswith("//") and "/" not in body:
        return []
    where = body.lstrip("/").split("/", 1)[0]
    if where.startswith("["):
        return [where[1:].split("]", 1)[0]]
    return [where.rsplit(":", 1)[0] if where.count(":") == 1 else where]


def client_connect(connect: str, names: Collection[str], host: str, port: int) -> str:
    """charbench's and oewizard's ``-cs`` on a load generator host: a service name alone becomes an Easy Connect
    string to the database host's listener from the inventory (``//host:port/service``);
    a string that names a host must name the database host (``names``: its address, its inventory name,
    oracle_host), else charbench would drive another database than the one the point measures."""
    hosts = named_hosts(connect)
    if not hosts and "/" not in connect and not connect.strip().startswith("("):
        return f"//{host}:{port}/{connect.strip()}"
    known = {n.lower() for n in names if n}
    other = [h for h in hosts if h.lower() not in known]
    if other or not hosts:
        raise StepError(f"swingbench: connect {connect!r} names {other[0] if other else 'no host'!r}, not the "
                        f"database host ({host}) whose load generator runs it: charbench would drive another "
                        "database than the one measured",
                        hint=f"give connect: the service name alone (planner connects to //{host}:{port}/<service>), "
                             f"or name {host} in it")
    return connect
