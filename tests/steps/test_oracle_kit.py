"""Issue 16: what planner sends to Oracle and to the SLOB kit does on a real host what the plan means.

The stand-ins behave as the real tools are documented to (docs/oracle-behaviour.md names each source): the
sqlplus stand-in rounds cache sizes as Oracle does and caches KEEP objects in DEFAULT when no KEEP pool
exists; the SLOB stand-in kit checks its environment and slob.conf the way SLOB's runit.sh / setup.sh do.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from prep_helpers import context

from planner.cli.main import main
from planner.db.access import config_for, open_database
from planner.db.memory import read_pools
from planner.errors import StepError
from planner.kinds.slob.kit import KitVersion
from planner.kinds.slob.standin import install_slob_kit
from planner.kinds.slob.step import Slob
from planner.rehearsal.standins import DEFAULT_HOME, install_standins, load_state, update_state
from planner.rehearsal.standins.profile import SLOB_FACTS, HostProfile, SlobRelease
from planner.status import Status
from planner.steps.prep_db import InitOra

ROOT = Path(__file__).resolve().parents[2]
KIT = "/home/oracle/SLOB"


def _cpus(root: Path, n: int) -> None:
    update_state(root, lambda s: s["memory"].__setitem__("cpu_count", str(n)))


# -- row 1: buffer cache ------------------------------------------------------------------------------------
@pytest.mark.slow
def test_db_cache_size_is_rounded_up_to_4m_per_cpu_and_the_check_accepts_it(prep_root: Path) -> None:
    """64M on a 128-CPU host reads back 512M (DB_CACHE_SIZE: at least 4M x CPUs): not a failed change."""
    _cpus(prep_root, 128)
    ctx = context(prep_root)
    out = InitOra({"db_cache_size": "64M"}).apply(ctx)
    assert out.status is Status.CHANGED, out.msg
    assert load_state(prep_root)["memory"]["db_cache_size"] == str(512 << 20)
    assert InitOra({"db_cache_size": "64M"}).check(ctx).changed is False  # idempotent on the rounded value
    assert "DEFAULT" in out.msg and out.extra.buffer_pools["DEFAULT"]  # type: ignore[union-attr] >= 512 << 20


@pytest.mark.slow
def test_keep_pool_rounds_to_the_granule_and_keep_objects_fall_back_to_default(prep_root: Path) -> None:
    ctx = context(prep_root)
    db = open_database(ctx, config_for(ctx))
    pools = read_pools(db)
    assert pools.keep == 0 and pools.holding("KEEP") == "DEFAULT" and pools.default > 1 << 30
    assert pools.granule == 16 << 20  # a 4 GB SGA: 16 MB granules
    InitOra({"db_keep_cache_size": "40M"}).apply(ctx)
    pools = read_pools(db)
    assert pools.keep == 64 << 20 and pools.holding("KEEP") == "KEEP"  # 40M -> 4M x 16 CPUs = 4 granules
    _cpus(prep_root, 2)
    InitOra({"db_keep_cache_size": "40M"}).apply(ctx)
    assert read_pools(db).keep == 48 << 20  # above the 8M floor: 40M -> 3 granules


@pytest.mark.slow
@pytest.mark.parametrize("release", list(SlobRelease))
def test_slob_cache_sets_the_pool_dba_segments_gives_the_kits_tables(tmp_path: Path, release: SlobRelease) -> None:
    """SLOB 2.4.0 creates cf1/cf2 in RECYCLE, 2.5.x in KEEP: the pool is read from DBA_SEGMENTS, not the kit."""
    root = tmp_path / "host"
    install_standins(root, profile=HostProfile(slob_release=release))
    install_slob_kit(root / KIT.lstrip("/"), release=release)
    pool = SLOB_FACTS[release].buffer_pool
    out = InitOra({"slob_cache": "64M"}).apply(context(root))
    param = {"KEEP": "db_keep_cache_size", "RECYCLE": "db_recycle_cache_size"}[pool]
    assert param in out.msg and f"cached in {pool} 64M" in out.msg and "DBA_SEGMENTS" in out.msg
    assert load_state(root)["spfile"] == {param: "64M"}


@pytest.mark.slow
def test_slob_cache_refuses_what_it_cannot_read(prep_root: Path) -> None:
    update_state(prep_root, lambda s: s["segments"].pop("USER1.CF1"))
    with pytest.raises(StepError, match="DBA_SEGMENTS has no USER1.CF1"):
        InitOra({"slob_cache": "64M"}).apply(context(prep_root))
    update_state(prep_root, lambda s: s["segments"].__setitem__(
        "USER1.CF1", {"tablespace": "IOPS", "buffer_pool": "DEFAULT", "segment_type": "TABLE"}))
    with pytest.raises(StepError, match="BUFFER_POOL DEFAULT") as e:
        InitOra({"slob_cache": "64M"}).apply(context(prep_root))
    assert "db_cache_size" in (e.value.hint or "")


def _headline(tmp: Path, old_prep: bool) -> Path:
    for d in ("plans", "inventory"):
        shutil.copytree(ROOT / d, tmp / d, ignore=shutil.ignore_patterns("reports"))
    plan = tmp / "plans" / "violin_vs_exadata.yaml"
    if old_prep:  # the prep planner shipped before issue 16: a recycle pool, which SLOB 2.x data never uses
        text = plan.read_text().replace("init_ora: {slob_cache: 64M}",
                                        "init_ora: {db_cache_size: 64M, db_recycle_cache_size: 64M}")
        plan.write_text(text.replace("slob_cache: 64M}", "db_recycle_cache_size: 64M}"))
    return plan


@pytest.mark.slow
def test_headline_rehearsal_fails_loudly_on_the_recycle_pool_prep(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    plan = _headline(tmp_path, old_prep=True)
    code = main(["apply", "--rehearse", str(plan), "--runs-dir", str(tmp_path / "runs"), "-e", "run_time=30"])
    out = capsys.readouterr().out
    assert code != 0
    assert "tables use BUFFER_POOL KEEP" in out and "no KEEP pool is configured, so they are cached in DEFAULT" in out
    assert "cache hits, not storage I/O" in out


@pytest.mark.slow
def test_headline_rehearsal_reports_effective_pools_and_statistics_per_play(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    plan = _headline(tmp_path, old_prep=False)
    code = main(["apply", "--rehearse", str(plan), "--runs-dir", str(tmp_path / "runs"), "-e", "run_time=30"])
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    report = (run / "report.md").read_text()
    assert report.count("effective buffer pools:") >= 3 and "KEEP 64M" in report
    assert report.count("Database statistics — ") >= 3
    assert ("AWR (the play's collect; Diagnostics Pack: oracle_diagnostics_pack: true (stated in the plan or "
            "inventory); CONTROL_MANAGEMENT_PACK_ACCESS=DIAGNOSTIC+TUNING)") in report
    assert "its data cached in the KEEP pool, 64M effective" in report
    # the inventory's homes are 11.2.0.3: the stand-in database is that release, not the seed's 19c
    assert "11.2.0.3.0" in report and "19.0.0.0.0" not in report
    # the Violin plays' data is on the +SLOB disk group they prepared, and the kit's awr_rac.txt (single
    # instance) is no cluster report
    assert "tablespace SLOB on +SLOB" in (run / "results.json").read_text() and "Cluster (RAC)" not in report


# -- row 2: the Oracle environment --------------------------------------------------------------------------
@pytest.mark.slow
def test_standin_runit_refuses_without_sqlplus_on_path_as_the_real_one(tmp_path: Path) -> None:
    kit = install_slob_kit(tmp_path / "SLOB", loaded_schemas=1)
    r = subprocess.run(["sh", "./runit.sh", "1"], cwd=kit, capture_output=True, text=True,
                       env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert r.returncode == 1 and "sqlplus is not executable in /usr/bin:/bin." in r.stdout
    r = subprocess.run(["sh", "./setup.sh", "IOPS", "1"], cwd=kit, capture_output=True, text=True,
                       env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert r.returncode == 1 and "SQL*Plus is not executable in current $PATH" in r.stdout


@pytest.mark.slow
def test_standin_runit_needs_oracle_sid_for_its_bequeath_connect(tmp_path: Path) -> None:
    root = tmp_path / "host"
    install_standins(root)
    kit = install_slob_kit(root / KIT.lstrip("/"), loaded_schemas=1)
    env = {"PATH": f"{root}{DEFAULT_HOME}/bin:/usr/bin:/bin", "ORACLE_HOME": DEFAULT_HOME, "HOME": str(tmp_path)}
    r = subprocess.run(["sh", "./runit.sh", "1"], cwd=kit, capture_output=True, text=True, env=env)
    assert r.returncode == 1 and "ORA-12162" in r.stdout and "connectivity check failed" in r.stdout


def _slob_project(tmp: Path, host_vars: str, step: str = "readers: 1, run_time: 30, setup: true",
                  release: SlobRelease = SlobRelease.V2_5_3) -> Path:
    root = tmp / "hosts" / "alpha"
    install_standins(root, profile=HostProfile(slob_release=release))
    install_slob_kit(root / KIT.lstrip("/"), release=release)
    (tmp / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root} {host_vars}\n")
    (tmp / "plan.yaml").write_text(f"plan: p\nplays:\n  - name: p\n    hosts: lab\n    workloads:\n"
                                   f"      - name: s\n        slob: {{kit: {KIT}, {step}}}\n")
    return root


def _apply(tmp: Path) -> tuple[int, Path, dict]:
    code = main(["apply", str(tmp / "plan.yaml"), "-i", str(tmp / "hosts.ini"), "--runs-dir", str(tmp / "runs"),
                 "--no-report"])
    run = next(p for p in (tmp / "runs").iterdir() if p.is_dir())
    (res,) = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == "s"]
    return code, run, res


@pytest.mark.slow
@pytest.mark.parametrize("release", list(SlobRelease))
def test_a_slob_point_reads_its_pool_from_dba_segments_on_every_kit_release(tmp_path: Path,
                                                                            release: SlobRelease) -> None:
    """The stand-in kit's setup.sh creates cf1/cf2 as that release's does; the point says the pool it read.
    The licence is stated: SLOB 2.0-2.3 can only take AWR snapshots, and AWR needs the Diagnostics Pack."""
    root = _slob_project(tmp_path, f"oracle_home={DEFAULT_HOME} oracle_sid=orcl slob_max_cache_pct=100 "
                         "oracle_diagnostics_pack=true", release=release)
    update_state(root, lambda s: s["memory"].update(db_keep_cache_size=str(64 << 20),
                                                    db_recycle_cache_size=str(64 << 20)))
    update_state(root, lambda s: s["segments"].clear())  # setup.sh must create them
    code, _run, res = _apply(tmp_path)
    pool = SLOB_FACTS[release].buffer_pool
    assert code == 0, res["msg"]
    assert res["data"]["kit_pool"] == pool and res["data"]["cache_pool"] == pool
    assert f"data in {pool} 64M" in res["msg"]
    assert load_state(root)["segments"]["USER1.CF1"]["buffer_pool"] == pool


@pytest.mark.slow
def test_runit_and_setup_get_oracle_sid_home_and_path_from_the_inventory(tmp_path: Path) -> None:
    _slob_project(tmp_path, f"oracle_home={DEFAULT_HOME} oracle_sid=orcl slob_max_cache_pct=100")
    code, run, res = _apply(tmp_path)
    assert code == 0, res["msg"]
    cmds = [json.loads(line)["command"] for line in (run / "commands.jsonl").read_text().splitlines()]
    for script in ("./setup.sh", "./runit.sh"):
        (cmd,) = [c for c in cmds if script in c]
        assert f"ORACLE_HOME={DEFAULT_HOME}" in cmd and "ORACLE_SID=orcl" in cmd and f"{DEFAULT_HOME}/bin" in cmd


@pytest.mark.slow
def test_slob_without_oracle_sid_is_refused_with_the_inventory_hint(tmp_path: Path) -> None:
    _slob_project(tmp_path, f"oracle_home={DEFAULT_HOME}")
    code, _run, res = _apply(tmp_path)
    assert code == 2 and "set oracle_sid in the inventory" in res["msg"]


# -- row 3: slob.conf values the kit refuses ----------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize(("step", "rule"), [
    ("run_time: 10", "run_time 10 is refused by the kit's runit.sh: Minimum supported RUN_TIME 30 seconds"),
    ("run_time: 30, work_unit: 2", "work_unit 2 is refused"),
    ("run_time: 30, conf: {WORK_UNIT: 2048}", "conf.WORK_UNIT 2048 is refused"),
    ("run_time: 30, update_pct: 75", "update_pct 75 is refused by the kit's runit.sh: f_check_pct_logic"),
    ("run_time: 30, conf: {SCAN_PCT: 60}", "conf.SCAN_PCT 60 is refused"),
    ("run_time: 30, conf: {THREADS_PER_SCHEMA: 0}", "The -t option requires a non-zero integer argument"),
    ("run_time: [30, 20]", "run_time 20 is refused"),
])
def test_kit_refusals_fail_plan_check_at_the_step_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       step: str, rule: str) -> None:
    _slob_project(tmp_path, f"oracle_home={DEFAULT_HOME} oracle_sid=orcl", f"readers: 1, {step}")
    code = main(["validate", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini")])
    err = capsys.readouterr().err
    assert code == 5 and rule in err
    assert "plan.yaml:7:" in err


# -- row 6: licensing ---------------------------------------------------------------------------------------
def _pack(root: Path, value: str) -> None:
    update_state(root, lambda s: s["memory"].__setitem__("control_management_pack_access", value))


@pytest.mark.slow
def test_awr_without_the_diagnostics_pack_becomes_statspack_and_says_why(tmp_path: Path) -> None:
    # stated licensed, but CONTROL_MANAGEMENT_PACK_ACCESS=NONE switches the packs off: the one "no" it can say
    root = _slob_project(tmp_path, f"oracle_home={DEFAULT_HOME} oracle_sid=orcl slob_max_cache_pct=100 "
                                   "oracle_diagnostics_pack=true",
                         "readers: 1, run_time: 30, setup: true, database_statistics_type: awr")
    _pack(root, "NONE")
    code, run, res = _apply(tmp_path)
    assert code == 0, res["msg"]
    assert res["data"]["statistics"] == "statspack"
    assert "CONTROL_MANAGEMENT_PACK_ACCESS=NONE switches the packs off on this database: AWR needs the" in res["msg"]
    used = next(a for a in res["artifacts"] if a["path"].endswith("slob.conf"))
    assert "DATABASE_STATISTICS_TYPE=statspack" in (run / used["path"]).read_text()


@pytest.mark.slow
def test_a_stated_licence_allows_awr_and_an_awr_only_kit_is_refused_unlicensed(tmp_path: Path) -> None:
    root = _slob_project(tmp_path, f"oracle_home={DEFAULT_HOME} oracle_sid=orcl slob_max_cache_pct=100 "
                                   "oracle_diagnostics_pack=true",
                         "readers: 1, run_time: 30, setup: true, database_statistics_type: awr")
    code, _run, res = _apply(tmp_path)
    assert code == 0 and res["data"]["statistics"] == "awr" and "stated in the plan or inventory" in res["msg"]
    ctx = context(root, oracle_diagnostics_pack=False)
    with pytest.raises(StepError, match="Diagnostics Pack"):  # SLOB 2.0-2.3 can only take AWR snapshots
        Slob({"kit": KIT})._statistics(ctx, KitVersion.SLOB2, "UPDATE_PCT=0\n")


@pytest.mark.slow
def test_collect_awr_is_refused_where_the_pack_is_not_enabled(prep_root: Path) -> None:
    from planner.steps import dbreport

    _pack(prep_root, "NONE")
    with pytest.raises(StepError,
                       match="AWR needs the Oracle Diagnostics Pack and .*CONTROL_MANAGEMENT_PACK_ACCESS=NONE"):
        dbreport.begin(context(prep_root, oracle_diagnostics_pack=True), "awr")


@pytest.mark.slow
def test_dry_run_says_which_statistics_and_why(tmp_path: Path) -> None:
    root = _slob_project(tmp_path, "")
    ctx = context(root)
    change = Slob({"kit": KIT, "readers": 1}).check(ctx)
    assert "statistics: statspack (the kit's slob.conf; Statspack needs no pack)" in change.msg


# -- row 5: flashback by version ----------------------------------------------------------------------------
@pytest.mark.slow
def test_flashback_before_11_2_is_switched_in_mount_and_the_window_loss_is_said(prep_root: Path) -> None:
    from planner.steps.prep_flashback import Flashback

    update_state(prep_root, lambda s: s["database"].__setitem__("version", "11.1.0.7.0"))
    ctx = context(prep_root)
    step = Flashback({"state": "off"})
    change = step.check(ctx)
    assert "restarts into MOUNT" in change.msg and "flashback logs" in change.msg
    saved = step.save(ctx)
    out = step.apply(ctx)
    state = load_state(prep_root)
    assert out.status is Status.CHANGED and state["database"]["flashback_on"] == "NO"
    assert state["database"]["status"] == "OPEN" and state["restarts"] == 1 and "MOUNTed" in out.msg
    assert "can no longer be flashed back to any time before this run" in out.msg
    back = step.revert(ctx, saved)
    assert "empty flashback window" in back.msg and load_state(prep_root)["database"]["flashback_on"] == "YES"


@pytest.mark.slow
def test_flashback_on_11_2_and_later_stays_open(prep_root: Path) -> None:
    from planner.steps.prep_flashback import Flashback

    update_state(prep_root, lambda s: s["database"].__setitem__("version", "11.2.0.3.0"))
    out = Flashback({"state": "off"}).apply(context(prep_root))
    assert "OPEN (Oracle 11.2)" in out.msg and load_state(prep_root)["restarts"] == 0


@pytest.mark.slow
def test_standin_refuses_flashback_open_before_11_2(prep_root: Path) -> None:
    from planner.errors import OracleError

    update_state(prep_root, lambda s: s["database"].__setitem__("version", "10.2.0.5.0"))
    ctx = context(prep_root)
    with pytest.raises(OracleError, match="ORA-38759"):
        open_database(ctx, config_for(ctx)).execute("alter database flashback off")


# -- row 9: python-oracledb thin mode needs 12.1+ -----------------------------------------------------------
@pytest.mark.slow
def test_thin_access_to_an_11_2_database_fails_plan_check_with_the_sqlplus_hint(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _slob_project(tmp_path, "oracle_home=/u01/app/oracle/product/11.2.0.3/dbhome_1 oracle_sid=SLOB "
                            "oracle_access=thin", "readers: 1, run_time: 30")
    code = main(["validate", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini")])
    err = capsys.readouterr().err
    assert code == 5 and "oracle_access: thin needs Oracle Database 12.1 or later" in err
    assert "plan.yaml:7:" in err and "oracle_access: sqlplus" in err
    _slob_project(tmp_path / "b", f"oracle_home={DEFAULT_HOME} oracle_sid=orcl oracle_access=thin",
                  "readers: 1, run_time: 30")
    assert main(["validate", str(tmp_path / "b" / "plan.yaml"), "-i", str(tmp_path / "b" / "hosts.ini")]) == 0


# -- row 10: the SQL planner sends is in the run record -----------------------------------------------------
@pytest.mark.slow
def test_sql_sent_to_sqlplus_is_recorded_in_commands_jsonl(tmp_path: Path) -> None:
    root = tmp_path / "hosts" / "alpha"
    install_standins(root)
    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root} "
                                        f"oracle_home={DEFAULT_HOME} oracle_sid=orcl oracle_poll_interval_s=0\n")
    (tmp_path / "plan.yaml").write_text("plan: p\nplays:\n  - name: p\n    hosts: lab\n    prep:\n"
                                        "      - init_ora: {db_recycle_cache_size: 64M}\n")
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "--runs-dir",
                 str(tmp_path / "runs"), "--no-report"])
    assert code == 0
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    lines = [json.loads(x) for x in (run / "commands.jsonl").read_text().splitlines()]
    sql = [e["stdin"] for e in lines if "sqlplus" in e["command"] and e.get("stdin")]
    assert any("alter system set db_recycle_cache_size=64M scope=both sid='*';" in s for s in sql)
    assert all("whenever sqlerror exit failure" in s for s in sql)


# -- row 7 (part): io_scheduler needs root on a real host ---------------------------------------------------
def test_io_scheduler_without_root_or_become_is_refused_before_writing(tmp_path: Path) -> None:
    from planner.host import Host
    from planner.steps.base import StepContext
    from planner.steps.prep_os import IoScheduler
    from planner.transport.connection import LocalConnection

    host = Host(name="oel57", address="127.0.0.1", connection="local", user="oracle", vars={})
    ctx = StepContext(host=host, conn=LocalConnection(host), vars={}, step_path="plays[0].prep[0]",
                      plan_dir=tmp_path, artifacts=tmp_path, run_dir=tmp_path, log=lambda *_a: None)
    step = IoScheduler({"devices": "/dev/sdb", "scheduler": "none"})
    for call in (step.check, step.apply):
        with pytest.raises(StepError, match="only root may write") as e:
            call(ctx)
        assert "become: true" in (e.value.hint or "")
