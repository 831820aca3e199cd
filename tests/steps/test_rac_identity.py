"""Issue 16 row 4, the identity side: db_unique_name, the instances, this node's ASM instance and the grid user are
read from the database and Grid (never guessed), against stand-ins that answer as a RAC node does."""

from __future__ import annotations

import getpass
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from prep_helpers import context

from planner.db.config import NLS_ENV
from planner.errors import OracleError, StepError
from planner.rehearsal.standins import DEFAULT_HOME, install_standins, load_state, update_state
from planner.status import Status
from planner.steps.prep_asm import AsmDiskgroup
from planner.steps.prep_db import InitOra
from planner.steps.prep_flashback import Flashback
from planner.transport.connection import CommandResult, LocalConnection, command_line

pytestmark = [pytest.mark.slow]

GRID_HOME = "/u01/app/19.0.0/grid"


def rac_root(tmp_path: Path, **seed: Any) -> Path:
    root = tmp_path / "node1"
    install_standins(root, grid_home=GRID_HOME, rac=True, **seed)
    return root


def rac_ctx(root: Path, **extra: Any) -> Any:
    return context(root, oracle_sid="SLOB1", grid_home=GRID_HOME, **extra)


def standin(root: Path, home: str, prog: str, *args: str, sid: str = "", stdin: str = "") -> str:
    env = {**os.environ, "ORACLE_HOME": home, "ORACLE_SID": sid}
    r = subprocess.run([str(root / home.lstrip("/") / "bin" / prog), *args], input=stdin, capture_output=True,
                       text=True, env=env, timeout=60, check=False)
    return r.stdout


# -- the stand-ins behave as a RAC node ---------------------------------------------------------------------------
def test_standins_answer_as_a_rac_node(tmp_path: Path) -> None:
    root = rac_root(tmp_path)
    sql = "select inst_id, instance_name, host_name from gv$instance;\nselect instance_name from v$asm_client;\n"
    out = standin(root, DEFAULT_HOME, "sqlplus", "-S", "/ as sysdba", sid="SLOB1", stdin=sql)
    assert out.split() == ["1", "SLOB1", "labhost", "2", "SLOB2", "labhost2", "+ASM1"]
    # +ASM connects to nothing on a RAC node: the idle instance's ORA-01034 / ORA-27101
    out = standin(root, GRID_HOME, "sqlplus", "-S", "/ as sysasm", sid="+ASM",
                  stdin="select name from v$asm_diskgroup;\n")
    assert "ORA-01034: ORACLE not available" in out and "ORA-27101: shared memory realm does not exist" in out
    assert "ORA-01034" in standin(root, DEFAULT_HOME, "sqlplus", "-S", "/ as sysdba", sid="SLOB",
                                  stdin="select status from v$instance;\n")
    assert "ASMCMD-08102" in standin(root, GRID_HOME, "asmcmd", "lsdg", sid="+ASM")
    # srvctl -d takes the db_unique_name: the instance name is refused as the real one refuses it
    out = standin(root, DEFAULT_HOME, "srvctl", "config", "database", "-d", "SLOB1")
    assert out.startswith("PRCD-1120 : The resource for database SLOB1 could not be found.")
    assert "PRCR-1001 : Resource ora.slob1.db does not exist" in out
    assert standin(root, DEFAULT_HOME, "srvctl", "config", "database").split() == ["SLOB"]
    assert "Type: RAC" in standin(root, DEFAULT_HOME, "srvctl", "config", "database", "-d", "SLOB")


def test_standin_sysasm_outside_the_osasm_group_fails_ora_01031(tmp_path: Path) -> None:
    root = tmp_path / "h"
    install_standins(root, grid_home=GRID_HOME, grid_user="grid")
    assert getpass.getuser() != "grid"
    out = standin(root, GRID_HOME, "sqlplus", "-S", "/ as sysasm", sid="+ASM",
                  stdin="select name from v$asm_diskgroup;\n")
    assert "ORA-01031: insufficient privileges" in out


# -- restarts: srvctl for the whole database, with its db_unique_name -----------------------------------------------
def test_rac_restart_goes_through_srvctl_with_the_db_unique_name_for_every_instance(tmp_path: Path) -> None:
    root = rac_root(tmp_path)
    out = InitOra({"processes": 600}).apply(rac_ctx(root))
    assert out.status is Status.CHANGED
    assert "srvctl stop/start database -d SLOB (db_unique_name from V$DATABASE; all 2 instances" in out.msg
    history = load_state(root)["history"]
    assert "srvctl stop database -d SLOB -o immediate" in history and "srvctl start database -d SLOB" in history
    assert not [h for h in history if h.startswith("sqlplus shutdown")], history  # never this instance alone
    assert load_state(root)["memory"]["processes"] == "600"


def test_rac_database_srvctl_does_not_list_is_refused_at_check_and_before_any_change(tmp_path: Path) -> None:
    root = rac_root(tmp_path, registered=False)
    step = InitOra({"processes": 600})
    with pytest.raises(StepError, match=r"RAC database .*srvctl config database` does not list it.*never one "
                                        r"instance alone"):
        step.check(rac_ctx(root, check=True))
    with pytest.raises(StepError, match="RAC database"):
        step.apply(rac_ctx(root))
    state = load_state(root)
    assert state["spfile"] == {} and state["restarts"] == 0
    assert not [h for h in state["history"] if h.startswith(("alter", "sqlplus"))]


def test_oracle_db_name_that_disagrees_with_v_database_is_an_error_naming_both(tmp_path: Path) -> None:
    root = rac_root(tmp_path)
    with pytest.raises(StepError, match=r"oracle_db_name SLOB1 \(inventory\) is not this database's "
                                        r"db_unique_name SLOB \(V\$DATABASE.DB_UNIQUE_NAME\)") as e:
        InitOra({"processes": 600}).apply(rac_ctx(root, oracle_db_name="SLOB1"))
    assert e.value.hint and "oracle_db_name: SLOB" in e.value.hint
    assert load_state(root)["restarts"] == 0


def test_single_instance_db_unique_name_is_read_not_the_sid(prep_root: Path) -> None:
    # db_unique_name differs from the SID: srvctl is given the name V$DATABASE says
    update_state(prep_root, lambda s: s["database"].update(registered=True, unique_name="orcl_site1"))
    out = InitOra({"processes": 600}).apply(context(prep_root))
    assert "srvctl stop/start database -d orcl_site1" in out.msg
    assert "srvctl stop database -d orcl_site1 -o immediate" in load_state(prep_root)["history"]


def test_flashback_before_11_2_on_rac_stops_every_instance_through_srvctl(tmp_path: Path) -> None:
    root = rac_root(tmp_path, version="11.1.0.7.0")
    change = Flashback({"state": "off"}).check(rac_ctx(root, check=True))
    assert "restarts into MOUNT for it (srvctl stop/start database -d SLOB" in change.msg
    out = Flashback({"state": "off"}).apply(rac_ctx(root))
    assert out.status is Status.CHANGED and load_state(root)["database"]["flashback_on"] == "NO"
    history = load_state(root)["history"]
    assert history.index("srvctl stop database -d SLOB -o immediate") < history.index("alter database flashback off")
    assert "srvctl start database -d SLOB" in history


def test_flashback_before_11_2_on_an_unregistered_rac_is_refused_at_check(tmp_path: Path) -> None:
    root = rac_root(tmp_path, version="11.1.0.7.0", registered=False)
    with pytest.raises(StepError, match="planner restarts a RAC database only through srvctl"):
        Flashback({"state": "off"}).check(rac_ctx(root, check=True))
    assert load_state(root)["database"]["flashback_on"] == "YES"


# -- ASM: this node's instance, as the grid user --------------------------------------------------------------
def test_asm_on_a_rac_node_connects_to_the_asm_sid_the_database_names(tmp_path: Path) -> None:
    root = rac_root(tmp_path)
    step = AsmDiskgroup({"name": "SLOB", "disks": ["/dev/mapper/lun01"]})
    assert step.check(rac_ctx(root, check=True)).changed is True
    saved = step.save(rac_ctx(root))
    assert saved["db"]["asm_sid"] == "+ASM1"  # restore connects the same way
    assert step.apply(rac_ctx(root)).status is Status.CHANGED
    assert "SLOB" in load_state(root)["diskgroups"]


def test_asm_sid_that_disagrees_with_v_asm_client_is_an_error_naming_both(tmp_path: Path) -> None:
    root = rac_root(tmp_path)
    with pytest.raises(StepError, match=r"asm_sid \+ASM \(inventory\) is not the ASM instance this database uses, "
                                        r"\+ASM1 \(V\$ASM_CLIENT.INSTANCE_NAME\)"):
        AsmDiskgroup({"name": "SLOB", "disks": "/dev/mapper/lun01"}).check(rac_ctx(root, check=True, asm_sid="+ASM"))


def test_asm_sid_that_cannot_be_read_is_refused_with_the_inventory_hint(prep_root: Path) -> None:
    # a database with no open ASM files: V$ASM_CLIENT is empty, so only the inventory can say
    def no_database_files(state: dict[str, Any]) -> None:
        for group in state["diskgroups"].values():
            group["database_files"] = False

    update_state(prep_root, no_database_files)
    step = AsmDiskgroup({"name": "SLOB", "disks": "/dev/mapper/lun01"})
    with pytest.raises(StepError, match="cannot tell which ASM instance runs on this node") as e:
        step.check(context(prep_root, check=True))
    assert e.value.hint and "set asm_sid" in e.value.hint
    assert step.check(context(prep_root, check=True, asm_sid="+ASM")).changed is True  # stated: used as stated


def test_asm_sid_is_read_from_the_running_asm_pmon_process_when_the_database_cannot_say(prep_root: Path) -> None:
    def asm7_without_database_files(state: dict[str, Any]) -> None:
        state["asm"]["sid"] = "+ASM7"
        for group in state["diskgroups"].values():
            group["database_files"] = False

    update_state(prep_root, asm7_without_database_files)
    # a process named as an ASM instance's PMON is (asm_pmon_<SID>), as ps shows it
    pmon = subprocess.Popen(["bash", "-c", "exec -a asm_pmon_+ASM7 sleep 120"])
    try:
        step = AsmDiskgroup({"name": "SLOB", "disks": "/dev/mapper/lun01"})
        assert step.save(context(prep_root))["db"]["asm_sid"] == "+ASM7"
        with pytest.raises(StepError, match=r"asm_sid \+ASM1 \(inventory\) is not the ASM instance running on this "
                                            r"node, \+ASM7 \(its asm_pmon_\+ASM7 process\)"):
            step.check(context(prep_root, check=True, asm_sid="+ASM1"))
    finally:
        pmon.kill()
        pmon.wait()


def test_asm_as_a_user_outside_osasm_is_refused_at_check_with_the_grid_user_hint(tmp_path: Path) -> None:
    root = tmp_path / "h"
    install_standins(root, grid_home=GRID_HOME, grid_user="grid")  # role separation: grid owns ASM
    with pytest.raises(OracleError, match=r"ORA-01031.*as sysasm as the SSH user") as e:
        AsmDiskgroup({"name": "SLOB", "disks": "/dev/mapper/lun01"}).check(
            context(root, check=True, grid_home=GRID_HOME))
    assert e.value.hint and "set grid_user" in e.value.hint and "grid_home" in e.value.hint


class BecomeSpy(LocalConnection):
    """The real local transport, keeping what each command asked for (become user, env); it runs the command
    without sudo because the lab cannot sudo, so the stand-ins answer for real."""

    calls: list[dict[str, Any]]

    def run(self, argv: Any, *, become: bool = False, become_user: str | None = None, login: bool = False,
            **kw: Any) -> CommandResult:
        self.calls.append({"argv": list(argv), "become": become, "become_user": become_user, "login": login,
                           "env": dict(kw.get("env") or {})})
        return super().run(argv, **kw)


def test_asm_steps_run_as_the_grid_user_with_grid_home_and_this_nodes_asm_sid(tmp_path: Path) -> None:
    root = rac_root(tmp_path)
    ctx = rac_ctx(root, check=True, oracle_user="oracle", grid_user="grid")
    spy = BecomeSpy(ctx.host)
    spy.calls = []
    ctx.conn = spy
    assert AsmDiskgroup({"name": "SLOB", "disks": "/dev/mapper/lun01"}).check(ctx).changed is True
    asm = [c for c in spy.calls if "/ as sysasm" in c["argv"]]
    db = [c for c in spy.calls if "/ as sysdba" in c["argv"]]
    assert asm and db
    assert all(c["argv"][0] == str(root) + GRID_HOME + "/bin/sqlplus" for c in asm)
    assert all(c["become"] and c["become_user"] == "grid" and c["login"] for c in asm)
    # NLS pinned in every session planner opens (planner.db.config.NLS_ENV, issue 41)
    assert all(c["env"] == {"ORACLE_HOME": GRID_HOME, "ORACLE_SID": "+ASM1", **NLS_ENV} for c in asm)
    assert all(c["become_user"] == "oracle" and c["env"]["ORACLE_SID"] == "SLOB1" for c in db)
    # on a real host that is sudo to grid, arguments quoted, the SQL on stdin (never on the line)
    line = command_line(asm[0]["argv"], become=True, become_user="grid", login=True, env=asm[0]["env"])
    assert line.startswith("sudo -n -H -u grid -- sh -c ") and "ORACLE_SID=+ASM1" in line
    assert "'/ as sysasm'" in line and "v$asm" not in line
