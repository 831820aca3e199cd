"""What the inventory says a host's Oracle is, as knobs for the stand-ins (NOT Oracle).

A stand-in that encodes one belief (every database 19c, always an spfile, SLOB always KEEP) tests planner
against that belief only. ``profile_for(host_vars)`` reads what the inventory states and ``apply_profile``
writes it into the stand-in database's state (db.json), so a rehearsal's sqlplus answers as the lab's host
would. Tests build a ``HostProfile`` directly to run one behaviour over the matrix.

Inventory keys (facts about the lab's host; planner itself still reads the host and never trusts them):

- ``oracle_version`` (``11.2.0.3``), else the release in ``oracle_home`` (OFA ``.../product/11.2.0.3/...``);
  neither: 19.0.0.0.0. V$INSTANCE.VERSION is the five-part release; from 18c it is ``NN.0.0.0.0`` and the
  release update is in VERSION_FULL (Oracle Database Reference, V$INSTANCE).
- ``oracle_cdb: true`` (a container database; 21c+ is always one) and ``oracle_pdb: NAME`` (SLOB's PDB).
- ``oracle_rac: true``: node 1 of a two-node RAC (``rac_state``).
- ``oracle_parameter_file: pfile | spfile`` (default spfile).
- ``oracle_resource_manager_plan: NAME`` (default empty: Resource Manager off).
- ``slob_release: 2.3 | 2.4.0 | 2.4.2 | 2.5.3.0`` (the stand-in kit behaves as that release; default 2.5.3.0).
- ``standin_nls_lang`` (``GERMAN_GERMANY.WE8ISO8859P1``) and ``standin_nls_numeric_characters`` (``,.``): what
  the oracle user's login profile exports; the stand-in sqlplus prints messages and numbers by them unless the
  session's environment says otherwise (bin/_standin_nls.py). Default: none exported (AMERICAN_AMERICA).
- ``standin_database: fresh | loaded`` (default fresh): what the database holds on the rehearsal's first day.
  Fresh is what DBCA leaves: no SLOB users or tables (no tablespace IOPS), no TPC-C and no SOE schema, and the
  SLOB kit unpacked but its setup.sh never run. Loaded is a lab where every kit's schema is built: setup.sh has run
  (USER1.CF1/CF2 in IOPS, the kit's schemas marked loaded), the TPC-C schema TPCC (64 warehouses, the shipped OLTP
  plan's build) and the Order Entry schema SOE (tablespace SOE), as the OLTP kinds' stand-in builds leave them, so
  a step's "only when missing" build is skipped there as on such a lab.
- failure modes, for rehearsing what goes wrong: ``standin_instance_stays_down: true`` (a startup fails, the
  instance does not come back) and ``standin_refused_parameters: [name, ...]`` (ALTER SYSTEM SET refuses them).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from planner.errors import input_error

_RELEASE_IN_HOME = re.compile(r"/(\d{2}\.\d+(?:\.\d+)*)(?:/|$)")


class SlobRelease(enum.Enum):
    """The SLOB kit releases the stand-in kit imitates; each one's behaviour is cited in slob_release_facts."""

    V2_3 = "2.3"
    V2_4_0 = "2.4.0"
    V2_4_2 = "2.4.2"
    V2_5_3 = "2.5.3.0"


@dataclass(frozen=True, slots=True)
class SlobFacts:
    """What a release's scripts do that planner depends on (docs/oracle-behaviour.md, rows 1a and 4g)."""

    buffer_pool: str  # setup.sh's STORAGE (BUFFER_POOL ...) for cf1/cf2
    getopts: bool  # runit.sh -s <schemas> -t <threads> and slob.conf THREADS_PER_SCHEMA
    statistics_type: bool  # DATABASE_STATISTICS_TYPE (awr | statspack)
    global_report: bool  # runit.sh writes awr_rac.txt (awrgrpt) after every AWR run, RAC or not
    warm_up_s: int = 0  # runit.sh's sleep between the trigger and its begin snapshot (docs/oracle-behaviour.md 25.19)


SLOB_FACTS: dict[SlobRelease, SlobFacts] = {
    # 2.3: no public copy found; the 2.0-2.3 command line (runit.sh <sessions>), AWR only. Its pool and whether
    # it wrote awr_rac.txt are UNVERIFIED: KEEP and no global report (the stand-in's guess, said in the doc).
    SlobRelease.V2_3: SlobFacts("KEEP", getopts=False, statistics_type=False, global_report=False),
    # 2.4.0: goryszewskig/SLOB-PDB @ e8d9167 setup.sh:958 and :971 (cf1, cf2 BUFFER_POOL RECYCLE), :1152 the
    # "SLOB 2.4.0" banner; runit.sh:696-710 (awr_rac.txt / awr_rac.html by awrgrpt.sql on every AWR run).
    SlobRelease.V2_4_0: SlobFacts("RECYCLE", getopts=True, statistics_type=True, global_report=True),
    # 2.4.2: that copy also holds the 2.4.2 README (doc/SLOB-2.4.2_README.pdf): -s/-t, sessions = s x t and
    # DATABASE_STATISTICS_TYPE (default statspack) are documented there; the pool and awr_rac.txt are not, so they
    # stay UNVERIFIED and the stand-in takes 2.4.0's scripts' behaviour (RECYCLE) as the nearer public source.
    SlobRelease.V2_4_2: SlobFacts("RECYCLE", getopts=True, statistics_type=True, global_report=True),
    # 2.5.x: the public 2.5 setup.sh (code index id 37910948202, f_check_mto, ADMIN_CONNECT_STRING) creates
    # cf1 with STORAGE (BUFFER_POOL KEEP ...); 2.5.3 runit.sh f_generate_awr_report writes awr_rac.txt always.
    # Its runit.sh (public copy, code index id 38272540123) triggers, prints "Warm-up phase.", sleeps 30 and only
    # then takes the begin snapshot; 2.4.0's (SLOB-PDB @ e8d9167 :1471-1489) snaps before the trigger, no warm-up.
    SlobRelease.V2_5_3: SlobFacts("KEEP", getopts=True, statistics_type=True, global_report=True, warm_up_s=30),
}


class StandinDatabase(enum.Enum):
    """What the stand-in database holds when the rehearsal starts (``standin_database``)."""

    FRESH = "fresh"  # as DBCA leaves a new database: no SLOB, TPC-C or SOE schema
    LOADED = "loaded"  # every kit's schema built: SLOB's USER1.CF1/CF2 in IOPS, TPC-C's TPCC, Order Entry's SOE


@dataclass(frozen=True, slots=True)
class HostProfile:
    """One host's Oracle as the stand-ins show it. Defaults: the seed (19c, spfile, single instance)."""

    oracle_version: str = "19.0.0.0.0"  # V$INSTANCE.VERSION
    version_full: str = ""  # V$INSTANCE.VERSION_FULL (18c+); '' before 18c
    cdb: bool = False
    pdb: str = ""
    rac: bool = False
    parameter_file: str = "spfile"  # spfile | pfile
    resource_manager_plan: str = ""
    slob_release: SlobRelease = SlobRelease.V2_5_3
    instance_stays_down: bool = False
    refused_parameters: tuple[str, ...] = field(default_factory=tuple)
    nls_lang: str = ""  # the login profile's NLS_LANG export ('' none)
    nls_numeric_characters: str = ""  # the login profile's NLS_NUMERIC_CHARACTERS export ('' none)
    # a profile built directly (tests) keeps the seed's loaded lab; the rehearsal reads the inventory through
    # profile_for, whose default is a fresh database
    database: StandinDatabase = StandinDatabase.LOADED

    @property
    def slob(self) -> SlobFacts:
        return SLOB_FACTS[self.slob_release]


def five_part(release: str) -> tuple[str, str]:
    """(V$INSTANCE.VERSION, VERSION_FULL) for a release as an inventory writes it (11.2.0.3, 19.3, 19.0.0.0)."""
    parts = [p for p in release.strip().split(".") if p.isdigit()][:5]
    if not parts:
        raise ValueError(f"not an Oracle release: {release!r}")
    full = ".".join((parts + ["0"] * 5)[:5])
    if int(parts[0]) >= 18:  # 18c+: VERSION is the major release only, the update is in VERSION_FULL
        return f"{parts[0]}.0.0.0.0", full
    return full, ""


def release_of(v: Mapping[str, Any]) -> str | None:
    """``oracle_version``, else the release in ``oracle_home``'s path; None when neither says."""
    given = str(v.get("oracle_version") or "").strip()
    if given:
        return given
    m = _RELEASE_IN_HOME.search(str(v.get("oracle_home") or ""))
    return m.group(1) if m else None


def _flag(v: Mapping[str, Any], key: str) -> bool:
    raw = v.get(key)
    return raw is True or str(raw).strip().lower() in ("true", "yes", "1")


def profile_for(v: Mapping[str, Any]) -> HostProfile:
    """The stand-in profile of a host from its inventory vars (see the module docstring)."""
    release = release_of(v)
    try:
        version, full = five_part(release) if release else ("19.0.0.0.0", "19.0.0.0.0")
    except ValueError as e:
        raise input_error(f"oracle_version: {e}", "write the release as 11.2.0.3 or 19.3") from e
    refused = v.get("standin_refused_parameters") or ()
    refused = (refused,) if isinstance(refused, str) else tuple(str(x) for x in refused)
    pfile = str(v.get("oracle_parameter_file") or "spfile").strip().lower()
    slob = str(v.get("slob_release") or SlobRelease.V2_5_3.value).strip()
    by_value = {r.value: r for r in SlobRelease} | {"2.4": SlobRelease.V2_4_0, "2.5": SlobRelease.V2_5_3}
    if slob not in by_value and not slob.startswith("2.5."):
        raise input_error(f"slob_release {slob!r} is not a SLOB release the stand-in kit imitates",
                          "set slob_release to " + ", ".join(r.value for r in SlobRelease) + " or another 2.5.x")
    world = str(v.get("standin_database") or StandinDatabase.FRESH.value).strip().lower()
    if world not in {d.value for d in StandinDatabase}:
        raise input_error(f"standin_database {world!r} is neither fresh nor loaded",
                          "set standin_database to fresh (a new database, the default) or loaded (SLOB set up)")
    return HostProfile(oracle_version=version, version_full=full,
                       cdb=_flag(v, "oracle_cdb") or bool(v.get("oracle_pdb")) or int(version.split(".")[0]) >= 21,
                       pdb=str(v.get("oracle_pdb") or ""),
                       rac=_flag(v, "oracle_rac"), parameter_file="pfile" if pfile == "pfile" else "spfile",
                       resource_manager_plan=str(v.get("oracle_resource_manager_plan") or ""),
                       slob_release=by_value.get(slob, SlobRelease.V2_5_3),
                       instance_stays_down=_flag(v, "standin_instance_stays_down"),
                       refused_parameters=tuple(p.lower() for p in refused),
                       nls_lang=str(v.get("standin_nls_lang") or ""),
                       nls_numeric_characters=str(v.get("standin_nls_numeric_characters") or ""),
                       database=StandinDatabase(world))


def apply_profile(state: dict[str, Any], p: HostProfile) -> None:
    """Write the profile into a stand-in state (db.json); ``rac`` is applied by install_standins (rac_state)."""
    db = state["database"]
    # a pfile instance is the stand-in's pfile + no_spfile knobs (_standin.spfile_in_use), so it stays one after
    # a restart; the plan is the database knob V$RSRC_PLAN and V$PARAMETER read (_standin_cdb.py)
    pfile = p.parameter_file == "pfile"
    db.update(version=p.oracle_version, version_full=p.version_full, cdb=p.cdb, pdb=p.pdb,
              parameter_file=p.parameter_file, pfile=pfile, no_spfile=pfile)
    state["memory"]["compatible"] = ".".join(p.oracle_version.split(".")[:3])
    if p.resource_manager_plan:
        db["resource_manager_plan"] = p.resource_manager_plan
    state["failures"] = {"instance_stays_down": p.instance_stays_down, "refused_parameters": list(p.refused_parameters)}
    exports = {"NLS_LANG": p.nls_lang, "NLS_NUMERIC_CHARACTERS": p.nls_numeric_characters}
    state["login_env"] = {k: v for k, v in exports.items() if v}  # bin/_standin_nls.py reads it
    state["slob"] = {"release": p.slob_release.value, "buffer_pool": p.slob.buffer_pool,
                     "global_report": p.slob.global_report}
    state["world"] = p.database.value
    if p.database is StandinDatabase.LOADED:
        _load_oltp_schemas(state)
    if p.database is StandinDatabase.FRESH:
        # the seed is a loaded lab (tests that install without a profile keep it); a fresh database has no SLOB
        # tablespace and no SLOB users' segments: setup.sh creates them (_standin_profile.py)
        state["tablespaces"] = {k: t for k, t in state.get("tablespaces", {}).items() if k != "IOPS"}
        state["segments"] = {k: seg for k, seg in state.get("segments", {}).items()
                             if not re.fullmatch(r"USER\d+\..*", k)}


# What the OLTP kinds' stand-in builds leave in the database (the TPC-C build: its tables recorded by owner and its
# warehouse count; the Order Entry wizard: SOE's table segments in their tablespace): the loaded world holds both,
# as a lab where each build has run. Names as those tools create them.
TPCC_OWNER, TPCC_WAREHOUSES = "TPCC", 64  # the TPC-C kit's default user; the shipped OLTP plan's warehouses
TPCC_TABLES = ("WAREHOUSE", "DISTRICT", "CUSTOMER", "HISTORY", "NEW_ORDER", "ORDERS", "ORDER_LINE", "ITEM", "STOCK")
SOE_OWNER, SOE_TABLESPACE = "SOE", "SOE"  # oewizard's default -u and -ts
SOE_TABLES = ("CUSTOMERS", "ADDRESSES", "CARD_DETAILS", "WAREHOUSES", "ORDER_ITEMS", "ORDERS", "INVENTORIES",
              "PRODUCT_INFORMATION", "LOGON", "PRODUCT_DESCRIPTIONS", "ORDERENTRY_METADATA")


def _load_oltp_schemas(state: dict[str, Any]) -> None:
    tables = [t for t in state.get("tables", []) if t.get("owner") != TPCC_OWNER]
    state["tables"] = tables + [{"owner": TPCC_OWNER, "table_name": t} for t in TPCC_TABLES]
    state.setdefault("tpcc", {})[TPCC_OWNER] = TPCC_WAREHOUSES
    state.setdefault("tablespaces", {}).setdefault(
        SOE_TABLESPACE, {"files": [f"+DATA/ORCL/DATAFILE/{SOE_TABLESPACE.lower()}.300.1"]})
    segments = state.setdefault("segments", {})
    for t in SOE_TABLES:
        segments[f"{SOE_OWNER}.{t}"] = {"tablespace": SOE_TABLESPACE, "buffer_pool": "DEFAULT",
                                        "segment_type": "TABLE"}
