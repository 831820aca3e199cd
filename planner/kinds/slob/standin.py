"""The stand-in SLOB kit (planner/kinds/slob/bin/, PLANNER STAND-IN, not SLOB), installed into a rehearsal sandbox
at the path the plan's kit argument names (the spec's ``standin``)."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

from planner.rehearsal.kitsite import KitSite
from planner.rehearsal.labuser import closed_to_others
from planner.rehearsal.standins.profile import SLOB_FACTS, SlobRelease, StandinDatabase

KIT = Path(__file__).resolve().parent / "bin"


def _conf(release: SlobRelease) -> str:
    """The stand-in slob.conf with the release's banner (planner reads it: planner.kinds.slob.kit.detect_version);
    before 2.4 there is no DATABASE_STATISTICS_TYPE (AWR only) and no THREADS_PER_SCHEMA."""
    facts = SLOB_FACTS[release]
    lines = (KIT / "slob.conf").read_text().splitlines()
    lines[0] = (f"#### PLANNER STAND-IN for SLOB {release.value} slob.conf -- NOT SLOB: "
                "a stand-in kit for planner's tests")
    if not facts.statistics_type:
        lines = [x for x in lines if not x.startswith(("DATABASE_STATISTICS_TYPE", "THREADS_PER_SCHEMA"))]
    return "\n".join(lines) + "\n"


def install_slob_kit(dest: Path, *, loaded_schemas: int = 0, release: SlobRelease = SlobRelease.V2_5_3) -> Path:
    """Copy the kit to ``dest`` and write ``standin.env`` (the Python and import path its reports need, and the
    release whose behaviour the scripts imitate: planner/rehearsal/standins/profile.py SLOB_FACTS).

    ``loaded_schemas`` > 0 marks the kit as already set up (as if setup.sh had loaded that many schemas).
    """
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("runit.sh", "setup.sh", "README.md"):
        shutil.copy2(KIT / name, dest / name)
    (dest / "slob.conf").write_text(_conf(release))
    facts = SLOB_FACTS[release]
    # the release's pool written out, as the real setup.sh's f_create_table has it (STORAGE (BUFFER_POOL KEEP ...)
    # in 2.5.3.0): planner reads it there before the tables exist (planner.kinds.slob.cache.kit_pools)
    setup = dest / "setup.sh"
    setup.write_text(setup.read_text().replace("(buffer_pool $POOL)", f"(buffer_pool {facts.buffer_pool})"))
    repo = Path(__file__).resolve().parents[3]  # the directory holding the planner package
    # runit.sh sources this with sh: quoted, so a path holding a quote or $(...) stays a value.
    # The reports need the standard library only: a Python other users cannot reach (a pyenv under /root, when
    # the lab logs in as the inventory's user) leaves runit.sh its own default, python3 from PATH.
    python = "" if closed_to_others(Path(sys.executable)) else f"PLANNER_PYTHON={shlex.quote(sys.executable)}\n"
    (dest / "standin.env").write_text(f"{python}PLANNER_PYTHONPATH={shlex.quote(str(repo))}\n"
                                      f"STANDIN_SLOB_RELEASE={release.value}\n"
                                      f"STANDIN_BUFFER_POOL={facts.buffer_pool}\n"
                                      f"STANDIN_GETOPTS={'yes' if facts.getopts else 'no'}\n"
                                      f"STANDIN_GLOBAL_REPORT={'yes' if facts.global_report else 'no'}\n"
                                      f"STANDIN_WARM_UP={facts.warm_up_s}\n")
    if loaded_schemas:
        (dest / ".standin_schemas").write_text(f"{loaded_schemas}\n")
    return dest


def install(site: KitSite) -> None:
    """The kit at the plan's path, unless one is there. A loaded lab's kit has had setup.sh run long before the
    study (enough schemas for any sweep); a fresh one is unpacked only: the plan's setup: true loads it, as on a
    lab's first day."""
    if (site.target / "runit.sh").exists():
        return
    loaded = 4096 if site.profile.database is StandinDatabase.LOADED else 0
    install_slob_kit(site.target, loaded_schemas=loaded, release=site.profile.slob_release)
    site.host_env(site.target / "standin.env")
