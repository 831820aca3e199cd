"""fio's job files as planner reads and writes them: sections and options, the options refused because they
run commands or are not fio's values, the job's targets, the preconditioning and steady-state options, and the
job file's text as fio reads it (the fio step builds, checks and sends it)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from planner.errors import StepError
from planner.timeseries import MAX_DURATION_S, seconds, steady_spec

_KEY = re.compile(r"^[A-Za-z0-9_]+$")
SECTION_NAME = re.compile(r"^[A-Za-z0-9_.:-]+$")
_WRITES = re.compile(r"write|rw|trim", re.IGNORECASE)
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


def option_value(key: str, value: Any) -> str:
    text = str(int(value)) if isinstance(value, bool) else str(value)
    if "\n" in text or "\r" in text:
        raise StepError(f"fio option {key}: a value cannot span lines: {text!r}", hint="give a one-line value")
    return text


def option(key: str, value: Any) -> tuple[str, str]:
    if not _KEY.match(key):
        raise StepError(f"bad fio option name {key!r}", hint="fio options are letters, digits and _")
    return key, option_value(key, value)


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


def jobs(sections: Sequence[Section]) -> Iterator[dict[str, str | None]]:
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
    for eff in jobs(sections):
        rw = eff.get("rw") or eff.get("readwrite") or "read"
        writes = bool(_WRITES.search(rw))
        for f in re.split(r"(?<!\\):", eff.get("filename") or ""):
            if f:
                out.append((f.replace("\\:", ":"), writes))
    return out


def all_placed(sections: Sequence[Section]) -> bool:
    """Whether every job names absolute files or folders for its data (so fio's working folder is unused)."""
    for eff in jobs(sections):
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
        ("rw", option_value("rw", spec.get("rw", "write"))), ("bs", option_value("bs", spec.get("bs", "128k"))),
        ("loops", str(int(spec.get("loops", 2)))), ("numjobs", "1")]
    out: list[Section] = [("global", fill)]
    for i, eff in enumerate(jobs(sections)):
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


def seconds_in(sections: Sequence[Section], keys: tuple[str, ...]) -> float:
    """The sum of the job file's time options named ``keys`` (every section's), in seconds."""
    seconds = 0.0
    for _, opts in sections:
        for key, value in opts:
            if key in keys and value and (m := _DURATION.match(value)):
                seconds += float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2) or ""]
    return seconds
