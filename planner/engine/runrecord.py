"""The run record: ``runs/<UTC-timestamp>-<plan>/``, self-contained and always readable.

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
import subprocess
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from planner import __version__
from planner.files import slug, write_bytes, write_json
from planner.host import Host
from planner.plan.model import Plan
from planner.transport.connection import CommandResult

OUTPUT_LIMIT = 1 << 20  # per stream per command in commands.jsonl; whole outputs belong in artifacts


def utc_now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def git_provenance(path: Path) -> dict[str, Any]:
    """The commit of the plan file's repository and whether the plan (or anything) is uncommitted."""
    cwd = path.parent if path.is_file() else path
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True,
                                timeout=10)
        if commit.returncode != 0:
            return {"commit": None, "dirty": None, "note": "not in a git repository"}
        status = subprocess.run(["git", "status", "--porcelain", "--", str(path.resolve())], cwd=cwd,
                                capture_output=True, text=True, timeout=10)
        tree = subprocess.run(["git", "status", "--porcelain"], cwd=cwd, capture_output=True, text=True,
                              timeout=10)
        return {"commit": commit.stdout.strip(), "plan_dirty": bool(status.stdout.strip()),
                "dirty": bool(tree.stdout.strip())}
    except (OSError, subprocess.TimeoutExpired):
        return {"commit": None, "dirty": None, "note": "git not available"}


class RunRecord:
    """Writes one run folder. Thread-safe: hosts run in parallel."""

    def __init__(self, runs_dir: Path, plan_name: str, *, secrets: tuple[str, ...] = ()) -> None:
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        base = runs_dir / f"{stamp}-{slug(plan_name)}"
        path, n = base, 1
        while path.exists():
            n += 1
            path = base.with_name(f"{base.name}-{n}")
        path.mkdir(parents=True)
        self._attach(path, secrets)

    def _attach(self, path: Path, secrets: tuple[str, ...]) -> None:
        """Every attribute of an open record, for a new folder and for one reopened by --resume alike."""
        self.path = path
        self.id = path.name
        self._lock = threading.Lock()
        self._secrets = tuple(s for s in secrets if s)
        self._commands = _open_log(path / "commands.jsonl")
        self.meta: dict[str, Any] = {}
        self.write_errors: list[str] = []  # commands.jsonl lines lost (disk full): the runner reports them

    # -- secrets never land in the record -------------------------------------------------------------
    def redact(self, text: str) -> str:
        for s in self._secrets:
            text = text.replace(s, "********")
        return text

    def add_secret(self, secret: str) -> None:
        if secret:
            self._secrets = (*self._secrets, secret)

    # -- files -----------------------------------------------------------------------------------------
    def write_meta(self, **fields: Any) -> None:
        with self._lock:
            self.meta.update(fields)
            write_json(self.path / "meta.json", self.meta)

    def write(self, relpath: str, data: Any) -> None:
        text = json.dumps(data, indent=2, default=str) + "\n"
        write_bytes(self.path / relpath, self.redact(text).encode())

    def write_text(self, relpath: str, text: str) -> Path:
        target = self.path / relpath
        write_bytes(target, self.redact(text).encode())
        return target

    def artifact_dir(self, *parts: str) -> Path:
        d = self.path.joinpath("artifacts", *(slug(p) for p in parts))
        d.mkdir(parents=True, exist_ok=True)
        return d

    def log_command(self, host: str, step: str, result: CommandResult) -> None:
        entry = {
            "time": utc_now(), "host": host, "step": step, "command": self.redact(result.command),
            "exit_code": result.exit_code, "duration_s": round(result.duration_s, 4),
            "timed_out": result.timed_out,
            "stdout": self.redact(result.stdout[:OUTPUT_LIMIT]), "stderr": self.redact(result.stderr[:OUTPUT_LIMIT]),
            "truncated": len(result.stdout) > OUTPUT_LIMIT or len(result.stderr) > OUTPUT_LIMIT,
        }
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
        path = self.path / "commands.jsonl"
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


def _open_log(path: Path) -> Any:
    """commands.jsonl for appending, 0600 like every other record file (it holds every command's output)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.fchmod(fd, 0o600)  # a folder resumed from an older planner had it at 0644
    return os.fdopen(fd, "a", encoding="utf-8")


def open_record(runs_dir: Path, plan: Plan, play_hosts: Mapping[str, Sequence[Host]], *,
                argv: Sequence[str] = (), secrets: tuple[str, ...] = (), simulated: bool = False) -> RunRecord:
    """Create the run folder with meta.json (status running) and the plan as given."""
    rec = RunRecord(runs_dir, plan.name, secrets=secrets)
    hosts = sorted({h.name: h for hs in play_hosts.values() for h in hs}.values(), key=lambda h: h.name)
    rec.write_meta(
        run_id=rec.id, plan=plan.name, plan_file=str(plan.source), description=plan.description,
        git=git_provenance(plan.source), **environment_meta(), started=utc_now(), ended=None,
        status="running", argv=[rec.redact(a) for a in argv], simulated=simulated,
        # enough to reach the hosts again for `planner restore` (no secrets: those stay in env/files)
        hosts={h.name: {"address": h.address, "port": h.port, "user": h.user,
                        "key_file": str(h.key_file) if h.key_file else None, "connection": h.connection,
                        "become": h.become, "become_user": h.become_user, "groups": list(h.groups),
                        "planner_root": h.vars.get("planner_root", ""),
                        "known_hosts": h.vars.get("planner_known_hosts")} for h in hosts},
        plays=[{"name": p.name, "hosts": [h.name for h in play_hosts.get(p.name, ())]} for p in plan.plays])
    rec.write_text("plan.yaml", plan.source.read_text())
    return rec


def finish_record(rec: RunRecord, recap: Mapping[str, Any], transcript: Sequence[str], code: int,
                  interrupted: str = "") -> None:
    """Close a run: recap, console transcript and the final status. A full disk must not stop the run ending."""
    status = {0: "complete", 2: "failed", 4: "unreachable", 99: "interrupted"}.get(code, "failed")
    with contextlib.suppress(OSError):
        rec.write("recap.json", recap)
        rec.write_text("console.log", "\n".join(transcript) + "\n")
        rec.write_meta(ended=utc_now(), status=status, exit_code=code,
                       **({"interrupted_phase": interrupted} if interrupted else {}))
    rec.close()


def environment_meta() -> dict[str, Any]:
    return {"planner_version": __version__, "python": platform.python_version(),
            "controller": platform.node(), "controller_platform": platform.platform()}


def load_meta(run_dir: Path) -> Mapping[str, Any]:
    return json.loads((run_dir / "meta.json").read_text())
