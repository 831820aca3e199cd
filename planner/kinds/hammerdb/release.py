"""Which HammerDB release a ``home`` holds, read from the install, and what its CLI needs from a script.

Why read it: the CLI's blocking changed at 4.6 (docs/oracle-behaviour.md 43.h1-43.h3). Up to 4.5 ``vurun`` and
``buildschema`` return at once and the virtual users run only while the main thread waits in Tcl's event loop, so
a ``vudestroy`` right after ``vurun`` kills them (no TEST RESULT); 4.0-4.5 ``waittocomplete`` waits, then exits the
program; 3.3 has no ``waittocomplete`` at all. From 4.6 both commands wait and ``waittocomplete`` is a deprecated
no-op. The folder's name (``/opt/HammerDB-4.12``) is a hint, not proof: the release is the ``set hdb_version
"v4.5"`` line of the install's own ``hammerdbcli`` (line 28 at v3.3-v4.5, line 30 at v4.6-v4.12, 31 at v5.0-v6.0).

5.0 and 6.0 drive Oracle as 4.12 does (docs/oracle-behaviour.md 43.h10): gencli.tcl's vurun, waittocomplete and
_waittocomplete are the same text at v4.12, v5.0 and v6.0 (v5.0 lines 1410, 1719, 1724), buildschema too (6.0 only
drops its 1024-user limit), config/oracle.xml is unchanged and oraoltp.tcl prints the same timed-driver lines
(5.0 moved to Tcl 9 and dropped ``::tcl::tm::path add modules`` from the scripts; 6.0 removed SQL comments).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from planner.errors import StepError

_VERSION_LINE = re.compile(r'^\s*set\s+hdb_version\s+"?v?(\d+)\.(\d+)"?\s*$', re.M)
# The releases whose gencli.tcl was read (3.3; 4.0-4.5 exit in waittocomplete; 4.6-6.0 _waittocomplete).
SUPPORTED = "3.3, 4.0 to 4.12, 5.0 and 6.0"
# Before 4.6: wait in the event loop until every virtual user is done. ``update`` lets the users' messages
# (thread::send -async to the main thread) arrive; vucomplete is true once they all finished (gencli.tcl v3.3
# line 717, v4.5 line 813). The same loop for the build and the run, in every release before 4.6.
WAIT_LOOP = "while {![vucomplete]} {after 1000; update}"


@dataclass(frozen=True, slots=True)
class Release:
    """One HammerDB release, as its hammerdbcli names it."""

    major: int
    minor: int

    @property
    def name(self) -> str:
        return f"{self.major}.{self.minor}"

    @property
    def blocking(self) -> bool:
        """From 4.6 ``buildschema`` and ``vurun`` wait for their virtual users (gencli.tcl v4.6 _waittocomplete)."""
        return (self.major, self.minor) >= (4, 6)

    def build_tail(self) -> list[str]:
        """The lines after the build's settings: the build, and the wait it needs."""
        return ["buildschema"] if self.blocking else ["buildschema", WAIT_LOOP]

    def run_tail(self) -> list[str]:
        """The lines that run the loaded driver: the users are destroyed only once they finished."""
        return ["vucreate", "vurun", "vudestroy"] if self.blocking else ["vucreate", "vurun", WAIT_LOOP, "vudestroy"]


def supported(major: int, minor: int) -> bool:
    return (major, minor) in ((3, 3), (5, 0), (6, 0)) or (major == 4 and 0 <= minor <= 12)


def read_release(text: str | None, path: str) -> Release:
    """The release of the ``hammerdbcli`` at ``path`` (its text), or a StepError that names what is wrong."""
    if text is None:
        raise StepError(f"hammerdb: no hammerdbcli at {path}",
                        hint="set home to the HammerDB folder that holds hammerdbcli")
    m = _VERSION_LINE.search(text)
    if m is None:
        raise StepError(f"hammerdb: cannot read HammerDB's release from {path} (no `set hdb_version` line)",
                        hint=f"point home at a HammerDB install ({SUPPORTED}) whose hammerdbcli is HammerDB's own")
    release = Release(int(m.group(1)), int(m.group(2)))
    if not supported(release.major, release.minor):
        raise StepError(f"hammerdb: HammerDB {release.name} is not supported (planner drives {SUPPORTED})",
                        hint=f"install HammerDB {SUPPORTED} and point home at it")
    return release
