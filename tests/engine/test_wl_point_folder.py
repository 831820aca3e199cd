"""One folder on the host per workload point: the engine's ``<workdir>/<run id>/<step>/pointNNN``.

Every workload step writes its output there (fio, SLB, ORION, SLOB's reports copied out of the kit, the OS
statistics), the artifacts are fetched from it, and nothing from an earlier attempt is ever fetched: the
engine's window empties the folder at the start of each attempt, SLOB's kit loses its old reports first.
The plan-stable step folders keep only data files (fio's default files) and the built SLB kit.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest

from planner.cli.main import main
from planner.engine.runner import Runner
from planner.engine.runrecord import slug
from planner.engine.window import WindowSpec, run_in_window
from planner.host import Host
from planner.kinds.slob.standin import install_slob_kit
from planner.plan.model import SweepPoint
from planner.rehearsal.standins import DEFAULT_HOME, install_standins
from planner.steps.base import StepContext
from planner.steps.wl_common import fetch_existing
from planner.transport.connection import LocalConnection

pytestmark = [pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed"), pytest.mark.slow]

ORION = Path(__file__).resolve().parents[2] / "planner" / "kinds" / "orion" / "bin" / "orion"
KIT = "home/oracle/SLOB"
PLAN = """\
plan: folders
plays:
  - name: folders
    hosts: lab
    collect:
      - iostat: {interval: 1}
    workloads:
      - name: fio file
        fio: {target: /data/f.dat, rw: read, bs: [4k, 8k], size: 1m, runtime: 1, ioengine: psync}
      - name: fio default files
        fio: {job: {name: j, rw: read, size: 1m}, runtime: 1, ioengine: psync}
      - name: slb
        slb: {users: 1, seconds: 1}
      - name: orion
        orion: {binary: /opt/orion/bin/orion, testname: t, luns: [/dev/sdb]}
      - name: slob
        slob: {kit: /home/oracle/SLOB, readers: 1, run_time: 30, setup: true, database_statistics_type: awr}
"""
# artifacts written on the controller (console logs) or fetched from the user's kit (the point's slob.conf)
NOT_OUTPUT = {"orion_console.txt", "runit.log", "setup.log", "slob.conf",
              "series.json", "series-os.json"}  # made on the controller from what was fetched


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def project(tmp: Path) -> Path:
    root = tmp / "hosts" / "alpha"
    install_standins(root)
    install_slob_kit(root / KIT)
    (root / "data").mkdir(parents=True)
    (root / "dev").mkdir(parents=True, exist_ok=True)
    (root / "dev" / "sdb").write_bytes(bytes(1 << 20))
    (root / "opt/orion/bin").mkdir(parents=True)
    (root / "opt/orion/bin/orion").symlink_to(ORION)
    # the Oracle environment SLOB's runit.sh needs (issue 16 row 2); the data cache check off: a stand-in
    (tmp / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root} "
                                   f"oracle_home={DEFAULT_HOME} oracle_sid=orcl slob_max_cache_pct=100 "
                                   "oracle_diagnostics_pack=true\n")
    (tmp / "plan.yaml").write_text(PLAN)
    return root


def apply(tmp: Path) -> tuple[int, Path, list[dict[str, Any]]]:
    code = main(["apply", str(tmp / "plan.yaml"), "-i", str(tmp / "hosts.ini"), "--runs-dir", str(tmp / "runs"),
                 "--no-report"])
    run = sorted(p for p in (tmp / "runs").iterdir() if p.is_dir())[-1]
    results = [r for r in json.loads((run / "results.json").read_text()) if r.get("point") is not None]
    return code, run, results


@pytest.fixture
def keep_host_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's folder on the host stays for the test to look into (a finished run removes it)."""
    monkeypatch.setattr(Runner, "_done_with", lambda self, hs, interrupted: False)


def point_folders(root: Path) -> set[Path]:
    return {p for p in root.rglob("point*") if p.is_dir() and re.fullmatch(r"point\d{3}", p.name)}


def test_each_point_has_exactly_one_folder_and_its_artifacts_came_from_it(tmp_path: Path,
                                                                           keep_host_folders: None) -> None:
    root = project(tmp_path)
    code, run, results = apply(tmp_path)
    assert code == 0, (run / "console.log").read_text()[-3000:]
    assert len(results) == 6 and all(r["status"] == "changed" for r in results), results
    run_id = json.loads((run / "meta.json").read_text())["run_id"]
    host_run = root / "tmp/planner" / run_id / "alpha"  # one run folder per inventory host
    expected = {host_run / slug(r["step"]) / f"point{r['point']:03d}" for r in results}
    assert point_folders(root) == expected  # one per point, and no other point folder anywhere on the host
    assert not list((root / "tmp").glob("planner-*"))  # the old per-run folders of the Oracle steps are gone
    for r in results:
        folder = host_run / slug(r["step"]) / f"point{r['point']:03d}"
        outputs = [a for a in r["artifacts"] if Path(a["path"]).name not in NOT_OUTPUT]
        assert outputs, r
        for a in outputs:  # byte for byte the file in the point's folder (OS statistics in its ostats/)
            local = run / a["path"]
            there = folder / local.name if (folder / local.name).is_file() else folder / "ostats" / local.name
            assert there.is_file() and sha(there) == sha(local), (r["title"], a["path"])
    kinds = {r["title"]: {a["kind"] for a in r["artifacts"]} for r in results}
    assert {"fio_json", "fio_job", "iostat", "fio_log", "series"} <= kinds["fio file"] and "slb" in kinds["slb"]
    assert "orion_summary" in kinds["orion"] and "awr_text" in kinds["slob"]
    # the plan-stable folders keep what outlives the run: fio's own data files, the built SLB kit
    (fio_data,) = root.glob("tmp/planner/fio-*")
    assert [p.name for p in fio_data.iterdir()] == ["j.0.0"]
    assert list(root.glob("tmp/planner/kits/slb-*/slb"))
    # SLOB's reports were copied to the point folder (they stay in the kit, as after a run by hand); no backup left
    assert (root / KIT / "awr.txt").exists() and not (root / KIT / "slob.conf.planner-orig").exists()


def test_a_second_run_uses_new_point_folders_and_reuses_the_data_files(tmp_path: Path,
                                                                       keep_host_folders: None) -> None:
    root = project(tmp_path)
    (tmp_path / "plan.yaml").write_text(PLAN.split("      - name: slb")[0])  # the two fio steps
    assert apply(tmp_path)[0] == 0
    (fio_data,) = root.glob("tmp/planner/fio-*")
    laid_out = (fio_data / "j.0.0").stat().st_ino
    code, run, results = apply(tmp_path)
    assert code == 0 and len(point_folders(root)) == 2 * len(results) == 6
    assert (fio_data / "j.0.0").stat().st_ino == laid_out  # fio reused its data file rather than lay it out again


def test_slob_never_fetches_a_report_an_earlier_attempt_left_in_the_kit(tmp_path: Path) -> None:
    root = project(tmp_path)
    (tmp_path / "plan.yaml").write_text(PLAN.split("      - name: fio file")[0] + textwrap.indent(
        "- name: slob\n  slob: {kit: /home/oracle/SLOB, readers: 1, database_statistics_type: awr}\n", " " * 6))
    kit = root / KIT
    (kit / "runit.sh").write_text("#!/bin/sh\n# -s <schemas> -t <threads>\necho 'this attempt wrote nothing'\n")
    # a dead attempt's report: a complete, parseable AWR report already sitting in the kit
    shutil.copy(Path(__file__).parents[1] / "data/awr/awr_19c_racdb_pdb.txt", kit / "awr.txt")
    code, run, results = apply(tmp_path)
    (r,) = results
    assert code == 2 and r["status"] == "failed" and "wrote no awr.txt" in r["msg"], r
    assert not any(a["kind"] == "awr_text" for a in r["artifacts"])
    assert not (kit / "awr.txt").exists()


def test_the_window_empties_the_point_folder_before_every_attempt(tmp_path: Path) -> None:
    """A resumed or retried point runs again in the same folder: the dead attempt's half-written report
    is gone before the step looks for its own."""
    root = tmp_path / "host"
    host = Host("local", "localhost", connection="local", vars={"planner_root": str(root)})
    folder = root / "tmp/planner/RUN/plays-0-workloads-0/point000"
    (folder / "ostats").mkdir(parents=True)
    (folder / "fio.json").write_text('{"fio version": "fio-3.33", "jobs": [')  # cut short by the dead attempt
    (folder / "ostats" / "iostat.txt").write_text("old\n")
    run = tmp_path / "run"
    art = run / "artifacts" / "point000"
    art.mkdir(parents=True)
    ctx = StepContext(host=host, conn=LocalConnection(host), vars={}, point_dir=str(folder),
                      step_path="plays[0].workloads[0]", plan_dir=tmp_path, artifacts=art, run_dir=run,
                      log=lambda *_: None, point=SweepPoint(0, (), 0))

    def body() -> list[Any]:
        return fetch_existing(ctx, [(f"{folder}/fio.json", None, "fio_json")])

    w = run_in_window(ctx, WindowSpec(), str(folder), False, body)
    assert w.result == [] and w.artifacts == () and w.failure is None
    assert folder.is_dir() and list(folder.iterdir()) == []
    with pytest.raises(ValueError, match="not a point folder"):
        run_in_window(ctx, WindowSpec(), str(root / "tmp"), False, body)


def test_planner_workdir_holds_the_runs_and_the_plan_stable_folders_alike(tmp_path: Path,
                                                                         keep_host_folders: None) -> None:
    """planner_workdir is planner's own folder on the host: run folders, fio data files and the built SLB kit
    all go under it (it once meant three different things to three modules)."""
    root = project(tmp_path)
    ini = tmp_path / "hosts.ini"
    ini.write_text(ini.read_text().rstrip("\n") + " planner_workdir=/scratch/pw\n")
    code, run, results = apply(tmp_path)
    assert code == 0, (run / "console.log").read_text()[-3000:]
    pw = root / "scratch/pw"
    run_id = json.loads((run / "meta.json").read_text())["run_id"]
    assert {p.parent.parent for p in point_folders(root)} == {pw / run_id / "alpha"}
    assert list(pw.glob("fio-*")) and list(pw.glob("kits/slb-*/slb"))
    assert not (root / "tmp/planner").exists()
