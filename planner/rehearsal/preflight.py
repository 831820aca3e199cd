"""What would break on the real lab, found before the lab is touched (used by ``--rehearse``).

- devices a step names (io_scheduler, asm_diskgroup, orion, fio) that the inventory does not declare for the
  host: an error at the step's plan line (the misspelt-LUN case);
- kit and binary paths the inventory does not declare; destructive steps without their opt-in; init.ora
  parameters that need a database restart; and the time the plan will take on the lab.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from planner.errors import Problem
from planner.host import Host
from planner.plan.model import Plan, Play, Section, StepSpec
from planner.plan.sweeps import expand
from planner.plan.templating import render, variables_for
from planner.steps import REGISTRY, StepType
from planner.steps.base import Rehearsed, rehearsed

# What each step kind needs checked here (devices, kits, run time, notes) is said by its StepType.


@dataclass(slots=True)
class Preflight:
    errors: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    devices: dict[str, set[str]] = field(default_factory=dict)  # host -> device paths to simulate
    kits: dict[str, dict[str, str]] = field(default_factory=dict)  # host -> {step kind: path}
    files: dict[str, set[str]] = field(default_factory=dict)  # host -> plain files steps read (ORION on datafiles)
    lab_seconds: float = 0.0
    unknown_time: list[str] = field(default_factory=list)


def declared_devices(host: Host) -> set[str]:
    """Every /dev/... path in the host's inventory variables (strings or lists of them)."""
    found: set[str] = set()

    def walk(v: Any) -> None:
        if isinstance(v, str) and v.startswith("/dev/"):
            found.add(v)
        elif isinstance(v, list | tuple):
            for x in v:
                walk(x)
        elif isinstance(v, Mapping):
            for x in v.values():
                walk(x)

    walk(dict(host.vars))
    return found


def _as_list(v: Any) -> list[str]:
    if v is None:
        return []
    return [str(x) for x in v] if isinstance(v, list | tuple) else [str(v)]


def _steps(play: Play) -> Iterator[StepSpec]:
    yield from play.prep
    yield from play.workloads
    yield from play.collect


def check(plan: Plan, play_hosts: Mapping[str, list[Host]], extra_vars: Mapping[str, Any]) -> Preflight:
    pf = Preflight()
    for play in plan.plays:
        play_time = 0.0
        for host in play_hosts.get(play.name, []):
            variables = variables_for(plan, play, host, extra_vars)
            declared = declared_devices(host)
            host_time = 0.0
            for spec in _steps(play):
                step_type = REGISTRY.get(spec.kind)
                if step_type is None:
                    continue  # the plan check refused it already
                args = render(dict(spec.args), variables) if isinstance(spec.args, Mapping) else {}
                _devices(pf, spec, step_type, host, args, declared)
                as_rehearsed = rehearsed(step_type)
                for key in as_rehearsed.kit_args if as_rehearsed is not None else ():
                    path = args.get(key)
                    if not path and as_rehearsed is not None:
                        _unnamed_kit(pf, spec, as_rehearsed, key, host, args)
                    if path:
                        pf.kits.setdefault(host.name, {})[spec.kind] = str(path)
                        if str(path) not in {str(v) for v in host.vars.values()}:
                            pf.warnings.append(f"{spec.location or spec.path}: {spec.kind} {key} {path} for "
                                               f"{host.name} is not declared in the inventory")
                _destructive(pf, spec, step_type, host, args)
                pf.notes.extend(as_rehearsed.rehearsal_notes(host.name, args) if as_rehearsed is not None else ())
                if step_type.unknown_duration:
                    pf.unknown_time.append(f"{play.name}: {spec.kind} ({step_type.unknown_duration})")
                    continue
                if spec.section is Section.WORKLOADS:  # only workloads sweep and take lab time
                    for _point, point_args in expand(spec, args):
                        host_time += step_type.duration(point_args, host.vars).expected_s or 0.0
            play_time = max(play_time, host_time)  # hosts of a play run side by side
        pf.lab_seconds += play_time
    return pf


def _devices(pf: Preflight, spec: StepSpec, step_type: type[StepType], host: Host, args: Mapping[str, Any],
             declared: set[str]) -> None:
    for key in step_type.device_args:
        for name in _as_list(args.get(key)):
            if not name.startswith("/dev/"):
                # e.g. ORION on datafiles: the sandbox makes the files
                if (r := rehearsed(step_type)) is not None and r.files_for_devices:
                    pf.files.setdefault(host.name, set()).add(name)
                continue  # a file target, not a device
            wanted = pf.devices.setdefault(host.name, set())
            if not declared:
                wanted.add(name)  # nothing declared: simulate the plan's devices as named
                continue
            matches = {d for d in declared if fnmatch.fnmatchcase(d, name)} if any(c in name for c in "*?[") else (
                {name} & declared)
            if matches:
                wanted |= matches
            else:
                pf.errors.append(Problem(
                    spec.location, f"{spec.path}.{spec.kind}.{key}",
                    f"device {name} is not one the inventory declares for {host.name} "
                    f"(declared: {', '.join(sorted(declared))})",
                    "fix the device name in the plan, or declare the device in the host's inventory vars"))


def _unnamed_kit(pf: Preflight, spec: StepSpec, step_type: type[Rehearsed], key: str, host: Host,
                 args: Mapping[str, Any]) -> None:
    """No kit argument: the stand-in goes where the tool is found on the lab (ORION: the Oracle home's bin),
    else the rehearsal says what the plan or the inventory must give, before any host is touched."""
    found, why = step_type.kit_unnamed(args, host.vars)
    if found:
        pf.kits.setdefault(host.name, {})[spec.kind] = found
    elif why:
        pf.errors.append(Problem(spec.location, f"{spec.path}.{spec.kind}", f"{spec.kind} names no {key} on "
                                 f"{host.name}: {why}", f"give {key}: (the tool's path on the host), or the "
                                 "inventory variable the message names"))


def _destructive(pf: Preflight, spec: StepSpec, step_type: type[StepType], host: Host,
                 args: Mapping[str, Any]) -> None:
    if step_type.writes_devices(args) and not spec.destructive:
        pf.warnings.append(f"{spec.location or spec.path}: {spec.kind} writes to devices on {host.name} but the "
                           "step lacks destructive: true — the lab run will refuse it")


def describe(pf: Preflight) -> list[str]:
    lines = [f"[REHEARSAL] {w}" for w in pf.warnings] + [f"[REHEARSAL] {n}" for n in pf.notes]
    hours, rest = divmod(int(pf.lab_seconds), 3600)
    lines.append(f"[REHEARSAL] on the lab this plan's workloads take about {hours}h {rest // 60:02d}m "
                 f"({pf.lab_seconds:.0f} s: run times x sweep points x repeats, plays one after another)"
                 + (f"; not counted: {'; '.join(pf.unknown_time)}" if pf.unknown_time else ""))
    return lines
