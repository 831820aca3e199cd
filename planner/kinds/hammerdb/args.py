"""The hammerdb step's arguments, read once into a frozen ``HammerDBArgs`` (the schema has checked their types;
the whole numbers are checked again here, as a rendered template gives text)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from planner.steps.base import whole_number


def _whole(args: Mapping[str, Any], key: str, default: int, minimum: int) -> int:
    return whole_number(args, key, default, "hammerdb", minimum=minimum)


@dataclass(frozen=True, slots=True)
class HammerDBArgs:
    """One point's arguments, with HammerDB's own defaults where the plan gives none (the timed driver's ramp-up
    2 and duration 5 minutes, one warehouse and one build virtual user, the ``system`` and ``tpcc`` users)."""

    home: str
    service: str
    virtual_users: int
    system_user: str = "system"
    tpcc_user: str = "tpcc"
    tpcc_tablespace: str = ""
    rampup: int = 2
    duration: int = 5
    allwarehouse: bool = False
    timeprofile: bool = False
    warehouses: int | None = None  # None: not given (the run script then leaves count_ware alone)
    build_virtual_users: int = 1
    build: bool = True  # build the schema when it is missing; only an explicit false turns it off
    data_on: str = ""  # where the play put the storage (+GROUP or a directory): STOCK's data files are checked there
    create_tablespace: str = ""  # a size (16G): tpcc_tablespace made on data_on before the build when missing

    @classmethod
    def of(cls, args: Mapping[str, Any]) -> HammerDBArgs:
        return cls(
            home=str(args.get("home", "")), service=str(args.get("service", "")),
            virtual_users=_whole(args, "virtual_users", 1, 1),
            system_user=str(args.get("system_user") or "system"), tpcc_user=str(args.get("tpcc_user") or "tpcc"),
            tpcc_tablespace=str(args.get("tpcc_tablespace") or ""),
            rampup=_whole(args, "rampup", 2, 0), duration=_whole(args, "duration", 5, 1),
            allwarehouse=bool(args.get("allwarehouse", False)), timeprofile=bool(args.get("timeprofile", False)),
            warehouses=whole_number(args, "warehouses", None, "hammerdb", minimum=1) if args.get("warehouses")
            else None,
            build_virtual_users=_whole(args, "build_virtual_users", 1, 1), build=args.get("build", True) is not False,
            data_on=str(args.get("data_on") or ""), create_tablespace=str(args.get("create_tablespace") or ""))

    @property
    def build_warehouses(self) -> int:
        """The warehouses buildschema loads: the plan's, else HammerDB's default of one."""
        return self.warehouses or 1


def client_instance(service: str, host: str, port: int) -> str:
    """Oratcl's connect identifier from a load generator host: a service already written as //host:port/service
    is the user's, else an EZConnect string to the database host's listener. One rule for the step and the
    rehearsal's listener stand-in, so the string served is the string the step writes."""
    return service if "/" in service else f"//{host}:{port}/{service}"
