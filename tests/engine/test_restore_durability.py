"""Issue 47, stop 53: a restore save's cost and its syncs, argued per file.

- A save passed over every entry so far (the reverted flags the private log compares, restore.json's kept
  texts, the entry a mark looks for): its cost grew with the hosts. Counted here as lines executed per save.
- The seal was replaced by a rename no one synced the folder of: after a power cut the old seal came back and
  the newest saves (their hosts already changed) were ignored. It is rewritten in place and synced now.
- restore.json was synced at every save although ``planner restore`` trusts only the private log: it is synced
  once a play's restore is done, and a restore.json damaged by a crash no longer stops ``planner restore``.
"""

from __future__ import annotations

import errno
import json
import os
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from planner.engine import restore_log
from planner.engine.restore import RestoreLog, load_restore_log, private_restore_path
from planner.engine.runrecord import RunRecord
from planner.errors import InputError
from planner.results import runfolder
from planner.steps.saved_state import RestoreEntry


def _entry(i: int) -> RestoreEntry:
    return RestoreEntry(play="plays[0]", host=f"lab{i:03d}", step="plays[0].prep[0]", title="scheduler",
                        kind="io_scheduler", args={"devices": ["/dev/sdb"], "scheduler": "none"},
                        saved={"sdb": "mq-deadline", "login": "s3cr3t-pw"}, play_index=0, index=0)


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> RunRecord:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    rec = RunRecord(tmp_path / "runs", "durable", secrets=("s3cr3t-pw",))
    rec.write_meta(run_id=rec.id, started="2026-12-07T20:00:00Z", plan_file="plan.yaml", hosts=[], plays=[])
    return rec


def _attached(record: RunRecord) -> RestoreLog:
    log = RestoreLog()
    log.attach(record)
    return log


_MODULES = ("planner/engine/restore.py", "planner/engine/restore_log.py")


def _lines_run(action: Any) -> int:
    """Lines of restore.py and restore_log.py that ``action()`` executes (loop iterations included): the work a
    save does, counted without a clock."""
    count = [0]

    def trace(frame: FrameType, event: str, arg: object) -> Any:
        if not frame.f_code.co_filename.endswith(_MODULES):
            return None
        if event == "line":
            count[0] += 1
        return trace

    sys.settrace(trace)
    try:
        action()
    finally:
        sys.settrace(None)
    return count[0]


def test_a_save_and_a_mark_do_not_pass_over_the_entries(record: RunRecord) -> None:
    log = _attached(record)
    for i in range(10):
        log.add(_entry(i))
    add_small = _lines_run(lambda: log.add(_entry(10)))
    mark_small = _lines_run(lambda: log.mark(log.entries[5], True))
    for i in range(11, 300):
        log.add(_entry(i))
    add_large = _lines_run(lambda: log.add(_entry(300)))
    mark_large = _lines_run(lambda: log.mark(log.entries[150], True))
    # before: each grew by a few lines an entry (at 300 entries, ~10 times the 10-entry save)
    assert add_large <= add_small + 10, (add_small, add_large)
    assert mark_large <= mark_small + 10, (mark_small, mark_large)
    shared = json.loads((record.path / runfolder.RESTORE).read_text())
    assert [i for i, d in enumerate(shared) if d["reverted"]] == [5, 150]
    assert shared == record.redact_value([e.to_json() for e in log.entries])


class _Syscalls:
    """The order of the syncs and renames a save makes (the calls go through: nothing is faked)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.events: list[tuple[str, str]] = []
        for name in ("fsync", "fdatasync"):
            real = getattr(os, name)
            monkeypatch.setattr(os, name, self._synced(real))
        real_replace = os.replace
        monkeypatch.setattr(os, "replace", lambda src, dst, **kw: (
            self.events.append(("rename", str(dst))), real_replace(src, dst, **kw))[1])

    def _synced(self, real: Any) -> Any:
        def call(fd: int) -> None:
            self.events.append(("sync", os.readlink(f"/proc/self/fd/{fd}")))
            real(fd)
        return call

    def syncs_of(self, path: Path) -> int:
        return sum(1 for ev, p in self.events if ev == "sync" and p == str(path))

    def renames_not_synced(self) -> list[str]:
        """Renames whose folder was not synced after them: lost, whole, in a power cut."""
        out = []
        for k, (ev, dst) in enumerate(self.events):
            if ev == "rename" and ("sync", str(Path(dst).parent)) not in self.events[k + 1:]:
                out.append(dst)
        return out


def test_a_saved_entry_is_on_disk_seal_and_all_when_the_save_returns(record: RunRecord,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The prep step changes its host once add() returns: the log and the seal that vouches for it must then
    survive a power cut of the controller."""
    log = _attached(record)
    calls = _Syscalls(monkeypatch)
    log.add(_entry(0))  # the log created
    log.add(_entry(1))
    log.mark(log.entries[1], True)
    private = private_restore_path(record.path)
    assert [p for p in calls.renames_not_synced() if not p.endswith(runfolder.RESTORE)] == []
    calls.events.clear()
    log.add(_entry(2))
    events = [(ev, Path(p).name) for ev, p in calls.events]
    assert events == [("sync", private.name), ("sync", restore_log.seal_path(private).name)], events


def test_restore_json_is_synced_once_a_play_not_at_each_save(record: RunRecord,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Three syncs a save were two for the private log (what a restore trusts) and one for restore.json (the
    shareable copy, never used to put a host back while the private log is there)."""
    log = _attached(record)
    log.add(_entry(0))
    calls = _Syscalls(monkeypatch)
    for i in range(1, 6):
        log.add(_entry(i))
    for e in log.pending():
        log.mark(e, True)
    shared = record.path / runfolder.RESTORE
    assert calls.syncs_of(shared) == 0
    log.settle()  # revert_pending's last act
    assert calls.syncs_of(shared) == 1
    assert all(d["reverted"] for d in json.loads(shared.read_text()))


@pytest.mark.parametrize("damage", ["cut mid-entry", "emptied", "lost its last saves"])
def test_a_restore_json_a_crash_damaged_does_not_stop_a_restore(record: RunRecord, damage: str) -> None:
    """restore.json is no longer synced at each save, so a power cut may leave it short or cut mid-write: the
    private log (synced first) has every entry, and restore uses it. Before, a damaged restore.json refused."""
    log = _attached(record)
    for i in range(4):
        log.add(_entry(i))
    shared = record.path / runfolder.RESTORE
    text = shared.read_bytes()
    if damage == "cut mid-entry":
        shared.write_bytes(text[:len(text) * 2 // 3])
    elif damage == "emptied":
        shared.write_bytes(b"")
    else:
        shared.write_text(json.dumps(json.loads(text)[:2], indent=2) + "\n")
    entries = load_restore_log(record.path)
    assert entries == log.entries  # unredacted: the private log's
    again = RestoreLog(entries, record.path)  # planner restore: marks what it put back
    for e in again.pending():
        again.mark(e, True)
    again.settle()
    assert not private_restore_path(record.path).exists()  # all put back: its secrets gone
    if damage == "lost its last saves":
        assert [d["reverted"] for d in json.loads(shared.read_text())] == [True, True]


def test_a_damaged_restore_json_without_the_private_log_is_still_refused(record: RunRecord) -> None:
    log = _attached(record)
    log.add(_entry(0))
    private_restore_path(record.path).unlink()
    (record.path / runfolder.RESTORE).write_bytes(b"[\n  {\n")
    with pytest.raises(InputError, match="not valid JSON"):
        load_restore_log(record.path)


def test_a_mark_that_cannot_be_written_is_said_and_caught_up_by_the_next_save(
        record: RunRecord, monkeypatch: pytest.MonkeyPatch) -> None:
    """The running state (marks not yet saved) must outlive a failed save: a full disk during the restore
    leaves the host restored, says so (``unsaved``), and the next save that can be written records it."""
    log = _attached(record)
    for i in range(3):
        log.add(_entry(i))
    real_pwrite, full = os.pwrite, [True]

    def pwrite(fd: int, data: Any, offset: int) -> int:
        if full[0]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_pwrite(fd, data, offset)

    monkeypatch.setattr(os, "pwrite", pwrite)
    log.mark(log.entries[2], True)
    assert [u.split(":")[0] for u in log.unsaved] == ["lab002"] and "No space left" in log.unsaved[0]
    private = private_restore_path(record.path)
    assert _reverted_on_disk(private, log) == [False, False, False]
    full[0] = False
    log.mark(log.entries[1], True)
    assert _reverted_on_disk(private, log) == [False, True, True]
    assert [d["reverted"] for d in json.loads((record.path / runfolder.RESTORE).read_text())] == [False, True, True]


def _reverted_on_disk(private: Path, log: RestoreLog) -> list[bool]:
    def refuse(why: str) -> InputError:
        raise AssertionError(why)

    found = restore_log.read_log(private, log.binding, refuse)
    assert found is not None
    return [bool(d["reverted"]) for d in found[0]]


_KILLED_BETWEEN = """
import os, signal, sys
from pathlib import Path
from planner.engine.restore import RestoreLog
from planner.engine.runrecord import RunRecord
sys.path.insert(0, {tests!r})
from test_restore_durability import _entry

record = RunRecord(Path({runs!r}), "durable", secrets=("s3cr3t-pw",))
record.write_meta(run_id=record.id, started="2026-12-07T20:00:00Z", plan_file="plan.yaml", hosts=[], plays=[])
log = RestoreLog()
log.attach(record)
shared = log.shared
def dies_before_restore_json(entries):
    if len(entries) == 3:  # the private log holds the third entry: killed before restore.json does
        os.kill(os.getpid(), signal.SIGKILL)
    shared(entries)
log.shared = dies_before_restore_json
for i in range(4):
    log.add(_entry(i))
"""


@pytest.mark.slow
def test_a_controller_killed_between_the_two_copies_loses_no_entry(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGKILL after the private log's save, before restore.json's: the entry whose step may already have
    changed its host is in what ``planner restore`` reads, though the shareable copy never got it."""
    import signal
    import subprocess

    runs = tmp_path / "runs"
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    script = _KILLED_BETWEEN.format(tests=str(Path(__file__).parent), runs=str(runs))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == -signal.SIGKILL, done.stderr
    [run] = [p for p in runs.iterdir() if p.is_dir()]
    assert len(json.loads((run / runfolder.RESTORE).read_text())) == 2
    monkeypatch.setenv("XDG_CONFIG_HOME", env["XDG_CONFIG_HOME"])  # the dead controller's key
    assert load_restore_log(run) == [_entry(i) for i in range(3)]


@pytest.mark.parametrize("replaced", ["longer", "a symlink", "removed"])
def test_a_seal_replaced_between_saves_is_written_anew_not_through(record: RunRecord, replaced: str) -> None:
    """The seal is rewritten in place; one replaced meanwhile is written whole again (a block over a longer file
    left its tail: the seal unreadable, the log refused), never through a link."""
    log = _attached(record)
    log.add(_entry(0))
    log.add(_entry(1))
    private = private_restore_path(record.path)
    seal = restore_log.seal_path(private)
    elsewhere = record.path.parent / "elsewhere"
    if replaced == "longer":
        seal.write_bytes(seal.read_bytes() + b" " * 700 + b"{}")
    elif replaced == "a symlink":
        elsewhere.write_bytes(seal.read_bytes())
        seal.unlink()
        seal.symlink_to(elsewhere)
    else:
        seal.unlink()
    log.add(_entry(2))
    assert not seal.is_symlink() and seal.stat().st_size == restore_log.SEAL_BYTES
    assert _reverted_on_disk(private, log) == [False, False, False]
    if replaced == "a symlink":
        assert elsewhere.read_bytes() != seal.read_bytes()  # not written through


def test_planner_restore_writes_restore_json_once_not_at_each_mark(record: RunRecord,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """``planner restore`` (no secrets: restore.json's flags only) rewrote and synced all of restore.json at
    each entry it put back; now once, when the restore is done."""
    log = _attached(record)
    for i in range(6):
        log.add(_entry(i))
    again = RestoreLog(load_restore_log(record.path), record.path)
    calls = _Syscalls(monkeypatch)
    shared = record.path / runfolder.RESTORE
    for e in again.pending()[:4]:
        again.mark(e, True)
    assert calls.syncs_of(shared) == 0 and not any(d["reverted"] for d in json.loads(shared.read_text()))
    again.settle()
    assert [d["reverted"] for d in json.loads(shared.read_text())] == [False, False, True, True, True, True]
    assert [ev for ev, p in calls.events if p == str(shared)] == ["rename"]  # one write, whole
