"""Oracle as it varies, the database side: planner reads what the Oracle host is, and the stand-ins vary as real
hosts do.

Each test names the row of docs/oracle-behaviour.md it proves; the stand-ins cite the same public sources.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from prep_helpers import context
from slob_helpers import apply, project

from planner.db.access import config_for, open_database
from planner.db.caging import read_caging
from planner.db.container import read_container
from planner.db.licence import diagnostics_pack
from planner.errors import OracleError, StepError
from planner.extras import InitOraDone
from planner.kinds.fio.findings import run_findings as fio_setup
from planner.kinds.iozone.findings import run_findings as iozone_buffered
from planner.kinds.orion.step import orion_points
from planner.kinds.slob.cache import setup_budget_s
from planner.metrics import Direction
from planner.parsers import parse_file, parse_text
from planner.plan.model import Plan, Play, Section, StepSpec
from planner.rehearsal.standins import DEFAULT_HOME, load_state, rac_state, update_state
from planner.results.findings import all_findings, blocks_not_requests
from planner.results.measure import ReadArtifact, RunData, read_run
from planner.results.runfolder import RunMeta
from planner.status import Artifact, Status, StepResult
from planner.steps import step_class
from planner.steps.base import DEFAULT_TIMEOUT_S, TIMEOUT_MARGIN_S
from planner.steps.prep_asm import AsmDiskgroup
from planner.steps.prep_db import InitOra, restart_database
from planner.steps.prep_flashback import Flashback


def _cpus(root: Path, n: int) -> None:
    update_state(root, lambda s: s["memory"].__setitem__("cpu_count", str(n)))


# -- 1d: the 4 MB x CPU_COUNT floor of the KEEP and RECYCLE caches ----------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name", ["db_keep_cache_size", "db_recycle_cache_size"])
def test_keep_and_recycle_caches_have_the_4m_per_cpu_floor_and_the_check_accepts_it(prep_root: Path,
                                                                                   name: str) -> None:
    """64M on a 128-CPU host reads back 512M for KEEP and RECYCLE too: not a failed change, and idempotent."""
    _cpus(prep_root, 128)
    ctx = context(prep_root)
    out = InitOra({name: "64M"}).apply(ctx)
    assert out.status is Status.CHANGED, out.msg
    assert load_state(prep_root)["memory"][name] == str(512 << 20)
    assert InitOra({name: "64M"}).check(ctx).changed is False
    pool = "KEEP" if "keep" in name else "RECYCLE"
    assert isinstance(out.extra, InitOraDone)
    assert out.extra.buffer_pools[pool] == 512 << 20 and f"{pool} 512M" in out.msg


# -- 7: init_ora on a pfile instance, the spfile backup, the way back when the instance will not start ----------
def _pfile_instance(root: Path) -> None:
    update_state(root, lambda s: s["database"].update(pfile=True, no_spfile=True))


@pytest.mark.slow
def test_init_ora_on_a_pfile_instance_sets_dynamic_ones_in_memory_and_refuses_static_ones(prep_root: Path) -> None:
    _pfile_instance(prep_root)
    ctx = context(prep_root)
    step = InitOra({"db_recycle_cache_size": "64M"})
    assert "set in memory only" in step.check(ctx).msg
    saved = step.save(ctx)
    out = step.apply(ctx)
    assert out.status is Status.CHANGED and "SCOPE=MEMORY" in out.msg, out.msg
    state = load_state(prep_root)
    assert "alter system set db_recycle_cache_size=64M scope=memory sid='*'" in state["history"]
    assert state["memory"]["db_recycle_cache_size"] == str(64 << 20) and state["spfile"] == {}
    assert step.check(ctx).changed is False
    assert step.revert(ctx, saved).status is Status.CHANGED
    assert load_state(prep_root)["memory"]["db_recycle_cache_size"] == "0"
    with pytest.raises(StepError, match="static .* text pfile .*ORA-32001"):
        InitOra({"filesystemio_options": "SETALL"}).check(ctx)
    with pytest.raises(StepError, match="ORA-32001"):
        InitOra({"filesystemio_options": "SETALL"}).apply(ctx)
    assert not any(h.startswith("alter") and "filesystemio" in h for h in load_state(prep_root)["history"])


@pytest.mark.slow
def test_the_spfile_is_backed_up_once_per_run_before_the_first_write(prep_root: Path) -> None:
    update_state(prep_root, lambda s: s["spfile"].update(db_cache_size="2G"))
    ctx = context(prep_root)
    out = InitOra({"processes": 600}).apply(ctx)
    backup = prep_root / DEFAULT_HOME.lstrip("/") / "dbs" / f"planner_initorcl_{ctx.run_dir.name}.ora"
    assert f"spfile backed up to {DEFAULT_HOME}/dbs/planner_initorcl_" in out.msg, out.msg
    assert backup.read_text() == "*.db_cache_size=2G\n"  # the spfile before the change, not after
    history = load_state(prep_root)["history"]
    assert history.index(f"create pfile='{DEFAULT_HOME}/dbs/{backup.name}' from spfile") < next(
        i for i, h in enumerate(history) if h.startswith("alter system set processes"))
    out = InitOra({"db_recycle_cache_size": "64M"}).apply(ctx)
    assert "kept from earlier in this run" in out.msg and backup.read_text() == "*.db_cache_size=2G\n"


@pytest.mark.slow
def test_an_instance_that_will_not_start_comes_back_from_the_backup_pfile(prep_root: Path) -> None:
    """sga_max_size beyond the host's memory: ORA-27102 at startup; planner starts from the backup, puts the
    spfile back and fails the step saying so; the database is OPEN with its old parameters."""
    update_state(prep_root, lambda s: s["database"].update(max_sga=8 << 30))
    ctx = context(prep_root)
    with pytest.raises(StepError, match="ORA-27102.*backup pfile .*runs as before") as e:
        InitOra({"sga_max_size": "64G"}).apply(ctx)
    assert "lower the sizes" in (e.value.hint or "")
    state = load_state(prep_root)
    assert state["database"]["status"] == "OPEN" and state["spfile"] == {} and not state["database"]["pfile"]
    assert any(h.startswith("startup pfile=") for h in state["history"])
    assert state["memory"].get("sga_max_size") is None


@pytest.mark.slow
def test_a_restart_of_a_down_instance_only_starts_it(prep_root: Path) -> None:
    update_state(prep_root, lambda s: s["database"].update(status="SHUTDOWN"))
    ctx = context(prep_root)
    how, _db = restart_database(ctx, config_for(ctx))
    assert "was down" in how
    state = load_state(prep_root)
    assert state["database"]["status"] == "OPEN" and "shutdown immediate" not in state["history"]


# -- 11: the container: non-CDB, CDB$ROOT, a PDB; what a PDB refuses ------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize(("version", "cdb", "pdb", "said"), [
    ("11.2.0.3.0", False, "", "non-CDB ORCL (before 12.1: no containers)"),
    ("19.0.0.0.0", False, "", "non-CDB ORCL"),
    ("19.0.0.0.0", True, "", "CDB$ROOT of a CDB"),
    ("19.0.0.0.0", True, "PDB1", "PDB PDB1 of a CDB"),
])
def test_the_container_is_read_across_versions_and_cdb_kinds(prep_root: Path, version: str, cdb: bool, pdb: str,
                                                            said: str) -> None:
    update_state(prep_root, lambda s: s["database"].update(version=version, cdb=cdb))
    ctx = context(prep_root, **({"oracle_pdb": pdb} if pdb else {}))
    container = read_container(open_database(ctx, config_for(ctx)))
    assert container.describe() == said and container.pdb is bool(pdb)


@pytest.mark.slow
def test_in_a_pdb_init_ora_refuses_what_a_pdb_cannot_set_and_says_db_cache_size_is_a_minimum(prep_root: Path) -> None:
    update_state(prep_root, lambda s: s["database"].update(cdb=True, pdbs=["PDB1"]))
    ctx = context(prep_root, oracle_pdb="PDB1")
    for step in (InitOra({"db_keep_cache_size": "64M"}), InitOra({"db_cache_size": "1G", "processes": 600})):
        with pytest.raises(StepError, match=r"cannot be set in PDB PDB1 of a CDB \(V\$PARAMETER.ISPDB_MODIFIABLE"):
            step.check(ctx)
        with pytest.raises(StepError, match="ISPDB_MODIFIABLE"):
            step.apply(ctx)
    assert not any(h.startswith("alter system") for h in load_state(prep_root)["history"])
    out = InitOra({"db_cache_size": "1G"}).apply(ctx)
    assert out.status is Status.CHANGED and "DB_CACHE_SIZE is a minimum guaranteed to the PDB" in out.msg
    assert "alter session set container = PDB1" in load_state(prep_root)["history"]


@pytest.mark.slow
def test_an_unknown_pdb_is_an_oracle_error_naming_it(prep_root: Path) -> None:
    update_state(prep_root, lambda s: s["database"].update(cdb=True, pdbs=["PDB1"]))
    ctx = context(prep_root, oracle_pdb="SALES")
    with pytest.raises(OracleError, match="ORA-65011"):
        InitOra({"db_cache_size": "1G"}).check(ctx)


# -- 10: Resource Manager caging, read per point ----------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize(("version", "db", "cpu_count", "caged", "said"), [
    ("19.0.0.0.0", {}, None, False, "not caged: no Resource Manager plan active"),
    ("19.0.0.0.0", {"open_windows": ["MONDAY_WINDOW"]}, None, False,
     "not caged: Resource Manager plan DEFAULT_MAINTENANCE_PLAN, opened by the scheduler window MONDAY_WINDOW, is "
     "active but CPU_COUNT is not set"),
    ("19.0.0.0.0", {"open_windows": ["MONDAY_WINDOW"]}, "16", True,
     "caged: Resource Manager plan DEFAULT_MAINTENANCE_PLAN, opened by the scheduler window MONDAY_WINDOW, limits "
     "the instance to CPU_COUNT=16 CPUs"),
    ("11.1.0.7.0", {"resource_manager_plan": "DEFAULT_PLAN"}, "8", True,
     "caged: Resource Manager plan DEFAULT_PLAN limits the instance to CPU_COUNT=8 CPUs"),
])
def test_caging_is_read_and_said_in_words(prep_root: Path, version: str, db: dict, cpu_count: str | None,
                                          caged: bool, said: str) -> None:
    def seed(s: dict) -> None:
        s["database"].update(version=version, **db)
        if cpu_count:
            s["spfile"]["cpu_count"] = cpu_count
            s["memory"]["cpu_count"] = cpu_count
    update_state(prep_root, seed)
    ctx = context(prep_root)
    caging = read_caging(open_database(ctx, config_for(ctx)))
    assert caging.caged is caged and caging.describe().startswith(said), caging.describe()


@pytest.mark.slow
def test_a_caged_slob_point_says_so_and_iops_per_core_uses_the_caged_cores(tmp_path: Path) -> None:
    root = project(tmp_path, readers="2", repeat=1)
    update_state(root, lambda s: (s["database"].update(open_windows=["MONDAY_WINDOW"]),
                                  s["spfile"].update(cpu_count="4"), s["memory"].update(cpu_count="4")))
    code, run, results = apply(tmp_path)
    assert code == 0, results[0]["msg"]
    data = results[0]["data"]
    assert data["caging"]["caged"] is True and "CPU caged: Resource Manager plan DEFAULT_MAINTENANCE_PLAN" in \
        results[0]["msg"]
    assert data["container"]["describe"] == "non-CDB ORCL"
    per_core = [m for m in read_run(run).measurements if m.metric == "read_iops_per_core"]
    iops = next(m.value for m in read_run(run).measurements if m.metric == "physical_read_iops")
    assert per_core and all(dict(m.labels)["cores"].startswith("caged ") for m in per_core)
    awr = next(a for a in results[0]["artifacts"] if a["kind"] == "awr_text")
    parsed = parse_file(run / awr["path"], "awr_text")
    cpus, cores = parsed.value("cpus"), parsed.value("cores")
    assert cpus and cores
    assert per_core[0].value == pytest.approx(iops / min(cores, 4 * cores / cpus))


# -- 9: read IOPS from blocks/s while reads were batched --------------------------------------------------------
def _point(iops_basis: str, parallel_waits: float) -> list:
    from test_findings import m, s

    return s(m("physical_read_iops", 150_000, labels={"basis": iops_basis}),
             m("wait.waits", 40_000_000, labels={"event": "db file sequential read", "section": "top"}),
             m("wait.waits", parallel_waits, labels={"event": "db file parallel read", "section": "top"}))


def test_a_blocks_basis_iops_is_flagged_when_multiblock_reads_are_not_trivial() -> None:
    found = blocks_not_requests(_point("blocks", 2_000_000))
    assert [f.code for f in found] == ["blocks_not_requests"] and ("multi-block waits %", "4.8") in found[0].numbers
    assert blocks_not_requests(_point("blocks", 10_000)) == []  # 0.02%: trivial
    assert blocks_not_requests(_point("requests", 2_000_000)) == []  # requests are IOPS whatever the batching
    assert any(f.code == "blocks_not_requests" for f in all_findings(_point("blocks", 2_000_000)))


# -- 6: a duration model per kind, and setup.sh's own budget ---------------------------------------------------
def test_orion_points_follow_num_disks_and_the_run_type() -> None:
    """The 11.1.0.7 -run simple -num_disks 1 summary says "Total Data Points: 8" (shared/reference §3.2)."""
    assert orion_points({"luns": ["/dev/sdb"], "run": "simple", "num_disks": 1}) == 8
    assert orion_points({"luns": ["/dev/sdb", "/dev/sdc"], "run": "simple"}) == 15  # num_disks: the LUNs
    assert orion_points({"luns": ["/dev/sdb"], "run": "normal", "num_disks": 1}) == 8 + 2 * 3
    assert orion_points({"luns": ["a"], "run": "oltp", "num_disks": 3}) == 15
    assert orion_points({"luns": ["a"], "run": "dss", "num_disks": 3}) == 6


def test_each_kind_gets_a_timeout_from_its_own_model_not_the_3600s_default() -> None:
    eight = [f"/dev/mapper/lun{i}" for i in range(8)]
    orion = step_class("orion")({"luns": eight, "run": "normal", "duration": 60})
    assert orion.default_timeout_s({}) == 2 * 60 * orion_points(orion.args) + TIMEOUT_MARGIN_S > 40_000
    assert step_class("calibrate_io")({}).default_timeout_s({}) == 600 + TIMEOUT_MARGIN_S
    iozone = step_class("iozone")({"tests": [2], "file_size": "10g", "threads": 4, "create_files": True})
    assert iozone.default_timeout_s({}) == 10240 * 4 * 2 / 10 + TIMEOUT_MARGIN_S
    assert iozone.default_timeout_s({"iozone_min_mb_per_s": 100}) == 10240 * 4 * 2 / 100 + TIMEOUT_MARGIN_S
    assert step_class("iozone")({"tests": [2]}).default_timeout_s({}) == DEFAULT_TIMEOUT_S  # -a: not modelled


def test_setup_sh_has_its_own_budget_from_the_data_it_loads() -> None:
    data = 256 * 10_000 * 8192  # 256 schemas of SCALE=10000 8 KB blocks
    assert setup_budget_s({}, data) == data / (5 << 20) + TIMEOUT_MARGIN_S > 3600
    assert setup_budget_s({}, 1 << 20) == 1800  # never less than half an hour
    assert setup_budget_s({"slob_setup_timeout_s": 86400}, data) == 86400


@pytest.mark.slow
def test_orion_outcome_gives_its_own_estimate_beside_the_model(tmp_path: Path) -> None:
    from kinds.orion.test_wl_orion import apply as orion_apply
    from kinds.orion.test_wl_orion import project as orion_project

    orion_project(tmp_path)
    code, _run, result = orion_apply(tmp_path)
    assert code == 0, result["msg"]
    assert result["data"]["orion_estimate_min"] is not None and result["data"]["model_min"] == round(8 / 60, 1)
    assert "ORION estimated" in result["msg"] and "planner's model" in result["msg"]


# -- 18: ORION options a run type ignores -------------------------------------------------------------------------
@pytest.mark.parametrize("run", ["simple", "normal"])
def test_orion_options_that_only_advanced_reads_are_refused_with_simple_and_normal(run: str) -> None:
    with pytest.raises(StepError, match=f"-run {run} ignores -write, -size_small"):
        step_class("orion")({"luns": ["/dev/sdb"], "run": run, "write": 20, "size_small": 16}).validate()
    step_class("orion")({"luns": ["/dev/sdb"], "run": "advanced", "write": 20, "size_small": 16}).validate()


# -- 6b: CONTROL_MANAGEMENT_PACK_ACCESS is not a licence ----------------------------------------------------------
@pytest.mark.slow
def test_the_enterprise_edition_default_pack_access_is_no_licence_for_awr(prep_root: Path) -> None:
    # DIAGNOSTIC+TUNING, the EE default, and nothing stated
    allowed, why = diagnostics_pack(context(prep_root, oracle_diagnostics_pack=None))
    assert allowed is False and "licence is not stated" in why and "not a licence" in why
    allowed, why = diagnostics_pack(context(prep_root, oracle_diagnostics_pack=True))
    assert allowed is True and "stated" in why
    update_state(prep_root, lambda s: s["memory"].update(control_management_pack_access="NONE"))
    allowed, why = diagnostics_pack(context(prep_root, oracle_diagnostics_pack=True))
    assert allowed is False and "=NONE switches the packs off" in why


# -- 12: buffered I/O: fio file jobs on libaio without direct=1, iozone without -I ------------------------------
def _run_data(tmp: Path, kind: str, args: dict, facts: tuple = ()) -> RunData:
    spec = StepSpec(kind=kind, section=Section.WORKLOADS, args=args, path="plays[0].workloads[0]", name=kind)
    plan = Plan(name="p", source=tmp / "plan.yaml", plays=(Play(name="ssd", hosts="lab", workloads=(spec,)),))
    art = Artifact("artifacts/fio.json", "fio_json")
    result = StepResult(spec.path, kind, "alpha", Status.CHANGED, artifacts=(art,) if facts else ())
    read = (ReadArtifact(art.path, "fio_json", "ssd", "alpha", spec.path, False, facts),) if facts else ()
    return RunData(tmp, RunMeta.from_mapping({"plays": [{"name": "ssd"}]}), (result,), (), read,
                   {"alpha": {"memory_gb": 11.74}}, (), plan)


def test_fio_file_jobs_on_libaio_without_direct_and_iozone_without_dash_i_are_flagged_with_page_cache_exposure(
        tmp_path: Path) -> None:
    fio = (("job[ssd].filename", "/data/f1"), ("job[ssd].ioengine", "libaio"), ("job[ssd].size", "4g"),
           ("job[ssd].numjobs", "2"))
    found = [f for f in fio_setup(_run_data(tmp_path, "fio", {}, fio)) if f.code == "buffered_io"]
    assert len(found) == 1 and "buffered I/O is not async" in found[0].message
    assert "the test's data (8 GB) fits in the host's 11.74 GB of memory" in found[0].message
    assert not [f for f in fio_setup(_run_data(tmp_path, "fio", {}, (*fio, ("job[ssd].direct", "1"))))
                if f.code == "buffered_io"]
    found = iozone_buffered(_run_data(tmp_path, "iozone", {"flags": ["-w", "-e", "-c"], "file_size": "1g",
                                                           "threads": 4}))
    assert len(found) == 1 and "without -I" in found[0].message and "(4 GB) fits in" in found[0].message
    assert iozone_buffered(_run_data(tmp_path, "iozone", {"flags": ["-I"], "file_size": "1g", "threads": 4})) == []



@pytest.mark.parametrize(("file_size", "threads", "data"), [(8388608, 1, "8 GB"), ("2097152", "2", "4 GB"),
                                                            ("512m", 2, "1 GB")])
def test_iozone_file_size_without_a_unit_is_kbytes_as_iozone_reads_it(tmp_path: Path, file_size: object,
                                                                        threads: object, data: str) -> None:
    """iozone's -s is "the size, in Kbytes, of the file to test" (its man page, iozone3 506): a bare 8388608 is
    8 GiB, not 8 MB read as bytes; a templated threads ("2") counts like 2."""
    found = iozone_buffered(_run_data(tmp_path, "iozone", {"file_size": file_size, "threads": threads}))
    assert len(found) == 1 and f"the test's data ({data}) fits in the host's 11.74 GB of memory" in found[0].message

# -- 16: FLASHBACK_ON = RESTORE POINT ONLY ----------------------------------------------------------------------
@pytest.mark.slow
def test_flashback_off_under_a_guaranteed_restore_point_is_refused_at_check_naming_it(prep_root: Path) -> None:
    update_state(prep_root, lambda s: (s["database"].update(flashback_on="RESTORE POINT ONLY"),
                                       s.update(restore_points=[{"name": "BEFORE_SLOB", "guarantee": "YES"}])))
    ctx = context(prep_root)
    with pytest.raises(StepError, match="RESTORE POINT ONLY .*BEFORE_SLOB"):
        Flashback({"state": "off"}).check(ctx)
    with pytest.raises(StepError, match="cannot be reached"):
        Flashback({"state": "off"}).apply(ctx)
    assert not any(h.startswith("alter database flashback") for h in load_state(prep_root)["history"])
    assert Flashback({"state": "on"}).apply(ctx).status is Status.CHANGED  # ON is reachable


# -- 17: CALIBRATE_IO: every RAC instance open, a 0 ms latency, max_latency at plan check ----------------------
@pytest.mark.slow
def test_calibrate_io_on_rac_needs_every_instance_open(prep_root: Path) -> None:
    update_state(prep_root, rac_state)
    ctx = context(prep_root)
    db = open_database(ctx, config_for(ctx))
    step_class("calibrate_io").every_instance_open(db)  # both open: fine
    update_state(prep_root, lambda s: s["database"]["instances"][1].update(status="SHUTDOWN"))
    with pytest.raises(StepError, match=r"needs every instance open, and SLOB2 \(CLOSED\)"):
        step_class("calibrate_io")({}).apply(ctx)


def test_a_zero_ms_calibrate_latency_is_under_one_ms_and_never_the_best() -> None:
    zero = parse_text("max_iops = 1353418\nlatency = 0\nmax_mbps = 18850\n", "<zero>", "calibrate_io")
    three = parse_text("max_iops = 3913\nlatency = 3\nmax_mbps = 137\n", "<three>", "calibrate_io")
    (z,) = zero.all("calibrate.latency_ms")
    (t,) = three.all("calibrate.latency_ms")
    assert z.direction is Direction.NEUTRAL and z.label("resolution") == "under 1 ms (whole ms)"
    assert t.direction is Direction.LOWER and t.label("resolution") == ""


def test_calibrate_max_latency_below_10_fails_plan_check() -> None:
    with pytest.raises(StepError, match="below Oracle's minimum of 10 ms"):
        step_class("calibrate_io").check_args({"max_latency": 5}, Path("."))
    step_class("calibrate_io").check_args({"max_latency": 10}, Path("."))


# -- 8: hidden "_" parameters: read from X$KSPPI / X$KSPPCV, set quoted SCOPE=SPFILE with the restart ------------
@pytest.mark.slow
def test_slobs_hidden_prefetch_parameters_are_read_set_in_the_spfile_restarted_and_put_back(prep_root: Path) -> None:
    ctx = context(prep_root)
    wanted = {"_db_block_prefetch_limit": 0, "_db_block_prefetch_quota": 0, "_db_file_noncontig_mblock_read_count": 0}
    step = InitOra(wanted)
    change = step.check(ctx)
    assert "_db_block_prefetch_quota: 10 (not in spfile) -> 0 (static: restart)" in (change.diff or "")
    saved = step.save(ctx)
    out = step.apply(ctx)
    assert out.status is Status.CHANGED and "restarted" in out.msg, out.msg
    state = load_state(prep_root)
    assert "alter system set \"_db_block_prefetch_quota\"=0 scope=spfile sid='*'" in state["history"]
    assert state["memory"]["_db_file_noncontig_mblock_read_count"] == "0" and state["restarts"] == 1
    assert step.check(ctx).changed is False
    step.revert(ctx, saved)
    state = load_state(prep_root)
    assert "alter system reset \"_db_block_prefetch_quota\" scope=spfile sid='*'" in state["history"]
    assert state["spfile"] == {} and "_db_block_prefetch_quota" not in state["memory"]


# -- 15 (part): an omitted ASM redundancy is NORMAL, and is said ------------------------------------------------
@pytest.mark.slow
def test_an_asm_disk_group_without_redundancy_says_it_is_normal_mirrored(prep_root: Path) -> None:
    ctx = context(prep_root)
    step = AsmDiskgroup({"name": "SLOB", "disks": ["/dev/mapper/lun01"]})
    assert "redundancy not given: Oracle's default NORMAL (two-way mirrored writes)" in step.check(ctx).msg
    assert "default NORMAL" in step.apply(ctx).msg
    stated = AsmDiskgroup({"name": "SLOB2", "disks": ["/dev/mapper/lun02"], "redundancy": "external"})
    assert "redundancy not given" not in stated.check(ctx).msg
