"""The iozone workload step: throughput mode (``-t N -F file1..fileN``), built like the seed's command line.

The seed: ``iozone -w -e -c -r 8 -i 0 -s 1g -t 1 -F file1``, copy file1 to file2..fileN, then
``iozone -w -e -c -r 8 -i 2 -s 1g -t 4 -F file1 file2 file3 file4``. With ``create_files: true`` each
point does the same before its measured run (always with ``-w`` so file1 survives to be copied).
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from planner.errors import ParseError, StepError
from planner.kinds.iozone import parse as iozone_parser
from planner.kinds.iozone.sizes import size_kb
from planner.metrics import Parsed
from planner.parsers import read_text_bounded
from planner.plan.kind_schema import sweepable
from planner.plan.model import Section
from planner.steps.base import (
    TIMEOUT_MARGIN_S,
    Change,
    Duration,
    KitStandIn,
    Outcome,
    Rehearsed,
    StepContext,
    Workload,
    check_host_path,
    whole_number,
)
from planner.steps.wl_common import fetch_existing, finish, point_dir, step_dir, tail

_COPY = 'src=$1; shift; for f; do cp -f -- "$src" "$f" || exit 1; done'
_RUN = 'o=$1; e=$2; shift 2; exec "$@" >"$o" 2>"$e"'


def iozone_argv(binary: str, flags: Sequence[str], record_size: Any, tests: Sequence[int], file_size: Any,
                threads: int, files: Sequence[str]) -> list[str]:
    """``iozone <flags> -r R -i T... -s S -t N -F f1..fN`` — the seed's order."""
    argv = [binary, *(str(f) for f in flags)]
    if record_size is not None:
        argv += ["-r", str(record_size)]
    for t in tests:
        argv += ["-i", str(int(t))]
    if file_size is not None:
        argv += ["-s", str(file_size)]
    return [*argv, "-t", str(threads), "-F", *files[:threads]]


def create_argv(binary: str, flags: Sequence[str], record_size: Any, file_size: Any, first_file: str) -> list[str]:
    """The seed's file creation run: the write test (-i 0), one process, kept with -w."""
    keep = [] if "-w" in flags else ["-w"]
    return iozone_argv(binary, [*flags, *keep], record_size, [0], file_size, 1, [first_file])


MIN_MB_PER_S = 10.0  # a slow disk's floor: the rate iozone's timeout assumes when the host says none


def min_mb_per_s(host_vars: Mapping[str, Any]) -> float:
    """The host's ``iozone_min_mb_per_s``: a number of MB/s > 0 (user input: anything else is said by name, never
    a division by zero or a negative timeout)."""
    given = host_vars.get("iozone_min_mb_per_s")
    if given is None or given == "":
        return MIN_MB_PER_S
    try:
        rate = float(given) if not isinstance(given, bool) else 0.0
    except (TypeError, ValueError):
        rate = 0.0
    if not rate > 0 or rate == float("inf"):
        raise StepError(f"iozone_min_mb_per_s must be a number of MB/s > 0, not {given!r}",
                        hint=f"give the slowest rate the disk may run at, e.g. {MIN_MB_PER_S:g}; or leave it unset")
    return rate


@dataclass(frozen=True, slots=True)
class IozoneArgs:
    """The step's arguments, read once (the schema has checked their shapes; sizes stay as the plan wrote them,
    iozone reads them)."""

    tests: tuple[int, ...]  # the -i numbers
    threads: int = 1
    binary: str = "iozone"  # a bare name is found on the host's PATH
    record_size: str | int | None = None
    file_size: str | int | None = None
    files: str | tuple[str, ...] | None = None  # a prefix (file -> file1..fileN) or one path per thread
    create_files: bool = False
    flags: tuple[str, ...] = ()

    @classmethod
    def of(cls, args: Mapping[str, Any]) -> IozoneArgs:
        files = args.get("files")
        return cls(tuple(int(t) for t in args.get("tests") or ()),
                   whole_number(args, "threads", 1, "iozone", minimum=1),
                   str(args.get("binary") or "iozone"), args.get("record_size"), args.get("file_size"),
                   files if files is None or isinstance(files, str) else tuple(str(f) for f in files),
                   bool(args.get("create_files")), tuple(str(f) for f in args.get("flags") or ()))


class Iozone(Rehearsed, Workload):
    """iozone in throughput mode on files (``files:`` a prefix, a list, or <workdir>/file1..N)."""

    kind = "iozone"
    sections = frozenset({Section.WORKLOADS})
    args_schema = {
        "description": "iozone file system benchmark",
        "type": "object",
        "properties": {
            "binary": {"type": "string"},
            "record_size": sweepable({"type": ["string", "integer"]}, "give a record size or a list of them"),
            "file_size": sweepable({"type": ["string", "integer"]}, "give a file size or a list of them"),
            "tests": {
                "type": "array",
                "items": {"type": "integer", "minimum": 0},
                "minItems": 1,
                "description": "iozone -i test numbers",
            },
            "threads": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
            "files": {
                "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}],
                "description": "iozone -F: a list of paths, or one prefix to which 1..threads is appended",
            },
            "create_files": {"type": "boolean"},
            "flags": {"type": "array", "items": {"type": "string"}},
        },
        "additionalProperties": False,
        "required": ["tests"],
    }
    kit_args = {"binary": KitStandIn.BINARY}
    unknown_duration = "runs until its files are read"
    report_metrics = ("iozone.iops", "iozone.throughput")

    @classmethod
    def duration(cls, args: Mapping[str, Any], host_vars: Mapping[str, Any] | None = None) -> Duration:
        """Not expected (unknown_duration). Budget: the bytes iozone moves (file_size x threads x tests, plus the
        creation run) at ``iozone_min_mb_per_s`` (default 10 MB/s, a slow disk's floor) plus the margin; without
        a file size (-a) the host default."""
        size = size_kb(args.get("file_size"))
        if size is None:
            return Duration()
        a = IozoneArgs.of(args)
        passes = len(a.tests) + (1 if a.create_files else 0)
        rate = min_mb_per_s(host_vars or {})
        return Duration(None, size / 1024 * a.threads * max(1, passes) / rate + TIMEOUT_MARGIN_S)

    @cached_property
    def typed(self) -> IozoneArgs:
        return IozoneArgs.of(self.args)

    def _host_path(self, ctx: StepContext, path: str, data_dir: str) -> str:
        return ctx.path(path) if path.startswith("/") else posixpath.join(data_dir, path)

    def files(self, ctx: StepContext, data_dir: str) -> list[str]:
        """The data files, in the plan-stable step folder unless absolute (they outlive the point)."""
        n, given = self.typed.threads, self.typed.files
        if given is None:
            return [f"{data_dir}/file{i}" for i in range(1, n + 1)]
        if isinstance(given, str):  # a prefix, as in the seed's file1 file2 ...
            return [self._host_path(ctx, f"{given}{i}", data_dir) for i in range(1, n + 1)]
        names = list(given)
        if len(names) < n:
            raise StepError(f"iozone threads={n} needs {n} files, {len(names)} given",
                            hint="list one file per thread, or give files: as a prefix (file -> file1..fileN)")
        return [self._host_path(ctx, f, data_dir) for f in names[:n]]

    @classmethod
    def check_args(cls, rendered: Mapping[str, Any], plan_dir: Path,
                   variables: Mapping[str, Any] | None = None) -> None:
        """Also: the host's iozone_min_mb_per_s, refused before any host is touched."""
        super().check_args(rendered, plan_dir, variables)
        if variables is not None:
            min_mb_per_s(variables)

    def validate(self) -> None:
        check_host_path(self.typed.binary, "iozone binary")

    def binary(self, ctx: StepContext) -> str:
        b = self.typed.binary
        return ctx.path(b) if b.startswith("/") else b

    def argv(self, ctx: StepContext, files: Sequence[str]) -> list[str]:
        a = self.typed
        if not a.tests:
            raise StepError("iozone needs tests (the -i numbers), e.g. tests: [2]")
        return iozone_argv(self.binary(ctx), a.flags, a.record_size, a.tests, a.file_size, a.threads, files)

    def check(self, ctx: StepContext) -> Change:
        return Change(True, "would run " + " ".join(self.argv(ctx, self.files(ctx, step_dir(ctx, self.kind)))))

    def create_argv(self, ctx: StepContext, files: Sequence[str]) -> list[str] | None:
        """The file creation run before the measured one (``create_files: true``), else None."""
        a = self.typed
        if not a.create_files:
            return None
        return create_argv(self.binary(ctx), a.flags, a.record_size, a.file_size, files[0])

    def preview(self, ctx: StepContext) -> str:
        files = self.files(ctx, step_dir(ctx, self.kind))
        wd = "<point dir>"
        lines = [f"$ {ctx.shown(shlex.join(['mkdir', '-p', '--', *sorted({posixpath.dirname(f) for f in files})]))}"]
        make = self.create_argv(ctx, files)
        if make is not None:
            lines.append(f"$ {ctx.shown(f'cd {wd} && {shlex.join(make)} >{wd}/create.out 2>{wd}/create.err')}"
                         "   # writes the data file once, one process (-i 0, kept with -w)")
            if len(files) > 1:
                lines.append(f"$ {ctx.shown(shlex.join(['cp', '-f', '--', files[0], *files[1:]]))}"
                             "   # the other processes' files are copies of it")
        run = f"cd {wd} && {shlex.join(self.argv(ctx, files))} >{wd}/iozone.out 2>{wd}/iozone.err"
        lines.append(f"$ {ctx.shown(run)}")
        return "\n".join(lines)

    def apply(self, ctx: StepContext) -> Outcome:
        files = self.files(ctx, step_dir(ctx, self.kind))
        argv = self.argv(ctx, files)
        wd = point_dir(ctx, self.kind)
        ctx.run(["mkdir", "-p", "--", *sorted({posixpath.dirname(f) for f in files})])  # the data files' folders
        make = self.create_argv(ctx, files)
        if make is not None:
            r = ctx.sh(_RUN, f"{wd}/create.out", f"{wd}/create.err", *make, check=False, cwd=wd)
            if not r.ok:
                arts = fetch_existing(ctx, [(f"{wd}/create.out", None, "log"), (f"{wd}/create.err", None, "log")],
                                      nonempty=True)
                return finish(ctx, "iozone", arts, None, f"iozone file creation failed (exit code {r.exit_code}): "
                              f"{tail(ctx.conn.read_text(f'{wd}/create.err'), 600)}", self._parse)
            if len(files) > 1:
                ctx.sh(_COPY, files[0], *files[1:])
        out, err = f"{wd}/iozone.out", f"{wd}/iozone.err"
        r = ctx.sh(_RUN, out, err, *argv, check=False, cwd=wd, measured=True)
        failure = None
        if not r.ok:
            what = "timed out" if r.timed_out else f"exit code {r.exit_code}"
            failure = f"iozone {what}: {' '.join(argv)[:200]}: {tail(ctx.conn.read_text(err), 600)}"
        extra = [(f"{wd}/create.out", None, "log")] if self.typed.create_files else []
        arts = fetch_existing(ctx, [(out, None, "iozone"), (err, None, "log"), *extra], nonempty=True)
        main = next((a for a in arts if a.kind == "iozone"), None)
        return finish(ctx, "iozone", arts, main, failure, self._parse)

    def _parse(self, path: Path) -> Parsed:
        return parse_iozone(path, size_kb(self.typed.record_size))


def parse_iozone(path: Path, rec_kb: float | None) -> Parsed:
    """The registry's decoding, then the iozone parser with the step's record size (for IOPS)."""
    text = read_text_bounded(path, "iozone")  # a fetched output over its parse bound is refused by its size, unread
    try:
        parsed = iozone_parser.parse(text, str(path), record_kb=rec_kb)
    except ParseError:
        raise
    except Exception as e:  # noqa: BLE001 - a parser bug becomes a named error, not a traceback
        raise ParseError("iozone", "whole file", f"parser failed ({type(e).__name__}: {e})", source=str(path)) from e
    if not parsed.metrics:
        raise ParseError("iozone", "whole file", "no throughput lines found", source=str(path))
    return parsed

