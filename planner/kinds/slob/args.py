"""The slob step's arguments: their schema, what runit.sh would refuse of them, and ``SlobArgs``, one point's
arguments parsed once (planner.kinds.slob.step reads no argument any other way)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from planner.errors import StepError
from planner.plan.kind_schema import sweepable
from planner.steps.base import check_host_path, whole_number

_TEXT_OR_LIST = {
    "x-sweep": True,
    "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}],
    "x-hint": "give a value or a list of them",
}
_WHOLE = "give a whole number or a list of them"

ARGS_SCHEMA: Mapping[str, Any] = {
    "description": "SLOB (the user's kit on the host)",
    "type": "object",
    "properties": {
        "kit": {"type": "string", "minLength": 1, "description": "path of the SLOB kit on the host"},
        "readers": sweepable({"type": "integer", "minimum": 0}, _WHOLE),
        "writers": sweepable({"type": "integer", "minimum": 0}, _WHOLE),
        "run_time": sweepable({"type": "integer", "minimum": 1}, _WHOLE),
        "scale": dict(_TEXT_OR_LIST),
        "work_unit": sweepable({"type": "integer", "minimum": 1}, _WHOLE),
        "redo_stress": dict(_TEXT_OR_LIST),
        "threads_per_schema": sweepable({"type": "integer", "minimum": 1}, _WHOLE),
        "update_pct": sweepable({"type": "integer", "minimum": 0}, _WHOLE),
        "setup": {"type": "boolean"},
        "data_on": {
            "type": "string",
            "pattern": "^(\\+[A-Za-z][A-Za-z0-9_$#]*|/[A-Za-z0-9_./+@,=-]*)$",
            "description": "where the play put SLOB's storage: a disk group (+SLOB) or a directory; each point "
                           "checks that USER1.CF1's data files (DBA_SEGMENTS -> DBA_DATA_FILES) are there",
            "x-hint": "give a disk group as +NAME or an absolute directory",
        },
        "create_tablespace": {
            "type": "string",
            "pattern": "^[0-9]+[KMGT]$",
            "description": "with setup: true, create the SLOB tablespace (slob_tablespace, default IOPS) on "
                           "data_on at this size when it does not exist (setup.sh needs it to exist)",
            "x-hint": "give a size such as 16G",
        },
        "database_statistics_type": {"type": "string", "enum": ["awr", "statspack"]},
        "conf": {
            "type": "object",
            "additionalProperties": {"type": ["string", "number", "boolean"]},
            "description": "extra slob.conf keys",
            "propertyNames": {"pattern": "^[A-Z_][A-Z0-9_]*$", "x-hint": "slob.conf keys are UPPER_CASE"},
        },
    },
    "additionalProperties": False,
    "required": ["kit"],
}

# slob.conf values runit.sh refuses, with its own rule (SLOB 2.4 runit.sh, goryszewskig/SLOB-PDB @ 12cdbe65:
# the "Initial slob.conf sanity check", f_check_pct_logic, and getopts' -t check). Key -> (arg, test, rule).
_KIT_RULES: tuple[tuple[str, str, Callable[[int], bool], str], ...] = (
    ("RUN_TIME", "run_time", lambda v: v >= 30, "Minimum supported RUN_TIME 30 seconds"),
    ("WORK_UNIT", "work_unit", lambda v: 3 <= v <= 1024, "WORK_UNIT must be 3 to 1024 (Minimum supported WORK_UNIT "
                                                         "is 3, Maximum supported WORK_UNIT is 1024)"),
    ("UPDATE_PCT", "update_pct", lambda v: 0 <= v <= 50 or v == 100,
     "f_check_pct_logic: a percentage must be 0-50 or 100 (51-99 is refused)"),
    ("SCAN_PCT", "scan_pct", lambda v: 0 <= v <= 50 or v == 100,
     "f_check_pct_logic: a percentage must be 0-50 or 100 (51-99 is refused)"),
    ("THREADS_PER_SCHEMA", "threads_per_schema", lambda v: v >= 1,
     "The -t option requires a non-zero integer argument"),
)
REFUSAL_HINT = ("give values the SLOB kit accepts: run_time >= 30, work_unit 3-1024, update_pct / scan_pct 0-50 or "
                "100, threads_per_schema >= 1")


def _refusal(where: str, v: Any, ok: Callable[[int], bool], rule: str) -> str | None:
    if v is None or isinstance(v, bool):
        return None
    try:
        n = int(str(v).strip())
    except ValueError:
        return f"{where} {v!r} is not a whole number (SLOB's f_is_int)"
    return None if ok(n) else f"{where} {n} is refused by the kit's runit.sh: {rule}"


def kit_refusals(args: Mapping[str, Any]) -> list[str]:
    """What runit.sh would refuse among the step's arguments and conf: keys (every value of a sweep list): read
    from the arguments as the plan gives them, before a sweep is expanded into points."""
    conf = args.get("conf")
    conf = conf if isinstance(conf, Mapping) else {}
    out = []
    for key, arg, ok, rule in _KIT_RULES:
        for where, raw in ((arg, args.get(arg)), (f"conf.{key}", conf.get(key))):
            for v in raw if isinstance(raw, list) else [raw]:
                said = _refusal(where, v, ok, rule)
                if said:
                    out.append(said)
    return out


def kit_path(args: Mapping[str, Any]) -> str:
    """The kit argument: an absolute path on the host, checked as one."""
    kit = str(args.get("kit") or "")
    if not kit.startswith("/"):
        raise StepError(f"slob: kit must be an absolute path on the host, got {kit!r}",
                        hint="give the folder holding runit.sh, e.g. /home/oracle/SLOB")
    return check_host_path(kit, "SLOB kit path")


def _count(args: Mapping[str, Any], key: str) -> int | None:
    return whole_number(args, key, None, "slob", minimum=0)  # sessions and percentages: none is allowed


def _text(v: Any) -> str | None:
    return None if v is None else str(v)


@dataclass(frozen=True, slots=True)
class SlobArgs:
    """One point's arguments, parsed once. ``None``: not given (the kit's slob.conf then decides)."""

    kit: str
    readers: int = 0
    writers: int = 0
    run_time: str | None = None  # slob.conf values are written as the plan gives them
    scale: str | None = None
    work_unit: str | None = None
    redo_stress: str | None = None
    threads_per_schema: int | None = None
    update_pct: int | None = None
    setup: bool = False
    data_on: str = ""
    create_tablespace: str = ""
    database_statistics_type: str = ""
    conf: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def of(cls, args: Mapping[str, Any]) -> SlobArgs:
        conf = args.get("conf")
        return cls(
            kit_path(args), _count(args, "readers") or 0, _count(args, "writers") or 0,
            _text(args.get("run_time")), _text(args.get("scale")), _text(args.get("work_unit")),
            _text(args.get("redo_stress")), _count(args, "threads_per_schema"), _count(args, "update_pct"),
            bool(args.get("setup")), str(args.get("data_on") or ""), str(args.get("create_tablespace") or ""),
            str(args.get("database_statistics_type") or ""),
            MappingProxyType(dict(conf) if isinstance(conf, Mapping) else {}))

    @property
    def schemas(self) -> int:
        """setup.sh's schema count, and runit.sh's: readers + writers."""
        return self.readers + self.writers

    def conf_text(self, key: str) -> str | None:
        """A conf: key as slob.conf gets it (a boolean as TRUE/FALSE); None when the step does not give it."""
        value = self.conf.get(key)
        if value is None:
            return None
        return str(value).upper() if isinstance(value, bool) else str(value)

    def slob_conf(self) -> dict[str, str]:
        """The slob.conf keys the step's own arguments set (not UPDATE_PCT, which the point computes)."""
        given = {"RUN_TIME": self.run_time, "SCALE": self.scale, "WORK_UNIT": self.work_unit,
                 "REDO_STRESS": self.redo_stress,
                 "THREADS_PER_SCHEMA": None if self.threads_per_schema is None else str(self.threads_per_schema),
                 "DATABASE_STATISTICS_TYPE": self.database_statistics_type or None}
        return {k: v for k, v in given.items() if v is not None}
