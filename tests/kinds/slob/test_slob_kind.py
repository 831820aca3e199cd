"""The slob kind as one folder: its arguments parsed once, and the host variables it declares are the ones it
reads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from planner import kindspec, variables
from planner.errors import StepError
from planner.kinds.slob.args import SlobArgs
from planner.kinds.slob.kit import KitVersion
from planner.kinds.slob.step import Slob

FOLDER = Path(kindspec.__file__).parent / "kinds" / "slob"
KIT = "/home/oracle/SLOB"


def test_a_rendered_threads_per_schema_of_one_runs_on_a_2_0_to_2_3_kit() -> None:
    """A template or an -e value renders to text: "1" is one thread per schema, which SLOB 2.0-2.3 runs."""
    step = Slob({"kit": KIT, "readers": 2, "threads_per_schema": "1"})
    assert step.command(KitVersion.SLOB2) == (["sh", "./runit.sh", "2"], 2, 0)
    with pytest.raises(StepError, match="needs SLOB 2.4"):
        Slob({"kit": KIT, "readers": 2, "threads_per_schema": "2"}).command(KitVersion.SLOB2)


def test_arguments_are_parsed_once_into_slob_args() -> None:
    args = SlobArgs.of({"kit": KIT, "readers": "3", "writers": 1, "run_time": 60, "scale": "10G",
                        "conf": {"REDO_STRESS": "LITE", "SYSDBA_PASSWD": "x", "X": True}})
    assert (args.schemas, args.run_time, args.scale, args.threads_per_schema) == (4, "60", "10G", None)
    assert args.slob_conf() == {"RUN_TIME": "60", "SCALE": "10G"}
    assert args.conf_text("X") == "TRUE" and args.conf_text("NONE") is None
    with pytest.raises(StepError, match="readers must be a whole number"):
        SlobArgs.of({"kit": KIT, "readers": "many"})
    assert not re.search(r"self\.args\.get|self\.args\[", "".join(p.read_text() for p in FOLDER.glob("*.py")))


def test_the_declared_host_variables_are_the_ones_the_kind_reads() -> None:
    spec = kindspec.spec("slob")
    assert spec is not None
    read = {m for p in FOLDER.glob("*.py")
            for m in re.findall(r"\b(?:vars|variables)\.get\(\s*\"([a-z_]+)\"", p.read_text())}
    own = {v.name for v in spec.host_vars}
    assert read <= own | variables.declared()  # oracle_pdb, oracle_user: every Oracle kind's, planner/variables.py
    assert own <= read and own == {n for n in read if n.startswith("slob_")}
    assert all(v.doc and v.type for v in spec.host_vars)
