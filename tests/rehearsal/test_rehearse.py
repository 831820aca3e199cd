"""Rehearsal: preflight findings, sandbox layout, and whole example plans on simulated hosts."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.rehearsal.sandbox import add_devices, expand_brackets

ROOT = Path(__file__).resolve().parents[2]


def _checkout(tmp_path: Path) -> Path:
    """plans/ and inventory/ copied beside the test: a plan's report.output (plans/reports/...) must land
    there, never in the repository the tests run from."""
    for d in ("plans", "inventory"):
        shutil.copytree(ROOT / d, tmp_path / d, ignore=shutil.ignore_patterns("reports"))
    return tmp_path / "plans"


def _links_resolve(report: Path) -> list[str]:
    """Relative image links of a Markdown report that do not point at an existing file."""
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", report.read_text())
    return [u for u in links if not (report.parent / u).exists()]


def test_brackets_expand_like_the_plans_use_them() -> None:
    assert expand_brackets("/dev/mapper/lun[1-3]") == ["/dev/mapper/lun1", "/dev/mapper/lun2", "/dev/mapper/lun3"]
    assert expand_brackets("/dev/sdb") == ["/dev/sdb"]


def test_multipath_alias_gets_a_dm_device_with_its_slave(tmp_path: Path) -> None:
    made = add_devices(tmp_path, ["/dev/mapper/violin_lun[1-2]", "/dev/sdq"])
    assert made == {"/dev/mapper/violin_lun1": "dm-0", "/dev/mapper/violin_lun2": "dm-1", "/dev/sdq": "sdq"}
    assert os.readlink(tmp_path / "dev/mapper/violin_lun1") == "../dm-0"
    slaves = [p.name for p in (tmp_path / "sys/block/dm-0/slaves").iterdir()]
    assert len(slaves) == 1
    assert (tmp_path / "sys/block" / slaves[0] / "queue/scheduler").read_text().startswith("[mq-deadline]")
    assert (tmp_path / "sys/block/sdq/queue/scheduler").exists()
    assert (tmp_path / "dev/sdq").stat().st_size == 256 << 20


@pytest.mark.slow
def test_misspelt_device_fails_rehearsal_at_the_plan_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "plans" / "typo.yaml"
    plan.parent.mkdir()
    shutil.copytree(ROOT / "inventory", tmp_path / "inventory")
    text = (ROOT / "plans" / "violin_vs_exadata.yaml").read_text()
    text = text.replace('io_scheduler: {devices: "/dev/mapper/violin_lun[1-8]"',
                        'io_scheduler: {devices: "/dev/mapper/volin_lun[1-8]"')
    plan.write_text(text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "volin_lun" in t)
    code = main(["apply", "--rehearse", str(plan), "--runs-dir", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert code == 5
    assert f"typo.yaml:{line}:" in err
    assert "device /dev/mapper/volin_lun[1-8] is not one the inventory declares for oel57" in err
    assert not (tmp_path / "runs").exists()


# The example plans rehearse end to end in tests/test_preview_is_the_run.py (after their -C -D preview).


@pytest.mark.slow
def test_rehearsal_without_openssh_uses_the_local_transport(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh machine has no sshd: the README's first command must still end with a report."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PLANNER_REHEARSE_TRANSPORT", "local")
    plans = _checkout(tmp_path)
    code = main(["apply", "--rehearse", str(plans / "violin_vs_exadata.yaml"),
                 "--runs-dir", str(tmp_path / "runs"), "-e", "run_time=30"])
    out = capsys.readouterr().out
    assert code == 0, out[-4000:]
    assert "reached over the local transport" in out
    assert "report copy (the plan's report: output): plans/reports/violin_vs_exadata.md" in out
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    report = (run / "report.md").read_text()
    assert report.startswith("# SLOB comparison") and "SIMULATED" in report
    assert "| Exadata X2-8 |" in report or "Exadata X2-8" in report
    # the README shows the plan's own report copy: it is written beside the plan and its charts resolve
    copy = plans / "reports" / "violin_vs_exadata.md"
    assert copy.read_text().startswith("# SLOB comparison")
    assert "![" in copy.read_text() and _links_resolve(copy) == [] and _links_resolve(run / "report.md") == []
