"""Oracle and SLOB as they vary (issue 25): what planner reads from the host instead of assuming, tested over the
stand-ins' matrix (planner/rehearsal/standins/profile.py) rather than one point of it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.kinds.slob.standin import install_slob_kit
from planner.rehearsal.standins import DEFAULT_HOME, install_standins
from planner.rehearsal.standins.profile import SLOB_FACTS, HostProfile, SlobRelease
from planner.results.measure import read_run

KIT = "/home/oracle/SLOB"
LICENSED = "oracle_diagnostics_pack=true"  # AWR only runs where the Diagnostics Pack licence is stated


def project(tmp: Path, release: SlobRelease = SlobRelease.V2_5_3, step: str = "readers: 4",
            host_vars: str = "") -> Path:
    root = tmp / "hosts" / "alpha"
    install_standins(root, profile=HostProfile(slob_release=release))
    install_slob_kit(root / KIT.lstrip("/"), release=release)
    (tmp / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root} "
                                   f"oracle_home={DEFAULT_HOME} oracle_sid=orcl slob_max_cache_pct=100 "
                                   f"cpus=16 cores=8 {host_vars}\n")
    stats = ", database_statistics_type: awr" if SLOB_FACTS[release].statistics_type else ""
    (tmp / "plan.yaml").write_text(
        "plan: p\nplays:\n  - name: p\n    hosts: lab\n    workloads:\n      - name: s\n"
        f"        slob: {{kit: {KIT}, run_time: 30, setup: true{stats}, {step}}}\n")
    return root


def run(tmp: Path, *extra: str) -> tuple[int, Path, dict]:
    code = main(["apply", str(tmp / "plan.yaml"), "-i", str(tmp / "hosts.ini"), "--runs-dir", str(tmp / "runs"),
                 "--no-report", *extra])
    out = next(p for p in (tmp / "runs").iterdir() if p.is_dir())
    (res,) = [r for r in json.loads((out / "results.json").read_text()) if r["title"] == "s"]
    return code, out, res


# -- row 3: awr_rac.txt is written on a single instance too ------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("release", [r for r in SlobRelease if SLOB_FACTS[r].global_report])
def test_a_single_instance_with_the_kits_awr_rac_txt_stays_single_instance(tmp_path: Path,
                                                                          release: SlobRelease) -> None:
    project(tmp_path, release, host_vars=LICENSED)  # the global report is AWR's, so the pack is stated
    code, out, res = run(tmp_path)
    assert code == 0, res["msg"]
    kinds = {a["path"].rsplit("/", 1)[-1]: a["kind"] for a in res["artifacts"]}
    assert "awr_rac.txt" in kinds and kinds["awr_rac.txt"] == ""  # kept, never parsed as a cluster's figures
    assert (out / next(a["path"] for a in res["artifacts"] if a["path"].endswith("awr_rac.txt"))).read_text(
    ).count(" NO ") >= 1  # the stand-in's global report says RAC NO, as the kit's own sample does
    assert "single instance (GV$INSTANCE has 1 instance(s))" in res["msg"]
    assert "cluster totals" not in res["msg"] and res["data"]["cluster"]["rac"] is False
    measured = read_run(out).measurements
    assert not any("instance=all" in m.key for m in measured)
    assert any(m.metric == "read_iops_per_core" for m in measured)  # not dropped as on a cluster


def test_the_global_reports_instance_count_decides_only_when_gv_instance_cannot_be_read(tmp_path: Path) -> None:
    from planner.steps.rac import Cluster, from_global_report

    unread = Cluster(1, False, "GV$INSTANCE could not be read (ORA-00942)", read=False)
    assert from_global_report(unread, 2).rac and "lists 2 instance(s)" in from_global_report(unread, 2).why
    assert not from_global_report(unread, 1).rac
    read = Cluster(1, False, "GV$INSTANCE has 1 instance(s)")
    assert from_global_report(read, 2) is read  # the database's answer beats the file's


@pytest.mark.slow
def test_the_standin_kit_writes_awr_rac_txt_only_for_releases_that_do(tmp_path: Path) -> None:
    project(tmp_path, SlobRelease.V2_3, host_vars=LICENSED)  # 2.0-2.3 can only take AWR snapshots
    code, _out, res = run(tmp_path)
    assert code == 0, res["msg"]
    assert not any(a["path"].endswith("awr_rac.txt") for a in res["artifacts"])
    assert "SLOB 2.0-2.3" in res["msg"]



# -- row 5: sessions = schemas x THREADS_PER_SCHEMA ----------------------------------------------------------------
@pytest.mark.slow
def test_sessions_are_schemas_times_the_kits_threads_per_schema(tmp_path: Path) -> None:
    root = project(tmp_path, step="readers: 4")
    conf = root / KIT.lstrip("/") / "slob.conf"
    conf.write_text(conf.read_text().replace("THREADS_PER_SCHEMA=1", "THREADS_PER_SCHEMA=4"))
    code, out, res = run(tmp_path)
    assert code == 0, res["msg"]
    assert res["data"]["sessions"] == 16 and res["data"]["threads_per_schema"] == 4
    assert "4 schemas x 4 threads = 16 sessions" in res["msg"]
    log = out / next(a["path"] for a in res["artifacts"] if a["path"].endswith("runit.log"))
    assert "Number of SLOB sessions: 16 (4 schema(s) x 4 thread(s))" in log.read_text()  # what the kit ran


@pytest.mark.parametrize(("args", "conf", "sessions"), [
    ({"readers": 64}, "THREADS_PER_SCHEMA=4\n", 256),
    ({"readers": 64, "conf": {"THREADS_PER_SCHEMA": 2}}, "THREADS_PER_SCHEMA=4\n", 128),  # the step's conf: wins
    ({"readers": 64, "threads_per_schema": 3}, "THREADS_PER_SCHEMA=4\n", 192),  # -t overrides slob.conf
    ({"readers": 64}, "UPDATE_PCT=0\n", 64),
])
def test_the_session_count_follows_runit_sh(args: dict, conf: str, sessions: int) -> None:
    from planner.kinds.slob.kit import KitVersion
    from planner.kinds.slob.step import Slob

    assert Slob({"kit": KIT, **args}).command(KitVersion.SLOB24, conf)[1] == sessions


def test_more_than_4096_sessions_is_refused_as_runit_sh_does() -> None:
    from planner.errors import StepError
    from planner.kinds.slob.kit import KitVersion
    from planner.kinds.slob.step import Slob

    with pytest.raises(StepError, match="1025 schemas x 4 threads per schema .* = 4100 sessions"):
        Slob({"kit": KIT, "readers": 1025}).command(KitVersion.SLOB24, "THREADS_PER_SCHEMA=4\n")
    assert Slob({"kit": KIT, "readers": 1024}).command(KitVersion.SLOB24, "THREADS_PER_SCHEMA=4\n")[1] == 4096


# -- row 14: SLOB's admin password never reaches the shareable record --------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("password", ["Sekr3t-Pw_9", None])  # None: unset, runit.sh's default system/manager
def test_the_kits_sysdba_passwd_is_masked_everywhere_in_the_record(tmp_path: Path, password: str | None) -> None:
    root = project(tmp_path)
    conf = root / KIT.lstrip("/") / "slob.conf"
    if password:
        conf.write_text(conf.read_text() + f"SYSDBA_PASSWD={password}\n")
    code, out, res = run(tmp_path)
    assert code == 0, res["msg"]
    log = (out / next(a["path"] for a in res["artifacts"] if a["path"].endswith("runit.log"))).read_text()
    assert 'SYSDBA_PASSWD: "********"' in log and 'Admin Connect String: "system/********"' in log  # printed, masked
    # the password as a word of its own: "manager", runit.sh's default, is also part of the record's own
    # `resource_manager_plan` key, which masking must leave whole (issue 40: never mask the record's structure)
    secret = re.compile(rb"(?<![A-Za-z0-9_])" + re.escape((password or "manager").encode()) + rb"(?![A-Za-z0-9_])")
    leaks = [p for p in out.rglob("*") if p.is_file() and secret.search(p.read_bytes())]
    assert leaks == []
    if password:
        assert f"SYSDBA_PASSWD={password}" in conf.read_text()  # the kit's own slob.conf is put back as it was


# -- row 2: the data SLOB reads must be on the storage the play prepared -----------------------------------------
def _slob_group(s: dict) -> None:
    s["diskgroups"]["SLOB"] = {"number": 2, "type": "EXTERN", "au_size": 4194304, "attributes": {}}


@pytest.mark.slow
def test_a_point_refuses_data_that_is_not_on_the_disk_group_the_play_prepared(tmp_path: Path) -> None:
    from planner.rehearsal.standins import update_state

    root = project(tmp_path, step='readers: 4, data_on: "+SLOB"')
    update_state(root, _slob_group)
    code, _out, res = run(tmp_path)
    assert code == 2
    assert "USER1.CF1 (the data SLOB reads) is in tablespace IOPS" in res["msg"]
    assert "+DATA/ORCL/DATAFILE/iops.256.1" in res["msg"] and "not on +SLOB" in res["msg"]


@pytest.mark.slow
def test_create_tablespace_puts_the_data_on_the_disk_group_and_setup_needs_it(tmp_path: Path) -> None:
    from planner.rehearsal.standins import load_state, update_state

    root = project(tmp_path, step='readers: 4, data_on: "+SLOB", create_tablespace: 1G',
                   host_vars="slob_tablespace=SLOBTS")
    update_state(root, _slob_group)
    code, out, res = run(tmp_path)
    assert code == 0, res["msg"]
    assert "tablespace SLOBTS on +SLOB" in res["msg"]
    state = load_state(root)
    assert state["segments"]["USER1.CF1"]["tablespace"] == "SLOBTS"
    assert state["tablespaces"]["SLOBTS"]["files"][0].startswith("+SLOB/")
    setup = (out / next(a["path"] for a in res["artifacts"] if a["path"].endswith("setup.log"))).read_text()
    assert "planner: created tablespace SLOBTS on +SLOB (1G, autoextend)" in setup
    assert res["data"]["slob_data"]["files"] == state["tablespaces"]["SLOBTS"]["files"]


@pytest.mark.slow
def test_setup_without_the_tablespace_fails_as_setup_sh_does(tmp_path: Path) -> None:
    project(tmp_path, host_vars="slob_tablespace=NOSUCHTS")
    code, _out, res = run(tmp_path)
    assert code == 2 and "ORA-00959: tablespace 'NOSUCHTS' does not exist" in res["msg"]


# -- row 19: a user-supplied Closson SLB takes one argument ------------------------------------------------------
def test_a_one_argument_slb_kit_gets_users_only_and_the_outcome_says_so() -> None:
    from planner.kinds.slb.step import DEFAULT_KIT, Kit, KitFile, Slb, load_kit, takes_seconds

    closson = Kit("SLB", (KitFile("runit.sh", b'#!/bin/sh\n./create_sem\nn=$1\n./slb $n\n', 0o755),))
    step = Slb({"users": 6, "seconds": 30})
    assert step._argv(closson) == ["./runit.sh", "6"]
    assert "takes one argument (users)" in step._one_argument_note(closson)
    own = load_kit(None, DEFAULT_KIT)
    assert takes_seconds(own) and step._argv(own) == ["./runit.sh", "6", "30"] and step._one_argument_note(own) == ""
