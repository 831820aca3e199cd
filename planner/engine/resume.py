"""``planner apply --resume RUN``: finish a run whose controller died, in the same run folder.

What a resumed run does, and why:

- It runs the plan the run recorded, with the run's own options (inventory, limit, tags, extra vars,
  keep-prep): they are read back from meta.json's argv. The plan file must still say what the run's copy
  (plan.yaml) says; a changed plan is refused with the difference shown, since skipping "done" points of
  a different plan would mix two studies in one record.
- It takes over the host lock its dead controller left (same run id, that process gone); a controller
  that still runs keeps it and the resume is refused.
- Before anything else on a host, it stops what the dead controller left running there (command process
  groups recorded under ``<workdir>/.running``, OS-statistics samplers): see planner.transport.remote_procs.
- Prep is applied again (prep steps are idempotent). restore.json entries the dead run never reverted
  hold the state from BEFORE that run; those are kept and the new save() (which would see the half-prepped
  host) is not recorded for that step, so the end of the resumed run restores the original state. Entries
  already reverted (e.g. by ``planner restore RUN`` in between) are history: the host is back to its
  original state, and the new save() records it afresh.
- Workload points recorded as ok/changed in results.json for (host, step, point) are skipped; the rest run.
  Collect steps already done are skipped too; a play with nothing left on a host is not prepped again.
- Results and commands are appended to the same record; meta.json gets a ``resumed`` list entry; the
  exit code and recap count what this invocation did.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.engine.restore import load_restore_log
from planner.engine.runrecord import RunRecord
from planner.errors import InputError, Problem
from planner.results import runfolder
from planner.results.runfolder import RunMeta
from planner.steps.saved_state import RestoreEntry

DONE = ("ok", "changed")
# Options that define what a run is: a resume uses the run's own, never new ones.
DEFINING = ("inventory", "limit", "tags", "skip_tags", "extra_vars", "keep_prep", "diff")


@dataclass(frozen=True, slots=True)
class Previous:
    """What the run being resumed recorded."""

    run_dir: Path
    meta: RunMeta
    results: tuple[Mapping[str, Any], ...]
    restore: tuple[RestoreEntry, ...]  # unredacted (planner.engine.restore.load_restore_log)
    done: frozenset[tuple[str, str, int | None]]  # (host, step path, point index) completed

    def is_done(self, host: str, step: str, point: int | None = None) -> bool:
        return (host, step, point) in self.done

    def work_left(self, host: str, steps: Iterable[tuple[str, Sequence[int | None]]]) -> bool:
        """Whether any of these (step path, point indexes) is not done on the host."""
        return any(not self.is_done(host, step, i) for step, points in steps for i in points)

    def keeps_original(self, host: str, step: str) -> bool:
        """True when an unreverted entry already holds this prep step's state from before the dead run."""
        return any(e.host == host and e.step == step and not e.reverted for e in self.restore)



def load_previous(run_dir: Path) -> Previous:
    meta = runfolder.read_meta(run_dir)
    results = runfolder.read_result_entries(run_dir)
    entries = load_restore_log(run_dir, "resume")  # refuses when only the redacted copy is left
    done = frozenset((str(r.get("host")), str(r.get("step")), r.get("point")) for r in results
                     if r.get("status") in DONE and not r.get("ignored"))
    return Previous(run_dir, meta, tuple(results), tuple(entries), done)


class ReopenedRecord(RunRecord):
    """The run folder of the run being resumed, opened for appending (commands.jsonl, results.json...)."""

    def __init__(self, path: Path, *, secrets: tuple[str, ...] = ()) -> None:  # noqa: D107
        # Not RunRecord.__init__: that creates a new folder. The same attributes (_attach), existing folder.
        self._attach(path, secrets)
        self.meta = runfolder.read_meta_object(path)


def reopen_record(previous: Previous, secrets: tuple[str, ...], argv: list[str]) -> RunRecord:
    """The run's folder, marked running again, with a ``resumed`` entry (and this controller's pid)."""
    record = ReopenedRecord(previous.run_dir, secrets=secrets)
    resumed = [*record.meta.get("resumed", []), resumed_entry(argv, record.meta)]
    record.write_meta(status="running", ended=None, exit_code=None, interrupted_phase=None, resumed=resumed,
                      pid=os.getpid(), pids=sorted(controller_pids(record.meta) | {os.getpid()}))
    return record


def controller_pids(meta: RunMeta | Mapping[str, Any]) -> frozenset[int]:
    """Every controller the run has had (the first and each resume): a lock left by any of them is the run's
    own. A resume that fails before taking the lock (e.g. an unknown host key) must not hide the first one's."""
    meta = meta.raw if isinstance(meta, RunMeta) else meta
    pids = {meta.get("pid"), *(meta.get("pids") or ()), *(e.get("pid") for e in meta.get("resumed") or ())}
    return frozenset(int(p) for p in pids if isinstance(p, int) and p > 0)


def check_plan_unchanged(plan_file: Path, run_dir: Path) -> None:
    copy = run_dir / runfolder.PLAN
    if not plan_file.is_file():
        raise InputError([Problem(None, "", f"the plan file of run {run_dir.name} is gone: {plan_file}",
                                  f"pass it: planner apply PLAN --resume {run_dir.name} (it must match {copy})")])
    now, then = plan_file.read_text(), copy.read_text() if copy.is_file() else ""
    if now == then:
        return
    import difflib  # here: only a changed plan is diffed (difflib and heapq at every apply's start-up otherwise)

    diff = list(difflib.unified_diff(then.splitlines(), now.splitlines(), f"{copy} (the run's)",
                                     f"{plan_file} (now)", lineterm="", n=1))
    shown = "\n".join(diff[:30]) + ("\n..." if len(diff) > 30 else "")
    raise InputError([Problem(None, "", f"the plan changed since run {run_dir.name}: {plan_file} differs from "
                                        f"the run's copy:\n{shown}",
                              "put the plan back as it was, or start a new run (planner restore RUN first)")])


def check_hosts(previous: Previous, hosts: Mapping[str, Any]) -> None:
    """The resumed run must target the hosts the run recorded, at the same addresses."""
    recorded = previous.meta.hosts
    problems = []
    for name in sorted(set(recorded) ^ set(hosts)):
        where = "the run recorded it but the inventory no longer selects it" if name in recorded \
            else "the inventory selects it now but the run did not have it"
        problems.append(Problem(None, "", f"host {name}: {where}", "resume with the inventory the run used"))
    for name in sorted(set(recorded) & set(hosts)):
        was, now = recorded[name], hosts[name]
        if (was.get("address"), was.get("port")) != (now.address, now.port):
            problems.append(Problem(None, "", f"host {name}: was {was.get('address')}:{was.get('port')}, "
                                              f"now {now.address}:{now.port}", "resume against the same hosts"))
    if problems:
        raise InputError(problems)


def resumed_entry(argv: list[str], meta: Mapping[str, Any]) -> dict[str, Any]:
    """meta.json ``resumed`` item: when, how, and what state the run was found in."""
    from planner.engine.runrecord import utc_now

    return {"time": utc_now(), "argv": argv, "pid": os.getpid(), "found_status": meta.get("status"),
            "found_interrupted_phase": meta.get("interrupted_phase")}
