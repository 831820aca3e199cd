"""Install the stand-in SLOB kit (planner/rehearsal/standins/slob/, PLANNER STAND-IN, not SLOB) into a sandbox."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

from planner.rehearsal.labuser import closed_to_others

KIT = Path(__file__).resolve().parent / "slob"


def install_slob_kit(dest: Path, *, loaded_schemas: int = 0) -> Path:
    """Copy the kit to ``dest`` and write ``standin.env`` (the Python and import path its reports need).

    ``loaded_schemas`` > 0 marks the kit as already set up (as if setup.sh had loaded that many schemas).
    """
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("runit.sh", "setup.sh", "slob.conf", "README.md"):
        shutil.copy2(KIT / name, dest / name)
    repo = Path(__file__).resolve().parents[3]  # the directory holding the planner package
    # runit.sh sources this with sh: quoted, so a path holding a quote or $(...) stays a value.
    # The reports need the standard library only: a Python other users cannot reach (a pyenv under /root, when
    # the lab logs in as the inventory's user) leaves runit.sh its own default, python3 from PATH.
    python = "" if closed_to_others(Path(sys.executable)) else f"PLANNER_PYTHON={shlex.quote(sys.executable)}\n"
    (dest / "standin.env").write_text(f"{python}PLANNER_PYTHONPATH={shlex.quote(str(repo))}\n")
    if loaded_schemas:
        (dest / ".standin_schemas").write_text(f"{loaded_schemas}\n")
    return dest
