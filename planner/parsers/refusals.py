"""Honest refusals: a file that is plainly one tool's output but holds nothing planner can read says so.

``explain(text)`` names the tool, its version and run when printed, and why nothing was read: a banner with no
results (a run stopped early, or only its start pasted), or a layout this planner has no reader for. The
registry calls it only after no parser read the file, so a reader added later for a layout (a tool's auto mode,
an older kit's output) takes over from its refusal without a change here. A workload kind says its own beside
its parser (``refusal(text)``); the rules here are for the tools that have no folder of their own (sysstat).
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable

from planner import kindspec

_SYSSTAT = re.compile(r"^Linux\s+(\S+)\s+\(([^)]*)\)\s+\S+\s+\S+\s+\((\d+)\s+CPU\)", re.M)


# a sar -u / mpstat CPU row: time, CPU (all or a number), four or more figures
_CPU_ROW = re.compile(r"^\S*\d{2}:\d{2}:\d{2}(?:\s*[AP]M)?\s+(?:all|\d{1,4})(?:\s+-?\d+(?:[.,]\d+)?){4,}\s*$",
                      re.M)
_CPU_HEAD = re.compile(r"%(?:usr|user|idle|sys|system)\b")


def _sysstat(text: str) -> str | None:
    m = _SYSSTAT.search(text)
    if not m:
        return None
    if _CPU_ROW.search(text) and not _CPU_HEAD.search(text):
        # sar -u prints %user %nice %system %iowait %steal %idle, -u ALL and mpstat more, in an order that
        # changed across sysstat releases: without the header line no figure can be named
        return (f"sar / mpstat CPU rows without their header line (Linux {m.group(1)}, host {m.group(2)[:64]}): "
                "which column is %user, %system or %idle cannot be told apart — paste the header line with them")
    return (f"sysstat banner only (Linux {m.group(1)}, host {m.group(2)[:64]}, {m.group(3)} CPU): no iostat / "
            "mpstat report rows")


_RULES: tuple[Callable[[str], str | None], ...] = (_sysstat,)


@functools.cache
def _kinds_rules() -> tuple[Callable[[str], str | None], ...]:
    """Each workload kind's own refusal: a ``refusal(text)`` beside its parser (a module its spec names in full),
    in KINDS order. A parser module that does not import disables only its own rule, as in the registry."""
    out = []
    for name in dict.fromkeys(p.module for p in kindspec.parser_kinds() if "." in p.module):
        try:
            module = importlib.import_module(name)
        except Exception:  # noqa: BLE001 - an absent/broken parser disables only its kinds
            continue
        if callable(rule := getattr(module, "refusal", None)):
            out.append(rule)
    return tuple(out)


def explain(text: str, as_given: str = "") -> str | None:
    """Why a file that is recognisably one tool's output gave no results, or None when it is not recognised.

    ``text`` is the unwrapped file; ``as_given`` the file before unwrapping, whose command line (a prompt
    line, taken off as a wrapper) still names the run."""
    head = text[:2_000_000] + "\n" + as_given[:20_000]
    for rule in (*_kinds_rules(), *_RULES):
        if (why := rule(head)) is not None:
            return why
    return None
