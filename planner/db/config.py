"""What the two database backends share (planner.db.access, planner.db.thin): how to reach one host's
database, from its inventory vars; the row type; the hints for common ORA- errors. Its own module so that the
thin backend, which access loads only when a host asks for it, imports no part of access."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from planner.errors import StepError

Row = tuple[str | None, ...]
_SID = re.compile(r"^\+?[A-Za-z][A-Za-z0-9_$#]*$")
_USER = re.compile(r"^[a-z_][a-z0-9_-]*$")
HINTS = {
    "ORA-01034": "the instance is down or ORACLE_SID is wrong: check oracle_sid, start the database",
    "ORA-01017": "wrong credentials: check oracle_password_env / oracle_password_file",
    "ORA-01031": "insufficient privileges: the OS user must be in the dba (or asmadmin) group",
    "ORA-02065": "not a parameter this database knows",
    "ORA-02095": "a static parameter: planner sets it with SCOPE=SPFILE and restarts",
    "ORA-15033": "the disk belongs to another disk group: pick other disks",
    "DPY-6005": "cannot connect: check oracle_host, oracle_port, oracle_service and the listener",
}

# Every sqlplus planner starts runs in one known NLS, whatever the oracle user's login profile or .bashrc
# exports: messages in English, '.' as the decimal character, dates as planner reads them. The environment is
# set after the login shell (``env NAME=value sqlplus``), so it wins over the profile; the other NLS_* variables
# are pinned too, because with NLS_LANG set the client honours each of them over NLS_LANG's territory (Oracle
# Globalization Support Guide, "Setting NLS Parameters"; docs/oracle-behaviour.md 41.n1-41.n3).
NLS_ENV: Mapping[str, str] = {
    "NLS_LANG": "AMERICAN_AMERICA.AL32UTF8", "NLS_NUMERIC_CHARACTERS": ".,", "NLS_DATE_LANGUAGE": "AMERICAN",
    "NLS_DATE_FORMAT": "DD-MON-RR", "NLS_TIMESTAMP_FORMAT": "DD-MON-RR HH.MI.SSXFF AM",
    "NLS_TIMESTAMP_TZ_FORMAT": "DD-MON-RR HH.MI.SSXFF AM TZR", "NLS_SORT": "BINARY", "NLS_COMP": "BINARY"}


@dataclass(frozen=True, slots=True)
class DbConfig:
    """How to reach one host's database, from its vars; saved with prep state so restore needs no inventory."""

    access: str = "sqlplus"
    oracle_home: str = ""
    oracle_sid: str = ""
    oracle_user: str | None = None
    db_name: str = ""  # inventory oracle_db_name: must equal V$DATABASE.DB_UNIQUE_NAME (planner.db.identity)
    pdb: str = ""  # inventory oracle_pdb: sqlplus sessions ALTER SESSION SET CONTAINER to it (planner.db.container)
    host: str = ""
    port: int = 1521
    service: str = ""
    password_env: str | None = None
    password_file: str | None = None
    grid_home: str = ""
    asm_sid: str = ""  # inventory asm_sid, or read from V$ASM_CLIENT (planner.db.identity.asm_config)
    grid_user: str | None = None
    # set by init_ora before its first spfile write (planner.db.pfile): the way back when a restart fails
    pfile_backup: str = ""
    spfile: str = ""
    poll_s: float = 2.0
    open_timeout_s: float = 600.0
    rebalance_timeout_s: float = 3600.0

    @staticmethod
    def from_vars(v: Mapping[str, Any], host_address: str = "") -> DbConfig:
        home = str(v.get("oracle_home") or "")
        if not home.startswith("/"):
            raise StepError("oracle_home is not set (or not absolute)", hint="set oracle_home in the inventory")
        access = str(v.get("oracle_access") or "sqlplus")
        if access not in ("sqlplus", "thin"):
            raise StepError(f"oracle_access must be sqlplus or thin, not {access!r}")
        sid = str(v.get("oracle_sid") or "")
        asm_sid = str(v.get("asm_sid") or "")
        pdb = str(v.get("oracle_pdb") or "")
        if pdb and not _SID.fullmatch(pdb):
            raise StepError(f"oracle_pdb {pdb!r} is not a valid container name",
                            hint="set oracle_pdb to the PDB's name")
        for what, value in (("oracle_sid", sid), ("asm_sid", asm_sid)):
            if (value or what == "oracle_sid") and not _SID.fullmatch(value):  # asm_sid unset: read it
                raise StepError(f"{what} {value!r} is not a valid SID", hint=f"set {what} in the inventory")
        user = v.get("oracle_user")
        grid_user = v.get("grid_user") or user
        for u in (user, grid_user):
            if u is not None and not _USER.fullmatch(str(u)):
                raise StepError(f"bad OS user name {u!r}")
        return DbConfig(access=access, oracle_home=home.rstrip("/"), oracle_sid=sid,
                        oracle_user=str(user) if user else None, db_name=str(v.get("oracle_db_name") or ""), pdb=pdb,
                        host=str(v.get("oracle_host") or host_address), port=int(v.get("oracle_port") or 1521),
                        service=str(v.get("oracle_service") or ""), password_env=v.get("oracle_password_env"),
                        password_file=v.get("oracle_password_file"),
                        grid_home=str(v.get("grid_home") or home).rstrip("/"), asm_sid=asm_sid,
                        grid_user=str(grid_user) if grid_user else None,
                        poll_s=float(v.get("oracle_poll_interval_s", 2.0)),
                        open_timeout_s=float(v.get("oracle_open_timeout_s", 600.0)),
                        rebalance_timeout_s=float(v.get("asm_rebalance_timeout_s", 3600.0)))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> DbConfig:
        return DbConfig(**{k: d[k] for k in DbConfig.__dataclass_fields__ if k in d})
