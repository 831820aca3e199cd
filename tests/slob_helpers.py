"""A SLOB sweep over the stand-in kit on a local host, applied: shared by the slob kind's tests
(tests/kinds/slob/) and the Oracle-variation tests that run SLOB points."""

from __future__ import annotations

import json
from pathlib import Path

from planner.cli.main import main
from planner.kinds.slob.standin import install_slob_kit
from planner.parsers import parse_file
from planner.rehearsal.standins import DEFAULT_HOME, install_standins

KIT = "/home/oracle/SLOB"

PLAN = """\
plan: slob_sweep
plays:
  - name: slob
    hosts: lab
    workloads:
      - name: slob readers
        slob: {{kit: {kit}, readers: {readers}, run_time: 30, setup: true{extra}}}
        repeat: {repeat}
"""


def project(tmp: Path, readers: str = "[1, 2, 4]", repeat: int = 2, extra: str = ", database_statistics_type: awr",
            kit: str = KIT) -> Path:
    root = tmp / "hosts" / "alpha"
    install_standins(root)
    install_slob_kit(root / kit.lstrip("/"))
    # runit.sh needs the Oracle environment from the inventory (issue 16 row 2); these sweep tests are not about
    # the buffer cache, so its check is opened wide (slob_max_cache_pct; tests/test_oracle_kit.py covers it).
    (tmp / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root} "
                                   f"oracle_home={DEFAULT_HOME} oracle_sid=orcl slob_max_cache_pct=100 "
                                   "oracle_diagnostics_pack=true\n")
    (tmp / "plan.yaml").write_text(PLAN.format(kit=kit, readers=readers, repeat=repeat, extra=extra))
    return root


def apply(tmp: Path) -> tuple[int, Path, list[dict]]:
    code = main(["apply", str(tmp / "plan.yaml"), "-i", str(tmp / "hosts.ini"), "--runs-dir", str(tmp / "runs"),
                 "--no-report"])
    run = sorted(p for p in (tmp / "runs").iterdir() if p.is_dir())[-1]
    results = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == "slob readers"]
    return code, run, results


def physical_reads(run: Path, result: dict, kind: str = "awr_text") -> float:
    art = next(a for a in result["artifacts"] if a["kind"] == kind)
    value = parse_file(run / art["path"], kind).value("physical_reads_per_s")
    assert value is not None
    return value
