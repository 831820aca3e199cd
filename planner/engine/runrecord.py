"""The run record: ``runs/<UTC-timestamp>-<plan>-<controller>-<random>/``, self-contained and always readable.

Every JSON file is written atomically (temp file + rename); commands.jsonl is appended one complete line at a
time and flushed, so an interrupted run still leaves valid files. meta.json carries the run's status:
``running`` while it runs, then ``complete``, ``failed``, ``unreachable`` or ``interrupted``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from planner import __version__
from planner.engine import origin
from planner.engine.provenance import git_provenance
from planner.engine.resolved_yaml import ResolvedText
from planner.errors import PlannerError
from planner.files import append_json_items, host_slug, slug, write_bytes
from planner.host import Host
from planner.plan.model import Plan
from planner.redaction import MASK, mask_logins, redact_text, redact_value, secret_forms
from planner.results import runfolder
from planner.results.runfolder import RESOLVED_PLAN, RunMeta
from planner.results.world import HostWorld
from planner.runid import new_run_id
from planner.status import ExitCode
from planner.transport.connection import CommandResult

# Files people open and read (small, written once): indented; meta.json, written a few times, one field a
# line (_field_lines). Every other JSON file of the record is read by planner (show, report, store, resume)
# and written compactly: json's C encoder serves only indent=None, several times faster than its pure-Python
# one; a JSON list holds one item a line, so appending stays possible (results.json, facts/*.json: their
# size grows with the hosts and the points).
_READ_BY_PEOPLE = frozenset({runfolder.RECAP, runfolder.SYNC_START})

OUTPUT_LIMIT = 1 << 20  # per stream per command in commands.jsonl; whole outputs belong in artifacts
# Values of variables whose name says secret, in inventory files (INI `k=v`, YAML `k: v`): never copied.
# SQL that carries a password in its text (ALTER/CREATE USER ... IDENTIFIED BY pw, CONNECT u/pw)
_SQL_SECRET = re.compile(r"(?i)(identified\s+by\s+)(\"[^\"]*\"|[^\s;]+)")  # the ; ends the statement


def utc_now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _field_lines(obj: Mapping[str, Any]) -> str:
    """A JSON object one field a line, each value compact: meta.json as people read it (``grep status``), by
    json's C encoder (indent= takes its pure-Python one, ~4x the CPU, at each of a run's meta.json writes)."""
    fields = (f"  {json.dumps(k)}: {json.dumps(v, default=str)}" for k, v in obj.items())
    return "{\n" + ",\n".join(fields) + "\n}\n" if obj else "{}\n"


def _resolved_entries(path: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """plan.resolved.yaml's entries by play (empty for a new folder or an unreadable file)."""
    resolved: dict[str, dict[str, dict[str, Any]]] = {}
    with contextlib.suppress(TypeError, AttributeError, KeyError):
        for p in runfolder.read_resolved_plan(path).get("plays", []):
            resolved[str(p["name"])] = dict(p.get("hosts") or {})
    return resolved


class RunRecord:
    """Writes one run folder. Thread-safe: hosts run in parallel."""

    def __init__(self, runs_dir: Path, plan_name: str, *, secrets: tuple[str, ...] = ()) -> None:
        runs_dir.mkdir(parents=True, exist_ok=True)
        while True:  # the id's random part makes a clash rare; mkdir without exist_ok makes it impossible
            path = runs_dir / new_run_id(plan_name, controller_name())
            try:
                path.mkdir()
                break
            except FileExistsError:
                continue
        self._attach(path, secrets)

    def _attach(self, path: Path, secrets: tuple[str, ...]) -> None:
        """Every attribute of an open record, for a new folder and for one reopened by --resume alike."""
        self.path = path
        self.id = path.name
        self._lock = threading.Lock()
        self._secrets = tuple(s for s in secrets if s)
        self._commands = _open_log(path / runfolder.COMMANDS)
        self.meta: dict[str, Any] = {}
        self.write_errors: list[str] = []  # commands.jsonl lines lost (disk full): the runner reports them
        # play -> host -> step path -> entry; a folder reopened by --resume starts from what its file holds
        self._resolved: dict[str, dict[str, dict[str, Any]]] = _resolved_entries(path)
        self._resolved_text = ResolvedText(self.redact)  # each entry's text, dumped and redacted once
        self._resolved_dirty = not (path / RESOLVED_PLAN).exists()  # noted since the file was written (or none yet)
        self._meta_redacted: dict[str, tuple[Any, Any]] = {}  # field -> (value, its redacted copy)
        self._meta_written: dict[str, Any] | None = None  # meta.json as last written
        self._scrubbed: set[str] = set()  # artifacts already checked for secrets

    # -- secrets never land in the record -------------------------------------------------------------
    # Redaction is a property of values: each string is redacted before it is encoded, so a password holding
    # `"`, `\` or non-ASCII (which json.dumps escapes) cannot survive as its escaped form; the escaped forms
    # are redacted in free text too, for values that were JSON before they reached the record.
    def redact(self, text: str) -> str:
        return redact_text(text, self._secrets)

    def redact_value(self, value: Any) -> Any:
        return redact_value(value, self._secrets)

    def redact_head(self, text: str, limit: int) -> str:
        """``redact(text)`` cut to ``limit`` characters, reading only about ``limit`` of it: a secret split by
        the cut is masked, not left as its first half."""
        return redact_head(text, limit, self._secrets)

    def redact_sql(self, text: str) -> str:
        return _SQL_SECRET.sub(r"\1********", self.redact(text))

    def add_secret(self, secret: str) -> None:
        if secret:
            self._secrets = (*self._secrets, secret)
            self._meta_redacted.clear()  # redacted without the new secret
            self._resolved_text = ResolvedText(self.redact)

    def scrub_artifacts(self, relpaths: Sequence[str]) -> list[str]:
        """Redact the secrets inside fetched or saved artifacts, in place (streamed: bounded memory); the record
        notes each file changed (meta.json ``redacted_artifacts``: why a hash no longer matches the host's)."""
        if not self._secrets:
            return []
        changed: list[str] = []
        scrubbed = self._scrubbed
        for rel in relpaths:
            target = self.path / rel
            if rel in scrubbed or not target.is_file() or target.is_symlink():
                continue
            scrubbed.add(rel)
            try:
                n = scrub_file(target, self._secrets)
            except OSError as e:
                self.write_errors.append(f"{rel}: could not be checked for secrets: {e.strerror or e}")
                continue
            if n:
                changed.append(rel)
                with self._lock:  # a new list, never changed in place: write_meta redacts each new value
                    self.meta["redacted_artifacts"] = [*self.meta.get("redacted_artifacts", ()), {
                        "path": rel, "replaced": n, "note": "secrets replaced by ******** after the fetch"}]
        if changed:
            self.write_meta()
        return changed

    # -- files -----------------------------------------------------------------------------------------
    def write_meta(self, **fields: Any) -> None:
        """meta.json with ``fields`` set; each value is redacted once (a field's value is replaced, never changed
        in place), and a meta.json that would not change is not written again."""
        with self._lock:
            self.meta.update(fields)
            cache = self._meta_redacted
            redacted: dict[str, Any] = {}
            for k, v in self.meta.items():
                hit = cache.get(k)
                if hit is None or hit[0] is not v:
                    hit = cache[k] = (v, self.redact_value({k: v}))  # the field as redact_value saw it in meta
                redacted.update(hit[1])
            if redacted == self._meta_written:
                return
            write_bytes(self.path / runfolder.META, _field_lines(origin.sealed(redacted)).encode())
            self._meta_written = redacted

    def _target(self, relpath: str) -> Path:
        """``relpath`` inside the run folder; a name made from outside input must never lead out of it."""
        p = PurePosixPath(relpath)
        if not relpath or p.is_absolute() or ".." in p.parts or "\x00" in relpath:
            raise PlannerError(f"record file {relpath!r} would lead outside the run folder {self.path}")
        return self.path / p

    def _json(self, value: Any) -> str:
        return json.dumps(value, default=lambda o: self.redact(str(o)))  # no indent: the C encoder

    def write(self, relpath: str, data: Any) -> None:
        """``data`` as JSON, redacted: indented for a file people read, else compact, a list one item a line
        (``[``, the items joined by ``,`` and a newline, ``]``: the layout ``append`` adds to)."""
        value = self.redact_value(data)
        if relpath in _READ_BY_PEOPLE:
            text = json.dumps(value, indent=2, default=lambda o: self.redact(str(o)))
        elif isinstance(value, list) and value:
            text = "[\n" + ",\n".join(self._json(v) for v in value) + "\n]"
        else:
            text = self._json(value)
        # every file synced, facts included (~5 ms of each host's wall at its start): an empty facts file after a
        # power cut makes planner show refuse the run (main's merge of s53-records kept the sync)
        write_bytes(self._target(relpath), self.redact(text + "\n").encode())

    def append(self, relpath: str, entries: Sequence[Any]) -> bool:
        """``entries`` appended to the JSON list ``relpath`` holds (written by ``write``, or indented by an older
        planner), redacted the same way, one a line; False when the file is not such a list (then ``write`` it
        whole)."""
        if not entries:
            return True
        text = ",\n".join(self._json(v) for v in self.redact_value(list(entries)))
        return append_json_items(self._target(relpath), self.redact(text).encode())

    def write_text(self, relpath: str, text: str) -> Path:
        target = self._target(relpath)
        write_bytes(target, self.redact(text).encode())
        return target

    def write_list_items(self, relpath: str, items: Sequence[str]) -> None:
        """A JSON list laid out as ``write`` lays it out, from its items' texts, each already passed through
        ``redact`` by the caller (who keeps them: a list rewritten at every save then redacts each item once,
        not the whole file again each time). The joints hold no text a secret or a login could span."""
        write_bytes(self._target(relpath), ("[\n" + ",\n".join(items) + "\n]\n").encode())

    def append_list_items(self, relpath: str, items: Sequence[str]) -> bool:
        """``items`` (texts as ``write_list_items`` takes them) added at the end of the file's list in place; False,
        untouched, when the file holds no list in that layout (the caller writes it whole then)."""
        return append_json_items(self._target(relpath), ",\n".join(items).encode())

    def note_resolved(self, play: str, host: str, step: str, entry: Mapping[str, Any] | None, *,
                      write: bool = True) -> None:
        """One step's arguments on one host after variables (and sweep points), in plan.resolved.yaml; ``write=False``
        only notes, ``entry`` None writes what was noted (once per step: a dump per host was O(hosts^2))."""
        with self._lock:
            resolved = self._resolved
            if entry is not None:
                steps = resolved.setdefault(play, {}).setdefault(host, {})
                new = dict(entry)
                if steps.get(step) != new:
                    steps[step] = new
                    self._resolved_dirty = True
            if not write or not self._resolved_dirty:
                return  # only noted, or the file already says it all
            text = self._resolved_text.text(resolved)  # redacted
            self._resolved_dirty = False
        try:
            write_bytes(self._target(RESOLVED_PLAN), text.encode())
        except OSError as e:
            self.write_errors.append(f"{RESOLVED_PLAN}: {e}")

    def artifact_dir(self, play: str, host: str, *parts: str) -> Path:
        # the host as its lock and work folder name it: hosts `a b` and `a_b` never share a folder
        d = self.path.joinpath(runfolder.ARTIFACTS, slug(play), host_slug(host), *(slug(p) for p in parts))
        d.mkdir(parents=True, exist_ok=True)
        return d

    def log_command(self, host: str, step: str, result: CommandResult) -> None:
        entry = {
            "time": utc_now(), "host": host, "step": step, "command": self.redact(result.command),
            "exit_code": result.exit_code, "duration_s": round(result.duration_s, 4),
            "timed_out": result.timed_out,
            "stdout": self.redact_head(result.stdout, OUTPUT_LIMIT),
            "stderr": self.redact_head(result.stderr, OUTPUT_LIMIT),
            "truncated": result.truncated or len(result.stdout) > OUTPUT_LIMIT or len(result.stderr) > OUTPUT_LIMIT,
        }
        if result.stdin:  # e.g. the SQL a sqlplus call read: what ran is as much the script as the argv
            entry["stdin"] = self.redact_sql(result.stdin[:OUTPUT_LIMIT])
        line = json.dumps(entry) + "\n"
        with self._lock:
            try:
                self._commands.write(line)
                self._commands.flush()
            except OSError as e:  # the command ran all the same: its result must not be lost for a log line
                self.write_errors.append(f"commands.jsonl: {host} {step}: {e.strerror or e}")
                self._reopen_commands()

    def _reopen_commands(self) -> None:
        """Drop what a failed flush left buffered (a partial line) so later lines stay whole."""
        path = self.path / runfolder.COMMANDS
        with contextlib.suppress(OSError):
            self._commands.close()
        with contextlib.suppress(OSError), path.open("rb+") as f:  # cut a half-written last line
            size = f.seek(0, os.SEEK_END)
            start = max(0, size - 2 * OUTPUT_LIMIT - 65536)  # one line holds at most ~2 outputs
            f.seek(start)
            tail = f.read()
            if tail and not tail.endswith(b"\n"):
                f.truncate(start + tail.rfind(b"\n") + 1)
        self._commands = _open_log(path)

    def close(self) -> None:
        with self._lock:
            if not self._commands.closed:
                self._commands.close()


def redact_head(text: str, limit: int, secrets: Sequence[str]) -> str:
    forms = secret_forms(secrets)
    if not forms:
        return mask_logins(text[:limit])
    longest = len(forms[0])
    head = text[: limit + longest]
    red = redact_text(head, secrets)
    if len(head) < len(text):  # a secret straddling the end of what was read: mask its visible start
        for form in forms:
            for k in range(min(len(form) - 1, len(red)), 0, -1):
                if red.endswith(form[:k]):
                    red = red[:-k] + MASK
                    break
    return red[:limit]


def scrub_file(path: Path, secrets: Sequence[str], chunk: int = 1 << 20) -> int:
    """Replace every secret (UTF-8 bytes, as written and JSON-escaped) in a file; returns how many were
    replaced. Streams with an overlap of the longest secret, so memory stays bounded; the file is only
    rewritten (atomically, beside itself) when something was found."""
    forms = [f.encode() for f in secret_forms(secrets)]
    if not forms or not _holds_any(path, forms, chunk):
        return 0  # read only: a fetched file without a secret (nearly all) costs no copy beside it
    overlap = max(len(f) for f in forms) - 1
    found = 0
    tmp = path.with_name(f".{path.name}.redacting")
    with path.open("rb") as src, tmp.open("wb") as out:
        carry = b""
        while True:
            block = src.read(chunk)
            data = carry + block
            for f in forms:
                found += data.count(f)
                data = data.replace(f, MASK.encode())
            if not block:
                out.write(data)
                break
            keep = min(overlap, len(data))  # the tail may hold the start of a secret the next block ends
            out.write(data[: len(data) - keep])
            carry = data[len(data) - keep:]
    if found:
        os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    else:
        tmp.unlink()
    return found


def _holds_any(path: Path, forms: Sequence[bytes], chunk: int) -> bool:
    """Whether the file holds one of ``forms``, read in blocks that overlap by the longest form less a byte."""
    overlap = max(len(f) for f in forms) - 1
    with path.open("rb") as src:
        carry = b""
        while block := src.read(chunk):
            data = carry + block
            if any(f in data for f in forms):
                return True
            carry = data[len(data) - min(overlap, len(data)):]
    return False


def _open_log(path: Path) -> Any:
    """commands.jsonl for appending, 0600 like every other record file (it holds every command's output)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.fchmod(fd, 0o600)  # a folder resumed from an older planner had it at 0644
    return os.fdopen(fd, "a", encoding="utf-8")


def open_record(runs_dir: Path, plan: Plan, play_hosts: Mapping[str, Sequence[Host]], *,
                argv: Sequence[str] = (), secrets: tuple[str, ...] = (), simulated: bool = False,
                rehearsal_notes: Sequence[str] = (), world: Sequence[HostWorld] = ()) -> RunRecord:
    """Create the run folder with meta.json (status running) and the plan as given."""
    rec = RunRecord(runs_dir, plan.name, secrets=secrets)
    hosts = sorted({h.name: h for hs in play_hosts.values() for h in hs}.values(), key=lambda h: h.name)
    rec.write_meta(
        run_id=rec.id, plan=plan.name, plan_file=str(plan.source), description=plan.description,
        git=git_provenance(plan.source), **environment_meta(), started=utc_now(), ended=None,
        status="running", argv=[rec.redact(a) for a in argv], simulated=simulated,
        **({"rehearsal_notes": [rec.redact(n) for n in rehearsal_notes]} if rehearsal_notes else {}),
        **({"world": [w.to_json() for w in world]} if world else {}),
        # enough to reach the hosts again for `planner restore` (no secrets: those stay in env/files)
        hosts={h.name: {"address": h.address, "port": h.port, "user": h.user,
                        "key_file": str(h.key_file) if h.key_file else None, "connection": h.connection,
                        "become": h.become, "become_user": h.become_user, "groups": list(h.groups),
                        "planner_root": h.vars.get("planner_root", ""),
                        "known_hosts": h.vars.get("planner_known_hosts")} for h in hosts},
        plays=[{"name": p.name, "hosts": [h.name for h in play_hosts.get(p.name, ())]} for p in plan.plays])
    rec.write_text(runfolder.PLAN, plan.source.read_text())
    return rec


_STATUS_WORDS = {ExitCode.OK: "complete", ExitCode.FAILED: "failed", ExitCode.UNREACHABLE: "unreachable",
                 ExitCode.INTERRUPTED: "interrupted", ExitCode.UNEXPECTED: "error"}


def finish_record(rec: RunRecord, recap: Mapping[str, Any], transcript: Sequence[str], code: ExitCode,
                  interrupted: str = "") -> None:
    """Close a run: recap, console transcript and the final status. A full disk must not stop the run ending."""
    status = _STATUS_WORDS.get(code, "failed")
    with contextlib.suppress(OSError):
        rec.write(runfolder.RECAP, recap)
        rec.write_text(runfolder.CONSOLE, "\n".join(transcript) + "\n")
        rec.write_meta(ended=utc_now(), status=status, exit_code=int(code),
                       **({"interrupted_phase": interrupted} if interrupted else {}))
    rec.close()


def environment_meta() -> dict[str, Any]:
    return {"planner_version": __version__, "python": sys.version.split()[0], "controller": controller_name(),
            "controller_platform": origin.controller_platform()}


def controller_name() -> str:
    """This machine's name, as ``platform.node()`` says it (without importing ``platform``): the run's
    controller in meta.json and the holder a host lock names, compared by both, so one function says it."""
    return os.uname().nodename


def _alive(pid: Any) -> bool | None:
    """Whether controller ``pid`` still runs here (None: unknown, e.g. no pid recorded)."""
    try:
        n = int(pid)
    except (TypeError, ValueError):
        return None
    if n < 1:
        return None
    try:
        os.kill(n, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. EPERM: it exists, as another user's process
        return True
    return True


def status_text(meta: RunMeta | Mapping[str, Any]) -> str:
    """A run's status as people say it: a run whose controller was killed (meta.json still says running,
    no exit code) is "interrupted", never "exit code None"."""
    m = meta if isinstance(meta, RunMeta) else RunMeta.from_mapping(meta)
    status, code, phase = m.status or "unknown", m.exit_code, m.interrupted_phase
    if status == "running" and code is None:
        same_host = m.controller in ("", controller_name())
        if same_host and _alive(m.pid) is False:
            return ("interrupted (its controller was killed before closing the run; `planner restore RUN` "
                    "restores prep, `planner apply --resume RUN` goes on)")
        return "running" + (f" (controller pid {m.pid})" if m.pid else "")
    if status == "interrupted":
        return ("interrupted" + (f" during {phase}" if phase else "")
                + (f" (exit code {code})" if code is not None else ""))
    return status + (f" (exit code {code})" if code is not None else "")

