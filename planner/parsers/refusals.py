"""Honest refusals: a file that is plainly one tool's output but holds nothing planner can read says so.

``explain(text)`` names the tool, its version and run when printed, and why nothing was read: a banner with no
results (a run stopped early, or only its start pasted), or a layout this planner has no reader for. The
registry calls it only after no parser read the file, so a reader added later for a layout (iozone ``-a``,
older SLB kits, fio terse) takes over from its refusal without a change here. A workload kind's own tool says its
refusal in the kind's parser (its ParserKind's ``refusal``), asked first.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from planner import kindspec

_IOZONE_VERSION = re.compile(r"Version \$Revision:\s*([\d.]+)\s*\$")
_IOZONE_AUTO = re.compile(r"^[ \t]*Auto Mode[ \t]*$|^[ \t]*kB\s+reclen\s+write\s+rewrite\b"
                          r"|^[ \t]*KB\s+reclen\s+write\b", re.M | re.I)
_FIO_VERSION = re.compile(r"^(fio-\d[\w.\-]*)\s*$", re.M)
_FIO_TERSE = re.compile(r"^(?:3|4|5);fio-[\w.\-]+;[^;\n]*;\d+;\d+;", re.M)
_FIO_JOB = re.compile(r"^\S.*?: \(g=\d+\): rw=\w+", re.M)
_SYSSTAT = re.compile(r"^Linux\s+(\S+)\s+\(([^)]*)\)\s+\S+\s+\S+\s+\((\d+)\s+CPU\)", re.M)


def _iozone(text: str) -> str | None:
    if "Iozone: Performance Test of File I/O" not in text:
        return None
    v = _IOZONE_VERSION.search(text)
    what = f"iozone {v.group(1)}" if v else "iozone"
    if _IOZONE_AUTO.search(text):
        return (f"{what} auto mode (-a: the file size x record size table): a layout this planner does not "
                "read - it reads throughput mode (-t N)")
    return f"{what}: banner only, no result lines (no 'Children see / Parent sees throughput' line)"


def _fio(text: str) -> str | None:
    if m := _FIO_TERSE.search(text):
        return (f"fio terse output (--minimal, format {m.group()[0]}): a layout this planner does not read - "
                "it reads --output-format=json and normal output")
    v = _FIO_VERSION.search(text)
    if not (v or _FIO_JOB.search(text)):
        return None
    what = v.group(1) if v else "fio"
    return f"{what}: job banner only, no results (no 'read: IOPS=' / 'write: IOPS=' line; the run was cut short?)"


def _sysstat(text: str) -> str | None:
    m = _SYSSTAT.search(text)
    if not m:
        return None
    return (f"sysstat banner only (Linux {m.group(1)}, host {m.group(2)[:64]}, {m.group(3)} CPU): no iostat / "
            "mpstat report rows")


_RULES: tuple[Callable[[str], str | None], ...] = (_iozone, _fio, _sysstat)


def _rules() -> list[Callable[[str], str | None]]:
    """The kinds' own refusals (in KINDS order), then the ones here."""
    return [kindspec.load(f"{p.module}:{p.refusal}") for p in kindspec.parser_kinds() if p.refusal] + list(_RULES)


def explain(text: str, as_given: str = "") -> str | None:
    """Why a file that is recognisably one tool's output gave no results, or None when it is not recognised.

    ``text`` is the unwrapped file; ``as_given`` the file before unwrapping, whose command line (a prompt
    line, taken off as a wrapper) still names the run."""
    head = text[:2_000_000] + "\n" + as_given[:20_000]
    for rule in _rules():
        if (why := rule(head)) is not None:
            return why
    return None
