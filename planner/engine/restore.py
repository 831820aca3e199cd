"""Undoing a run's prep: the restore log (restore.json) and the ONE loop that replays it, used at the end of
each play, by ``planner restore RUN`` (e.g. after the controller was killed) and by ``apply --resume``.

restore.json holds each prep step's original state, written before the step changed anything; entries
already reverted are skipped, so restore is idempotent and may be run again after a partial failure.
``planner restore`` first stops what the dead controller left running on the hosts (planner.transport.remote_procs),
and it refuses while that controller still runs; last it releases the host locks the run still holds.

Two copies of the log are written, each time it changes:

- ``<run>/restore.json``, part of the shareable run record, redacted like every record file (a password the
  original file held reads ``********``): what the report and a colleague read;
- ``<runs_dir>/.<run id>.restore.json`` (mode 0600), unredacted: the only copy that restore and resume write
  back to hosts. Writing the redacted copy back would replace the host's password by ``********`` and destroy
  the original.

Why there, and not on the host beside the lock: the controller is where the secrets already are (env vars,
password files); the file is beside the run folder, never inside the folder that is zipped and sent; and a
host whose planner workdir was cleaned still gets its original back. It is a hidden file, not a folder, so
whatever lists or indexes the run folders of runs_dir (folders with a meta.json) never sees it. If it is
missing (the run folder was moved or received from elsewhere), restore and resume refuse rather than write
a redacted value.

The private copy is what gets written to hosts, so it is trusted only when this controller wrote it for this
run: it is bound to the sha256 of the run's identity in meta.json (run id, start, plan file, hosts, plays: the
fields never rewritten after the run opens) and sealed by an HMAC over that and its contents, keyed by a 0600
key in the user's config folder. A log placed beside a received folder, one of another run of the same id, or
one changed or cut short is refused before any host is touched. Each save appends to it (its format and seal:
planner.engine.restore_log), synced before the save returns, i.e. before the step changes its host.
restore.json is appended to, and a mark rewrites its entry in place; it is synced once a play's restore is
done, not at each save: a restore reads the private log, which is synced first and never shorter than it, so a
restore.json a power cut left behind or damaged costs no host its original (RestoreLog._write_shared).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from planner import files, signals
from planner.engine import restarts, restore_log
from planner.engine.console import Console
from planner.engine.execute import ExecSettings, HostState, entry_place, revert_step
from planner.engine.hostlock import read_holder, release_lock
from planner.engine.origin import made_here
from planner.engine.runrecord import RunRecord, utc_now
from planner.errors import InputError, PlannerError, Problem
from planner.files import host_slug, slug
from planner.host import Host
from planner.results import runfolder
from planner.results.runfolder import RunMeta
from planner.status import ExitCode, RestartRequest, Status, StepResult, exit_code, recap
from planner.steps.saved_state import RestoreEntry
from planner.transport.become import BecomePassword, become_password
from planner.transport.remote_procs import running_dir, stop_leftovers


def private_restore_path(run_dir: Path) -> Path:
    """The unredacted restore log of a run: beside the run folder, never in it (see the module docstring)."""
    return run_dir.parent / f".{run_dir.name}.restore.json"


_IDENTITY = ("run_id", "started", "plan_file", "hosts", "plays")  # written once, when the record opens


def run_binding(run_dir: Path) -> str:
    """The sha256 of the run's identity as its meta.json says it ("" when there is no readable meta.json)."""
    try:
        meta = runfolder.read_meta_object(run_dir)
    except InputError:
        return ""
    ident = {k: meta.get(k) for k in _IDENTITY}
    return hashlib.sha256(json.dumps(ident, sort_keys=True, default=str).encode()).hexdigest()


def write_private(path: Path, data: list[dict[str, Any]], binding: str) -> None:
    """A sealed private log holding ``data`` whole: bound to its run, signed by this controller's key (it holds
    secrets: 0600). A run's saves append to it instead (RestoreLog)."""
    restore_log.write_whole(path, data, binding)


def _indented_item(text: str) -> str:
    """One element of a JSON list as ``json.dumps(the_list, indent=2)`` lays it out (its lines indented)."""
    return "\n".join("  " + line for line in text.split("\n"))


_FLAG = {True: b'\n    "reverted":  true,\n', False: b'\n    "reverted": false,\n'}  # in an _indented_item


def _flipped(text: bytes, reverted: bool) -> bytes | None:
    """An entry's restore.json text with its reverted flag set (a mark changes nothing else: the text need not
    be encoded and redacted again); None when the flag is not there as written (a secret that reads ``false``
    was masked in it: the caller encodes the entry anew)."""
    if _FLAG[not reverted] in text:
        return text.replace(_FLAG[not reverted], _FLAG[reverted], 1)
    return text if _FLAG[reverted] in text else None


def _refused(path: Path, run_dir: Path, why: str, what: str) -> InputError:
    return InputError([Problem(None, "", f"cannot {what} run {run_dir.name}: the restore log {path} {why}: "
                                         "not used, nothing was written to any host", (
        f"run planner {what} on the controller, and as the user, that made the run; else put the hosts back "
        "by hand from the run folder's restore.json"))])


def read_private(path: Path, run_dir: Path, what: str = "restore") -> list[dict[str, Any]] | None:
    """The private log's entries when this controller sealed it for this run; None when there is none."""
    found = restore_log.read_log(path, run_binding(run_dir), lambda why: _refused(path, run_dir, why, what))
    return None if found is None else found[0]


def read_json_list(path: Path) -> list[dict[str, Any]]:
    """A run-record file holding a JSON list (results.json, restore.json); [] when it is absent."""
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text())
    except ValueError as e:
        raise InputError([Problem(None, "", f"{path}: not valid JSON ({e})",
                                  "the record is damaged; restore the hosts with planner restore RUN (it needs "
                                  "only meta.json and the restore log)")]) from None
    return [d for d in data if isinstance(d, dict)] if isinstance(data, list) else []


def shareable(entry: Mapping[str, Any]) -> dict[str, Any]:
    """An entry as the shareable restore.json holds it: a replaced file's original content only as its size
    and sha256 (the content, whatever it holds, stays in the private log, the only copy written back)."""
    saved = entry.get("saved")
    if not isinstance(saved, Mapping) or not isinstance(saved.get("content"), str):
        return dict(entry)
    raw = saved["content"].encode()
    kept = f"({len(raw)} bytes, sha256 {hashlib.sha256(raw).hexdigest()}: in the private restore log only)"
    return {**entry, "saved": {**saved, "content": kept}}


class RestoreLog:
    """A run's prep states in the order saved (thread-safe: hosts save in parallel).

    ``shared`` writes the shareable restore.json from the unredacted entries (a RunRecord redacts as it
    writes); without one (``planner restore``, which has no secrets to redact with), only the ``reverted``
    flags of the existing shareable file are updated, its redacted values left as they are.
    """

    def __init__(self, entries: Sequence[RestoreEntry] = (), run_dir: Path | None = None,
                 shared: Callable[[list[RestoreEntry]], None] | None = None) -> None:
        self.entries = list(entries)
        self.run_dir = run_dir
        self.shared = shared
        self._lock = threading.Lock()
        self._writing = threading.Lock()  # one write at a time, each of the newest entries
        self._written = 0  # how many entries the last write held
        # running state, so that a save costs its own entries, never a pass over all of them:
        self._where = {id(e): i for i, e in enumerate(self.entries)}  # entry -> index (entries are frozen)
        self._unreverted = sum(not e.reverted for e in self.entries)
        self._marks: dict[int, bool] = {}  # index -> reverted, marked since the private log's last save
        self._changed: set[int] = set()  # indices marked since restore.json's last save
        self._shared_texts: list[bytes] = []  # each entry's redacted text in restore.json, in order
        self._shared_len = 0  # how many entries restore.json holds as this log last wrote it
        self._shared_at: list[int] = []  # where each entry's text starts in restore.json
        self._shared_size = 0  # restore.json's size as this log last left it
        self._unsettled = False  # restore.json written since its last sync
        self._shared_doc: list[dict[str, Any]] | None = None  # restore.json as read (planner restore)
        self.binding = run_binding(run_dir) if run_dir is not None else ""
        self._private: restore_log.SealedLog | None = None  # the private log as written so far
        self.unsaved: list[str] = []  # entries reverted on their host whose record update failed

    def attach(self, record: RunRecord) -> None:
        """Write to this record from now on (the runner opens its record after it is built)."""
        self.run_dir = record.path
        self.binding = run_binding(record.path)
        self.shared = lambda entries: self._write_shared(record, entries)

    def _write_shared(self, record: RunRecord, entries: list[RestoreEntry]) -> None:
        """restore.json as ``record.write`` lays it out (a reverted flag padded to the width of ``false``), each
        entry redacted and encoded once: a save appends its new entries, a mark rewrites its entry's text in
        place (it keeps its length). Rewritten whole at every save, it grew with hosts squared.

        Not synced here: ``planner restore`` trusts the private log (synced before any host is changed, and never
        shorter than this file), so this copy lagging or damaged after a power cut of the controller costs no
        host its original; it is synced once the play's restore is done (``settle``)."""
        path = record.path / runfolder.RESTORE
        if not entries:
            record.write(runfolder.RESTORE, [])
            self._shared_texts, self._shared_len = [], 0
            return
        texts = self._shared_texts
        if len(texts) > len(entries):  # not on the runner's path (entries are only ever added): start over
            del texts[:]
            self._shared_len = 0
        whole = not self._shared_len
        for i in sorted(self._changed):
            if i < len(texts):
                old, texts[i] = texts[i], _flipped(texts[i], entries[i].reverted) or self._shared_text(record,
                                                                                                  entries[i])
                whole = whole or (i < self._shared_len and not self._put_item(path, i, texts[i], old))
        texts.extend(self._shared_text(record, e) for e in entries[len(texts):])
        new = texts[self._shared_len:]
        if not whole and new:
            whole = not files.append_json_items(path, b",\n".join(new), durable=False)
            if not whole:
                for t in new:
                    self._shared_at.append(self._shared_size - 1)  # after the ",\n" that replaced "\n]\n"
                    self._shared_size += len(t) + 2
        if whole:
            files.write_bytes(path, b"[\n" + b",\n".join(texts) + b"\n]\n", durable=False)
            self._shared_at, at = [], 2
            for t in texts:
                self._shared_at.append(at)
                at += len(t) + 2
            self._shared_size = at + 1
        self._shared_len = len(texts)
        self._changed.clear()
        self._unsettled = True

    def _put_item(self, path: Path, i: int, text: bytes, old: bytes) -> bool:
        return len(text) == len(old) and files.write_at(path, self._shared_at[i], text, self._shared_size)

    @staticmethod
    def _shared_text(record: RunRecord, e: RestoreEntry) -> bytes:
        """One entry's text in restore.json. ``"reverted":  true`` is as wide as ``"reverted": false``: a mark
        rewrites the entry in place (JSON allows the space; json.dumps never puts a newline in a string, so the
        top-level key is the only line that matches)."""
        text = json.dumps(record.redact_value(shareable(e.to_json())), indent=2,
                          default=lambda o: record.redact(str(o)))
        text = text.replace('\n  "reverted": true,\n', '\n  "reverted":  true,\n', 1)
        return record.redact(_indented_item(text)).encode()

    def settle(self) -> None:
        """restore.json on disk once the play's restore is done, not at each save (see _write_shared): synced,
        or for ``planner restore`` its flags written, whole, once (each mark rewrote it). The hosts are put back
        already and the private log is what a later restore reads: a failure is only said (``unsaved``)."""
        if not self._unsettled or self.run_dir is None:
            return
        self._unsettled = False
        try:
            if self.shared is None:
                self._update_shared_flags()
            else:
                files.sync_file(self.run_dir / runfolder.RESTORE)
        except OSError as e:
            self.unsaved.append(f"{runfolder.RESTORE} ({e.strerror or e})")

    def add(self, entry: RestoreEntry) -> None:
        """On disk when this returns. Hosts saving at once share a write (group commit): one write of all the
        entries per host was O(hosts^2) under one lock, a second of a warm 30-host play."""
        with self._lock:
            self._where[id(entry)] = len(self.entries)
            self.entries.append(entry)
            self._unreverted += not entry.reverted
            mine = len(self.entries)
        with self._writing:
            if self._written >= mine:
                return  # a write since ours was appended held it
            with self._lock:
                self._write()
                self._written = len(self.entries)  # only once written: a failed write leaves the others to try

    def mark(self, entry: RestoreEntry, reverted: bool) -> None:
        """Noted in memory at once; a log that cannot be written (the runs disk is full) does not stop the
        restore: the host comes first, and ``unsaved`` says what the record lacks (a later ``planner restore``
        finds those entries already as they were: reverts are idempotent)."""
        with self._writing, self._lock:
            i = self._where.pop(id(entry))
            marked = self.entries[i] = entry.marked(reverted)
            self._where[id(marked)] = i
            self._unreverted += entry.reverted - reverted
            self._marks[i] = reverted
            self._changed.add(i)
            try:
                self._write()
            except OSError as e:
                self.unsaved.append(f"{entry.host}: {entry.title} ({e.strerror or e})")

    def pending(self, play: str | None = None) -> list[RestoreEntry]:
        """Unreverted entries, last saved first (undone in reverse order), of one play or all."""
        with self._lock:
            return [e for e in reversed(self.entries) if not e.reverted and (play is None or e.play == play)]

    def _write(self) -> None:
        if self.run_dir is None:
            return  # check mode: nothing is recorded
        private = private_restore_path(self.run_dir)
        if self._private is None or self._private.path != private or self._private.binding != self.binding:
            self._private = restore_log.SealedLog(private, self.binding)
        if self.entries and not self._unreverted:
            self._private.forget()  # nothing left to write back: its secrets are kept no longer
        else:  # first: the copy a restore writes back; appended to, not rewritten
            self._private.save(self.entries, self._marks)
        self._marks.clear()  # only once saved: a failed save leaves them for the next
        if self.shared is not None:
            self.shared(self.entries)
            return
        self._unsettled = True  # planner restore: restore.json's flags are written once, by settle

    def _update_shared_flags(self) -> None:
        """``planner restore``: restore.json's ``reverted`` flags follow the marks (its values as they are: there
        are no secrets here to redact new ones with). restore.json is not what a restore trusts, so one damaged
        or cut short after a crash is left as it is rather than stopping the restore."""
        assert self.run_dir is not None
        if self._shared_doc is None:
            try:
                self._shared_doc = read_json_list(self.run_dir / runfolder.RESTORE)
            except InputError:
                self._changed.clear()
                return  # kept as found: what a colleague is shown of it is no business of the hosts
        doc = self._shared_doc
        for i in sorted(self._changed):
            if i < len(doc):
                doc[i]["reverted"] = self.entries[i].reverted
        self._changed.clear()
        runfolder.write_restore_entries(self.run_dir, doc)


def load_restore_log(run_dir: Path, what: str = "restore") -> list[RestoreEntry]:
    """The run's unredacted entries, for ``planner restore`` and ``--resume``.

    Refuses (InputError, nothing written anywhere) when entries still to revert exist only in the redacted
    shareable copy: writing those back would put ``********`` into host files. A restore.json damaged or cut
    short does not stop it while the private log is there (synced first at each save, unlike restore.json).
    """
    private_path = private_restore_path(run_dir)
    private = read_private(private_path, run_dir, what)
    try:
        shared = read_json_list(run_dir / runfolder.RESTORE)
    except InputError:
        if private is None:
            raise
        shared = []  # a power cut while it was written: the private log has every entry it had
    if private is not None and len(private) >= len(shared):
        return [RestoreEntry.from_json(d) for d in private]
    if private is None and all(d.get("reverted") is True for d in shared):
        return [RestoreEntry.from_json(d) for d in shared]  # all undone: nothing of it is ever written back
    if all(d.get("reverted") for d in shared):
        return [RestoreEntry.from_json(d) for d in shared]  # nothing to write back: history only
    missing = "is missing" if private is None else "holds fewer entries than restore.json"
    raise InputError([Problem(None, "", (
        f"cannot {what} run {run_dir.name}: the unredacted original state {private_path} {missing}; the run "
        "folder's restore.json is the shareable copy, with secrets replaced by ********, and writing it back "
        "would destroy the hosts' originals"),
        f"run planner {what} with the runs folder the run was made in (the private copy is never inside a run "
        "folder, so a moved or received one lacks it), or put the hosts back by hand from restore.json")])


def revert_pending(log: RestoreLog, states: Mapping[str, HostState], settings: ExecSettings,
                   record: RunRecord | None, artifacts: Path, console: Console,
                   on_result: Callable[[StepResult], None], *, play: str | None = None,
                   unreachable: Callable[[str], str | None] = lambda host: None, one_restart: bool = False) -> None:
    """Revert the log's pending entries (of one play, or all), last saved first.

    An entry whose host has no connection is left pending; ``unreachable(host)`` says why in a result, or
    returns None when the host's unreachability is recorded already (the runner's case). A host another run
    holds (``blocked``, e.g. the lock of this run's first controller) is not ours to undo. ``one_restart``:
    the init_ora reverts leave their restart to one per host at the end (planner.engine.restarts).
    """
    restart_due: dict[str, tuple[HostState, RestartRequest, int | None, str]] = {}
    for entry in log.pending(play):
        hs = states.get(entry.host)
        if hs is not None and hs.blocked:
            continue
        if hs is None or hs.conn is None or hs.unreachable:
            why = unreachable(entry.host)
            if why is not None:
                console.banner("RESTORE", entry.title)
                on_result(StepResult(entry.step, f"restore {entry.title}", entry.host, Status.UNREACHABLE, why,
                                     **entry_place(entry)))
            continue
        hs.conn.resume()
        console.banner("RESTORE", entry.title)
        r = revert_step(entry, hs, settings, record, artifacts, defer_restart=one_restart)
        if r.restart is not None:
            restart_due[hs.host.name] = (hs, r.restart, entry.play_index, entry.kind)
        log.mark(entry, r.status in (Status.OK, Status.CHANGED))
        on_result(r)
    for hs, request, play_index, kind in restart_due.values():
        console.banner("RESTORE", restarts.TITLE_RESTORE)
        on_result(restarts.restart_restore(play_index, kind, hs, request, settings, record, artifacts))
    log.settle()
    if log.unsaved:
        run = log.run_dir.name if log.run_dir is not None else "RUN"
        console.warn(f"restored on the hosts, but the restore log could not record it for {len(log.unsaved)} "
                     f"entr{'y' if len(log.unsaved) == 1 else 'ies'}: {'; '.join(log.unsaved[:5])}. Free space "
                     f"where the runs are kept, then run: planner restore {run} (it finds them already as they "
                     "were and brings the record up to date)")
        log.unsaved.clear()  # said once: the next play's restore says only its own


def hosts_from_meta(hosts: Mapping[str, Mapping[str, Any]],
                    become_passwords: Mapping[str, BecomePassword] | None = None) -> dict[str, Host]:
    """The hosts as the run recorded them (RunMeta.hosts), to reach them again; a become password (never
    recorded) is handed in by the caller, under the variable it came from."""
    out = {}
    passwords = become_passwords or {}
    for name, h in hosts.items():
        hv: dict[str, Any] = {"planner_root": h.get("planner_root", "")}
        if name in passwords:
            hv[passwords[name].var] = passwords[name].value
        out[name] = Host(name=name, address=h["address"], port=h.get("port"), user=h.get("user"),
                         key_file=Path(h["key_file"]) if h.get("key_file") else None,
                         connection=h.get("connection", "ssh"), become=h.get("become", False),
                         become_user=h.get("become_user", "root"), groups=tuple(h.get("groups", ())),
                         vars={k: v for k, v in hv.items() if v} | (
                             {"planner_known_hosts": h["known_hosts"]} if h.get("known_hosts") else {}))
    return out


def _with_hint(r: StepResult, hosts: Mapping[str, Host], hint: str) -> StepResult:
    """sudo -n refused a host that became root: the password it needs is not in the record; say how to give it."""
    h = hosts.get(r.host)
    if r.status is not Status.FAILED or not hint or "password is required" not in r.msg or h is None \
            or become_password(h) is not None:
        return r
    return dataclasses.replace(r, msg=f"{r.msg} ({hint})")


def restore_run(run_dir: Path, console: Console, *, forks: int = 5, accept_new_host_keys: bool = False,
                known_hosts: Path | None = None, ssh_config: Path | None = None,
                become_passwords: Mapping[str, BecomePassword] | None = None, no_password_hint: str = "") -> ExitCode:
    if not runfolder.is_run_folder(run_dir):
        raise InputError([Problem(None, "", f"{run_dir}: not a run folder (no meta.json)",
                                  "give the path of a folder under runs/")])
    raw = runfolder.read_meta_object(run_dir)  # updated below and written back
    meta = RunMeta.from_mapping(raw)
    log = RestoreLog(load_restore_log(run_dir), run_dir)  # refuses before any host is touched
    pending = log.pending()
    remote = _checked_remote(run_dir, raw.get("remote"))  # workdir and lock per host
    if not pending and not remote:
        console.line(f"{run_dir.name}: nothing to restore")
        return ExitCode.OK
    if not made_here(raw):
        raise _received(run_dir)
    from planner.transport.connect import TransportOptions, connect

    hosts = hosts_from_meta(meta.hosts, become_passwords)
    needed = [hosts[n] for n in dict.fromkeys([*remote, *(e.host for e in pending)]) if n in hosts]
    conns = connect(needed, TransportOptions(forks=forks, accept_new_host_keys=accept_new_host_keys,
                                             known_hosts=known_hosts, ssh_config=ssh_config))
    states = {n: HostState(hosts[n], c if not isinstance(c, Exception) else None,
                           unreachable=isinstance(c, Exception)) for n, c in conns.items()}
    results: list[StepResult] = []
    bug: Exception | None = None  # an exception nobody foresaw: what is done stays done and recorded
    try:
        try:
            results += _stop_leftovers(run_dir.name, remote, states, console,
                                       {n: str(c) for n, c in conns.items() if isinstance(c, Exception)})

            def done(r: StepResult) -> None:
                r = _with_hint(r, hosts, no_password_hint)
                results.append(r)
                console.result(r)

            revert_pending(log, states, ExecSettings(False, True, run_dir), None, run_dir, console, done,
                           unreachable=lambda host: str(conns.get(host, "host not in the run record")))
        except PlannerError:
            raise
        except Exception as e:  # noqa: BLE001 - raised again below, once the record says what is left
            bug = e
            log.settle()  # restore.json's flags as the hosts now are: revert_pending never reached its own
        for name, where in remote.items():  # the dead run's lock: only ever ours (release_lock checks the id)
            hs = states.get(name)
            if hs is not None and hs.conn is not None and where.get("lock"):
                with contextlib.suppress(PlannerError):
                    release_lock(hs.conn, where["lock"], run_dir.name,
                                 running_dir(where["workdir"]) if where.get("workdir") else "",
                                 "" if any(e.host == name for e in log.pending()) else where.get("workdir", ""))
    finally:
        for hs in states.values():
            if hs.conn is not None:
                hs.conn.close()
    stats = recap(results)
    console.recap(stats)
    raw.setdefault("restores", []).append({"time": utc_now(), "pending": len(pending),
                                           "done": len(pending) - len(log.pending()),
                                           **({"error": signals.shown(f"{type(bug).__name__}: {bug}")} if bug else {})})
    if meta.status == "running":  # its controller died (it was checked not to be running)
        raw.update(status="interrupted", interrupted_phase="controller killed", ended=meta.ended or utc_now())
    runfolder.write_meta(run_dir, raw)
    if bug is not None:  # the CLI says it (exit 250); the hosts, the logs and meta.json say where it stopped
        console.warn(_left_after(bug, log, run_dir))
        raise bug
    return exit_code(stats)


def _left_after(bug: Exception, log: RestoreLog, run_dir: Path) -> str:
    """What a bug mid-restore left for the next ``planner restore``, host by host, in the order saved."""
    left: dict[str, list[str]] = {}
    for e in reversed(log.pending()):
        left.setdefault(e.host, []).append(e.title or e.kind)
    what = "; ".join(f"{h}: {', '.join(titles)}" for h, titles in left.items())
    return (f"restore stopped by an internal error ({signals.shown(f'{type(bug).__name__}: {bug}')}): "
            + (f"not restored yet: {what} (restore.json says the same)" if left else "every prep entry is restored")
            + f"; run planner restore {run_dir.name} again to finish (what is restored already is not done again)")


def _received(run_dir: Path) -> InputError:
    return InputError([Problem(None, "", (
        f"run {run_dir.name} was not made on this controller by this user (meta.json has no valid origin "
        "seal: the folder was received, pulled from a store, changed, or written by an older planner): "
        "its hosts, SSH options and locks are data, not settings planner trusts; no host was touched"),
        "run planner restore where the run was made; else put the hosts back by hand from its restore.json")])


def _checked_remote(run_dir: Path, given: object) -> dict[str, dict[str, str]]:
    """meta.json ``remote``, refused unless each workdir is this run's folder for that host (``.../<run>/<host>``)
    and each path is absolute without ``..``: a restore stops the processes recorded there and removes the lock."""
    out: dict[str, dict[str, str]] = {}
    for name, where in (given or {}).items() if isinstance(given, dict) else ():
        where = where if isinstance(where, dict) else {}
        wd, lock = str(where.get("workdir") or ""), str(where.get("lock") or "")
        plain = all(p == "" or (p.startswith("/") and ".." not in p.split("/")) for p in (wd, lock))
        # a folder made before host_slug named the workdir by the bare slug
        ends = tuple(f"/{run_dir.name}/{f(str(name))}" for f in (host_slug, slug))
        if not plain or (wd and not wd.endswith(ends)):
            raise InputError([Problem(None, "", f"{run_dir / runfolder.META}: remote.{name} names workdir {wd!r} "
                                                f"and lock {lock!r}, not this run's folder on that host: refused, "
                                                "nothing was touched", "a run record planner did not write is "
                                                "not restored; put the hosts back by hand from restore.json")])
        out[str(name)] = {"workdir": wd, "lock": lock}
    return out


def _stop_leftovers(run_id: str, remote: dict[str, dict[str, str]], states: dict[str, HostState],
                    console: Console, why: Mapping[str, str]) -> list[StepResult]:
    """Before reverting prep, stop what the dead controller left running (its workload would undo the
    restore or measure a host being restored). A controller that still runs is not interfered with."""
    out: list[StepResult] = []
    for name, where in remote.items():
        hs = states.get(name)
        if hs is None or hs.conn is None:
            # said, not skipped: an empty recap exited 0 as if the host were restored and its lock released
            r = StepResult("restore", "Reaching the host the dead controller left", name, Status.UNREACHABLE,
                           f"{why.get(name, 'host not in the run record')}; its "
                           "lock and leftovers are still there: run planner restore again once it answers")
            out.append(r)
            console.result(r)
            continue
        holder = read_holder(hs.conn, where["lock"]) if where.get("lock") else None
        if holder is not None and holder.run_id == run_id and holder.alive():
            raise PlannerError(f"run {run_id} is still running (controller {holder.controller} pid {holder.pid})",
                               hint="stop it with Ctrl-C or SIGTERM: it restores the hosts itself")
        stopped = stop_leftovers(hs.conn, where["workdir"]) if where.get("workdir") else []
        for line in stopped:
            if line.startswith("left process group"):  # someone planted a record: say so whatever the verbosity
                console.warn(f"{name}: {line}")
        if stopped:
            r = StepResult("restore", "Stopping what the dead controller left running", name, Status.CHANGED,
                           "; ".join(stopped))
            out.append(r)
            console.result(r)
    return out
