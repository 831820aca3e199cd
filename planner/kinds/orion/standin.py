"""ORION's rehearsal stand-in: the program in ``bin/orion`` (NOT ORION), linked where the plan names the binary."""

from __future__ import annotations

from pathlib import Path

from planner.rehearsal.kitsite import KitSite

PROGRAM = Path(__file__).resolve().parent / "bin" / "orion"


def link(target: Path) -> None:
    """The stand-in at ``target`` (a path inside a sandbox), unless something is there already. A symlink, not a
    copy: the program runs from its own folder."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists() and not target.is_symlink():
        target.symlink_to(PROGRAM)


def install(site: KitSite) -> None:
    """The plan's ``binary``, when it is an absolute path (a bare name is looked up on the host's PATH)."""
    if site.absolute:
        link(site.target)
