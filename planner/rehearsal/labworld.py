"""The userland and sshd a lab host imitates: older distributions' programs and algorithm sets (docs/userlands.md).

A lab host is this machine's sshd and userland. To rehearse what an older host has, each sshd can run in a
private mount namespace where a program is bind-mounted over by a stand-in (``Userland``): missing (exit 127,
as a shell says for a program it cannot find) or an older version that refuses an option it did not have yet.
Outside the namespace the machine's programs are untouched. ``SshdAlgorithms`` restricts what the sshd offers
to what an older OpenSSH release offered, as its distribution shipped it.
"""

from __future__ import annotations

import enum
import shlex
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Stand:
    """One program as an older userland has it: ``program`` (absolute path here) is bind-mounted over."""

    program: str
    script: str  # the stand-in's body; "$REAL" is a copy of the real program (the original is covered)


class Userland(enum.Enum):
    """A program as RHEL/OL 5-7 ship it (sources in docs/userlands.md)."""

    # coreutils < 8.15 (RHEL/OL 5 and 6) has no realpath: a shell says "not found", exit 127.
    NO_REALPATH = Stand("/usr/bin/realpath", 'echo "sh: realpath: command not found" >&2; exit 127')
    # util-linux < 2.24 (RHEL/OL 5, 6, 7) has setsid without -w/--wait (util-linux 2.24 release notes).
    SETSID_NO_WAIT = Stand("/usr/bin/setsid",
                           'case $1 in -w|--wait) echo "setsid: invalid option -- \'w\'" >&2; exit 1;; esac\n'
                           'exec "$REAL" "$@"')


# Mount each stand-in over its program ($1 the lab's stand-in folder; pairs of stand-in, program follow "--"),
# then exec the rest (sshd's argv): the process the lab started is still sshd.
_MOUNTS = """d=$1; shift
while [ "$1" != -- ]; do mount --bind "$1" "$2" || exit 97; shift 2; done
shift
exec "$@"
"""


def hide(folder: Path, stands: Sequence[Userland], argv: list[str]) -> list[str]:
    """``argv`` (an sshd) in a private mount namespace where each stand-in covers its program."""
    if not stands:
        return argv
    folder.mkdir(parents=True, exist_ok=True)
    pairs: list[str] = []
    for stand in stands:
        real = shutil.which(Path(stand.value.program).name) or stand.value.program
        name = Path(stand.value.program).name
        copy = folder / f"{name}.real"
        shutil.copy2(real, copy)  # the stand-in may exec the real one, which the mount covers
        script = folder / name
        script.write_text(f"#!/bin/sh\nREAL={shlex.quote(str(copy))}\n{stand.value.script}\n")
        script.chmod(0o755)
        pairs += [str(script), stand.value.program]
    return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", _MOUNTS, "sh", str(folder),
            *pairs, "--", *argv]
