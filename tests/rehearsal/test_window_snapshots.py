"""AWR snapshots around the points of a sweep: what cannot change between the points (the licence, DBID,
instance number, CLUSTER_DATABASE) is read once per workload step and host; the snapshots and GV$INSTANCE, at
every point. With
sqlplus each session is a process start and a connect in the dead time between the points: a point's end and
the next point's begin are one session."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.rehearsal.standins import DEFAULT_HOME, install_standins, load_state

PLAN = """\
plan: snaps
plays:
  - name: snaps
    hosts: lab
    collect:
      - awr: {}
    workloads:
      - name: fio sweep
        fio: {target: /data/f.dat, rw: read, bs: [4k, 8k, 16k], size: 256k, ioengine: psync}
      - name: fio once
        fio: {target: /data/f.dat, rw: read, bs: 4k, size: 256k, ioengine: psync}
"""

pytestmark = [pytest.mark.slow]


def _apply(tmp_path: Path) -> Path:
    """Runs PLAN on a stand-in host; its root."""
    root = tmp_path / "hosts" / "alpha"
    install_standins(root)
    (root / "data").mkdir(parents=True)
    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root} "
                                        f"oracle_home={DEFAULT_HOME} oracle_sid=orcl oracle_diagnostics_pack=true\n")
    (tmp_path / "plan.yaml").write_text(PLAN)
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"),
                 "--runs-dir", str(tmp_path / "runs"), "--no-report"])
    assert code == 0
    return root


def test_a_point_costs_one_database_session(tmp_path: Path) -> None:
    """Between two points of a step one sqlplus session: the end snapshot, its report, then the next point's
    begin snapshot; a step's first point adds its begin (and what it reads) and the licence read before it.
    (Before: two a point, the end and the next begin each a session of its own: 7 and 3.)"""
    _apply(tmp_path)
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    commands = [json.loads(line) for line in (run / "commands.jsonl").read_text().splitlines()]
    sessions = Counter(c["step"] for c in commands if "/bin/sqlplus" in c["command"])
    assert sessions == {"plays[0].workloads[0]": 2 + 3, "plays[0].workloads[1]": 2 + 1}, sessions


def test_the_next_points_interval_starts_after_the_reports(tmp_path: Path) -> None:
    """The chained begin is a snapshot of its own, taken after the end snapshot's report (whose load is not the
    next point's): each point's report runs from its own begin, the one after the previous point's end."""
    root = _apply(tmp_path)
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    sweep = sorted((r for r in json.loads((run / "results.json").read_text())
                    if r.get("point") is not None and r["step"] == "plays[0].workloads[0]"), key=lambda r: r["point"])
    spans = [tuple(int(n) for n in re.findall(r"\d+", Path(a["path"]).name))
             for r in sweep for a in r["artifacts"] if a["kind"] == "awr_text"]
    assert len(spans) == 3 and [e + 1 for _, e in spans[:2]] == [b for b, _ in spans[1:]], spans
    order = ["snap" if "create_snapshot" in h else "report" for h in load_state(root)["history"]
             if "create_snapshot" in h or "awr_report_text" in h]
    assert order[:7] == ["snap", "snap", "report", "snap", "snap", "report", "snap"], order


def test_a_sweep_reads_the_database_identity_once_and_snapshots_every_point(tmp_path: Path) -> None:
    root = _apply(tmp_path)
    history = load_state(root)["history"]
    asked = {q: sum(1 for h in history if h == q) for q in (
        "select value from v$parameter where name = 'control_management_pack_access'",
        "select dbid from v$database", "select instance_number from v$instance",
        "select value from v$parameter where name = 'cluster_database'",
        "select inst_id, instance_name, host_name from gv$instance order by inst_id")}
    # once per workload step (2 steps), not once per point (4 points); the instances open at every point
    assert list(asked.values()) == [2, 2, 2, 2, 4], asked
    assert sum(1 for h in history if "create_snapshot" in h) == 8  # begin and end of each of the 4 points
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    points = [r for r in json.loads((run / "results.json").read_text()) if r.get("point") is not None]
    names = sorted(Path(a["path"]).name for r in points for a in r["artifacts"] if a["kind"] == "awr_text")
    assert len(names) == 4 and all(re.fullmatch(r"awr_\d+_\d+\.txt", n) for n in names), names
    reports = [h for h in history if "awr_report_text" in h]
    dbid = load_state(root)["database"]["dbid"]
    assert len(reports) == 4 and all(f"awr_report_text({dbid}, 1, " in h for h in reports), reports
