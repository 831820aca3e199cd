"""Around every workload point: the host lock, OS statistics for exactly the point's window, and AWR/Statspack
snapshots for workloads that do not write their own database report.

The host lock is a directory on the host (``mkdir`` is atomic) holding who took it; a second planner run is
refused naming the holder, and a lock whose controller process is gone is reported as stale and can be
broken with ``--break-stale-lock``.
"""

from __future__ import annotations

import json
import os
import platform
import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from planner import ostats
from planner.connection import Connection
from planner.errors import StepError
from planner.results import Artifact
from planner.steps.base import StepContext

OS_TOOLS = ("iostat", "mpstat", "vmstat")
DB_REPORTS = ("awr", "statspack")
WINDOW_KINDS = frozenset(OS_TOOLS + DB_REPORTS)  # collect items that wrap workloads rather than run as steps

_LOCK_SCRIPT = r"""
lock=$1; info=$2; break_stale=$3
mkdir -p -- "$(dirname -- "$lock")" 2>/dev/null
if mkdir -- "$lock" 2>/dev/null; then printf '%s\n' "$info" >"$lock/holder.json"; echo acquired; exit 0; fi
echo held; cat -- "$lock/holder.json" 2>/dev/null
"""


def lock_path(root: str, variables: dict[str, Any] | Any) -> str:
    return root + str(variables.get("planner_lock", "/tmp/planner.lock"))


@dataclass(frozen=True, slots=True)
class Holder:
    run_id: str
    controller: str
    pid: int
    since: str

    def alive(self) -> bool | None:
        """Whether the holder still runs; None when it is another controller (cannot tell from here)."""
        if self.controller != platform.node():
            return None
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True


def acquire_lock(conn: Connection, path: str, run_id: str, since: str, *, break_stale: bool = False) -> None:
    info = json.dumps({"run_id": run_id, "controller": platform.node(), "pid": os.getpid(), "since": since})
    for attempt in (1, 2):
        r = conn.run(["sh", "-c", _LOCK_SCRIPT, "sh", path, info, "1" if break_stale else "0"])
        if r.stdout.startswith("acquired"):
            return
        try:
            h = json.loads(r.stdout.split("\n", 1)[1] or "{}")
            holder = Holder(h["run_id"], h["controller"], int(h["pid"]), h["since"])
        except (ValueError, KeyError, IndexError):
            holder = Holder("unknown", "unknown", 0, "unknown")
        alive = holder.alive()
        if alive is False and break_stale and attempt == 1:
            conn.run(["rm", "-rf", "--", path])
            continue
        state = "stale: its controller process is gone" if alive is False else "in progress"
        hint = ("break it with --break-stale-lock" if alive is False
                else f"wait for run {holder.run_id} to finish, or remove {path} on the host if you are sure "
                     "it is dead")
        raise StepError(f"host is held by run {holder.run_id} ({state}; controller {holder.controller} "
                        f"pid {holder.pid}, since {holder.since})", hint=hint)


def release_lock(conn: Connection, path: str, run_id: str) -> None:
    # Only remove a lock that is ours.
    conn.run(["sh", "-c", 'grep -q -- "\\"run_id\\": \\"$2\\"" "$1/holder.json" 2>/dev/null && rm -rf -- "$1"',
              "sh", path, run_id])


@dataclass(frozen=True, slots=True)
class WindowSpec:
    """What to collect around each workload point of a play (from its `collect:` section)."""

    os_tools: tuple[str, ...] = ()
    interval_s: int = 5
    db_report: str | None = None  # "awr" | "statspack"


def run_in_window(ctx: StepContext, spec: WindowSpec, workdir: str, writes_db_report: bool,
                  body: Callable[[], Any]) -> tuple[Any, list[Artifact], list[str]]:
    """Run ``body`` with OS sampling and DB snapshots around it; returns (body result, artifacts, warnings)."""
    artifacts: list[Artifact] = []
    warnings: list[str] = []
    sampler = None
    token = None
    dbmod = None
    if spec.db_report and not writes_db_report:
        try:
            from planner.steps import dbreport as dbmod  # arrives with the Oracle workloads
        except ImportError:
            warnings.append(f"collect {spec.db_report}: not available yet")
        if dbmod is not None:
            token = dbmod.begin(ctx, spec.db_report)
    if spec.os_tools:
        osdir = posixpath.join(workdir, "ostats")
        ctx.run(["rm", "-rf", "--", osdir], check=False)
        sampler = ostats.start(ctx.conn, osdir, spec.interval_s, spec.os_tools)
        warnings += [f"{t} not installed on {ctx.host.name}: no {t} data" for t in sampler.skipped]
    failure: BaseException | None = None
    result: Any = None
    try:
        result = body()
    except BaseException as e:  # keep what the window collected, then let the step's failure through
        failure = e
    finally:
        if sampler is not None:
            files = sampler.stop()
            for f in files:
                name = posixpath.basename(f)
                kind = name.rsplit(".", 1)[0]
                try:
                    artifacts.append(ctx.fetch(f, name, kind if kind in OS_TOOLS else ""))
                except OSError as e:
                    warnings.append(f"could not fetch {f}: {e}")
    if dbmod is not None and token is not None and spec.db_report and not isinstance(failure, KeyboardInterrupt):
        artifacts += dbmod.end(ctx, token, spec.db_report)
    if failure is not None:
        failure.window_artifacts = tuple(artifacts)  # type: ignore[union-attr]
        raise failure
    return result, artifacts, warnings
