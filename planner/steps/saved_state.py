"""The original state a prep step saved (restore.json), said in a few words for reports.

restore.json keeps everything a revert needs, including how the database was reached (``db``) and sysfs
paths; a reader of the report wants only what the host was like before the run: "sdb mq-deadline",
"db_cache_size 0 (not in spfile)", "flashback YES".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

_HIDDEN = frozenset({"db", "paths", "path", "destructive"})  # how to reach things, not what they were


def _io_scheduler(saved: Mapping[str, Any]) -> str:
    by_sched: dict[str, list[str]] = {}
    for dev, d in dict(saved.get("devices", {})).items():
        active = d.get("active", "?") if isinstance(d, Mapping) else str(d)
        by_sched.setdefault(str(active), []).append(str(dev))
    text = "; ".join(f"{s} on {', '.join(devs)}" for s, devs in by_sched.items())
    if saved.get("persist"):
        text += "; udev rule " + ("absent" if saved.get("rule") is None else "present")
    return text


def _init_ora(saved: Mapping[str, Any]) -> str:
    out = []
    for name, p in dict(saved.get("params", {})).items():
        if not isinstance(p, Mapping):
            out.append(f"{name} {p}")
            continue
        where = f"spfile {p.get('spfile')}" if p.get("specified") else "not in spfile"
        out.append(f"{name} {p.get('memory')} ({where})")
    return "; ".join(out)


def _asm_diskgroup(saved: Mapping[str, Any]) -> str:
    name = saved.get("name", "?")
    if not saved.get("existed"):
        return f"disk group {name} did not exist"
    members = list(saved.get("members", []))
    return f"disk group {name} with {len(members)} disk(s)"


def _flashback(saved: Mapping[str, Any]) -> str:
    return f"flashback {saved.get('flashback_on', '?')}"


def _values(saved: Mapping[str, Any]) -> str:
    return "; ".join(f"{k} {v}" for k, v in dict(saved.get("values", {})).items())


_BY_KIND: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "io_scheduler": _io_scheduler, "init_ora": _init_ora, "asm_diskgroup": _asm_diskgroup,
    "flashback": _flashback, "sysctl": _values, "hugepages": _values,
}


def _generic(saved: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in saved.items() if k not in _HIDDEN)


def describe_saved(kind: str, saved: Mapping[str, Any]) -> str:
    """What the host was like before the step changed it. Never raises: an odd record gets the plain form."""
    try:
        return _BY_KIND.get(kind, _generic)(saved)
    except (AttributeError, TypeError, ValueError):
        return _generic(saved)
