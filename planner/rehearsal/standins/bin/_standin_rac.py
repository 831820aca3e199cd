"""RAC identity for the stand-ins: the instances (GV$INSTANCE), the ASM instance of this node, who may connect.

NOT Oracle. Registers its views into _standin's tables on import (sqlplus and srvctl import it), so a RAC seed
(``database.cluster_database``, ``database.instances``, ``asm.sid``; planner.rehearsal.standins.rac_state)
answers as a RAC node does: SLOB1 here, SLOB2 on the other node, +ASM1 as this node's ASM instance.
"""

from __future__ import annotations

import os
from typing import Any

from _standin import ASM_OVERRIDES, ASM_VIEWS, VIEWS, OraError, Row


def instances(state: dict[str, Any]) -> list[Row]:
    """The database's instances (inst_id, instance_name, host_name, status): ``database.instances`` on a RAC seed,
    else the one instance. The local one (this sandbox's node, ``database.host_name``) has the database's status;
    the others keep their own ("OPEN" unless srvctl stopped the database)."""
    db = state["database"]
    listed = db.get("instances") or [{"inst_id": 1, "instance_name": db["instance_name"], "host_name": db["host_name"]}]
    return [{**i, "status": db["status"] if i["host_name"] == db["host_name"] else i.get("status", "OPEN")}
            for i in listed]


def nodes(state: dict[str, Any]) -> list[str]:
    """The cluster's nodes (one instance of the database each); the one node of a single instance."""
    return sorted({i["host_name"] for i in instances(state)})


def mounted_on(state: dict[str, Any], group: str) -> list[str]:
    """The nodes whose ASM instance has ``group`` mounted: ``mounted_on`` (CREATE DISKGROUP: this node only), else
    every node (the seed's DATA, mounted at startup through its Grid resource)."""
    g = state["diskgroups"][group]
    return list(g["mounted_on"]) if "mounted_on" in g else nodes(state)


def _instance_row(state: dict[str, Any], inst: Row) -> Row:
    return {"inst_id": inst["inst_id"], "instance_number": inst["inst_id"], "instance_name": inst["instance_name"],
            "host_name": inst["host_name"], "status": inst["status"], "version": state["database"]["version"],
            "parallel": "YES" if state["database"].get("cluster_database") else "NO"}


def _rac_v_instance(state: dict[str, Any]) -> list[Row]:
    db = state["database"]
    return [_instance_row(state, i) for i in instances(state) if i["host_name"] == db["host_name"]]


def _gv_instance(state: dict[str, Any]) -> list[Row]:
    """GV$INSTANCE: one row per instance that is running ("GV$ views ... retrieve information from all qualified
    instances", Oracle RAC Administration and Deployment Guide, "Using Global Dynamic Performance Views";
    https://docs.oracle.com/en/database/oracle/oracle-database/19/racad/monitoring-performance.html)."""
    return [_instance_row(state, i) for i in instances(state) if i["status"] != "SHUTDOWN"]


def _v_asm_client(state: dict[str, Any]) -> list[Row]:
    """In a database instance, V$ASM_CLIENT "displays information about the Oracle ASM instance if the database has
    any open Oracle ASM files" (Oracle Database Reference 11.2-19c, V$ASM_CLIENT:
    https://docs.oracle.com/cd/E11882_01/server.112/e40402/dynviews_1023.htm): INSTANCE_NAME is then the ASM
    instance's (+ASM1 on RAC node 1). The seed's database keeps its files in DATA."""
    db = state["database"]
    return [{"group_number": g["number"], "instance_name": asm_of(state)["sid"], "db_name": db["unique_name"],
             "status": "CONNECTED", "software_version": db["version"]} for g in state["diskgroups"].values()
            if g.get("database_files", True)]


def _asm_v_instance(state: dict[str, Any]) -> list[Row]:
    """V$INSTANCE in the ASM instance: the ASM instance itself (STARTED: an ASM instance mounts disk groups and
    never opens a database)."""
    db = state["database"]
    return [{"inst_id": 1, "instance_number": 1, "instance_name": asm_of(state)["sid"], "host_name": db["host_name"],
             "status": "STARTED", "version": db["version"], "parallel": "NO"}]


def _asm_v_asm_client(state: dict[str, Any]) -> list[Row]:
    """V$ASM_CLIENT in the ASM instance: the database instances using its disk groups (same Reference)."""
    db = state["database"]
    local = [i for i in instances(state) if i["host_name"] == db["host_name"] and i["status"] != "SHUTDOWN"]
    return [{"group_number": g["number"], "instance_name": i["instance_name"], "db_name": db["unique_name"],
             "status": "CONNECTED", "software_version": db["version"]}
            for g in state["diskgroups"].values() if g.get("database_files", True) for i in local]


# -- who may connect to which instance ------------------------------------------------------------------------
# A bequeath connection attaches to the instance named by ORACLE_SID; with no such instance on this node SQL*Plus
# says "Connected to an idle instance." and every statement then fails ORA-01034 "ORACLE not available" with
# ORA-27101 "shared memory realm does not exist" (Oracle Database Error Messages, ORA-01034 / ORA-27101:
# https://docs.oracle.com/en/error-help/db/ora-01034, https://docs.oracle.com/en/error-help/db/ora-27101).
IDLE = (  # Session.need_open raises the same three lines
    "ORA-01034: ORACLE not available", "ORA-27101: shared memory realm does not exist",
    "Linux-x86_64 Error: 2: No such file or directory")


def asm_of(state: dict[str, Any]) -> dict[str, Any]:
    """The ``asm`` part of the state (a state seeded before it existed: +ASM, any user)."""
    return state.get("asm") or {"sid": "+ASM", "osasm_users": None}


def os_user() -> str:
    """The OS user's name; its uid as text where the account database has none (no traceback from a stand-in)."""
    import pwd

    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return str(os.geteuid())


def connect_check(state: dict[str, Any], sid: str, asm: bool, os_auth: bool = False) -> bool:
    """Whether the session is idle (True), or raise the connect error. ``/ as sysasm`` by operating system
    authentication needs the OS user in the OSASM group: "Membership in the operating system group designated as
    the OSASM group provides operating system authentication for the SYSASM system privilege ... Initially, only
    the user that installs ASM is a member" (Oracle ASM Administrator's Guide 12.1, "Operating System
    Authentication for Oracle ASM": https://docs.oracle.com/database/121/OSTMG/GUID-359A6592-6AF6-483E-9B31-C70DB308608D.htm);
    anyone else gets ORA-01031 "insufficient privileges". The ASM SID must be this node's: "The default Oracle ASM
    SID for a single-instance database is +ASM, and the default SID for Oracle ASM for an Oracle RAC node is
    +ASMnode_number", with ORACLE_HOME the Grid home (same Guide, "Starting Up an Oracle ASM Instance":
    https://docs.oracle.com/database/121/OSTMG/GUID-00ABDCF7-F6D3-44CD-AA34-089CA252CFCD.htm). A database SID
    must be the local instance's on a RAC seed; a single-instance seed answers to any SID (sandboxes name none)."""
    if asm:
        users = asm_of(state).get("osasm_users")
        if users is not None and os_user() not in users:
            raise OraError("ORA-01031: insufficient privileges")
        return sid.upper() != str(asm_of(state)["sid"]).upper()
    db = state["database"]
    # ``/ as sysdba`` (os_auth) likewise needs the OSDBA group: "If you are not a member of either of these operating
    # system groups [OSDBA, OSOPER] and you attempt to connect as SYSDBA or SYSOPER, the CONNECT command fails"
    # (Oracle Database Administrator's Guide 19c, "Using Operating System Authentication"): ORA-01031. Knob
    # ``database.osdba_users`` (unset: anyone, the lab's own user included).
    users = db.get("osdba_users")
    if os_auth and users is not None and os_user() not in users:
        raise OraError("ORA-01031: insufficient privileges")
    if db.get("cluster_database"):
        local = [i["instance_name"] for i in instances(state) if i["host_name"] == db["host_name"]]
        return sid.upper() not in [n.upper() for n in local]
    return False



_BASE_PARAMETER = VIEWS["v$parameter"]


def _v_parameter(state: dict[str, Any]) -> list[Row]:
    """V$PARAMETER with CLUSTER_DATABASE, TRUE on a RAC seed ("CLUSTER_DATABASE is an Oracle RAC parameter that
    specifies whether Oracle RAC is enabled", Oracle Database Reference, CLUSTER_DATABASE:
    https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/CLUSTER_DATABASE.html)."""
    value = "TRUE" if state["database"].get("cluster_database") else "FALSE"
    return [*_BASE_PARAMETER(state), {"name": "cluster_database", "type": 1, "value": value, "display_value": value,
                                      "isdefault": "FALSE" if value == "TRUE" else "TRUE",
                                      "isses_modifiable": "FALSE", "issys_modifiable": "FALSE"}]


VIEWS.update({"v$parameter": _v_parameter, "v$instance": _rac_v_instance, "gv$instance": _gv_instance,
              "v$asm_client": _v_asm_client})
ASM_VIEWS.add("v$asm_client")
ASM_OVERRIDES.update({"v$instance": _asm_v_instance, "v$asm_client": _asm_v_asm_client})
