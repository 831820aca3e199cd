"""The host lock: one planner run per host at a time.

The lock is a directory on the host (``mkdir`` is atomic) holding ``holder.json`` (run id, controller, pid,
since). A second run is refused naming the holder. A lock whose controller process is gone is reported as
stale; ``--break-stale-lock`` breaks it. A run resumed with ``--resume`` takes over the lock its own dead
controller left without that flag (same run id, process gone); while that controller still lives it is
refused like anyone else. The first attempt rides in the facts' round trip (``start_host``); only breaking or
taking over a lock costs more.

The lock sits in world-writable /tmp, so a lock is read, taken over or broken only when it is a folder of the
login user's: one another user made (a squat) or a symlink is refused by name, never followed, never broken.
The workdir base it prepares must be the login user's own too (remote_procs.STATE_FNS).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from planner.engine import batch, probes
from planner.engine.execute import HostState
from planner.engine.runrecord import RunRecord, controller_name, utc_now
from planner.errors import ConnectError, PlannerError, StepError
from planner.files import host_slug, name_file
from planner.host import DEFAULT_WORKDIR, Host
from planner.results import runfolder
from planner.status import Status, StepResult
from planner.transport import facts as facts_mod
from planner.transport import hostprograms
from planner.transport import remote_procs as procs
from planner.transport.connection import CommandResult, Connection
from planner.transport.facts import Facts

# $3 (optional): this run's remote_procs directory, made in the same round trip once the lock is ours.
# No `exit`: the runner runs this before the facts script in one round trip (facts.gather_after).
LOCK_SCRIPT = 'lock=$1; info=$2; procs=$3\n' + procs.STATE_FNS + batch.LOCK_BODY


def lock_path(root: str, host: Host) -> str:
    """The host's lock: by default one per inventory host name, so several inventory hosts that are one
    machine (or one loopback address) are worked on side by side in one run, as Ansible would. Hosts that
    must exclude each other (one database, one set of disks) name one lock with ``planner_lock``. The folder
    the locks are made in is /tmp unless ``planner_lock_dir`` names another (an existing folder of the login
    user: in world-writable /tmp another user can make a host's lock first, and every run is refused)."""
    base = str(host.vars.get("planner_lock_dir") or "/tmp").rstrip("/")
    return root + str(host.vars.get("planner_lock") or f"{base}/planner.lock.{host_slug(host.name)}")


@dataclass(frozen=True, slots=True)
class Holder:
    run_id: str
    controller: str
    pid: int
    since: str

    def alive(self) -> bool | None:
        """Whether the holder still runs; None when it is another controller (cannot tell from here)."""
        if self.controller != controller_name():
            return None
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    @staticmethod
    def parse(text: str) -> Holder:
        try:
            h = json.loads(text or "{}")
            return Holder(str(h["run_id"]), str(h["controller"]), int(h["pid"]), str(h["since"]))
        except (ValueError, KeyError, TypeError):
            return Holder("unknown", "unknown", 0, "unknown")


def read_holder(conn: Connection, path: str) -> Holder | None:
    text = conn.read_text(path + "/holder.json")
    return None if text is None else Holder.parse(text)


def lock_args(path: str, run_id: str, since: str, prepare_dir: str = "") -> list[str]:
    """LOCK_SCRIPT's arguments: the lock, what holder.json says, the directory to make once it is ours."""
    info = json.dumps({"run_id": run_id, "controller": controller_name(), "pid": os.getpid(), "since": since})
    return [path, info, prepare_dir]


def acquire_lock(conn: Connection, path: str, run_id: str, since: str, *, break_stale: bool = False,
                 dead_pids: frozenset[int] | None = None, prepare_dir: str = "",
                 reply: str | None = None) -> Holder | None:
    """Take the host for ``run_id``; returns the holder of the stale lock that was broken (or taken over).

    ``dead_pids``: a resumed run's dead controllers (the first and every resume since), whose lock (same run id,
    one of those pids) is taken over: a resume that died before it took the lock leaves the first one's.
    ``reply``: what LOCK_SCRIPT already printed (run with the facts); then only a broken lock costs a round trip.
    """
    broken: Holder | None = None
    for attempt in (1, 2):
        if attempt == 1 and reply is not None:
            out = reply
        else:
            out = conn.run(["sh", "-c", LOCK_SCRIPT, "sh", *lock_args(path, run_id, since, prepare_dir)]).stdout
        if out.startswith("acquired"):
            return broken
        if out.startswith("unsafe "):
            raise procs.unsafe_base(conn.host.name, out)
        if out.startswith("foreign"):
            listing = out.split("\n", 1)[1].strip() if "\n" in out else ""
            raise StepError(f"the host lock {path} was not made by planner as the login user: another user made "
                            f"it, or it is not a folder ({listing}); refused: never read, never broken",
                            hint=f"if nobody should have made it, remove {path} as root (sudo rm -rf -- {path}); or "
                                 "give the inventory a lock folder only the login user can write: planner_lock_dir "
                                 "(group_vars/all: every host's lock), or planner_lock for one host")
        text = out.split("\n", 1)[1].strip() if "\n" in out else ""
        if not text and attempt == 1:
            # the lock is made (mkdir) before its holder.json is written: a host that asks in between (another
            # inventory host of this run naming the same lock, under load) asks once more, when it is written
            continue
        holder = Holder.parse(text)
        alive = holder.alive()
        # --resume: the lock our own killed controller left (run ids alone may collide across runs dirs)
        own = dead_pids is not None and holder.run_id == run_id and holder.pid in dead_pids
        if alive is False and (break_stale or own) and attempt == 1:
            conn.run(["rm", "-rf", "--", path])
            broken = holder
            continue
        state = ("it names no holder: being taken at this moment, or left so by a run that died taking it"
                 if not text
                 else "this run: another of its inventory hosts names the same lock (planner_lock)"
                 if holder.run_id == run_id and holder.pid == os.getpid() and alive
                 else "stale: its controller process is gone" if alive is False
                 else "controller on another machine: cannot tell whether it still runs" if alive is None
                 else "in progress")
        hint = ("break it with --break-stale-lock" if alive is False
                else f"wait for run {holder.run_id} to finish, or remove {path} on the host if you are sure "
                     "it is dead")
        raise StepError(f"host is held by run {holder.run_id} ({state}; controller {holder.controller} "
                        f"pid {holder.pid}, since {holder.since})", hint=hint)
    raise StepError(f"could not take the host lock {path}", hint="another run took it at the same moment")


# Only a lock that is ours is removed; with it, the run's records of its commands' process groups ($3) and,
# when asked, the run's work folder on the host ($4, batch.DROP_FN's checks), before the lock goes.
RELEASE_SCRIPT = procs.STATE_FNS + batch.DROP_FN + (
    'grep -q -- "\\"run_id\\": \\"$2\\"" "$1/holder.json" 2>/dev/null && '
    '{ [ -z "$3" ] || rm -rf -- "$3"; [ -z "$4" ] || _drop "$4"; rm -rf -- "$1"; }')


def release_lock(conn: Connection, path: str, run_id: str, running: str = "", workdir: str = "") -> None:
    """Release the host's lock if ``run_id`` holds it; ``workdir``: also remove the run's work folder there."""
    conn.run(["sh", "-c", RELEASE_SCRIPT, "sh", path, run_id, running, workdir])


def _base(hs: HostState) -> str:
    return str(hs.host.vars.get("planner_root", "") or "") + str(hs.host.vars.get("planner_workdir") or DEFAULT_WORKDIR)


def run_workdir(hs: HostState, run_id: str) -> str:
    """The run's folder on the host, one per inventory host: hosts that are one machine never share point
    folders or the record of their commands' process groups."""
    return f"{_base(hs)}/{run_id}/{host_slug(hs.host.name)}"


def gather_and_lock(hs: HostState, run_id: str) -> tuple[Facts, CommandResult, str | None]:
    """The facts and the lock attempt in one round trip: (facts, the command, the lock's reply for take_host)."""
    assert hs.conn is not None
    root = str(hs.host.vars.get("planner_root", "") or "")
    args = lock_args(lock_path(root, hs.host), run_id, utc_now(), procs.running_dir(run_workdir(hs, run_id)))
    return facts_mod.gather_after(hs.conn, root, LOCK_SCRIPT, args)


def start_host(hs: HostState, record: RunRecord | None,
               b: probes.Batch | None = None) -> tuple[StepResult, str | None, batch.Reply | None]:
    """Gather the host's facts, and with a run record try its lock in the same round trip; with ``b``, the
    play's batched reads (and the lock's release) ride in it too: (the facts result, the lock's reply for
    take_host or None, the batch's reply). Check mode (no record) takes no lock."""
    try:
        assert hs.conn is not None
        root = str(hs.host.vars.get("planner_root", "") or "")
        if b is None or not (b.probes or b.release):  # nothing batched: the lighter facts script
            reply = None
            if record is None:
                f, _ = facts_mod.gather(hs.conn, root)
            else:
                f, cmd, reply = gather_and_lock(hs, record.id)
                record.log_command(hs.host.name, "facts", cmd)
            return _facts_ok(hs, record, f), reply, None
        lock = ("", "", "") if record is None else lock_args(
            lock_path(root, hs.host), record.id, utc_now(), procs.running_dir(run_workdir(hs, record.id)))
        r = hs.conn.run(batch.argv(b.lines, lock=lock, facts_root=root, release=b.release and record is not None,
                                   run_id=record.id if record else ""), timeout=b.timeout_s)
        got = batch.parse(r.stdout)
        if got.facts is None and got.lock is None:  # the script did not start (e.g. no mktemp): as before
            return start_host(hs, record, None)
        text = got.facts.stdout.decode(errors="replace") if got.facts else ""
        if record is not None:  # the command log shows this exec's lock and facts; each batched read is
            # logged under the step that uses it
            record.log_command(hs.host.name, "facts", CommandResult(
                r.command, r.exit_code, (got.lock or "") + text, r.stderr, r.duration_s, r.timed_out))
        hs.released = got.released
        return _facts_ok(hs, record, facts_mod.parse(text)), got.lock, got
    except ConnectError as e:
        return StepResult("facts", "Gathering Facts", hs.host.name, Status.UNREACHABLE, str(e)), None, None


def _facts_ok(hs: HostState, record: RunRecord | None, f: Facts) -> StepResult:
    facts = f.to_json()  # once: it was built twice a host
    if record is not None:
        name, file = hs.host.name, name_file(hs.host.name)  # an inventory name is input: never a path
        record.write(f"{runfolder.FACTS}/{file}.json", facts | ({"inventory_name": name} if file != name else {}))
    hs.facts = facts
    if f.missing:  # refused before any step: its commands would fail on whatever broke first
        hs.blocked = hostprograms.refusal(f.missing)
        return StepResult("facts", "Gathering Facts", hs.host.name, Status.FAILED, hs.blocked)
    return StepResult("facts", "Gathering Facts", hs.host.name, Status.OK)


def relock(hs: HostState, conn: Connection, run_id: str) -> None:
    """Take the host again after the play's one exec released its lock (a step needs the host after all)."""
    root = str(hs.host.vars.get("planner_root", "") or "")
    acquire_lock(conn, lock_path(root, hs.host), run_id, utc_now(), prepare_dir=procs.running_dir(hs.workdir))
    hs.released = False


def take_host(hs: HostState, run_id: str, *, break_stale: bool, resumes_pids: frozenset[int] | None,
              reply: str | None = None) -> tuple[StepResult | None, str, bool]:
    """Lock the host for ``run_id``, make its commands trackable; (a result to show or None, a note, locked).

    ``reply``: the lock attempt gather_and_lock made. A resumed run first stops what its dead controller left
    running on the host (planner.transport.remote_procs).
    """
    assert hs.conn is not None
    root = str(hs.host.vars.get("planner_root", "") or "")
    hs.workdir = run_workdir(hs, run_id)
    try:
        broken = acquire_lock(hs.conn, lock_path(root, hs.host), run_id, utc_now(), break_stale=break_stale,
                              dead_pids=resumes_pids, prepare_dir=procs.running_dir(hs.workdir), reply=reply)
    except ConnectError as e:
        hs.unreachable = True
        return StepResult("lock", "Taking the host", hs.host.name, Status.UNREACHABLE, str(e)), "", False
    except PlannerError as e:
        hs.blocked = str(e)
        return StepResult("lock", "Taking the host", hs.host.name, Status.FAILED, str(e)), "", False
    note = ""
    if broken is not None and broken.run_id == run_id and resumes_pids and broken.pid in resumes_pids:
        note = f"took over the lock of this run's dead controller (pid {broken.pid})"
    elif broken is not None:
        note = (f"broke the stale lock of run {broken.run_id} (controller {broken.controller} pid {broken.pid} "
                f"is gone, since {broken.since}); its prep may still be in place: planner restore {broken.run_id}")
    try:
        # the dead holder's leftover workload would run beside ours: stop it first
        stopped = (procs.stop_leftovers(hs.conn, run_workdir(hs, broken.run_id))
                   if broken is not None and _is_run_id(broken) else [])
        stopped += procs.stop_leftovers(hs.conn, hs.workdir) if resumes_pids is not None and broken is None else []
        if broken is not None or resumes_pids is not None:  # otherwise the lock script made the directory
            procs.prepare(hs.conn, hs.workdir)
    except ConnectError as e:
        hs.unreachable = True
        return StepResult("lock", "Taking the host", hs.host.name, Status.UNREACHABLE, str(e)), note, True
    except PlannerError as e:
        hs.blocked = str(e)
        return StepResult("resume", "Stopping what the dead controller left running", hs.host.name,
                          Status.FAILED, str(e)), note, True
    hs.conn = procs.TrackedConnection(hs.conn, hs.workdir)
    if stopped:
        return StepResult("resume", "Stopping what the dead controller left running", hs.host.name,
                          Status.CHANGED, "; ".join(stopped)), note, True
    return None, note, True


def remote_meta(states: Sequence[HostState]) -> dict[str, dict[str, str]]:
    """meta.json ``remote``: where `planner restore` and `--resume` find each host's lock and workdir."""
    return {hs.host.name: {"workdir": hs.workdir, "lock": lock_path(str(hs.host.vars.get("planner_root", "") or ""),
                                                                    hs.host)} for hs in states}


def _is_run_id(holder: Holder | None) -> bool:
    """A run id as planner makes them (it becomes part of a path on the host)."""
    return holder is not None and bool(re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", holder.run_id))


def release_host(hs: HostState, run_id: str, *, clean: bool = False) -> str | None:
    """Release the host if this run holds it; ``clean``: with the run's work folder there (the run is over on
    this host). A warning when that fails."""
    root = str(hs.host.vars.get("planner_root", "") or "")
    drop = hs.workdir if clean and hs.workdir == run_workdir(hs, run_id) else ""  # only ever this run's own
    try:
        assert hs.conn is not None
        hs.conn.resume()
        release_lock(hs.conn, lock_path(root, hs.host), run_id, procs.running_dir(hs.workdir) if hs.workdir else "",
                     drop)
        return None
    except PlannerError as e:
        return f"{hs.host.name}: could not release the host lock: {e}"
