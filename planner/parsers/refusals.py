"""Honest refusals: a file that is plainly one tool's output but holds nothing planner can read says so.

``explain(text)`` names the tool, its version and run when printed, and why nothing was read: a banner with no
results (a run stopped early, or only its start pasted), or a layout this planner has no reader for. The
registry calls it only after no parser read the file, so a reader added later for a layout (iozone ``-a``,
older SLB kits, fio terse) takes over from its refusal without a change here.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_ORION_VERSION = re.compile(r"ORION VERSION\s+(\S+)|ORION: ORacle IO Numbers -- Version\s+(\S+)")
_ORION_RUN = re.compile(r"-run\s+(\w+)")
_IOZONE_VERSION = re.compile(r"Version \$Revision:\s*([\d.]+)\s*\$")
_IOZONE_AUTO = re.compile(r"^[ \t]*Auto Mode[ \t]*$|^[ \t]*kB\s+reclen\s+write\s+rewrite\b"
                          r"|^[ \t]*KB\s+reclen\s+write\b", re.M | re.I)
_FIO_VERSION = re.compile(r"^(fio-\d[\w.\-]*)\s*$", re.M)
_FIO_TERSE = re.compile(r"^(?:3|4|5);fio-[\w.\-]+;[^;\n]*;\d+;\d+;", re.M)
_FIO_JOB = re.compile(r"^\S.*?: \(g=\d+\): rw=\w+", re.M)
_SLB_OLD = re.compile(r"Total\s+ops\s+\d+\s+.*Avg\s+nsec/op", re.I)
_SLB_ANY = re.compile(r"nsec/op|TPUT ops/sec|memhammer", re.I)
_SYSSTAT = re.compile(r"^Linux\s+(\S+)\s+\(([^)]*)\)\s+\S+\s+\S+\s+\((\d+)\s+CPU\)", re.M)


def _version(raw: str, parts: int = 4) -> str:
    """``11.2.0.4.0`` -> ``11.2.0.4``; ``RDBMS_19.3.0.0.0DBRU_LINUX.X64_190417`` -> ``19.3.0.0``."""
    m = re.search(r"\d+(?:\.\d+)+", raw)
    return ".".join(m.group().split(".")[:parts]) if m else raw[:40]


def _orion(text: str) -> str | None:
    m = _ORION_VERSION.search(text)
    if not m:
        return None
    run = _ORION_RUN.search(text)
    what = f"ORION {_version(m.group(1) or m.group(2))}" + (f" ({run.group(1)} run)" if run else "")
    return f"{what}: banner only, no result table (no 'Maximum Large MBPS=' / 'Maximum Small IOPS=' line)"


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


def _slb(text: str) -> str | None:
    if _SLB_OLD.search(text):
        return ("SLB 2009 output (memhammer 'Total ops ... Avg nsec/op' lines, before the 2010 kit's wops/rops "
                "split): a layout this planner does not read")
    if _SLB_ANY.search(text):
        return "SLB output in a layout this planner does not read (no 'Total wops/rops' or 'Test Summary:' line)"
    return None


def _sysstat(text: str) -> str | None:
    m = _SYSSTAT.search(text)
    if not m:
        return None
    return (f"sysstat banner only (Linux {m.group(1)}, host {m.group(2)[:64]}, {m.group(3)} CPU): no iostat / "
            "mpstat report rows")


_RULES: tuple[Callable[[str], str | None], ...] = (_iozone, _orion, _fio, _slb, _sysstat)


def explain(text: str, as_given: str = "") -> str | None:
    """Why a file that is recognisably one tool's output gave no results, or None when it is not recognised.

    ``text`` is the unwrapped file; ``as_given`` the file before unwrapping, whose command line (a prompt
    line, taken off as a wrapper) still names the run."""
    head = text[:2_000_000] + "\n" + as_given[:20_000]
    for rule in _RULES:
        if (why := rule(head)) is not None:
            return why
    return None
