"""Issue 15 item 6 over the SSH lab: ``planner restore RUN`` takes a run id, reaches the hosts with the SSH
settings the run used (its --known-hosts), and takes apply's SSH options; it never needs to accept a key."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from planner.cli.main import main
from planner.rehearsal.lab import Lab

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

PLAN = """\
plan: restore_me
plays:
  - name: prep only
    hosts: all
    prep:
      - copy: {content: "prepped\\n", dest: /etc/prep.txt}
    workloads:
      - command: {argv: ["true"]}
"""


def inventory_naming_no_known_hosts(lab: Lab, folder: Path) -> tuple[Path, Path]:
    """The lab's inventory without its known_hosts (inv.yml) and that file beside it (known_hosts): a run that
    reaches the hosts only through ``--known-hosts FILE``, as a received or resumed run must."""
    inv = folder / "inv.yml"
    lab.write_inventory(inv)
    data = yaml.safe_load(inv.read_text())
    for h in data["all"]["hosts"].values():
        del h["planner_known_hosts"], h["ansible_ssh_common_args"]
    inv.write_text(yaml.safe_dump(data))
    known = folder / "known_hosts"
    shutil.copy(lab.known_hosts, known)
    return inv, known


def kept_prep_run(lab: Lab, tmp_path: Path) -> tuple[Path, Path, Path]:
    """A run with --known-hosts FILE (the inventory names none) and --keep-prep: its prep is left to restore."""
    root = lab.sandbox(lab.hosts[0].name)
    (root / "etc").mkdir(parents=True)
    (root / "etc/prep.txt").write_text("original\n")
    inv, known = inventory_naming_no_known_hosts(lab, tmp_path)
    (tmp_path / "plan.yaml").write_text(PLAN)
    runs = tmp_path / "runs"
    assert main(["apply", str(tmp_path / "plan.yaml"), "-i", str(inv), "--runs-dir", str(runs), "--no-report",
                 "--known-hosts", str(known), "--keep-prep"]) == 0
    assert (root / "etc/prep.txt").read_text() == "prepped\n"
    [run] = [p for p in runs.iterdir() if p.is_dir()]
    return root, run, known


def test_restore_by_run_id_with_the_runs_own_known_hosts(make_lab: Callable[..., Lab], tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # ~/.ssh/known_hosts must be neither read nor written
    root, run, _ = kept_prep_run(make_lab(1), tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["restore", run.name]) == 0  # a run id under ./runs, not a folder path
    assert (root / "etc/prep.txt").read_text() == "original\n"
    assert all(e["reverted"] for e in json.loads((run / "restore.json").read_text()))
    assert not (tmp_path / "home/.ssh/known_hosts").exists()


def test_restore_takes_known_hosts_like_apply(make_lab: Callable[..., Lab], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root, run, known = kept_prep_run(make_lab(1), tmp_path)
    moved = known.rename(tmp_path / "moved_known_hosts")
    assert main(["restore", run.name, "--runs-dir", str(tmp_path / "runs")]) == 4  # the recorded file is gone
    assert "unknown" in capsys.readouterr().out.lower()
    assert (root / "etc/prep.txt").read_text() == "prepped\n"
    assert main(["restore", run.name, "--runs-dir", str(tmp_path / "runs"), "--known-hosts", str(moved)]) == 0
    assert (root / "etc/prep.txt").read_text() == "original\n"
    assert not (tmp_path / "home/.ssh/known_hosts").exists()
