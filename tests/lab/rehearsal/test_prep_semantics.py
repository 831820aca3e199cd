"""Issue 15 items 4 and 5 over the SSH lab (Oracle stand-ins in each host's sandbox): asm_diskgroup's
``destructive: true`` works as documented and the report tells whether a disk group was restored; two
init_ora steps with static parameters restart the database once at apply and once at restore."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from conftest import make_prep_root
from prep_helpers import newest_run

from planner.cli.main import main
from planner.rehearsal.lab import Lab
from planner.rehearsal.standins import load_state, standin_vars

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

ASM = """\
plan: asm_semantics
plays:
  - name: asm
    hosts: all
    prep:
      - asm_diskgroup: {{name: SLOB, disks: ["/dev/mapper/lun0[12]"], redundancy: external{inside}}}
{option}    workloads:
      - command: {{argv: ["true"]}}
"""


def lab_project(make_lab: Callable[..., Lab], tmp_path: Path) -> tuple[Path, Path]:
    lab = make_lab(1)
    inv = tmp_path / "lab.yml"
    lab.write_inventory(inv)
    data = yaml.safe_load(inv.read_text())
    for name, hv in data["all"]["hosts"].items():
        make_prep_root(lab.sandbox(name))
        hv.update({k: v for k, v in standin_vars(lab.sandbox(name)).items() if k != "planner_root"})
    inv.write_text(yaml.safe_dump(data))
    return lab.sandbox(lab.hosts[0].name), inv


def apply(plan: Path, inv: Path, runs: Path, *extra: str) -> tuple[int, Path]:
    code = main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(runs), *extra])
    return code, newest_run(runs)


@pytest.mark.parametrize("inside, option", [(", destructive: true", ""), ("", "        destructive: true\n")],
                         ids=["in-the-arguments", "step-option"])
def test_asm_destructive_true_drops_what_the_run_created(make_lab: Callable[..., Lab], tmp_path: Path,
                                                         inside: str, option: str) -> None:
    root, inv = lab_project(make_lab, tmp_path)
    plan = tmp_path / "plan.yaml"
    plan.write_text(ASM.format(inside=inside, option=option))
    code, run = apply(plan, inv, tmp_path / "runs", "--no-report")
    assert code == 0, (run / "console.log").read_text()
    assert sorted(load_state(root)["diskgroups"]) == ["DATA"], "the disk group this run created was left"
    [entry] = json.loads((run / "restore.json").read_text())
    assert entry["reverted"] and entry["saved"]["destructive"] is True


def test_report_does_not_say_restored_for_a_disk_group_left_in_place(make_lab: Callable[..., Lab],
                                                                     tmp_path: Path) -> None:
    root, inv = lab_project(make_lab, tmp_path)
    plan = tmp_path / "plan.yaml"
    plan.write_text(ASM.format(inside="", option=""))
    code, run = apply(plan, inv, tmp_path / "runs")
    assert code == 0, (run / "console.log").read_text()
    assert "SLOB" in load_state(root)["diskgroups"]
    [entry] = json.loads((run / "restore.json").read_text())
    assert not entry["reverted"]
    [row] = [line for line in (run / "report.md").read_text().splitlines() if line.startswith("| asm_diskgroup |")]
    assert row.rstrip(" |").endswith("no"), row
    results = json.loads((run / "results.json").read_text())
    [restore] = [r for r in results if r["title"] == "restore asm_diskgroup"]
    assert restore["status"] == "skipped" and "left disk group SLOB in place" in restore["msg"]




TWO_INIT_ORA = """\
plan: one_restart
plays:
  - name: static parameters
    hosts: all
    prep:
      - init_ora: {filesystemio_options: setall, recycle_pool: 64M}
      - flashback: "off"
      - init_ora: {processes: 600, disk_asynch_io: false}
    workloads:
      - command: {argv: ["true"]}
"""


def test_two_init_ora_steps_restart_once_at_apply_and_once_at_restore(make_lab: Callable[..., Lab],
                                                                      tmp_path: Path) -> None:
    root, inv = lab_project(make_lab, tmp_path)
    before = load_state(root)
    plan = tmp_path / "plan.yaml"
    plan.write_text(TWO_INIT_ORA)
    code, run = apply(plan, inv, tmp_path / "runs", "--no-report")
    assert code == 0, (run / "console.log").read_text()
    after = load_state(root)
    assert after["restarts"] - before["restarts"] == 2, "one restart at the end of prep, one at restore"
    assert after["memory"] == before["memory"] and after["spfile"] == before["spfile"]
    results = json.loads((run / "results.json").read_text())
    titles = [r["title"] for r in results if r["step"].startswith("plays[0].prep")]
    assert titles == ["init_ora", "flashback", "init_ora",
                      "Restarting the database once for the play's static parameters",
                      "restore init_ora", "restore flashback", "restore init_ora",
                      "restore: restarting the database once for the static parameters put back"], titles
    restart = next(r for r in results if r["title"].startswith("Restarting"))
    assert restart["status"] == "changed" and "restarted once" in restart["msg"]
    # workloads measured the restarted database: the restart came before them
    assert [r["title"] for r in results].index(restart["title"]) < [r["step"] for r in results].index(
        "plays[0].workloads[0]")
