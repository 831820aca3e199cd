"""ORION without ``binary:`` in the rehearsal (issue 39): the stand-in is where Oracle's install puts ORION, the
host's ``<grid_home>/bin`` or ``<oracle_home>/bin`` (docs/oracle-behaviour.md 25.18b), so the step finds it as it
finds the real one. Before, the rehearsal failed at the run with "orion: not found". A host with neither home is
refused before any host is touched, saying what to give."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.cli.main import main

HOME = "/u01/app/oracle/product/19.0.0/dbhome_1"
INVENTORY = f"[lab]\nssd ansible_host=192.0.2.7 oracle_home={HOME} lun=/dev/sdb\nbare ansible_host=192.0.2.8\n"
PLAN = """\
plan: orion_home
plays:
  - name: SSD
    hosts: HOST
    workloads:
      - orion: {testname: ssd, run: simple, num_disks: 1, luns: [/dev/sdb]}
"""


def _write(tmp_path: Path, host: str) -> list[str]:
    (tmp_path / "hosts.ini").write_text(INVENTORY)
    (tmp_path / "plan.yaml").write_text(PLAN.replace("HOST", host))
    return ["apply", "--rehearse", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"),
            "--runs-dir", str(tmp_path / "runs")]


def test_a_host_with_no_oracle_home_is_refused_before_any_host_is_touched(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(_write(tmp_path, "bare"))
    err = capsys.readouterr().err
    assert code == 5, err
    assert "plan.yaml:6:" in err and "orion names no binary on bare: the inventory gives the host no oracle_home " \
           "or grid_home" in err and "give binary:" in err
    assert not (tmp_path / "runs").exists()  # nothing ran


@pytest.mark.slow
def test_the_stand_in_is_found_in_the_oracle_home_as_the_real_orion_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PLANNER_REHEARSE_TRANSPORT", "local")  # where the stand-in is, not the transport, is tested
    code = main(_write(tmp_path, "ssd"))
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
    assert "not found" not in out
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    ran = [c["command"] for line in (run / "commands.jsonl").read_text().splitlines()
           if "-testname ssd" in (c := json.loads(line))["command"]]
    assert ran and all(f"{HOME}/bin/orion -run simple" in c for c in ran), ran
