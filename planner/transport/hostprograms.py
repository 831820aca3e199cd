"""The programs planner runs on every host, and the package that brings each (docs/userlands.md).

Why: a host that lacks one (a minimal install, an old userland) answered with whatever broke first - "[Errno 2]
No such file or directory", empty output from every command (no base64 to frame it), a fetch that "failed". The
facts script looks each one up in PATH with shell builtins (no process per program: ``command -v`` alone is not
enough, bash's prints a file it cannot execute) and the host is refused by name before any step runs there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class HostProgram:
    """``rhel``/``debian``: the package that ships it on RHEL/OL (and SLES) and on Debian/Ubuntu."""

    name: str
    what_for: str
    rhel: str
    debian: str


NEEDED = (
    HostProgram("mktemp", "the private temporary folder of each round trip", "coreutils (RHEL/OL 5: mktemp)",
                "coreutils"),
    HostProgram("base64", "small fetches and the framing of commands' error output", "coreutils", "coreutils"),
    HostProgram("sha256sum", "the checksum of every upload and fetch", "coreutils", "coreutils"),
    HostProgram("setsid", "each command's own process group (a timeout stops all of it)",
                "util-linux (RHEL/OL 6: util-linux-ng)", "util-linux"),
    HostProgram("readlink", "fetching a file reached through a symbolic link", "coreutils", "coreutils"),
    HostProgram("awk", "the host's facts (CPUs, cores, memory)", "gawk", "mawk or gawk"),
)

# The OS samplers a workload's window may start (planner.transport.ostats): one missing is skipped, not refused.
SAMPLERS = (
    HostProgram("iostat", "the disks' statistics during a workload", "sysstat", "sysstat"),
    HostProgram("mpstat", "the CPUs' statistics during a workload", "sysstat", "sysstat"),
    HostProgram("vmstat", "memory and run queue during a workload", "procps (RHEL/OL 7+, SLES: procps-ng)", "procps"),
)

BY_NAME = {p.name: p for p in (*NEEDED, *SAMPLERS)}

# Prints "missing=NAME" for each program no folder of PATH holds as an executable file. Builtins only ([ -f ],
# [ -x ], the IFS split), so it costs the host no process; POSIX sh, bash, dash and ksh read it alike.
CHECK = """_has() {
  _o=$IFS; IFS=:
  for _d in $PATH; do
    IFS=$_o; [ -n "$_d" ] || _d=.
    if [ -f "$_d/$1" ] && [ -x "$_d/$1" ]; then return 0; fi
  done
  IFS=$_o; return 1
}
for _p in """ + " ".join(p.name for p in NEEDED) + """; do _has "$_p" || echo "missing=$_p"; done
"""


def install_hint(name: str) -> str:
    """The package that brings ``name`` on each family, or '' for a program this table does not know."""
    p = BY_NAME.get(name)
    return f"install the package {p.rhel} on RHEL/OL/SLES, {p.debian} on Debian/Ubuntu" if p else ""


def skipped(name: str, host: str) -> str:
    """The warning for an OS sampler a host lacks: what is lost and the package that brings it."""
    hint = install_hint(name)
    return f"{name} not installed on {host}: no {name} data" + (f" ({hint})" if hint else "")


def refusal(missing: Sequence[str]) -> str:
    """Why a host lacking ``missing`` takes no step, naming each program, what planner needs it for, and the
    package to install on RHEL/OL and on Debian/Ubuntu."""
    parts = []
    for name in missing:
        p = BY_NAME.get(name)
        parts.append(f"{name} (planner needs it for {p.what_for}; {install_hint(name)})" if p else name)
    return ("this host lacks " + "; ".join(parts) + " - no step runs there until it is installed "
            "(docs/userlands.md)")
