"""``become: true`` on every workload kind, logged in as the non-root lab user, with OS samplers beside it (issue 39).

One rehearsal (the inventory's ``oracle`` login, real sudo to root, real sshd) runs the nine workload kinds twice:
without ``become`` and with it, ``collect: [iostat, mpstat, vmstat]`` around each become'd point. Before, the
point folder was made under become (root's) and then written by the login user: ``cannot start OS statistics in
…/ostats: mkdir: Permission denied``, ``cannot upload …/job.fio``. The rule now (docs/become.md): every folder
planner makes on a host is the login user's; a become'd tool writes its output into it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.rehearsal.lab import sshd_available
from planner.rehearsal.labuser import LabUser, closed_to_others

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("fio", "command", "iozone", "orion", "slb", "calibrate_io", "slob", "hammerdb", "swingbench")
STEPS = (  # one workload each, small: a rehearsal's stand-ins finish at once, fio and the SLB kit run for real
    'fio: {target: /tmp/become-fio-WHO.dat, rw: randread, bs: 8k, size: 4m, runtime: 1}',
    'command: {argv: [id, -un]}',
    'iozone: {binary: /usr/local/bin/iozone, record_size: 8k, file_size: 1m, tests: [0], threads: 1, '
    'files: /tmp/become-iozone-WHO/file, create_files: true}',
    'orion: {binary: /u01/app/oracle/product/11.2.0.3/dbhome_1/bin/orion, testname: t, run: simple, num_disks: 1, '
    'luns: [/dev/mapper/violin_lun1]}',
    'slb: {users: 1, seconds: 1}',
    'calibrate_io: {num_physical_disks: 1, max_latency: 10}',
    'slob: {kit: "{{ slob_kit }}", readers: 1, writers: 0, run_time: 30, setup: true}',
    'hammerdb: {home: "{{ hammerdb_home }}", service: SLOB, virtual_users: 1, warehouses: 64, build_virtual_users: 1, '
    'rampup: 0, duration: 1}',
    'swingbench: {home: "{{ swingbench_home }}", config: configs/SOE_Server_Side_V2.xml, '
    'connect: //192.0.2.20:1521/SLOB, users: 1, run_time: 1, build: {scale: 1, tablespace: SOE}}',
)


def _play(name: str, become: bool) -> str:
    # the data files are the plan's own paths: each play its own, as root's files refuse the login user
    steps = "".join(f"      - {step.replace('WHO', 'root' if become else 'login')}\n"
                    + ("        become: true\n" if become else "") for step in STEPS)
    # the samplers beside the become'd kinds (the defect); without become they ran as the login user as before,
    # as every shipped plan's rehearsal shows: no samplers there keeps this test lean (each point waits for them)
    collect = "    collect: [iostat, mpstat, vmstat]\n" if become else ""
    return (f"  - name: {name}\n    hosts: violin\n    vars: {{slob_max_cache_pct: 100}}\n    workloads:\n"
            f"{steps}{collect}")


PLAN = ("plan: become_every_kind\ninventory: ../inventory/lab.yaml\nvars:\n"
        "  standin_database: loaded\n"  # SLOB's tablespace, TPC-C (64 warehouses) and SOE there: this is about become
        "  swingbench_password_file: files/swingbench_soe.pass\n"
        "  swingbench_dba_password_file: files/swingbench_dba.pass\nplays:\n"
        + _play("without become", False) + _play("with become", True))  # root's files never refuse root


@pytest.mark.slow
def test_every_workload_kind_with_and_without_become_as_the_non_root_login(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import planner

    closed = closed_to_others(Path(planner.__file__))
    reason = sshd_available() or LabUser.unavailable() or (f"{closed} is closed to other users" if closed else None)
    if reason:
        pytest.skip(f"no non-root lab login here: {reason}")
    shutil.copytree(ROOT / "inventory", tmp_path / "inventory")
    shutil.copytree(ROOT / "plans" / "files", tmp_path / "plans" / "files")
    plan = tmp_path / "plans" / "every_kind.yaml"
    plan.write_text(PLAN)
    monkeypatch.chdir(tmp_path)
    code = main(["apply", "--rehearse", str(plan), "--runs-dir", str(tmp_path / "runs")])
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "logged in as oracle (the inventory's ansible_user), become through real sudo" in out
    assert code == 0, out[-4000:]
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    results = json.loads((run / "results.json").read_text())
    for play, name in enumerate(("without become", "with become")):
        got = {r["step"]: r["status"] for r in results if r["step"].startswith(f"plays[{play}].workloads[")}
        assert got == {f"plays[{play}].workloads[{i}]": "changed" for i in range(len(KINDS))}, (name, got)
    points = sorted((run / "artifacts" / "with_become").glob("*/workloads_*/point000"))
    assert len(points) == len(KINDS), sorted((run / "artifacts").iterdir())
    for point in points:  # the samplers' files and series beside every kind's own output
        files = {p.name for p in point.iterdir()}
        assert {"iostat.txt", "mpstat.txt", "vmstat.txt", "series-os.json"} <= files, (point, files)
