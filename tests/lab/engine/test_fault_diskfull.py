"""Issue 9 item 4: a disk fills up — on the host while a workload writes its output, on the controller while
planner fetches an artifact or writes the run record.

The disks are small tmpfs mounts (root only; the tests skip, saying why, where mount is not permitted).
Each time: a clear error naming "No space left on device" and the path, the point failed, and everything
recorded before still valid and complete (results.json parses, earlier artifacts intact, no *.tmp/*.part).
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from planner.cli.main import main
from planner.engine.runrecord import RunRecord
from planner.files import RecordWriteError
from planner.parsers import parse_file
from planner.rehearsal.lab import Lab
from planner.transport.connection import CommandResult

pytestmark = [pytest.mark.slow]

ENOSPC = "No space left on device"


def fill(path: Path) -> None:
    """Fill the filesystem holding ``path`` to the last block."""
    subprocess.run(["dd", "if=/dev/zero", f"of={path}", "bs=4k"], capture_output=True, check=False)


def executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def apply(lab: Lab, tmp: Path, workload: str, runs: Path, host_vars: dict[str, Any] | None = None
          ) -> tuple[int, Path, list[dict[str, Any]]]:
    host = lab.hosts[0]
    inv = tmp / "lab.yml"
    lab.write_inventory(inv)
    data = yaml.safe_load(inv.read_text())
    data["all"]["hosts"][host.name].update(host_vars or {})
    inv.write_text(yaml.safe_dump(data))
    (tmp / "plan.yaml").write_text(textwrap.dedent(f"""\
        plan: disk_full
        plays:
          - name: disk full
            hosts: {host.name}
            workloads:
              - name: point
        """) + textwrap.indent(textwrap.dedent(workload), " " * 8))
    code = main(["apply", str(tmp / "plan.yaml"), "-i", str(inv), "--runs-dir", str(runs), "--no-report"])
    (run,) = [p for p in runs.iterdir() if p.is_dir()]
    results = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == "point"]
    assert not list(run.rglob("*.tmp")) and not list(run.rglob(".*.part"))
    return code, run, results



@pytest.mark.ssh
def test_controller_disk_full_while_fetching(make_lab: Callable[..., Lab], tmp_path: Path,
                                             small_disk: Callable[[Path, str], Path]) -> None:
    lab = make_lab(1)
    runs = small_disk(tmp_path / "runs", "2m")
    kit = tmp_path / "big_kit"
    line = ("Total wops 0 Secs 1.0 Avg nsec/op 0 TPUT ops/sec 0\n"
            "Total rops 100 Secs 1.0 Avg nsec/op 9 TPUT ops/sec 100\n")
    summary = "Test Summary: Total wops 0 Total rops 100 Runtime seconds: 1.0 wops/s 0 rops/s 100\n"
    # TEST DOUBLE: an SLB kit whose second point prints 4 MiB of (valid) output: more than the runs disk holds.
    executable(kit / "runit.sh", f"#!/bin/sh\necho \"Users: $1\"\nprintf '{line}'\n"
                                 f"if [ \"$1\" = 2 ]; then yes 'padding padding padding' | head -c 4194304; fi\n"
                                 f"printf '{summary}'\n")
    code, run, results = apply(lab, tmp_path, f"slb: {{kit: {kit}, users: [1, 2], seconds: 1}}\n", runs)
    assert code == 2
    assert [(r["point"], r["status"]) for r in results] == [(0, "changed"), (1, "failed")]
    msg = results[1]["msg"]
    assert ENOSPC in msg and "on the controller" in msg and str(run / "artifacts") in msg, msg
    (out,) = [a for a in results[0]["artifacts"] if a["kind"] == "slb"]
    assert parse_file(run / out["path"], "slb").value("slb.rops_per_s") == 100
    assert json.loads((run / "meta.json").read_text())["exit_code"] == 2


def test_run_record_write_on_a_full_disk_keeps_the_old_file(tmp_path: Path,
                                                            small_disk: Callable[[Path, str], Path]) -> None:
    runs = small_disk(tmp_path / "runs", "64k")
    rec = RunRecord(runs, "full")
    first = [{"point": 0, "status": "changed"}]
    rec.write("results.json", first)
    fill(runs / "filler")
    with pytest.raises(RecordWriteError) as exc:
        rec.write("results.json", [*first, {"point": 1, "msg": "x" * 200_000}])
    assert ENOSPC in str(exc.value) and str(rec.path / "results.json") in str(exc.value)
    assert "previous results.json" in str(exc.value) and isinstance(exc.value, OSError)
    assert json.loads((rec.path / "results.json").read_text()) == first
    assert not list(rec.path.glob(".*.tmp"))
    # a command log line that cannot be written is counted, not raised: the command's result still counts
    rec.log_command("h", "s", CommandResult("echo", 0, "y" * 300_000, "", 0.1))
    assert rec.write_errors and ENOSPC in rec.write_errors[0]
    (runs / "filler").unlink()
    rec.log_command("h", "s", CommandResult("echo ok", 0, "ok\n", "", 0.1))
    rec.close()
    lines = [json.loads(x) for x in (rec.path / "commands.jsonl").read_text().splitlines()]
    assert [x["command"] for x in lines] == ["echo ok"]


def test_resumed_record_on_a_full_disk_counts_the_lost_line(tmp_path: Path,
                                                             small_disk: Callable[[Path, str], Path]) -> None:
    """A resumed run (ReopenedRecord) that hits a full disk: the lost commands.jsonl line is counted, as for a
    new run, not raised (it was an AttributeError: ReopenedRecord skipped RunRecord.__init__, so the step
    became an "internal error")."""
    from planner.engine.resume import ReopenedRecord

    runs = small_disk(tmp_path / "runs", "64k")
    first = RunRecord(runs, "resumed")
    first.write_meta(status="running")
    first.close()
    rec = ReopenedRecord(first.path)
    fill(runs / "filler")
    rec.log_command("h", "s", CommandResult("echo", 0, "y" * 300_000, "", 0.1))
    assert rec.write_errors and ENOSPC in rec.write_errors[0]
    rec.close()
