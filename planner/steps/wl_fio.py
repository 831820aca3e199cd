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
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from planner.errors import StepError
from planner.parsers import parse_file
from planner.plan.kind_schema import sweepable
from planner.plan.model import Section as PlanSection
from planner.steps import fio_series
from planner.steps.base import Change, Duration, Outcome, Rehearsed, StepContext, Workload, seconds_of
from planner.steps.guard import check_destructive, check_path, is_device
from planner.steps.wl_common import fetch_existing, finish, point_dir, step_dir, tail
from planner.timeseries import MAX_DURATION_S, seconds, steady_spec

# fio engines that ignore iodepth (fio's man page, iodepth: "increasing iodepth beyond 1 will not affect
# synchronous ioengines"); planner.results.findings.SYNC_ENGINES is the report's copy of this list.
SYNC_ENGINES = frozenset({"sync", "psync", "vsync", "pvsync", "pvsync2"})

# --- fio -------------------------------------------------------------------------------------------------

_KEY = re.compile(r"^[A-Za-z0-9_]+$")
_SECTION = re.compile(r"^[A-Za-z0-9_.:-]+$")
_WRITES = re.compile(r"write|rw|trim", re.IGNORECASE)
_ARG_OPTIONS = ("rw", "bs", "iodepth", "numjobs", "size", "runtime", "ioengine", "direct")
TIMEOUT_MARGIN_S = 60.0
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(s|m|h)?$")

Section = tuple[str, list[tuple[str, str | None]]]  # [name], options in order (None: a bare flag)

# fio options that make fio run something the plan chooses on the host, as the fio user (fio's man page, 3.33):
# planner's remote commands are argv lists it builds itself, never a user's string run by a shell.
_HOOKS = {
    "exec_prerun": "runs a shell command (fio calls system(3)) before the job",
    "exec_postrun": "runs a shell command (fio calls system(3)) after the job",
    "program": "names a program for fio's exec engine to run",
    "arguments": "passes arguments to a program run by fio's exec engine",
}
HOOK_HINT = ("remove it: fio may only do I/O here; run a command before or after the fio step as its own "
             "`command:` step with an argv list")
_INCLUDE = re.compile(r"^include(\s|$)", re.IGNORECASE)


def _hook(key: str, value: str | None) -> str | None:
    """Why this fio option runs something of the plan's choosing on the host, or None when it does not."""
    name = key.strip().lower().replace("-", "_")
    if name in _HOOKS:
        return f"fio option {key.strip()} {_HOOKS[name]}"
    engine = (value or "").strip().lower()
    if name == "ioengine" and engine == "exec":
        return f"fio option {key.strip()}={value} runs a program for every job (the exec engine, fio >= 3.31)"
    if name == "ioengine" and (engine.startswith("external") or "/" in engine):
        return f"fio option {key.strip()}={value} loads an external engine (a shared object) into fio"
    return None


def option_hooks(options: Iterable[tuple[str, Any]], where: str) -> list[str]:
    """The refused options of a mapping (``job:``, ``extra:``, the step's own arguments), named with ``where``."""
    found = []
    for key, value in options:
        values = value if isinstance(value, list | tuple) else [value]  # a swept ioengine: every value
        for v in values:
            why = _hook(str(key), None if v is None else str(v))
            if why:
                found.append(f"{why} ({where})")
    return list(dict.fromkeys(found))


def text_hooks(text: str, source: str) -> list[str]:
    """The refused options (and ``include`` lines) of raw job-file text, each as ``file:line:col: why``."""
    found = []
    section = ""
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        col = len(raw) - len(raw.lstrip()) + 1
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            continue
        if _INCLUDE.match(line):
            found.append(f"{source}:{no}:{col}: `{line[:80]}` pulls another job file into fio that planner "
                         "never checks")
            continue
        key, sep, value = line.partition("=")
        why = _hook(key, value.strip() if sep else None)
        if why:
            found.append(f"{source}:{no}:{col}: {why}" + (f" (section [{section}])" if section else ""))
    return found


def refuse_hooks(found: Sequence[str]) -> None:
    if found:
        raise StepError("fio options that run commands on the host are refused: " + "; ".join(found),
                        hint=HOOK_HINT)


# Values fio itself accepts for the options planner knows (fio's man page, 3.33: "rw=str", "bs=int[,int]...",
# "iodepth=int", "numjobs=int", "direct=bool", "size=int", "runtime=time"): a typo such as rw=randrd is refused
# at the plan check instead of failing on the host. Other options are fio's to judge.
RW_VALUES = ("read", "write", "trim", "randread", "randwrite", "randtrim", "rw", "readwrite", "randrw",
             "trimwrite", "randtrimwrite")
_SIZE = r"\d+(?:\.\d+)?(?:[kmgtpe]i?)?b?"
_CHECKS: dict[str, tuple[re.Pattern[str], str]] = {
    "rw": (re.compile(rf"^(?:{'|'.join(RW_VALUES)})(?::\d*)?$"), "one of " + ", ".join(RW_VALUES)
           + " (optionally :N for sequential runs of N)"),
    "bs": (re.compile(rf"^{_SIZE}(?:,(?:{_SIZE})?){{0,2}}$", re.I), "a block size such as 8k, or 4k,64k for "
           "reads,writes"),
    "iodepth": (re.compile(r"^[1-9]\d*$"), "a whole number of 1 or more"),
    "numjobs": (re.compile(r"^[1-9]\d*$"), "a whole number of 1 or more"),
    "direct": (re.compile(r"^(?:0|1|true|false)$", re.I), "0 or 1 (true or false)"),
    "size": (re.compile(rf"^(?:{_SIZE}|\d{{1,3}}%)$", re.I), "a size such as 1g, or a percentage such as 50%"),
    "runtime": (re.compile(r"^\d+(?:\.\d+)?(?:us|ms|s|m|h|d)?$", re.I), "a time such as 60, 60s or 5m"),
}
_ALIASES = {"readwrite": "rw", "blocksize": "bs", "io_size": "size", "timeout": "runtime"}


def bad_values(options: Iterable[tuple[str, Any]], where: str) -> list[tuple[str, str]]:
    """(what is wrong, what the option takes) for each value of a known fio option that fio would refuse."""
    found = []
    for key, value in options:
        name = str(key).strip().lower()
        check = _CHECKS.get(_ALIASES.get(name, name))
        if check is None or value is None:
            continue
        for v in value if isinstance(value, list | tuple) else [value]:  # a swept option: every value
            text = str(int(v)) if isinstance(v, bool) else str(v).strip()
            if not check[0].fullmatch(text):
                found.append((f"{str(key).strip()}={text!r} ({where})", f"{str(key).strip()} takes {check[1]}"))
    return list(dict.fromkeys(found))


def refuse_values(found: Sequence[tuple[str, str]]) -> None:
    if found:
        raise StepError("fio would refuse " + "; ".join(m for m, _ in found),
                        hint="; ".join(dict.fromkeys(h for _, h in found)))


def _value(key: str, value: Any) -> str:
    text = str(int(value)) if isinstance(value, bool) else str(value)
    if "\n" in text or "\r" in text:
        raise StepError(f"fio option {key}: a value cannot span lines: {text!r}", hint="give a one-line value")
    return text


def _option(key: str, value: Any) -> tuple[str, str]:
    if not _KEY.match(key):
        raise StepError(f"bad fio option name {key!r}", hint="fio options are letters, digits and _")
    return key, _value(key, value)


def parse_job_file(text: str, source: str) -> list[Section]:
    """A fio job file as sections (comments dropped, order kept). fio's own syntax: INI with bare flags."""
    sections: list[Section] = []
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            sections.append((line[1:-1].strip(), []))
            continue
        if not sections:
            raise StepError(f"{source}:{no}: fio option outside a [section]: {line[:80]!r}",
                            hint="start the job file with [global] or a [job name]")
        key, sep, value = line.partition("=")
        sections[-1][1].append((key.strip(), value.strip() if sep else None))
    if not any(name != "global" for name, _ in sections):
        raise StepError(f"{source}: the fio job file defines no job", hint="add a [job name] section")
    return sections


def _jobs(sections: Sequence[Section]) -> Iterator[dict[str, str | None]]:
    """Each job's effective options: the [global] values given before it, then its own."""
    glob: dict[str, str | None] = {}
    for name, opts in sections:
        if name == "global":
            glob.update(opts)
        else:
            yield {**glob, **dict(opts)}


def job_targets(sections: Sequence[Section]) -> list[tuple[str, bool]]:
    """(filename, writes) for every file a job touches; [global] values apply to the jobs after them."""
    out: list[tuple[str, bool]] = []
    for eff in _jobs(sections):
        rw = eff.get("rw") or eff.get("readwrite") or "read"
        writes = bool(_WRITES.search(rw))
        for f in re.split(r"(?<!\\):", eff.get("filename") or ""):
            if f:
                out.append((f.replace("\\:", ":"), writes))
    return out


def all_placed(sections: Sequence[Section]) -> bool:
    """Whether every job names absolute files or folders for its data (so fio's working folder is unused)."""
    for eff in _jobs(sections):
        names = [p for k in ("filename", "directory") for p in re.split(r"(?<!\\):", eff.get(k) or "") if p]
        if not names or not all(p.startswith("/") for p in names):
            return False
    return True


def render_job_file(sections: Sequence[Section], map_path: Callable[[str], str]) -> str:
    """The job file planner uploads: absolute filename/directory values mapped into the host's root."""
    lines = ["; written by planner for one sweep point"]
    for name, opts in sections:
        lines.append(f"[{name}]")
        for key, value in opts:
            if value is not None and key in ("filename", "directory"):
                value = ":".join(map_path(p) if p.startswith("/") else p for p in value.split(":"))
            lines.append(key if value is None else f"{key}={value}")
    return "\n".join(lines) + "\n"


_TIME = {"type": ["string", "integer"], "pattern": r"^\d+(?:\.\d+)?(?:s|m|h)?$", "minimum": 0,
         "x-hint": "give a duration such as 60s, 5m or 1h"}
_PCT = {"type": "number", "exclusiveMinimum": 0, "maximum": 100, "x-hint": "give a percentage above 0, at most 100"}
# SNIA PTS steady state (docs/series.md): the window's values within ±max_range_pct of its mean, its best-fit
# line's change across the window within max_slope_pct; planner judges from the point's series.
STEADY_SCHEMA = {
    "type": "object",
    "properties": {
        "metric": {"enum": ["iops", "bw", "lat"], "x-hint": "give iops, bw or lat"},
        "window": _TIME,
        "max_range_pct": _PCT,
        "max_slope_pct": _PCT,
        "ramp": _TIME,
    },
    "required": ["metric"],
    "additionalProperties": False,
    "x-hint": "steady_state takes metric (iops, bw or lat), window, max_range_pct, max_slope_pct and ramp",
}
MIN_WINDOW_S = 3.0  # a slope needs three intervals
# SNIA PTS preconditioning: the target written sequentially (twice its capacity by default) before the first
# measured point, so a fresh drive is measured after its spare area and write cache are used up.
PRECONDITION_SCHEMA = {
    "type": "object",
    "properties": {
        "rw": {"enum": ["write", "randwrite"], "x-hint": "give write (sequential, SNIA's fill) or randwrite"},
        "bs": {"type": ["string", "integer"]},
        "loops": {"type": "integer", "minimum": 1, "maximum": 10, "x-hint": "give a whole number from 1 to 10"},
    },
    "additionalProperties": False,
    "x-hint": "precondition takes rw, bs and loops",
}
_PRE_KEEP = ("filename", "directory", "size", "filesize", "direct", "ioengine", "iodepth", "nrfiles", "offset")


def precondition_sections(sections: Sequence[Section], spec: Mapping[str, Any]) -> list[Section]:
    """The preconditioning job: each measured job's files and size, written rw (default write, 128k) loops
    times (default 2) by one job each; no logs, rates or time limits of the measured run."""
    fill: list[tuple[str, str | None]] = [
        ("rw", _value("rw", spec.get("rw", "write"))), ("bs", _value("bs", spec.get("bs", "128k"))),
        ("loops", str(int(spec.get("loops", 2)))), ("numjobs", "1")]
    out: list[Section] = [("global", fill)]
    for i, eff in enumerate(_jobs(sections)):
        out.append((f"precondition{i}", [(k, v) for k, v in eff.items() if k in _PRE_KEEP]))
    return out


def steady_options(spec: Mapping[str, Any]) -> list[tuple[str, str | None]]:
    """fio's own steadystate options for a ``steady_state:`` (fio HOWTO, "Steady state"): fio stops the job
    once the slope criterion holds over ss_dur. fio's slope limit is per second, SNIA's across the window, so
    the window's limit is divided by its length; fio has no latency criterion (judged from the series only)."""
    ss = steady_spec(spec)
    if ss is None or ss.metric not in ("iops", "bw"):
        return []
    out: list[tuple[str, str | None]] = [("steadystate", f"{ss.metric}_slope:{ss.max_slope_pct / ss.window_s:.4g}%"),
                                         ("ss_dur", f"{ss.window_s:g}s")]
    if spec.get("ramp") is not None:
        out.append(("ss_ramp", f"{seconds(spec['ramp']) or 0:g}s"))
    return out


def check_steady(spec: Any) -> None:
    """What the schema cannot say: the window in seconds (a duration written as text) is long enough."""
    if not isinstance(spec, Mapping):
        return
    for key in ("window", "ramp"):
        given = spec.get(key)
        if given is not None and not (seconds(given) or 0) <= MAX_DURATION_S:
            raise StepError(f"steady_state {key} {str(given)[:40]!r} is longer than {MAX_DURATION_S / 86400:g} days",
                            hint=f"give a {key} of minutes or hours, such as 60s, 5m or 1h")
    if spec.get("window") is None:
        return
    window = seconds(spec["window"])
    if window is None or window < MIN_WINDOW_S:
        raise StepError(f"steady_state window {spec['window']!r} is shorter than {MIN_WINDOW_S:g}s",
                        hint="give a window of 3s or more; SNIA's is five rounds, fio's ss_dur often 60s to 300s")


def _seconds(sections: Sequence[Section], keys: tuple[str, ...]) -> float:
    """The sum of the job file's time options named ``keys`` (every section's), in seconds."""
    seconds = 0.0
    for _, opts in sections:
        for key, value in opts:
            if key in keys and value and (m := _DURATION.match(value)):
                seconds += float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2) or ""]
    return seconds


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
    def duration(cls, args: Mapping[str, Any], host_vars: Mapping[str, Any] | None = None) -> Duration:
        """runtime plus ramp_time; without a runtime, a minute is assumed for the lab time. apply times the run
        from the job itself."""
        runtime = seconds_of(args.get("runtime"))
        return Duration(60.0 if runtime is None else runtime + (seconds_of(args.get("ramp_time")) or 0.0))

    @classmethod
    def capped_for_rehearsal(cls, args: Mapping[str, Any]) -> dict[str, Any]:
        """A rehearsal proves fio runs, briefly: no preconditioning fill (twice the target, unbounded in time)."""
        out = super().capped_for_rehearsal(args)
        out.pop("precondition", None)
        return out

    @classmethod
    def writes_devices(cls, args: Mapping[str, Any]) -> bool:
        return str(args.get("target", "")).startswith("/dev/") and any(
            w in str(args.get("rw", "")) for w in ("write", "rw", "trim"))

    def _global(self) -> list[tuple[str, str | None]]:
        a = self.args
        opts: dict[str, str | None] = {}
        if a.get("target") is not None:
            target = str(a["target"])
            check_path(target)
            opts["filename"] = target.replace(":", "\\:")
        for key in _ARG_OPTIONS:
            if a.get(key) is not None:
                opts[key] = _value(key, a[key])
        if a.get("runtime") is not None:
            opts["time_based"] = "1"  # a runtime is a duration to measure, not a cap on a size-bound job
        if a.get("numjobs") is not None:
            opts["group_reporting"] = None  # numjobs clones report as one job, as fio users expect
        opts.update(steady_options(a.get("steady_state") or {}))
        for key, value in dict(a.get("extra") or {}).items():
            k, v = _option(str(key), value)
            opts[k] = v
        return list(opts.items())

    def validate(self) -> None:
        """Refused before any host is touched: bad option names or values, and options that run commands
        (in the step's arguments, ``extra:``, ``job:``, or a job file whose path is absolute)."""
        self._global()
        check_steady(self.args.get("steady_state"))
        refuse_hooks(self._mapping_hooks())
        if not self.args.get("job_file"):
            self._inline_job()
        elif Path(str(self.args["job_file"])).is_absolute():
            self.validate_files(Path("/"))
        a = self.args  # after the line-break and name checks above: those say what is wrong more precisely
        refuse_values(bad_values([(k, a[k]) for k in _ARG_OPTIONS if a.get(k) is not None], "step argument")
                      + bad_values(dict(a.get("precondition") or {}).items(), "precondition:")
                      + bad_values(dict(a.get("extra") or {}).items(), "extra:")
                      + bad_values(dict(a.get("job") or {}).items(), "job:"))

    def validate_files(self, plan_dir: Path) -> None:
        """The job file's text, read on the controller (``job_file`` is relative to the plan's folder)."""
        if not self.args.get("job_file"):
            return
        path = Path(str(self.args["job_file"]))
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
        a = self.args
        return (option_hooks([(k, a[k]) for k in _ARG_OPTIONS if a.get(k) is not None], "step argument")
                + option_hooks(dict(a.get("extra") or {}).items(), "extra:")
                + option_hooks(dict(a.get("job") or {}).items(), "job:"))

    def _inline_job(self) -> Section:
        job = dict(self.args.get("job") or {})
        name = str(job.pop("name", "") or "planner")
        if not _SECTION.match(name) or name == "global":
            raise StepError(f"bad fio job name {name!r}", hint="use letters, digits and _ . : -")
        return name, [_option(str(k), v) for k, v in job.items()]

    def job_sections(self, ctx: StepContext, wd: str | None = None) -> tuple[list[Section], str]:
        """The job file's sections and where they came from; with the point folder ``wd``, [global] also asks
        fio for its per-interval logs there (the plan's own log options, in ``extra:`` or a job, still win)."""
        logs = fio_series.log_options(wd) if wd is not None else []
        given = {k for k, _ in self._global()}
        glob: Section = ("global", [*(o for o in logs if o[0] not in given), *self._global()])
        refuse_hooks(self._mapping_hooks())  # also here: a step run without the plan check never runs them
        if self.args.get("job_file"):
            path = Path(str(self.args["job_file"]))
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
        seconds = _seconds(sections, ("runtime", "ramp_time"))
        return seconds * 1.1 + TIMEOUT_MARGIN_S if seconds else None

    def _guard(self, ctx: StepContext, sections: Sequence[Section]) -> None:
        written = sorted({f for f, writes in job_targets(sections) if writes and f.startswith("/")})
        devices = [f for f in written if is_device(ctx, f)]
        check_destructive(ctx, devices, what="fio write")

    def setup_warnings(self, ctx: StepContext, sections: Sequence[Section]) -> list[str]:
        """What makes the point measure something else than the plan says (also a report finding)."""
        out = []
        for eff in _jobs(sections):
            files = [f for f in re.split(r"(?<!\\):", eff.get("filename") or "") if f.startswith("/")]
            devices = [f for f in files if f.startswith("/dev/")]  # no round trip: check() stays silent
            if devices and str(eff.get("direct") or "0").lower() not in ("1", "true"):
                out.append(f"warning: fio runs buffered on {', '.join(devices)} (no direct=1): the page cache, "
                           "not the device, is measured — add direct: 1")
                break
        point = dict(ctx.point.params) if ctx.point is not None else {}
        engines = {str(eff.get("ioengine") or "psync").lower() for eff in _jobs(sections)}
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
        spec = self.args.get("precondition")
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
        spec = self.args.get("precondition")
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
        arts = fetch_existing(ctx, [*pre, (job_path, None, "fio_job"), (out_path, None, "fio_json")], nonempty=True)
        main = next((a for a in arts if a.kind == "fio_json"), None)
        logs = fio_series.collect(ctx, wd, _seconds(sections, ("ramp_time",)))
        out = finish(ctx, "fio", [*arts, *logs.artifacts], main, failure, lambda p: parse_file(p, "fio_json"))
        warnings = [*self.setup_warnings(ctx, sections), *logs.notes]
        return replace(out, msg="; ".join([out.msg, *warnings])) if warnings else out

