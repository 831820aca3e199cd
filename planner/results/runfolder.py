"""The run folder's layout, in one place: its file names, meta.json as a typed ``RunMeta``, and the results and
restore entries, read and written only here.

A run folder is written by the engine (planner.engine.runrecord) and read by the results, the report, the
store and the CLI; it is also something people send each other, so every read checks what it gets: meta.json
must be a JSON object whose ``run_id`` has the run-id shape (planner.runid), results.json and restore.json
JSON lists. Sits in the results layer so that everything that reads or writes a folder may import it (the
engine, the report and the store above it; the CLI on top).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import yaml

from planner import kindspec
from planner.errors import InputError, Problem
from planner.files import write_json
from planner.results.world import HostWorld, worlds_from_json
from planner.runid import check_run_id
from planner.status import Artifact, ArtifactKind, Phase, RestartRequest, Retried, Status, StepResult, legacy_place

if TYPE_CHECKING:  # the metrics model loads when a result's metrics are read or written, not with the record
    from planner.extras import StepExtra, TypedExtra  # and the extras when a result's are (not with the record)
    from planner.metrics import Metric

META = "meta.json"
RESULTS = "results.json"
RESTORE = "restore.json"
RECAP = "recap.json"
PLAN = "plan.yaml"  # the plan as given
RESOLVED_PLAN = "plan.resolved.yaml"  # each step's arguments per host, after variables (beside plan.yaml)
COMMANDS = "commands.jsonl"
CONSOLE = "console.log"
SYNC_START = "sync_start.json"
FACTS = "facts"  # facts/<host file>.json
INVENTORY = "inventory"  # the run's copy of its inventory
ARTIFACTS = "artifacts"
CHARTS = "charts"  # the report's charts (planner.report.study)
# What the store keeps of a folder besides artifacts (planner.store.record)
RECORD_FILES = (META, RESULTS, RECAP, RESTORE, PLAN, RESOLVED_PLAN, CONSOLE)
RECORD_DIRS = (FACTS, INVENTORY)
_MAX_RESOLVED_BYTES = 16 << 20


def _text(v: Any) -> str:
    return "" if v is None else str(v)


def _opt_text(v: Any) -> str | None:
    return None if v is None else str(v)


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _strings(v: Any) -> tuple[str, ...]:
    return tuple(str(x) for x in v) if isinstance(v, list | tuple) else ()


def _mapping(v: Any) -> Mapping[str, Any]:
    return MappingProxyType(dict(v)) if isinstance(v, Mapping) else MappingProxyType({})


@dataclass(frozen=True, slots=True)
class PlayHosts:
    """A play as the run recorded it: its name and the inventory hosts it ran on."""

    name: str
    hosts: tuple[str, ...]


def _plays(v: Any) -> tuple[PlayHosts, ...]:
    if not isinstance(v, list):
        return ()
    return tuple(PlayHosts(_text(p.get("name", "")), _strings(p.get("hosts"))) for p in v if isinstance(p, Mapping))


@dataclass(frozen=True, slots=True)
class RunMeta:
    """meta.json, parsed and checked once. ``raw`` keeps the object as written (for the few fields only shown
    as they are, and for ``planner restore``/``--resume``, which update and rewrite it)."""

    run_id: str = ""
    plan: str = ""
    plan_file: str = ""
    description: str = ""
    status: str = ""
    exit_code: int | None = None
    interrupted_phase: str = ""
    started: str | None = None
    ended: str | None = None
    simulated: bool = False
    rehearsal_notes: tuple[str, ...] = ()
    world: tuple[HostWorld, ...] = ()  # what a rehearsal simulated, per host (planner.results.world)
    plays: tuple[PlayHosts, ...] = ()
    hosts: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: MappingProxyType({}))
    argv: tuple[str, ...] = ()
    cwd: str = ""
    controller: str = ""
    pid: int | None = None  # the controller's process (the first one; a resumed run lists every one in raw)
    planner_version: str = ""
    python: str = ""
    git: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    raw: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def from_mapping(cls, meta: Mapping[str, Any], where: str = META) -> RunMeta:
        """The typed meta of a JSON object; a ``run_id`` not of the run-id shape is an InputError."""
        if meta.get("run_id") is not None:
            check_run_id(meta["run_id"], f"{where} run_id")
        hosts = meta.get("hosts")
        notes = meta.get("rehearsal_notes")
        return cls(
            run_id=_text(meta.get("run_id")), plan=_text(meta.get("plan")), plan_file=_text(meta.get("plan_file")),
            description=_text(meta.get("description")), status=_text(meta.get("status")),
            exit_code=_int(meta.get("exit_code")),
            interrupted_phase=_text(meta.get("interrupted_phase")),
            started=_opt_text(meta.get("started")), ended=_opt_text(meta.get("ended")),
            simulated=bool(meta.get("simulated")),
            rehearsal_notes=tuple(n for n in notes if isinstance(n, str)) if isinstance(notes, list) else (),
            world=worlds_from_json(meta.get("world")),
            plays=_plays(meta.get("plays")),
            hosts=MappingProxyType({str(k): _mapping(v) for k, v in hosts.items() if isinstance(v, Mapping)}
                                   if isinstance(hosts, Mapping) else {}),
            argv=_strings(meta.get("argv")), cwd=_text(meta.get("cwd")), controller=_text(meta.get("controller")),
            pid=_int(meta.get("pid")),
            planner_version=_text(meta.get("planner_version")), python=_text(meta.get("python")),
            git=_mapping(meta.get("git")), raw=MappingProxyType(dict(meta)))

    @property
    def play_names(self) -> list[str]:
        return [p.name for p in self.plays]


def is_run_folder(path: Path) -> bool:
    return (Path(path) / META).is_file()


def read_meta_object(run_dir: Path) -> dict[str, Any]:
    """A run folder's meta.json as the JSON object it is (checked: an object, a run id of the strict shape)."""
    path = Path(run_dir) / META
    try:
        meta = json.loads(path.read_text(errors="replace"))
    except (OSError, ValueError) as e:
        raise InputError([Problem(None, "", f"{path}: not readable as JSON ({e})",
                                  "the run folder is damaged; give another run")]) from None
    if not isinstance(meta, dict):
        raise InputError([Problem(None, "", f"{path}: not a run record (a JSON {type(meta).__name__}, "
                                  "not an object)", "the run folder is damaged or crafted; give another run")])
    if meta.get("run_id") is not None:
        check_run_id(meta["run_id"], f"{path} run_id")
    return meta


def read_meta(run_dir: Path) -> RunMeta:
    """A run folder's meta.json, typed (see read_meta_object for the checks)."""
    return RunMeta.from_mapping(read_meta_object(run_dir), str(Path(run_dir) / META))


def write_meta(run_dir: Path, meta: Mapping[str, Any]) -> None:
    write_json(Path(run_dir) / META, dict(meta))


def _read_json(path: Path, default: Any) -> Any:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return default
    except (OSError, ValueError) as e:
        raise InputError([Problem(None, "", f"{path}: unreadable run record file ({e})",
                                  "the run folder is damaged; re-run the plan")]) from None


def read_result_entries(run_dir: Path) -> list[dict[str, Any]]:
    """results.json's entries as written (JSON objects; [] when there is no file yet)."""
    data = _read_json(Path(run_dir) / RESULTS, [])
    return [d for d in data if isinstance(d, dict)] if isinstance(data, list) else []


def read_results(run_dir: Path) -> tuple[StepResult, ...]:
    """results.json as StepResults, in the order recorded; an entry that is not a result is an InputError."""
    path = Path(run_dir) / RESULTS
    raw = _read_json(path, [])
    try:
        return tuple(result_from_json(d) for d in raw)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise InputError([Problem(None, "", f"{path}: not a results file ({type(e).__name__}: {e})",
                                  "the run folder is damaged; re-run the plan")]) from None


def results_json(results: Sequence[StepResult], before: Sequence[Mapping[str, Any]] = ()) -> list[Any]:
    """What results.json holds: a resumed run's earlier entries, then this run's results."""
    return [*before, *(result_to_json(r) for r in results)]


def result_to_json(r: StepResult) -> dict[str, Any]:
    """One results.json entry. A step's metrics are written as ``data.metrics``, a list in the plugin form
    (docs/plugins.md), beside the step's other data."""
    data = {**(r.extra.to_json() if r.extra else {}), **({"restart": dict(r.restart.target)} if r.restart else {})}
    if r.metrics:
        data["metrics"] = [metric_to_json(m) for m in r.metrics]
    if r.retried:
        data["retried"] = r.retried.to_json()
    return {
        "step": r.step, "title": r.title, "host": r.host, "status": r.status.value,
        "msg": r.msg, "diff": r.diff, "point": r.point, "params": dict(r.params),
        "repeat": r.repeat, "warmup": r.warmup,
        "artifacts": [{"path": a.path, "kind": a.kind, "sha256": a.sha256, "simulated": a.simulated}
                      for a in r.artifacts],
        "data": data, "started": r.started, "ended": r.ended, "ignored": r.ignored,
        "play": r.play, "section": r.section, "index": r.index, "phase": r.phase.value,
    }


def result_from_json(d: Mapping[str, Any]) -> StepResult:
    """A results.json entry as a StepResult, the shapes older planner versions wrote included."""
    data = dict(d.get("data") or {})
    restart = data.pop("restart", None)
    retried = data.pop("retried", None)
    artifacts = tuple(Artifact(a["path"], ArtifactKind.read(a.get("kind", ""), f"artifact {a['path']!r}"),
                               a.get("sha256", ""), a.get("simulated", False)) for a in d.get("artifacts", []))
    play, section, index, phase = _place(d)
    metrics = _metrics(data.pop("metrics", None), artifacts)
    return StepResult(
        d["step"], d["title"], d["host"], Status(d["status"]), d.get("msg", ""), d.get("diff"),
        d.get("point"), tuple(d.get("params", {}).items()), d.get("repeat", 0), d.get("warmup", False),
        artifacts, extra_from_json(data), d.get("started", ""), d.get("ended", ""), d.get("ignored", False),
        RestartRequest(dict(restart)) if isinstance(restart, Mapping) and restart else None,
        play=play, section=section, index=index, phase=phase, metrics=metrics,
        retried=Retried.from_json(retried) if isinstance(retried, Mapping) else None)


def extra_from_json(data: Mapping[str, Any]) -> StepExtra | None:
    """A result's ``data`` (metrics and restart taken out) as its kind's extra: by its tag (planner.extras), or
    for a folder written before the tags, by the shape each type sniffs; a shape that is none of them, or one
    whose values are damaged, is kept as Notes (a received folder is input: never an error here)."""
    # here: the record is written before any step has an extra
    from planner.extras import TYPE_KEY, VERSION_KEY, Notes, decode

    if not data:
        return None
    try:
        own = own_types()
        if data.get(TYPE_KEY) in own and isinstance(data.get(VERSION_KEY), int):  # no kind's module for it
            return decode(data, own)
        return decode(data, extra_types()) or Notes(MappingProxyType(dict(data)))
    except (KeyError, TypeError, ValueError, AttributeError):
        return Notes(MappingProxyType(dict(data)))


@functools.cache
def own_types() -> Mapping[str, type[TypedExtra]]:
    """Planner's own kinds' extras by tag (every tag names one type: tested), read without any workload kind's."""
    from planner.extras import OWN_TYPES

    return MappingProxyType({t.TYPE: t for t in OWN_TYPES})


@functools.cache
def extra_types() -> Mapping[str, type[TypedExtra]]:
    """Every typed extra by its tag: planner's prep and generic kinds' (planner.extras), then each workload
    kind's own (its spec's ``extras``)."""
    from planner.extras import OWN_TYPES

    types: list[type[TypedExtra]] = [*OWN_TYPES, *(kindspec.load(w) for s in kindspec.specs() for w in s.extras)]
    return MappingProxyType({t.TYPE: t for t in types})


def _place(d: Mapping[str, Any]) -> tuple[int | None, str, int | None, Phase]:
    """A recorded result's play, section, index and phase (old folders: see legacy_place)."""
    if "phase" not in d:
        return legacy_place(str(d.get("step", "")), str(d.get("title", "")))
    play, index = d.get("play"), d.get("index")
    return (play if isinstance(play, int) else None, str(d.get("section") or ""),
            index if isinstance(index, int) else None, Phase(d["phase"]))


def metric_to_json(m: Metric) -> dict[str, Any]:
    """A metric in the plugin form: name, value, unit, direction, labels; its source and derived when known."""
    out: dict[str, Any] = {"name": m.name, "value": m.value, "unit": m.unit, "direction": m.direction.value,
                           "labels": dict(m.labels)}
    if m.source is not None:
        out["source"] = {"file": m.source.file, "line": m.source.line}
    if m.derived:
        out["derived"] = True
    return out


def _metric(d: Any) -> Metric | None:
    """One metric of the list form; None for an entry that is not one (a received folder is input)."""
    from planner.metrics import Direction, Metric, Source

    try:
        src = d.get("source")
        line = src.get("line") if isinstance(src, Mapping) else None
        source = Source(str(src["file"]), line if isinstance(line, int) else None) \
            if isinstance(src, Mapping) and src.get("file") else None
        return Metric(str(d["name"]), float(d["value"]), str(d.get("unit", "")),
                      Direction(d.get("direction", "neutral")), source,
                      tuple((str(k), str(v)) for k, v in dict(d.get("labels", {})).items()), d.get("derived") is True)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _metrics(value: Any, artifacts: Sequence[Artifact]) -> tuple[Metric, ...]:
    """``data.metrics``: a list in the plugin form; or, as planner wrote before metrics were typed, a mapping
    {metric key: value} of the headline its parsed outputs gave. Those figures are in the artifacts
    themselves, so they are read as coming from the step's first artifact (the results never count them
    twice), and dropped when there is none."""
    from planner.metrics import Metric, Source, split_key

    if isinstance(value, list):
        return tuple(m for m in map(_metric, value) if m is not None)
    if not isinstance(value, Mapping) or not artifacts:
        return ()
    out = []
    for key, v in value.items():
        name, labels = split_key(str(key))
        if isinstance(v, int | float) and not isinstance(v, bool):
            out.append(Metric(name, float(v), "", source=Source(artifacts[0].path), labels=labels))
    return tuple(out)


def read_restore_entries(run_dir: Path) -> tuple[Mapping[str, Any], ...]:
    """restore.json (the shareable, redacted copy) as its JSON objects; () when there is none."""
    data = _read_json(Path(run_dir) / RESTORE, [])
    return tuple(d for d in data if isinstance(d, dict)) if isinstance(data, list) else ()


def write_restore_entries(run_dir: Path, entries: Sequence[Mapping[str, Any]]) -> None:
    write_json(Path(run_dir) / RESTORE, [dict(e) for e in entries])


def read_resolved_plan(run_dir: Path) -> Mapping[str, Any]:
    """plan.resolved.yaml as plain YAML, read bounded ({} when absent, too large or not a mapping)."""
    path = Path(run_dir) / RESOLVED_PLAN
    try:
        if not path.is_file() or path.stat().st_size > _MAX_RESOLVED_BYTES:
            return {}
        doc = yaml.safe_load(path.read_text(errors="replace"))
    except (OSError, yaml.YAMLError):
        return {}
    return doc if isinstance(doc, dict) else {}


def read_facts(run_dir: Path) -> dict[str, Mapping[str, Any]]:
    """facts/<file>.json by inventory host name (kept inside the file: an odd name has a hashed file name)."""
    out: dict[str, Mapping[str, Any]] = {}
    for p in sorted((Path(run_dir) / FACTS).glob("*.json")):
        f = _read_json(p, {})
        if isinstance(f, dict):
            out[str(f.get("inventory_name") or p.stem)] = f
    return out
