"""Where a result stands in the plan is said by its fields (play, section, index, phase), never read back from
its step path or title; a run folder from before the fields were written reads the same."""

from __future__ import annotations

import textwrap
from pathlib import Path

from planner.plan.loader import load_plan
from planner.report.context import _prep
from planner.results.measure import RunData, play_name, prep_steps
from planner.results.runfolder import RunMeta, result_from_json, result_to_json
from planner.status import Phase, Status, StepResult, legacy_place
from planner.steps.saved_state import RestoreEntry


def test_the_loader_gives_each_step_its_play_and_index(tmp_path: Path) -> None:
    (tmp_path / "plan.yaml").write_text(textwrap.dedent("""\
        plan: place
        plays:
          - name: first
            hosts: all
            workloads:
              - command: {argv: ["true"]}
          - name: second
            hosts: all
            prep:
              - sysctl: {vm.swappiness: 1}
              - sysctl: {vm.swappiness: 2}
        """))
    plan = load_plan(tmp_path / "plan.yaml", inventory_must_exist=False)
    assert [(s.play, s.index) for s in plan.plays[0].workloads] == [(0, 0)]
    assert [(s.path, s.play, s.index) for s in plan.plays[1].prep] == \
        [("plays[1].prep[0]", 1, 0), ("plays[1].prep[1]", 1, 1)]


def test_the_fields_round_trip_and_an_old_record_reads_the_same() -> None:
    r = StepResult("plays[1].prep[2]", "restore sysctl", "h", Status.CHANGED, play=1, section="prep", index=2,
                   phase=Phase.RESTORE)
    assert result_from_json(result_to_json(r)) == r
    old = {k: v for k, v in result_to_json(r).items() if k not in ("play", "section", "index", "phase")}
    assert result_from_json(old) == r  # a folder written before the fields: its path and title say them
    restart = result_from_json({"step": "plays[0].prep.restart", "title": "Restarting the database once",
                                    "host": "h", "status": "changed"})
    assert (restart.play, restart.section, restart.index, restart.phase) == (0, "prep", None, Phase.APPLY)
    assert legacy_place("facts") == (None, "", None, Phase.APPLY)
    entry = RestoreEntry.from_json({"play": "plays[3]", "host": "h", "step": "plays[3].prep[4]", "kind": "sysctl"})
    assert (entry.play_index, entry.index) == (3, 4)
    assert RestoreEntry.from_json(entry.to_json()) == entry
    assert play_name(1, ["a", "b"]) == "b" and play_name(None, ["a"]) == "" and play_name(5, ["a"]) == "plays[5]"


def test_a_prep_step_named_restore_is_not_taken_for_a_restore(tmp_path: Path) -> None:
    """The report took any prep result titled "restore ..." for a restore: a step the user named "restore the
    backup config" lost its original state in the prep table and was hidden from the changes."""
    applied = StepResult("plays[0].prep[0]", "restore the backup config", "h", Status.CHANGED, "wrote /etc/x",
                         play=0, section="prep", index=0)
    reverted = StepResult("plays[0].prep[0]", "restore restore the backup config", "h", Status.CHANGED, "put back",
                          play=0, section="prep", index=0, phase=Phase.RESTORE)
    restart = StepResult("plays[0].prep.restart", "Restarting", "h", Status.CHANGED, play=0, section="prep")
    entry = RestoreEntry("plays[0]", "h", "plays[0].prep[0]", "restore the backup config", "copy",
                         saved={"dest": "/etc/x", "content": "old"}, reverted=True, play_index=0, index=0)
    data = RunData(tmp_path, RunMeta.from_mapping({"plays": [{"name": "p"}]}), (applied, reverted, restart), (), (), {},
                   (entry.to_json(),))
    rows = _prep(data, "h")
    assert [(r["play"], r["restore"], r["restored"]) for r in rows] == [("p", False, "yes"), ("p", True, "")]
    assert rows[0]["original"] != ""
    assert prep_steps(data) == {"plays[0].prep[0]"}  # the play's one restart is no prep step's row


def test_a_steps_artifact_folder_is_named_from_its_typed_place() -> None:
    """The folder under play and host is the step's section and index, as it was when cut from its path; the
    path itself is no longer parsed (a step built outside a plan, with no index, is named by its path)."""
    from planner.engine.execute import step_folder
    from planner.plan.model import Section, StepSpec

    spec = StepSpec(kind="fio", section=Section.WORKLOADS, args={}, path="plays[2].workloads[3]", play=2, index=3)
    assert step_folder(spec) == "workloads[3]" == spec.path.split(".", 1)[-1]
    odd = StepSpec(kind="fio", section=Section.WORKLOADS, args={}, path="not.a[plan]path", play=2, index=3)
    assert step_folder(odd) == "workloads[3]"
    assert step_folder(StepSpec(kind="fio", section=Section.PREP, args={}, path="restart")) == "restart"
