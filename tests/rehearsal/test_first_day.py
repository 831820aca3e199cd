"""The rehearsal's default world is a lab's first day (issue 39): a fresh database, the world named in the
record and the report, and the stand-ins set by the inventory, the plan's vars and -e alike."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.errors import InputError
from planner.rehearsal.standins.profile import StandinDatabase, profile_for
from planner.results.runfolder import RunMeta
from planner.results.world import HostWorld

ROOT = Path(__file__).resolve().parents[2]


def test_the_stand_in_database_is_fresh_unless_asked_loaded() -> None:
    assert profile_for({}).database is StandinDatabase.FRESH
    assert profile_for({"standin_database": "loaded"}).database is StandinDatabase.LOADED
    with pytest.raises(InputError, match="standin_database 'full' is neither fresh nor loaded"):
        profile_for({"standin_database": "full"})


def test_the_world_is_recorded_and_said_in_a_dbas_words() -> None:
    w = HostWorld(host="oel57", database="fresh", login_user="oracle", become="become through real sudo",
                  oracle_version="19.3.0.0.0", cdb=True, pdb="PDB1", slob_release="2.5.3.0",
                  userland="Debian GNU/Linux 12 (bookworm)")
    said = w.describe()
    assert said.startswith("oel57: a fresh database (as DBCA leaves it: no SLOB, TPC-C or SOE schema), "
                           "Oracle 19.3.0.0.0 a CDB with PDB PDB1, single instance; SLOB 2.5.3.0 kit (stand-ins); "
                           "logged in as oracle, become through real sudo")
    assert "database=" not in said and "cdb" not in said  # words, not keys
    meta = RunMeta.from_mapping({"world": [w.to_json(), {"not": "a host"}, "junk"]})
    assert meta.world == (w,)


def _checkout(tmp_path: Path) -> Path:
    for d in ("plans", "inventory"):
        shutil.copytree(ROOT / d, tmp_path / d, ignore=shutil.ignore_patterns("reports"))
    return tmp_path / "plans"


@pytest.mark.slow
def test_the_headline_plan_on_a_loaded_database_of_slob_2_4_0_set_by_e(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """-e reaches the stand-ins: a loaded lab whose kit is SLOB 2.4.0 (tables in RECYCLE), so slob_cache reads
    DBA_SEGMENTS and sets the recycle pool; the fresh default world is test_preview_is_the_run's."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PLANNER_REHEARSE_TRANSPORT", "local")  # the world, not the transport, is under test
    plans = _checkout(tmp_path)
    code = main(["apply", "--rehearse", str(plans / "violin_vs_exadata.yaml"), "--runs-dir", str(tmp_path / "runs"),
                 "-e", "run_time=30", "-e", "standin_database=loaded", "-e", "slob_release=2.4.0",
                 "--limit", "exadata"])
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    meta = RunMeta.from_mapping(json.loads((run / "meta.json").read_text()))
    assert [(w.host, w.database, w.slob_release) for w in meta.world] == [("exadatax2-8", "loaded", "2.4.0")]
    assert ("simulated exadatax2-8: a loaded database (SLOB's, TPC-C's and SOE's schemas already built)"
            in (run / "report.md").read_text())
    said = [str(r.get("msg")) for r in json.loads((run / "results.json").read_text())]
    assert any(m.startswith("set db_recycle_cache_size") and "BUFFER_POOL RECYCLE of USER1.CF1 (DBA_SEGMENTS)" in m
               for m in said), said


def _cdb_project(tmp: Path, host_vars: str) -> Path:
    """A host whose database is a CDB (the stand-in's knob), a SLOB step that would create its tablespace."""
    from planner.kinds.slob.standin import install_slob_kit
    from planner.rehearsal.standins import DEFAULT_HOME, install_standins
    from planner.rehearsal.standins.profile import HostProfile

    root = tmp / "hosts" / "alpha"
    install_standins(root, profile=HostProfile(oracle_version="19.0.0.0.0", cdb=True,
                                               database=StandinDatabase.FRESH))
    install_slob_kit(root / "opt/SLOB")
    (tmp / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root} "
                                   f"oracle_home={DEFAULT_HOME} oracle_sid=orcl {host_vars}\n")
    (tmp / "plan.yaml").write_text(
        "plan: p\nplays:\n  - name: p\n    hosts: lab\n    workloads:\n      - name: s\n"
        '        slob: {kit: /opt/SLOB, run_time: 30, readers: 1, setup: true, data_on: "+DATA", '
        "create_tablespace: 16G}\n")
    return root


def test_a_cdb_the_inventory_states_without_oracle_pdb_is_refused_by_validate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: the plan validated, then a 16 GB tablespace was made in CDB$ROOT and setup.sh failed ORA-65096."""
    (tmp_path / "hosts.ini").write_text("[lab]\nalpha ansible_host=192.0.2.1 oracle_version=21.3\n")
    (tmp_path / "plan.yaml").write_text(
        "plan: p\nplays:\n  - name: p\n    hosts: lab\n    workloads:\n      - name: s\n"
        '        slob: {kit: /opt/SLOB, readers: 1, setup: true, data_on: "+DATA", create_tablespace: 16G}\n')
    code = main(["validate", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini")])
    err = capsys.readouterr().err
    assert code == 5, err
    assert "plan.yaml:7:15: plays[0].workloads[0].slob:" in err and "is a CDB" in err
    assert "ORA-65096" in err and "oracle_pdb: NAME" in err


@pytest.mark.slow
def test_a_cdb_without_oracle_pdb_is_refused_before_the_tablespace_is_made(tmp_path: Path) -> None:
    from planner.rehearsal.standins import load_state

    root = _cdb_project(tmp_path, "")  # the inventory does not say CDB: the database does
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "--runs-dir",
                 str(tmp_path / "runs"), "--no-report"])
    out = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    (res,) = [r for r in json.loads((out / "results.json").read_text()) if r["title"] == "s"]
    assert code == 2 and "is a CDB (V$DATABASE.CDB = YES) and oracle_pdb names no PDB" in res["msg"], res["msg"]
    assert "IOPS" not in load_state(root).get("tablespaces", {})  # nothing made in CDB$ROOT
    assert not (root / "opt/SLOB/cr_tab_and_load.out").exists()  # setup.sh never ran


def test_a_size_oracle_would_refuse_is_refused_by_validate_before_the_scheduler_changes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: validate passed db_cache_size: 64Q; the run changed the I/O scheduler, then ALTER SYSTEM refused."""
    (tmp_path / "hosts.ini").write_text("[lab]\nalpha ansible_host=192.0.2.1\n")
    (tmp_path / "plan.yaml").write_text(
        "plan: p\nplays:\n  - name: p\n    hosts: lab\n    prep:\n"
        "      - io_scheduler: {devices: /dev/sdb, scheduler: none}\n        become: true\n"
        "      - init_ora: {db_cache_size: 64Q}\n")
    code = main(["validate", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini")])
    err = capsys.readouterr().err
    assert code == 5, err
    assert "plan.yaml:8:" in err and "db_cache_size takes a size (big integer)" in err and "not '64Q'" in err


def test_e_and_plan_vars_set_the_connection_variables_as_ansible_playbook_does(tmp_path: Path) -> None:
    """Before: -e ansible_user=... and the plan's vars: were silently ignored for the connection."""
    from planner.cli.apply import load

    (tmp_path / "hosts.ini").write_text("[lab]\nalpha ansible_host=192.0.2.1 ansible_user=oracle ansible_port=22\n")
    (tmp_path / "plan.yaml").write_text(
        "plan: p\nvars: {planner_workdir: /var/tmp/planner, ansible_become_user: grid}\n"
        "plays:\n  - name: p\n    hosts: lab\n    prep:\n      - command: {cmd: 'true'}\n")
    loaded = load(tmp_path / "plan.yaml", tmp_path / "hosts.ini",
                  ["ansible_user=admin", "ansible_port=2222", "ansible_ssh_private_key_file=/keys/lab"])
    (host,) = loaded.play_hosts["p"]
    assert (host.user, host.port, str(host.key_file), host.become_user) == ("admin", 2222, "/keys/lab", "grid")
    assert host.vars["planner_workdir"] == "/var/tmp/planner"
    with pytest.raises(InputError, match="ansible_port 'ssh' is not a port number"):
        load(tmp_path / "plan.yaml", tmp_path / "hosts.ini", ["ansible_port=ssh"])


def test_collect_awr_without_a_stated_licence_is_refused_by_validate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: validate passed; the run failed at the first point ("AWR needs the Oracle Diagnostics Pack")."""
    (tmp_path / "hosts.ini").write_text("[lab]\nalpha ansible_host=192.0.2.1\n")
    (tmp_path / "plan.yaml").write_text(
        "plan: p\nplays:\n  - name: p\n    hosts: lab\n    workloads:\n"
        "      - fio: {filename: /tmp/x, size: 1M, rw: randread, bs: 8k, runtime: 5}\n    collect: [awr]\n")
    code = main(["validate", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini")])
    err = capsys.readouterr().err
    assert code == 5, err
    assert "plan.yaml:7:" in err and "oracle_diagnostics_pack is not stated" in err


def test_check_diff_shows_fios_precondition_job_and_the_sudo_it_runs_under(tmp_path: Path) -> None:
    """Before: -C -D showed the measured job only; precondition: (the whole target written twice) and the sudo of
    a become step were not said."""
    from dataclasses import replace

    from prep_helpers import context

    from planner.kinds.fio.step import Fio

    step = Fio({"filename": "/dev/sdb", "size": "1G", "rw": "randread", "bs": "8k", "runtime": 30,
                "precondition": {"rw": "write", "bs": "1M"}})
    ctx = replace(context(tmp_path, ansible_become_password_file=""), become=True)
    said = step.preview(ctx)
    lines = said.splitlines()
    assert lines[0].startswith("$ sudo ") and "precondition.fio" in lines[0], said
    assert "writes over the whole target 2 time(s), never measured" in lines[0]
    assert "    loops=2" in said and "    rw=write" in said and "[precondition0]" in said
    measured = next(x for x in lines[1:] if x.startswith("$ "))
    assert measured.startswith("$ sudo ") and "job.fio" in measured
