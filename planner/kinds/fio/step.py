"""The fio workload step.

One call of ``apply`` runs one sweep point: planner writes a fio job file from the step's arguments (a
``[global]`` section) and the inline ``job:`` options or the user's ``job_file`` (uploaded from the
controller), runs ``fio --output-format=json --output=<point dir>/fio.json <job file>`` on the host,
fetches the JSON and parses it. Writes to devices go through planner.steps.guard first. Data files fio lays out
itself (a job without an absolute filename) go to the plan-stable step folder, reused by later points and runs.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any

from planner.errors import StepError
from planner.kinds.fio import series as fio_series
from planner.kinds.fio.jobfile import (
    PRECONDITION_SCHEMA,
    SECTION_NAME,
    STEADY_SCHEMA,
    Section,
    all_placed,
    bad_values,
    check_steady,
    job_targets,
    jobs,
    option,
    option_hooks,
    option_value,
    parse_job_file,
    precondition_sections,
    refuse_hooks,
    refuse_values,
    render_job_file,
    seconds_in,
    steady_options,
    text_hooks,
)
from planner.kinds.fio.spec import SYNC_ENGINES
from planner.parsers import parse_file
from planner.plan.kind_schema import sweepable
from planner.plan.model import Section as PlanSection
from planner.steps.base import Change, Duration, Outcome, Rehearsed, StepContext, Workload, seconds_of
from planner.steps.guard import check_destructive, check_path, is_device
from planner.steps.wl_common import finish, point_dir, step_dir, tail

# the fio options a plan may give as the step's own arguments (each becomes a [global] option)
ARG_OPTIONS = ("rw", "bs", "iodepth", "numjobs", "size", "runtime", "ioengine", "direct")
TIMEOUT_MARGIN_S = 60.0


def _mapping(value: Any) -> Mapping[str, Any]:
    return MappingProxyType(dict(value)) if isinstance(value, Mapping) else MappingProxyType({})


@dataclass(frozen=True, slots=True)
class FioArgs:
    """The step's arguments, read once (the schema has checked their shapes; their values are the plan's)."""

    options: tuple[tuple[str, Any], ...] = ()  # ARG_OPTIONS given, in that order
    target: str | None = None
    job: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    job_file: str | None = None  # on the controller, relative to the plan's folder
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    steady_state: Any = None  # checked by check_steady, which says what is wrong with it
    precondition: Mapping[str, Any] | None = None
    ramp_time: Any = None  # only the expected duration reads it

    @classmethod
    def of(cls, args: Mapping[str, Any]) -> FioArgs:
        pre, target, job_file = args.get("precondition"), args.get("target"), args.get("job_file")
        return cls(tuple((k, args[k]) for k in ARG_OPTIONS if args.get(k) is not None),
                   None if target is None else str(target), _mapping(args.get("job")),
                   str(job_file) if job_file else None, _mapping(args.get("extra")), args.get("steady_state"),
                   _mapping(pre) if isinstance(pre, Mapping) else None, args.get("ramp_time"))

    def option(self, key: str) -> Any:
        return dict(self.options).get(key)

    def writes_devices(self) -> bool:
        return str(self.target or "").startswith("/dev/") and any(
            w in str(self.option("rw") or "") for w in ("write", "rw", "trim"))


# fio's mixed workloads and the directions each issues (fio HOWTO, rw=: "readwrite, rw: Sequential mixed reads
# and writes", "randrw", "trimwrite: Sequential trim+write sequences", "randtrimwrite")
_MIXED = {"rw": ("read", "write"), "readwrite": ("read", "write"), "randrw": ("read", "write"),
          "trimwrite": ("trim", "write"), "randtrimwrite": ("trim", "write")}
_LATENCIES = ("fio.lat_ms", "fio.clat_ms", "fio.slat_ms")
_PER_DIRECTION = ("fio.iops", "fio.bw_kib", "fio.bw_mbs", "fio.runtime_ms", "fio.total_ios", *_LATENCIES)
_STAT = ("stat", ("mean", "p50", "p99", "max"))


class Fio(Rehearsed, Workload):
    """fio: files or devices, ``--output-format=json``; device writes need ``destructive: true``."""

    kind = "fio"
    sections = frozenset({PlanSection.WORKLOADS})
    args_schema = {
        "description": "fio flexible I/O tester",
        "type": "object",
        "properties": {
            "job": {
                "type": "object",
                "additionalProperties": {"type": ["string", "number", "boolean"]},
                "description": "inline fio job options",
            },
            "job_file": {"type": "string", "minLength": 1},
            "target": {"type": "string", "minLength": 1},
            "rw": {
                "x-sweep": True,
                "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}],
                "x-hint": "give a value or a list of them",
            },
            "bs": sweepable({"type": ["string", "integer"]}, "give a block size or a list of them"),
            "iodepth": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
            "numjobs": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
            "size": {"type": ["string", "integer"]},
            "runtime": sweepable({"type": "integer", "minimum": 1}, "give a whole number or a list of them"),
            "ioengine": {
                "x-sweep": True,
                "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}],
                "x-hint": "give a value or a list of them",
            },
            "direct": {"type": ["boolean", "integer"]},
            "extra": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}},
            "steady_state": STEADY_SCHEMA,
            "precondition": PRECONDITION_SCHEMA,
        },
        "additionalProperties": False,
        "not": {"required": ["job", "job_file"]},
        "x-hint": "give job or job_file, not both",
    }
    real_in_rehearsal = True  # the tool runs for real on a rehearsal's sandbox host
    rehearsal_caps = {"runtime": 2}  # a rehearsal proves fio runs, briefly
    device_args = ("target",)
    report_metrics = ("fio.iops", "fio.bw_mbs", "fio.lat_ms", "fio.clat_ms")

    @classmethod
    def series_labels(cls, args: Mapping[str, Any]) -> Mapping[str, tuple[tuple[str, tuple[str, ...]], ...]]:
        """Each latency is one series per statistic (the JSON's clat_ns/lat_ns/slat_ns: mean, min, max, stddev,
        percentiles); a mixed ``rw`` gives every per-direction figure once per direction (the JSON's "read",
        "write", "trim" objects), unless rwmixread leaves one direction idle."""
        out = {m: (_STAT,) for m in _LATENCIES}
        given, extra = args.get("rw"), args.get("extra")
        rws = given if isinstance(given, list) else [given]  # a swept rw: any mixed value splits
        mix = extra.get("rwmixread", extra.get("rwmixwrite")) if isinstance(extra, Mapping) else None
        dirs = next((d for rw in rws if isinstance(rw, str) and (d := _MIXED.get(rw))), None)
        if dirs is not None and mix not in (0, 100):
            for m in _PER_DIRECTION:
                out[m] = (("dir", dirs), *out.get(m, ()))
        return out

    @classmethod
    def duration(cls, args: Mapping[str, Any], host_vars: Mapping[str, Any] | None = None) -> Duration:
        """runtime plus ramp_time; without a runtime, a minute is assumed for the lab time. apply times the run
        from the job itself."""
        a = FioArgs.of(args)
        runtime = seconds_of(a.option("runtime"))
        return Duration(60.0 if runtime is None else runtime + (seconds_of(a.ramp_time) or 0.0))

    @classmethod
    def capped_for_rehearsal(cls, args: Mapping[str, Any]) -> dict[str, Any]:
        """A rehearsal proves fio runs, briefly: no preconditioning fill (twice the target, unbounded in time)."""
        out = super().capped_for_rehearsal(args)
        out.pop("precondition", None)
        return out

    @classmethod
    def writes_devices(cls, args: Mapping[str, Any]) -> bool:
        return FioArgs.of(args).writes_devices()

    @cached_property
    def typed(self) -> FioArgs:
        return FioArgs.of(self.args)

    def _global(self) -> list[tuple[str, str | None]]:
        a = self.typed
        opts: dict[str, str | None] = {}
        if a.target is not None:
            check_path(a.target)
            opts["filename"] = a.target.replace(":", "\\:")
        for key, value in a.options:
            opts[key] = option_value(key, value)
        if a.option("runtime") is not None:
            opts["time_based"] = "1"  # a runtime is a duration to measure, not a cap on a size-bound job
        if a.option("numjobs") is not None:
            opts["group_reporting"] = None  # numjobs clones report as one job, as fio users expect
        opts.update(steady_options(a.steady_state or {}))
        for key, value in a.extra.items():
            k, v = option(str(key), value)
            opts[k] = v
        return list(opts.items())

    def validate(self) -> None:
        """Refused before any host is touched: bad option names or values, and options that run commands
        (in the step's arguments, ``extra:``, ``job:``, or a job file whose path is absolute)."""
        self._global()
        a = self.typed
        check_steady(a.steady_state)
        refuse_hooks(self._mapping_hooks())
        if not a.job_file:
            self._inline_job()
        elif Path(a.job_file).is_absolute():
            self.validate_files(Path("/"))
        # after the line-break and name checks above: those say what is wrong more precisely
        refuse_values(bad_values(a.options, "step argument")
                      + bad_values((a.precondition or {}).items(), "precondition:")
                      + bad_values(a.extra.items(), "extra:") + bad_values(a.job.items(), "job:"))

    def validate_files(self, plan_dir: Path) -> None:
        """The job file's text, read on the controller (``job_file`` is relative to the plan's folder)."""
        if not self.typed.job_file:
            return
        path = Path(self.typed.job_file)
        local = path if path.is_absolute() else plan_dir / path
        try:
            text = local.read_text()
        except (OSError, UnicodeDecodeError):
            return  # not readable yet: apply says so, and checks the text it reads then
        refuse_hooks(text_hooks(text, str(local)))
        try:
            sections = parse_job_file(text, str(local))
        except StepError:
            return  # apply reports a malformed job file with its line
        refuse_values([v for name, opts in sections for v in bad_values(opts, f"{local} [{name}]")])

    def _mapping_hooks(self) -> list[str]:
        a = self.typed
        return (option_hooks(a.options, "step argument") + option_hooks(a.extra.items(), "extra:")
                + option_hooks(a.job.items(), "job:"))

    def _inline_job(self) -> Section:
        job = dict(self.typed.job)
        name = str(job.pop("name", "") or "planner")
        if not SECTION_NAME.match(name) or name == "global":
            raise StepError(f"bad fio job name {name!r}", hint="use letters, digits and _ . : -")
        return name, [option(str(k), v) for k, v in job.items()]

    def job_sections(self, ctx: StepContext, wd: str | None = None) -> tuple[list[Section], str]:
        """The job file's sections and where they came from; with the point folder ``wd``, [global] also asks
        fio for its per-interval logs there (the plan's own log options, in ``extra:`` or a job, still win)."""
        logs = fio_series.log_options(wd) if wd is not None else []
        given = {k for k, _ in self._global()}
        glob: Section = ("global", [*(o for o in logs if o[0] not in given), *self._global()])
        refuse_hooks(self._mapping_hooks())  # also here: a step run without the plan check never runs them
        if self.typed.job_file:
            path = Path(self.typed.job_file)
            local = path if path.is_absolute() else ctx.plan_dir / path
            try:
                text = local.read_text()
            except OSError as e:
                raise StepError(f"cannot read fio job file {local}: {e.strerror or e}",
                                hint="job_file is a file on the controller, relative to the plan") from None
            refuse_hooks(text_hooks(text, str(local)))
            return [glob, *parse_job_file(text, str(local))], str(local)
        return [glob, self._inline_job()], "job"

    def _timeout(self, ctx: StepContext, sections: Sequence[Section]) -> float | None:
        if ctx.timeout_s is not None:
            return ctx.timeout_s
        seconds = seconds_in(sections, ("runtime", "ramp_time"))
        return seconds * 1.1 + TIMEOUT_MARGIN_S if seconds else None

    def _guard(self, ctx: StepContext, sections: Sequence[Section]) -> None:
        written = sorted({f for f, writes in job_targets(sections) if writes and f.startswith("/")})
        devices = [f for f in written if is_device(ctx, f)]
        check_destructive(ctx, devices, what="fio write")

    def setup_warnings(self, ctx: StepContext, sections: Sequence[Section]) -> list[str]:
        """What makes the point measure something else than the plan says (also a report finding)."""
        out = []
        for eff in jobs(sections):
            files = [f for f in re.split(r"(?<!\\):", eff.get("filename") or "") if f.startswith("/")]
            devices = [f for f in files if f.startswith("/dev/")]  # no round trip: check() stays silent
            if devices and str(eff.get("direct") or "0").lower() not in ("1", "true"):
                out.append(f"warning: fio runs buffered on {', '.join(devices)} (no direct=1): the page cache, "
                           "not the device, is measured — add direct: 1")
                break
        point = dict(ctx.point.params) if ctx.point is not None else {}
        engines = {str(eff.get("ioengine") or "psync").lower() for eff in jobs(sections)}
        if "iodepth" in point and engines & SYNC_ENGINES:
            out.append("warning: iodepth is swept with the synchronous engine "
                       f"{'/'.join(sorted(engines & SYNC_ENGINES))}: "
                       "it keeps one I/O in flight per job, so every point runs at queue depth 1 — use libaio or "
                       "io_uring")
        return out

    def _data_dir(self, ctx: StepContext, sections: Sequence[Section], wd: str) -> str:
        """fio's working folder: where a job without an absolute filename/directory lays out its data files.
        That is the plan-stable step folder (reused by later points and runs, not rewritten each time);
        the point folder when every job names its files."""
        if all_placed(sections):
            return wd
        data = step_dir(ctx, self.kind)
        ctx.run(["mkdir", "-p", "--", data])
        return data

    def check(self, ctx: StepContext) -> Change:
        sections, origin = self.job_sections(ctx)
        targets = ", ".join(sorted({f for f, _ in job_targets(sections)})) or "fio's default files"
        return Change(True, "; ".join([f"would run fio ({origin}) on {targets}", *self.setup_warnings(ctx, sections)]))

    def preview(self, ctx: StepContext) -> str:
        wd = "<point dir>"
        sections, origin = self.job_sections(ctx, wd)
        job = render_job_file(sections, ctx.path)
        lines = [*self._precondition_preview(ctx, sections, wd), f"$ {self._fio_line(ctx, wd, 'fio')}",
                 f"{wd}/job.fio (from {origin}):", *("    " + x for x in job.rstrip("\n").splitlines()),
                 *self.setup_warnings(ctx, sections)]
        return "\n".join(lines)

    @staticmethod
    def _fio_line(ctx: StepContext, wd: str, name: str) -> str:
        """fio's command line; under become it is shown as it is sent, through sudo, so -C -D says so."""
        job = "job" if name == "fio" else name
        argv = ["fio", "--output-format=json", f"--output={wd}/{name}.json", f"{wd}/{job}.fio"]
        return ctx.command_text(argv) if ctx.become else " ".join(argv)  # unquoted: "<point dir>" is a placeholder

    def _precondition_preview(self, ctx: StepContext, sections: Sequence[Section], wd: str) -> list[str]:
        """``precondition:``: the job run before the first point, shown with what it writes (the whole target,
        ``loops`` times: SNIA PTS's fill)."""
        spec = self.typed.precondition
        if not isinstance(spec, Mapping) or (ctx.point is not None and (ctx.point.index or ctx.point.repeat)):
            return []
        pre = precondition_sections(sections, spec)
        loops = next((v for _n, opts in pre for k, v in opts if k == "loops"), 1)
        return [f"$ {self._fio_line(ctx, wd, 'precondition')}   # before the first point, once per run and host: "
                f"writes over the whole target {loops} time(s), never measured",
                f"{wd}/precondition.fio:",
                *("    " + x for x in render_job_file(pre, ctx.path).rstrip("\n").splitlines())]

    def _precondition(self, ctx: StepContext, sections: Sequence[Section], wd: str, cwd: str) -> list[
            tuple[str, str | None, str]]:
        """Run the plan's ``precondition:`` before the step's first point (once per run and host); what to
        fetch of it. Its output is kept, never measured."""
        spec = self.typed.precondition
        if not isinstance(spec, Mapping) or (ctx.point is not None and (ctx.point.index or ctx.point.repeat)):
            return []
        pre = precondition_sections(sections, spec)
        self._guard(ctx, pre)
        job, out = f"{wd}/precondition.fio", f"{wd}/precondition.json"
        ctx.conn.put(render_job_file(pre, ctx.path).encode(), job, mode=0o644)
        ctx.run(["fio", "--output-format=json", f"--output={out}", job], cwd=cwd, timeout=ctx.timeout_s)
        return [(job, None, "fio_precondition"), (out, None, "fio_precondition")]

    def apply(self, ctx: StepContext) -> Outcome:
        wd = point_dir(ctx, self.kind)
        sections, _ = self.job_sections(ctx, wd)
        self._guard(ctx, sections)
        job_path, out_path = f"{wd}/job.fio", f"{wd}/fio.json"
        ctx.conn.put(render_job_file(sections, ctx.path).encode(), job_path, mode=0o644)
        argv = ["fio", "--output-format=json", f"--output={out_path}", job_path]
        cwd = self._data_dir(ctx, sections, wd)
        if ctx.sync is not None:
            # sync_start: fio lays out missing data files before its I/O, a host-dependent delay after the
            # common start; its setup phase alone (create_only) runs first, as part of this host's set-up
            ctx.run(["fio", "--create_only=1", f"--output={wd}/fio-layout.txt", job_path], cwd=cwd,
                    timeout=self._timeout(ctx, sections))
        pre = self._precondition(ctx, sections, wd, cwd)
        r = ctx.run(argv, check=False, cwd=cwd, timeout=self._timeout(ctx, sections), measured=True)
        failure = None
        if not r.ok:
            what = "timed out" if r.timed_out else f"exit code {r.exit_code}"
            failure = f"fio {what}: {shlex.join(argv)[:200]}: {tail(r.stderr or r.stdout, 600)}"
        wanted = [*pre, (job_path, None, "fio_job"), (out_path, None, "fio_json")]
        there, log_files = fio_series.outputs(ctx, wd, [r for r, _, _ in wanted])
        arts = [ctx.fetch(r, name, kind) for r, name, kind in wanted if r in there]
        main = next((a for a in arts if a.kind == "fio_json"), None)
        logs = fio_series.collect(ctx, log_files, seconds_in(sections, ("ramp_time",)))
        out = finish(ctx, "fio", [*arts, *logs.artifacts], main, failure, lambda p: parse_file(p, "fio_json"))
        warnings = [*self.setup_warnings(ctx, sections), *logs.notes]
        return replace(out, msg="; ".join([out.msg, *warnings])) if warnings else out

