"""Issue 40 Medium: a full runs disk during the end-of-play restore aborted it: the first entry's record
update failed, the other hosts' files stayed prepped, the lock was released, and nothing said how to finish.
The hosts are restored first; what the record could not say is named, with the command that finishes it.

Since the marks are written in place (the private log's seal, restore.json's entry; issue 47), a full disk no
longer fails them: the record keeps up. The path where a mark's write fails is tested in
tests/engine/test_restore_durability.py (test_a_mark_that_cannot_be_written_...)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.rehearsal.lab import Lab

pytestmark = [pytest.mark.slow, pytest.mark.ssh]

PLAN = """\
plan: restore_full
plays:
  - name: p
    hosts: all
    prep:
      - copy: {{content: "a-prepped\\n", dest: /etc/a.conf}}
      - copy: {{content: "b-prepped\\n", dest: /etc/b.conf}}
    workloads:
      - command: {{argv: [sh, -c, 'dd if=/dev/zero of={fill} bs=4k 2>/dev/null; true']}}
"""


def test_a_full_runs_disk_during_the_restore_restores_the_hosts_first(
        make_lab: Callable[..., Lab], tmp_path: Path, small_disk: Callable[[Path, str], Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    lab = make_lab(1)
    root = lab.sandbox(lab.hosts[0].name)
    (root / "etc").mkdir(parents=True)
    for name in ("a", "b"):
        (root / f"etc/{name}.conf").write_text(f"{name}-original\n")
    runs = small_disk(tmp_path / "runs", "1m")
    fill = runs / "filler"  # the workload fills the controller's runs disk (the lab host is this machine)
    inv, plan = tmp_path / "inv.yml", tmp_path / "plan.yaml"
    lab.write_inventory(inv)
    plan.write_text(PLAN.format(fill=fill))
    code = main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(runs), "--no-report"])
    out = capsys.readouterr()
    assert code != 0
    for name in ("a", "b"):
        assert (root / f"etc/{name}.conf").read_text() == f"{name}-original\n", out.out + out.err
    said = out.out + out.err
    assert "No space left on device" in said, said
    [run] = [p for p in runs.iterdir() if p.is_dir()]
    assert all(e["reverted"] for e in json.loads((run / "restore.json").read_text()))  # kept up on a full disk
    assert not (runs / f".{run.name}.restore.json").exists()  # all put back: its secrets gone
    fill.unlink()
    assert main(["restore", str(run)]) == 0  # nothing left to do
