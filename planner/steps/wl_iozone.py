"""The iozone workload step: throughput mode (``-t N -F file1..fileN``), built like the seed's command line.

The seed: ``iozone -w -e -c -r 8 -i 0 -s 1g -t 1 -F file1``, copy file1 to file2..fileN, then
``iozone -w -e -c -r 8 -i 2 -s 1g -t 4 -F file1 file2 file3 file4``. With ``create_files: true`` each
point does the same before its measured run (always with ``-w`` so file1 survives to be copied).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from planner.errors import ParseError, StepError
from planner.metrics import Parsed
from planner.parsers import decode
from planner.parsers import iozone as iozone_parser
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

_SIZE = re.compile(r"^(\d+)([kKmMgG]?)$")
_COPY = 'src=$1; shift; for f; do cp -f -- "$src" "$f" || exit 1; done'
_RUN = 'o=$1; e=$2; shift 2; exec "$@" >"$o" 2>"$e"'


def record_kb(record_size: Any) -> float | None:
    """iozone's ``-r`` in KiB (``8`` and ``8k`` are 8, ``1m`` is 1024); None when not a plain size."""
    m = _SIZE.match(str(record_size).strip()) if record_size is not None else None
    if not m:
        return None
    return float(m.group(1)) * {"": 1, "k": 1, "m": 1024, "g": 1024 * 1024}[m.group(2).lower()]


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
        size = record_kb(args.get("file_size"))
        if size is None:
            return Duration()
        passes = len(list(args.get("tests") or ())) + (1 if args.get("create_files") else 0)
        rate = float((host_vars or {}).get("iozone_min_mb_per_s") or 10.0)
        return Duration(None, size / 1024 * cls(args)._threads() * max(1, passes) / rate + TIMEOUT_MARGIN_S)

    def _threads(self) -> int:
        return whole_number(self.args, "threads", 1, "iozone", minimum=1)

    def _host_path(self, ctx: StepContext, path: str, data_dir: str) -> str:
        return ctx.path(path) if path.startswith("/") else posixpath.join(data_dir, path)

    def files(self, ctx: StepContext, data_dir: str) -> list[str]:
        """The data files, in the plan-stable step folder unless absolute (they outlive the point)."""
        n = self._threads()
        given = self.args.get("files")
        if given is None:
            return [f"{data_dir}/file{i}" for i in range(1, n + 1)]
        if isinstance(given, str):  # a prefix, as in the seed's file1 file2 ...
            return [self._host_path(ctx, f"{given}{i}", data_dir) for i in range(1, n + 1)]
        names = [str(f) for f in given]
        if len(names) < n:
            raise StepError(f"iozone threads={n} needs {n} files, {len(names)} given",
                            hint="list one file per thread, or give files: as a prefix (file -> file1..fileN)")
        return [self._host_path(ctx, f, data_dir) for f in names[:n]]

    def validate(self) -> None:
        check_host_path(str(self.args.get("binary") or "iozone"), "iozone binary")

    def binary(self, ctx: StepContext) -> str:
        b = str(self.args.get("binary") or "iozone")
        return ctx.path(b) if b.startswith("/") else b

    def argv(self, ctx: StepContext, files: Sequence[str]) -> list[str]:
        tests = [int(t) for t in self.args.get("tests") or ()]
        if not tests:
            raise StepError("iozone needs tests (the -i numbers), e.g. tests: [2]")
        return iozone_argv(self.binary(ctx), list(self.args.get("flags") or ()), self.args.get("record_size"),
                           tests, self.args.get("file_size"), self._threads(), files)

    def check(self, ctx: StepContext) -> Change:
        return Change(True, "would run " + " ".join(self.argv(ctx, self.files(ctx, step_dir(ctx, self.kind)))))

    def create_argv(self, ctx: StepContext, files: Sequence[str]) -> list[str] | None:
        """The file creation run before the measured one (``create_files: true``), else None."""
        if not self.args.get("create_files"):
            return None
        return create_argv(self.binary(ctx), list(self.args.get("flags") or ()), self.args.get("record_size"),
                           self.args.get("file_size"), files[0])

    def preview(self, ctx: StepContext) -> str:
        files = self.files(ctx, step_dir(ctx, self.kind))
        wd = "<point dir>"
        lines = [f"$ {shlex.join(['mkdir', '-p', '--', *sorted({posixpath.dirname(f) for f in files})])}"]
        make = self.create_argv(ctx, files)
        if make is not None:
            lines.append(f"$ cd {wd} && {shlex.join(make)} >{wd}/create.out 2>{wd}/create.err"
                         "   # writes the data file once, one process (-i 0, kept with -w)")
            if len(files) > 1:
                lines.append(f"$ {shlex.join(['cp', '-f', '--', files[0], *files[1:]])}"
                             "   # the other processes' files are copies of it")
        lines.append(f"$ cd {wd} && {shlex.join(self.argv(ctx, files))} >{wd}/iozone.out 2>{wd}/iozone.err")
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
        extra = [(f"{wd}/create.out", None, "log")] if self.args.get("create_files") else []
        arts = fetch_existing(ctx, [(out, None, "iozone"), (err, None, "log"), *extra], nonempty=True)
        main = next((a for a in arts if a.kind == "iozone"), None)
        return finish(ctx, "iozone", arts, main, failure, self._parse)

    def _parse(self, path: Path) -> Parsed:
        return parse_iozone(path, record_kb(self.args.get("record_size")))


def parse_iozone(path: Path, rec_kb: float | None) -> Parsed:
    """The registry's decoding, then the iozone parser with the step's record size (for IOPS)."""
    try:
        text = decode(path.read_bytes(), str(path))
    except OSError as e:
        raise ParseError("iozone", "file", f"cannot read: {e.strerror or e}", source=str(path)) from None
    try:
        parsed = iozone_parser.parse(text, str(path), record_kb=rec_kb)
    except ParseError:
        raise
    except Exception as e:  # noqa: BLE001 - a parser bug becomes a named error, not a traceback
        raise ParseError("iozone", "whole file", f"parser failed ({type(e).__name__}: {e})", source=str(path)) from e
    if not parsed.metrics:
        raise ParseError("iozone", "whole file", "no throughput lines found", source=str(path))
    return parsed

