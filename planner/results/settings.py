"""What a run was set to, so `planner compare` can say where two runs differ before it shows any number.

A percent difference between two runs means something only when they ran the same test: the seed's argument
("16 readers on Violin against 256 on Exadata", a 5 GB buffer cache on one side) is about settings, not figures.
A run's settings come from its own record: each step's arguments per host after variables (plan.resolved.yaml),
the number of hosts, the host facts, and the buffer cache the database reports. A run folder is data: the file is
read bounded and as plain YAML.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planner.results.measure import RunData
from planner.results.runfolder import read_resolved_plan

_FACTS = (("cpus", "CPUs"), ("memory_gb", "memory (GB)"), ("kernel", "kernel"))


@dataclass(frozen=True, slots=True)
class Setting:
    """One thing a run was set to: ``scope`` is the system (play) or "" for the run as a whole."""

    scope: str
    kind: str  # the step kind whose argument this is ("slob", "init_ora"), "" for the run's hosts
    name: str  # the argument ("readers", "db_cache_size") or "hosts", "CPUs", "buffer cache (MB) ..."


@dataclass(frozen=True, slots=True)
class Difference:
    setting: Setting
    values: tuple[str, ...]  # one per run, "—" where a run has no such setting


def _text(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True, default=str)


def _resolved(data: RunData) -> Mapping[str, Any]:
    return read_resolved_plan(data.run_dir)


def _step_args(step: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    points = step.get("points")
    if isinstance(points, list):
        return [p["args"] for p in points if isinstance(p, dict) and isinstance(p.get("args"), dict)]
    args = step.get("args")
    return [args] if isinstance(args, dict) else []


def run_settings(data: RunData, by_play: bool) -> dict[Setting, str]:
    """Every setting of one run, its values (sorted, comma-joined when a sweep or the hosts differ)."""
    values: dict[Setting, set[str]] = defaultdict(set)
    hosts: dict[str, set[str]] = defaultdict(set)
    plays = _resolved(data).get("plays")
    for play in plays if isinstance(plays, list) else []:
        if not isinstance(play, dict) or not isinstance(play.get("hosts"), dict):
            continue
        scope = str(play.get("name", "")) if by_play else ""
        for host, steps in play["hosts"].items():
            hosts[scope].add(str(host))
            for step in (steps.values() if isinstance(steps, dict) else ()):
                if not isinstance(step, dict):
                    continue
                for args in _step_args(step):
                    for k, v in args.items():
                        values[Setting(scope, str(step.get("kind", "")), str(k))].add(_text(v))
    for scope, names in hosts.items():
        values[Setting(scope, "", "hosts")].add(str(len(names)))
        for key, words in _FACTS:
            for h in names:
                fact = data.facts.get(h, {}).get(key)
                if fact not in (None, ""):
                    values[Setting(scope, "", words)].add(str(fact))
    scope_of = {m.play: (m.play if by_play else "") for m in data.measurements}
    for m in data.measurements:
        if m.metric == "buffer_cache_mb" and not m.warmup:
            values[Setting(scope_of[m.play], "", "buffer cache (MB, from the database report)")].add(f"{m.value:g}")
    return {s: ", ".join(sorted(v, key=_order)) for s, v in values.items()}


def _order(v: str) -> tuple[int, float, str]:
    try:
        return 0, float(v), v
    except ValueError:
        return 1, 0.0, v


def differences(settings: Sequence[Mapping[Setting, str]]) -> list[Difference]:
    """The settings whose values are not the same in every run, in the order the runs name them."""
    order: list[Setting] = []
    for s in settings:
        order += [k for k in s if k not in order]
    out = []
    for key in order:
        vals = tuple(s.get(key, "—") for s in settings)
        if len(set(vals)) > 1:
            out.append(Difference(key, vals))
    return out


def placements(data: RunData) -> dict[tuple[str, str], str]:
    """(play, step) -> where the step's data lived (its ``data_on``: +GROUP or a directory) as resolved for the
    run; a step whose data_on is set has its data files checked there at every point, and fails one elsewhere."""
    out: dict[tuple[str, str], str] = {}
    plays = _resolved(data).get("plays")
    for play in plays if isinstance(plays, list) else []:
        hosts = play.get("hosts") if isinstance(play, dict) else None
        for steps in (hosts or {}).values() if isinstance(hosts, dict) else ():
            for step, body in (steps or {}).items() if isinstance(steps, dict) else ():
                ons = {str(a["data_on"]) for a in _step_args(body if isinstance(body, dict) else {})
                       if a.get("data_on")}
                if ons:
                    out[(str(play.get("name", "")), str(step))] = ", ".join(sorted(ons))
    return out
