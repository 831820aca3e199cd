"""The SLB workload step: copy an SLB kit to the host, build it there once, run ``runit.sh <users>``.

The kit is a directory or a tarball on the controller; by default the project's own SLB-compatible kit
(planner/kinds/slb/kit, written from scratch: its numbers are not comparable with Kevin Closson's kit). A kit
lands in ``<workdir>/planner/kits/slb-<digest>`` on the host, named by the digest of its files, and is
built once: later points and runs reuse it while the recorded binary checksum still matches. Each
point's output (slb.out, slb.err) goes to the point's folder (planner.steps.wl_common.point_dir).
"""

from __future__ import annotations

import hashlib
import posixpath
import re
import tarfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Any

from planner.errors import StepError
from planner.parsers import parse_file
from planner.plan.kind_schema import sweepable
from planner.plan.model import Section
from planner.steps.base import (
    Change,
    Duration,
    Outcome,
    Rehearsed,
    StepContext,
    Workload,
    seconds_of,
    whole_number,
)
from planner.steps.wl_common import fetch_existing, finish, planner_dir, point_dir, tail

DEFAULT_KIT = Path(__file__).resolve().parent / "kit"
MARKER = ".planner-kit"
TIMEOUT_MARGIN_S = 60.0
_AFFINITY = re.compile(r"^[0-9,-]+$")
_TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
_SKIP = re.compile(r"(^|/)(\.|__pycache__/)|\.o$")
_BUILD = ('cd "$1" || exit 1; rm -f slb; '
          'if [ -f Makefile ] && command -v make >/dev/null 2>&1; then make; '
          'elif [ -f slb.c ]; then "${CC:-cc}" -O2 -o slb slb.c; fi')
_STATE = 'cat "$1/.planner-kit" 2>/dev/null; echo; if [ -f "$1/slb" ]; then sha256sum "$1/slb"; fi'
_RUN = 'o=$1; e=$2; shift 2; exec "$@" >"$o" 2>"$e"'


@dataclass(frozen=True, slots=True)
class KitFile:
    path: str  # relative, POSIX
    data: bytes
    mode: int


@dataclass(frozen=True, slots=True)
class Kit:
    source: str
    files: tuple[KitFile, ...]

    @property
    def digest(self) -> str:
        h = hashlib.sha256()
        for f in self.files:
            h.update(f"{f.path}\0{f.mode:o}\0{len(f.data)}\0".encode())
            h.update(f.data)
        return h.hexdigest()


def _safe_rel(name: str, source: str) -> str:
    p = PurePosixPath(name)
    if p.is_absolute() or ".." in p.parts:
        raise StepError(f"{source}: unsafe path {name!r} in the kit", hint="kit paths must stay inside the kit")
    return str(p)


def _strip_top(files: list[KitFile]) -> list[KitFile]:
    """A tarball of ``slb/...``: drop the single top folder when the kit's runit.sh is under it."""
    tops = {f.path.split("/", 1)[0] for f in files}
    if len(tops) == 1 and all("/" in f.path for f in files):
        top = tops.pop() + "/"
        return [KitFile(f.path[len(top):], f.data, f.mode) for f in files]
    return files


def load_kit(kit: str | None, plan_dir: Path) -> Kit:
    """Read a kit (directory or tarball) from the controller. Built binaries and hidden files are left out."""
    path = DEFAULT_KIT if not kit else (Path(kit) if Path(kit).is_absolute() else plan_dir / kit)
    files: list[KitFile] = []
    if path.is_dir():
        for f in sorted(p for p in path.rglob("*") if p.is_file()):
            rel = f.relative_to(path).as_posix()
            if _SKIP.search(rel) or (rel == "slb" and (path / "slb.c").exists()):
                continue
            files.append(KitFile(rel, f.read_bytes(), f.stat().st_mode & 0o777))
    elif path.is_file() and path.name.endswith(_TAR_SUFFIXES):
        try:
            with tarfile.open(path) as tar:
                for m in tar.getmembers():
                    if not m.isfile():
                        continue
                    rel = _safe_rel(m.name, str(path))
                    fobj = tar.extractfile(m)
                    if fobj is not None and not _SKIP.search(rel):
                        files.append(KitFile(rel, fobj.read(), m.mode & 0o777))
        except (tarfile.TarError, OSError) as e:
            raise StepError(f"cannot read SLB kit tarball {path}: {e}") from None
        files = _strip_top(files)
        if any(f.path == "slb.c" for f in files):  # a binary built elsewhere: rebuilt on the host instead
            files = [f for f in files if f.path != "slb"]
    else:
        raise StepError(f"SLB kit {path} is neither a directory nor a tarball",
                        hint="give kit: a folder or a .tar/.tar.gz on the controller (relative to the plan), "
                             "or leave it out for planner's own kit")
    if not any(f.path == "runit.sh" for f in files):
        raise StepError(f"SLB kit {path} has no runit.sh at its top", hint="point kit: at the folder holding runit.sh")
    return Kit(str(path), tuple(sorted(files, key=lambda f: f.path)))


def _positive(args: Mapping[str, Any], name: str) -> int | None:
    return whole_number(args, name, None, "slb", minimum=1)


@dataclass(frozen=True, slots=True)
class SlbArgs:
    """The step's arguments, read once."""

    users: int
    kit: str | None = None  # None: planner's own kit
    buffer_mb: int | None = None  # None: the kit's default (SLB_MB)
    affinity: str | None = None  # a taskset -c CPU list
    seconds: int | None = None  # None: the kit's default

    @classmethod
    def of(cls, args: Mapping[str, Any]) -> SlbArgs:
        users = _positive(args, "users")
        if users is None:
            raise StepError("slb needs users")
        aff, kit = args.get("affinity"), args.get("kit")
        return cls(users, str(kit) if kit else None, _positive(args, "buffer_mb"),
                   None if aff is None else str(aff), _positive(args, "seconds"))


def takes_seconds(kit: Kit) -> bool:
    """Whether the kit's runit.sh reads a second argument. planner's own kit takes ``runit.sh USERS [SECONDS]``;
    Kevin Closson's SLB ``runit.sh`` takes the number of processes only (its run time is fixed in the kit): a
    runit.sh that never reads ``$2`` gets one argument."""
    runit = next((f.data for f in kit.files if f.path == "runit.sh"), b"").decode("utf-8", "replace")
    return bool(re.search(r"\$\{?2\b|\$[@*]", runit))


def runit_argv(users: int, seconds: int | None, affinity: str | None) -> list[str]:
    argv = ["./runit.sh", str(users), *([str(seconds)] if seconds else [])]
    if affinity is None:
        return argv
    if not _AFFINITY.match(affinity):
        raise StepError(f"bad slb affinity {affinity!r}", hint="give a CPU list such as 0-5 or 0,2,4")
    return ["taskset", "-c", affinity, *argv]


def cpu_list(affinity: str) -> list[int]:
    """The CPUs of a taskset list such as ``0-5,8`` (malformed parts are left to taskset to refuse)."""
    cpus: list[int] = []
    for part in affinity.split(","):
        lo, _, hi = part.partition("-")
        if lo.isdigit() and (not hi or hi.isdigit()):
            cpus += range(int(lo), int(hi or lo) + 1)
    return cpus


def affinity_warning(affinity: str | None, host_cpus: Any) -> str:
    """A warning when the taskset list names CPUs the host does not have ("" when it fits or is unknown).

    taskset -c with a CPU beyond the host's fails outright when none exists, and silently pins fewer
    users than planned when some do: either way the point is not the one the plan describes.
    """
    try:
        n = int(host_cpus or 0)
    except (TypeError, ValueError):
        n = 0
    if affinity is None or n < 1:
        return ""
    beyond = [c for c in cpu_list(affinity) if c >= n]
    if not beyond:
        return ""
    return (f"warning: slb affinity {affinity} names CPU(s) {', '.join(map(str, beyond[:8]))} but the host has "
            f"{n} CPU(s) (0-{n - 1}): the users are pinned to fewer CPUs than planned, or taskset fails")


class Slb(Rehearsed, Workload):
    """SLB: ``[taskset -c CPUS] ./runit.sh USERS [SECONDS]`` in the kit copied to the host."""

    kind = "slb"
    sections = frozenset({Section.WORKLOADS})
    args_schema = {
        "description": "SLB, the Silly Little Benchmark (memory latency)",
        "type": "object",
        "properties": {
            "kit": {"type": "string", "minLength": 1},
            "buffer_mb": {
                "type": "integer",
                "minimum": 1,
                "description": "MiB of buffer per user process (the kit's SLB_MB; default 512)",
                "x-hint": "give a whole number of MiB, 1 or more",
            },
            "users": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
            "affinity": {
                "x-sweep": True,
                "oneOf": [
                    {"type": ["string", "integer"], "pattern": "^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$"},
                    {
                        "type": "array",
                        "items": {
                            "type": ["string", "integer"],
                            "pattern": "^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$",
                        },
                        "minItems": 1,
                    },
                ],
                "x-hint": "give a CPU list such as 0-5 or 0,2,4 (or a list of them)",
            },
            "seconds": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
        },
        "additionalProperties": False,
        "required": ["users"],
    }
    real_in_rehearsal = True  # the tool runs for real on a rehearsal's sandbox host
    rehearsal_caps = {"seconds": 2, "buffer_mb": 64}  # a rehearsal proves the kit runs, briefly
    report_metrics = ("slb.rops_per_s", "slb.wops_per_s", "slb.avg_nsec_per_op", "slb.users", "slb.runtime_s")

    @classmethod
    def duration(cls, args: Mapping[str, Any], host_vars: Mapping[str, Any] | None = None) -> Duration:
        """The kit's warm-up, then the measured seconds (10 by default); apply times the run itself."""
        return Duration(2.0 * (seconds_of(args.get("seconds")) or 10.0))

    @cached_property
    def opts(self) -> SlbArgs:
        return SlbArgs.of(self.args)

    def _argv(self, kit: Kit | None = None) -> list[str]:
        seconds = self.opts.seconds if kit is None or takes_seconds(kit) else None
        return runit_argv(self.opts.users, seconds, self.opts.affinity)

    def _one_argument_note(self, kit: Kit) -> str:
        if takes_seconds(kit) or self.opts.seconds is None:
            return ""
        return (f"the kit's runit.sh takes one argument (users), as Kevin Closson's SLB does: seconds "
                f"{self.opts.seconds} was not passed and the kit's own run time applies")

    def _affinity_warning(self, ctx: StepContext) -> str:
        return affinity_warning(self.opts.affinity, ctx.facts.get("cpus"))

    def _env(self) -> dict[str, str] | None:
        return {"SLB_MB": str(self.opts.buffer_mb)} if self.opts.buffer_mb else None

    def check(self, ctx: StepContext) -> Change:
        kit = load_kit(self.opts.kit, ctx.plan_dir)
        notes = [n for n in (self._one_argument_note(kit), self._affinity_warning(ctx)) if n]
        return Change(True, f"would run {' '.join(self._argv(kit))} with the kit {kit.source}"
                      + "".join(f"; {n}" for n in notes))

    def preview(self, ctx: StepContext) -> str:
        kit = load_kit(self.opts.kit, ctx.plan_dir)
        kit_dir = planner_dir(ctx, "kits", f"slb-{kit.digest[:16]}")
        env = "".join(f"{k}={v} " for k, v in (self._env() or {}).items())
        lines = [f"kit {kit.source} -> {kit_dir} ({len(kit.files)} files, built there once)",
                 "$ " + ctx.shown(f"cd {kit_dir} && {env}{' '.join(self._argv(kit))} ><point dir>/slb.out "
                                  "2><point dir>/slb.err")]
        warn = self._affinity_warning(ctx)
        return "\n".join(lines + ([warn] if warn else []))

    def install(self, ctx: StepContext, kit: Kit) -> str:
        """The kit's folder on the host, copied and built unless an identical build is already there."""
        kit_dir = planner_dir(ctx, "kits", f"slb-{kit.digest[:16]}")
        state = ctx.sh(_STATE, kit_dir, check=False).stdout.split()
        # state: [kit digest, binary sha recorded at build] from the marker, then [binary sha, path] now
        if len(state) >= 4 and state[0] == kit.digest and state[1] == state[2]:
            return kit_dir
        for f in kit.files:
            ctx.conn.put(f.data, posixpath.join(kit_dir, f.path), mode=f.mode)
        ctx.sh(_BUILD, kit_dir, timeout=300)
        built = ctx.sh('if [ -f "$1/slb" ]; then sha256sum "$1/slb"; else echo -; fi', kit_dir).stdout.split()
        ctx.conn.put(f"{kit.digest} {built[0]}\n".encode(), f"{kit_dir}/{MARKER}", mode=0o644)
        return kit_dir

    def apply(self, ctx: StepContext) -> Outcome:
        kit = load_kit(self.opts.kit, ctx.plan_dir)
        argv = self._argv(kit)
        kit_dir = self.install(ctx, kit)
        wd = point_dir(ctx, self.kind)
        out, err = f"{wd}/slb.out", f"{wd}/slb.err"
        env = self._env()
        seconds = self.opts.seconds or 10
        timeout = ctx.timeout_s if ctx.timeout_s is not None else 2.4 * seconds + TIMEOUT_MARGIN_S
        r = ctx.sh(_RUN, out, err, *argv, check=False, cwd=kit_dir, env=env, timeout=timeout, measured=True)
        failure = None
        if not r.ok:
            what = "timed out" if r.timed_out else f"exit code {r.exit_code}"
            failure = f"slb {what}: {' '.join(argv)}: {tail(ctx.conn.read_text(err), 600)}"
        arts = fetch_existing(ctx, [(out, None, "slb"), (err, None, "log")], nonempty=True)
        main = next((a for a in arts if a.kind == "slb"), None)
        done = finish(ctx, "slb", arts, main, failure, lambda p: parse_file(p, "slb"))
        notes = [n for n in (self._one_argument_note(kit), self._affinity_warning(ctx)) if n]
        return replace(done, msg=done.msg + "".join(f"; {n}" for n in notes)) if notes else done

