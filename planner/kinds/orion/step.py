"""The ``orion`` workload: one sweep point of Oracle ORION against the LUNs the plan names.

Writes ``<testname>.lun`` (one device per line, mapped into the host's sandbox) in the point's folder,
runs ``orion -run <run> -testname <testname> -num_disks N ...`` there and collects ``*_summary.txt``,
``*_iops.csv``, ``*_mbps.csv``, ``*_lat.csv``, ``*_trace.txt`` (and ``*_hist.csv`` when written). ``write`` > 0
destroys data on the LUNs: planner.steps.guard.check_destructive must pass first (``destructive: true`` and no
filesystem / partition table / ASM header unless the device is in the plan's ``allow_destroy``).
The binary is ``binary`` when given, else the Grid home's ``<grid_home>/bin/orion`` when the host has it (RAC), else
``<oracle_home>/bin/orion``, else ``orion`` on the PATH.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

from planner.errors import ParseError, StepError
from planner.kinds.orion.extra import OrionRun
from planner.parsers import read_text_bounded
from planner.plan.kind_schema import sweepable
from planner.plan.model import Section
from planner.status import Artifact, ArtifactKind, Status
from planner.steps import guard
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
from planner.steps.wl_common import finish, point_dir, save_text

_OPTIONAL = ("matrix", "size_small", "size_large", "duration", "cache_size")
_KINDS = {"_summary.txt": "orion_summary", "_iops.csv": "orion_csv", "_mbps.csv": "orion_csv",
          "_lat.csv": "orion_csv", "_trace.txt": "", "_hist.csv": "", "_hist.txt": ""}


# Options only -run advanced reads: simple and normal run ORION's fixed tests (8 KB small, 1 MB large, their own
# matrix, read-only), so ORION takes them and measures something else than the plan says (orion -help 11.2:
# "simple ... normal ... advanced - Use the parameters specified ... to run a test"; Oracle Database Performance
# Tuning Guide 11.2, "Orion Command Line Options").
ADVANCED_ONLY = ("write", "matrix", "size_small", "size_large")


def _luns(raw: Any) -> tuple[str, ...]:
    return (raw,) if isinstance(raw, str) else tuple(str(x) for x in raw or ())


@dataclass(frozen=True, slots=True)
class OrionArgs:
    """The step's arguments, read once."""

    testname: str
    luns: tuple[str, ...]
    run: str = "simple"
    num_disks: int | None = None  # None: one per LUN
    write: int = 0  # percent of writes: > 0 destroys data on the LUNs
    binary: str = ""
    options: tuple[tuple[str, str], ...] = ()  # the optional ORION options given, in ORION's order (_OPTIONAL)
    duration_s: float = 60.0  # each data point's

    @classmethod
    def of(cls, args: Mapping[str, Any]) -> OrionArgs:
        return cls(str(args.get("testname") or "orion"), _luns(args.get("luns")), str(args.get("run", "simple")),
                   whole_number(args, "num_disks", None, "orion", minimum=1),
                   whole_number(args, "write", 0, "orion", minimum=0) or 0,
                   str(args.get("binary") or ""),
                   tuple((k, str(args[k])) for k in _OPTIONAL if args.get(k) is not None),
                   float(args.get("duration", 60)))

    @property
    def disks(self) -> int:
        return max(1, self.num_disks or len(self.luns) or 1)

    @property
    def advanced_given(self) -> list[str]:
        """The options only -run advanced reads that were given a value."""
        given = dict(self.options) | {"write": str(self.write)}
        return [k for k in ADVANCED_ONLY if given.get(k) not in (None, "0", "")]

    @property
    def points(self) -> int:
        """Data points of one ORION run with its default load levels: small random I/O at 1..5 x num_disks
        outstanding, large at 1..2 x num_disks ("Each Orion data point is a test for a specific mix of small
        and large IO loads sustained for a duration", orion -help 11.2.0.4); simple tests the row and the column
        of that matrix, normal and advanced the combinations too, oltp only small I/O, dss only large."""
        small, large = 5 * self.disks, 2 * self.disks
        if self.run == "oltp":
            return small
        if self.run == "dss":
            return large
        return small + large + 1 + (large * -(-small // 2) if self.run in ("normal", "advanced") else 0)


def orion_points(args: Mapping[str, Any]) -> int:
    """Data points of one ORION run with these arguments (OrionArgs.points)."""
    return OrionArgs.of(args).points


class Orion(Rehearsed, Workload):
    kind: ClassVar[str] = "orion"
    args_schema = {
        "description": "Oracle ORION I/O calibration tool",
        "type": "object",
        "properties": {
            "binary": {"type": "string"},
            "testname": {"type": "string", "pattern": "^[A-Za-z0-9_.-]+$"},
            "luns": {
                "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}],
            },
            "run": {
                "x-sweep": True,
                "oneOf": [
                    {"type": "string", "enum": ["simple", "normal", "advanced", "oltp", "dss"]},
                    {
                        "type": "array",
                        "items": {"type": "string", "enum": ["simple", "normal", "advanced", "oltp", "dss"]},
                        "minItems": 1,
                    },
                ],
                "x-hint": "give simple, normal, advanced, oltp or dss",
            },
            "num_disks": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
            "write": sweepable({"type": "integer", "minimum": 0}, "give a whole number or a list of them"),
            "matrix": {
                "x-sweep": True,
                "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}],
                "x-hint": "give a value or a list of them",
            },
            "size_small": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
            "size_large": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
            "duration": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
            "cache_size": sweepable({"type": "integer", "minimum": 0}, "give a whole number or a list of them"),
        },
        "additionalProperties": False,
        "required": ["testname"],
    }
    sections = frozenset({Section.WORKLOADS})
    writes_db_report: ClassVar[bool] = False  # collect: [awr] brackets it with snapshots
    device_args = ("luns",)
    files_for_devices = True  # ORION on datafiles, as the SSD seed ran it: a sandbox makes the files
    kit_args = {"binary": KitStandIn.OWN}  # the stand-in the spec names (kinds/orion/standin.py)
    report_metrics = ("orion.max_small_iops", "orion.max_large_mbps", "orion.min_small_latency_ms", "orion.iops")

    @classmethod
    def duration(cls, args: Mapping[str, Any], host_vars: Mapping[str, Any] | None = None) -> Duration:
        """Each load level's duration times the levels; the budget is twice that plus the margin: the model
        counts ORION's default load levels, and ORION's own "approximately N minutes" can exceed it (24
        minutes for an 11.2.0.4 -run oltp on three LUNs)."""
        a = OrionArgs.of(args)
        expected = a.duration_s * a.points
        return Duration(expected, 2 * expected + TIMEOUT_MARGIN_S)

    @classmethod
    def writes_devices(cls, args: Mapping[str, Any]) -> bool:
        return OrionArgs.of(args).write > 0

    @cached_property
    def opts(self) -> OrionArgs:
        return OrionArgs.of(self.args)

    def luns(self) -> list[str]:
        if not self.opts.luns:
            raise StepError("orion: luns is empty", hint="list the devices (or files) ORION should test")
        for lun in self.opts.luns:
            guard.check_path(lun)
        return list(self.opts.luns)

    def validate(self) -> None:
        self.luns()
        ignored, run = self.opts.advanced_given, self.opts.run
        if run in ("simple", "normal") and ignored:
            raise StepError(f"orion: -run {run} ignores {', '.join('-' + k for k in ignored)}: ORION runs its fixed "
                            f"{run} test (8 KB small and 1 MB large reads) whatever they say",
                            hint="use run: advanced to set them, or remove them")
        if self.opts.binary:
            check_host_path(self.opts.binary, "ORION binary")

    @classmethod
    def kit_unnamed(cls, args: Mapping[str, Any], host_vars: Mapping[str, Any]) -> tuple[str | None, str]:
        """Without ``binary``: the home binary() looks in first, where Oracle's install puts ORION (25.18b); with no
        home, the lab's PATH would decide, which a rehearsal cannot know."""
        homes = [str(h).rstrip("/") for h in (host_vars.get("grid_home"), host_vars.get("oracle_home")) if h]
        if homes:
            return homes[0] + "/bin/orion", ""
        return None, ("the inventory gives the host no oracle_home or grid_home, so the lab would run 'orion' from "
                      "the login's PATH, which a rehearsal cannot stand in for")

    def binary(self, ctx: StepContext) -> str:
        """``binary``, else the first of <grid_home>/bin/orion and <oracle_home>/bin/orion the host can run: from
        11.2 both homes ship it and on RAC the Grid home's is the one to use (docs/oracle-behaviour.md 25.18b);
        neither: the database home's (its run then says it is missing)."""
        b = self.opts.binary
        if b:
            return ctx.path(b) if b.startswith("/") else b
        homes = [str(h).rstrip("/") for h in (ctx.vars.get("grid_home"), ctx.vars.get("oracle_home")) if h]
        if not homes:
            return "orion"
        paths = [ctx.path(h + "/bin/orion") for h in dict.fromkeys(homes)]
        if len(paths) == 1:
            return paths[0]
        r = ctx.sh('for b; do [ -x "$b" ] && { printf "%s\\n" "$b"; exit 0; }; done; exit 1', *paths, check=False)
        found = r.stdout.strip()
        return found if r.ok and found in paths else paths[-1]

    def argv(self, ctx: StepContext) -> list[str]:
        argv = [self.binary(ctx), "-run", self.opts.run, "-testname", self.opts.testname,
                "-num_disks", str(self.opts.num_disks or len(self.luns()))]
        if self.opts.write:
            argv += ["-write", str(self.opts.write)]
        for key, value in self.opts.options:
            argv += [f"-{key}", value]
        return argv

    def preview(self, ctx: StepContext) -> str:
        argv, testname = self.argv(ctx), self.opts.testname
        luns = "".join(f"    {ctx.path(x)}\n" for x in self.luns())
        return f"$ {ctx.shown(shlex.join(argv))}\n{testname}.lun:\n{luns}".rstrip("\n") + "\n" + self.check(ctx).msg

    def check(self, ctx: StepContext) -> Change:
        argv = self.argv(ctx)
        write = self.opts.write
        note = f" (writes {write}% — destructive guard applies)" if write else ""
        return Change(True, f"would run {shlex.join(argv)} on {', '.join(self.luns())}{note}")

    def apply(self, ctx: StepContext) -> Outcome:
        luns, argv = self.luns(), self.argv(ctx)
        testname, write = self.opts.testname, self.opts.write
        if write > 0:
            guard.check_destructive(ctx, luns, what=f"ORION -write {write}")
        work = point_dir(ctx, self.kind)
        ctx.conn.put("".join(ctx.path(x) + "\n" for x in luns).encode(), posixpath.join(work, f"{testname}.lun"))
        r = ctx.run(argv, cwd=work, check=False, measured=True)
        arts = [save_text(ctx, "orion_console.txt", r.stdout + (f"\n--- stderr ---\n{r.stderr}" if r.stderr else ""))]
        ls = ctx.sh('cd "$1" && for f in "$2"_*; do [ -f "$f" ] && printf "%s\\n" "$f"; done; exit 0',
                    work, testname, check=False)
        for name in sorted(ls.stdout.split()):
            kind = next((k for suffix, k in _KINDS.items() if name.endswith(suffix)), None)
            if kind is not None:
                arts.append(ctx.fetch(posixpath.join(work, name), name, kind))
        what = shlex.join([posixpath.basename(argv[0]), *argv[1:]])
        if not r.ok or "ERROR" in r.stdout:
            why = next((ln for ln in r.stdout.splitlines() if "ERROR" in ln), "") or r.stderr.strip()[-300:]
            return Outcome(Status.FAILED, f"{what} failed (exit code {r.exit_code}): {why}", artifacts=tuple(arts))
        if not any(a.kind == "orion_summary" for a in arts):
            return Outcome(Status.FAILED, f"{what} wrote no {testname}_*_summary.txt in {work}",
                           artifacts=tuple(arts))
        arts = _latency_units(ctx, arts)
        data = _estimates(tuple(luns), write, r.stdout, self.opts.duration_s * self.opts.points)
        # the summary is the main output; CSVs of a run type without that matrix may legitimately be empty
        summary = [a for a in arts if a.kind == "orion_summary"]
        return finish(ctx, "ORION", arts, summary, None, msg=f"{what}; {data.duration_note}", extra=data)


_ESTIMATE = re.compile(r"(?:Calibration|Test) will take approximately (\d+) minutes")


def _estimates(luns: tuple[str, ...], write: int, console: str, modelled_s: float) -> OrionRun:
    """ORION's own estimate ("Calibration will take approximately 44 minutes." 11.2+, "Test will take
    approximately 9 minutes" 11.1) beside planner's model, so a lab run's timeout can be checked against both."""
    m = _ESTIMATE.search(console)
    said = int(m.group(1)) if m else None
    note = (f"ORION estimated {said} min, planner's model {modelled_s / 60:.0f} min" if said is not None else
            f"planner's model {modelled_s / 60:.0f} min (ORION printed no estimate)")
    return OrionRun(luns, write, said, round(modelled_s / 60, 1), note)


def _latency_units(ctx: StepContext, arts: list[Artifact]) -> list[Artifact]:
    """Name a microsecond ``_lat.csv`` ``orion_csv_us`` so it is read as such (11.1 writes milliseconds).

    The unit of a 12c+ ``_lat.csv`` is UNVERIFIED in public sources (docs/oracle-behaviour.md row 8 says what
    was searched): only the summary's "Minimum Small Latency=97.677 usecs" (12.2.0.1, 19.3 console samples)
    states a unit. So each run checks itself: the summary's minimum-latency point is looked up in the CSV, and
    the cell that matches the summary's microseconds (or its milliseconds) decides. Only when the summary has
    no such line does the version decide (``ORION VERSION`` / banner: 12 and later = microseconds)."""
    summary = next((a for a in arts if a.kind == "orion_summary"), None)
    text = _bounded(ctx.run_dir / summary.path) if summary else ""
    lat = next((a for a in arts if a.path.endswith("_lat.csv")), None)
    unit = _csv_unit(text, _bounded(ctx.run_dir / lat.path)) if lat else None
    if unit is None:
        m = re.search(r"ORION VERSION\s+\D*(\d+)\.", text) or re.search(r"Version\s+\D*(\d+)\.", text)
        unit = "us" if m and int(m.group(1)) >= 12 else "ms"
    return [replace(a, kind=ArtifactKind("orion_csv_us")) if a is lat and unit == "us" else a for a in arts]


_MIN_LAT = re.compile(r"Minimum Small Latency=([\d.]+)\s*(usecs)?\s*@ Small=(\d+) and Large=(\d+)")


def _bounded(path: Path) -> str:
    """A fetched output's text, "" when it is over the parse bound or unreadable (read whole before: a fetched
    file may be as large as the fetch cap, 1 GiB); its own parse then says why."""
    try:
        return read_text_bounded(path)
    except ParseError:
        return ""


def _csv_unit(summary: str, csv: str) -> str | None:
    """'us' or 'ms' when the CSV cell at the summary's minimum-latency point matches it in that unit."""
    m = _MIN_LAT.search(summary)
    rows = [[c.strip() for c in ln.split(",")] for ln in csv.splitlines() if ln.strip()]
    if not m or not rows:
        return None
    value, small, large = float(m.group(1)), m.group(3), m.group(4)
    us = value if m.group(2) else value * 1000.0  # 11.1's summary has no unit: milliseconds
    try:
        cell = float(next(r for r in rows[1:] if r[0] == large)[rows[0].index(small)])
    except (StopIteration, ValueError, IndexError):
        return None
    for unit, want in (("us", us), ("ms", us / 1000.0)):
        if abs(cell - want) <= max(0.011, 0.01 * want):  # the CSV rounds to 2 decimals
            return unit
    return None
