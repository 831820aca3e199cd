"""iozone's rehearsal stand-in: the binary the plan names (an absolute path) becomes a link to the stand-in
program (``bin/iozone``, which prints iozone 3.4xx's throughput lines and measures nothing)."""

from __future__ import annotations

from pathlib import Path

from planner.rehearsal.kitsite import KitSite

PROGRAM = Path(__file__).resolve().parent / "bin" / "iozone"


def install(site: KitSite) -> None:
    """Link the plan's iozone binary to the stand-in; a bare name is looked up on the host's PATH and left
    alone, as a file already there is."""
    if not site.absolute or site.target.exists():
        return
    site.target.parent.mkdir(parents=True, exist_ok=True)
    site.target.symlink_to(PROGRAM)
