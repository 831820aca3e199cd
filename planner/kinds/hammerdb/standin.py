"""HammerDB's rehearsal stand-in: the kit folder a plan's ``home:`` names gets the stand-in hammerdbcli
(bin/hammerdbcli here, NOT HammerDB), linked so that it finds the shared stand-in modules and the sandbox's state."""

from __future__ import annotations

import re
from pathlib import Path

from planner.rehearsal.kitsite import KitSite

BIN = Path(__file__).resolve().parent / "bin"
PROGRAM = "hammerdbcli"


def install(site: KitSite) -> None:
    """The stand-in at ``<home>/hammerdbcli``, once; a relative home (planned on no host path) gets nothing."""
    if not site.absolute:
        return
    site.target.mkdir(parents=True, exist_ok=True)
    if not (site.target / PROGRAM).exists():
        (site.target / PROGRAM).symlink_to(BIN / PROGRAM)
        site.host_env(site.target / "standin.env")  # the AWR host line of the windows it snapshots


def version() -> str:
    """The release the stand-in prints (its ``VERSION``), for the rehearsal's world record."""
    m = re.search(r'^VERSION = "([^"]+)"', (BIN / PROGRAM).read_text(), re.M)
    return m.group(1) if m else "unknown"
