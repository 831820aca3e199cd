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
import platform
import re
import subprocess
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from planner import __version__
from planner.engine import origin
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

# libyaml's emitter writes the same text as PyYAML's pure-Python one, ~10x faster: plan.resolved.yaml holds every
# host's arguments and is rewritten after each step, the largest cost per host of a big warm play
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

OUTPUT_LIMIT = 1 << 20  # per stream per command in commands.jsonl; whole outputs belong in artifacts
# Values of variables whose name says secret, in inventory files (INI `k=v`, YAML `k: v`): never copied.
# SQL that carries a password in its text (ALTER/CREATE USER ... IDENTIFIED BY pw, CONNECT u/pw)
_SQL_SECRET = re.compile(r"(?i)(identified\s+by\s+)(\"[^\"]*\"|[^\s;]+)")  # the ; ends the statement


def utc_now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


# What installing and running planner leaves in a clone (pip's build/, a venv, egg-info, run folders, report
# copies, caches): never a change to what produced the result.
_SETUP_LEFTOVERS = frozenset({"build", "dist", ".venv", "venv", "runs", "reports", "__pycache__", ".pytest_cache",
                              ".mypy_cache", ".ruff_cache", ".hypothesis"})
_CHANGES_LISTED = 20


def _changes(porcelain: str) -> list[str]:
    """The paths of ``git status --porcelain`` that can change a result: planner's own leftovers dropped."""
    paths = []
    for line in porcelain.splitlines():
        path = line[3:].split(" -> ")[-1].strip('"')
        parts = path.rstrip("/").split("/")
        if any(p in _SETUP_LEFTOVERS or p.endswith(".egg-info") for p in parts) or path.endswith(".pyc"):
            continue
        paths.append(path)
    return paths


def git_provenance(path: Path) -> dict[str, Any]:
    """The commit of the plan file's repository and whether the plan (or anything that can change the result)
    is uncommitted, naming the first few changed paths."""
    cwd = path.parent if path.is_file() else path
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True,
                                timeout=10)
        if commit.returncode != 0:
            return {"commit": None, "dirty": None, "note": "not in a git repository"}
        status = subprocess.run(["git", "status", "--porcelain", "--", str(path.resolve())], cwd=cwd,
                                capture_output=True, text=True, timeout=10)
        # every untracked file by name: a folder holding only leftovers (tests/__pycache__) is not a change
        tree = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=cwd, capture_output=True,
                              text=True, timeout=10)
        changed = _changes(tree.stdout)
        return {"commit": commit.stdout.strip(), "plan_dirty": bool(status.stdout.strip()),
                "dirty": bool(changed), "changed": changed[:_CHANGES_LISTED]}
    except (OSError, subprocess.TimeoutExpired):
        return {"commit": None, "dirty": None, "note": "git not available"}


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
            path = runs_dir / new_run_id(plan_name, platform.node())
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
                with self._lock:
                    self.meta.setdefault("redacted_artifacts", []).append(
                        {"path": rel, "replaced": n, "note": "secrets replaced by ******** after the fetch"})
        if changed:
            self.write_meta()
        return changed

    # -- files -----------------------------------------------------------------------------------------
    def write_meta(self, **fields: Any) -> None:
        with self._lock:
            self.meta.update(fields)
            runfolder.write_meta(self.path, origin.sealed(self.redact_value(self.meta)))

    def _target(self, relpath: str) -> Path:
        """``relpath`` inside the run folder; a name made from outside input must never lead out of it."""
        p = PurePosixPath(relpath)
        if not relpath or p.is_absolute() or ".." in p.parts or "\x00" in relpath:
            raise PlannerError(f"record file {relpath!r} would lead outside the run folder {self.path}")
        return self.path / p

    def write(self, relpath: str, data: Any) -> None:
        text = json.dumps(self.redact_value(data), indent=2, default=lambda o: self.redact(str(o))) + "\n"
        write_bytes(self._target(relpath), self.redact(text).encode())

    def append(self, relpath: str, entries: Sequence[Any]) -> bool:
        """``entries`` appended to the JSON list ``relpath`` holds (written by ``write``), redacted the same way
        and in the same layout; False when the file is not such a list (then ``write`` it whole)."""
        if not entries:
            return True
        text = json.dumps(self.redact_value(list(entries)), indent=2, default=lambda o: self.redact(str(o)))
        return append_json_items(self._target(relpath), self.redact(text)[2:-2].encode())  # inside "[\n" "\n]"

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
                resolved.setdefault(play, {}).setdefault(host, {})[step] = dict(entry)
            if not write:
                return
            doc = {"plays": [{"name": p, "hosts": hosts} for p, hosts in resolved.items()]}
            text = "# each step's arguments per host after variables (the plan as given is plan.yaml)\n"
            text += yaml.dump(_plain(doc), Dumper=_DUMPER, sort_keys=False, default_flow_style=False,
                              allow_unicode=True)
        try:
            self.write_text(RESOLVED_PLAN, text)
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
    if not forms:
        return 0
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


def _plain(v: Any) -> Any:
    """YAML-safe copy: mappings, lists and scalars only (tuples become lists, other objects their str)."""
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    return v if v is None or isinstance(v, bool | int | float | str) else str(v)


_STATUS_WORDS = {ExitCode.OK: "complete", ExitCode.FAILED: "failed", ExitCode.UNREACHABLE: "unreachable",
                 ExitCode.INTERRUPTED: "interrupted"}


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
    return {"planner_version": __version__, "python": platform.python_version(),
            "controller": platform.node(), "controller_platform": origin.controller_platform()}


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
        same_host = m.controller in ("", platform.node())
        if same_host and _alive(m.pid) is False:
            return ("interrupted (its controller was killed before closing the run; `planner restore RUN` "
                    "restores prep, `planner apply --resume RUN` goes on)")
        return "running" + (f" (controller pid {m.pid})" if m.pid else "")
    if status == "interrupted":
        return ("interrupted" + (f" during {phase}" if phase else "")
                + (f" (exit code {code})" if code is not None else ""))
    return status + (f" (exit code {code})" if code is not None else "")

