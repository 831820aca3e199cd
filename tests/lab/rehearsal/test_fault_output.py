"""Issue 9 item 5: malformed or truncated tool output, for each workload kind that parses, over the SSH lab.

Every case runs the real workload step through ``planner apply`` on a lab host; a small TEST DOUBLE spoils
the tool's output the way a crashed or misbehaving tool would (fio's JSON cut short, SLB printing garbage,
an AWR report cut in the middle, an ORION summary missing its result lines). Each time: the point is failed
with a ParseError naming the parser and section, the raw artifact is kept in the run folder byte for byte,
and the run record stays valid.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from planner.cli.main import main
from planner.kinds.slob.standin import install_slob_kit
from planner.rehearsal.lab import Lab
from planner.rehearsal.standins import DEFAULT_HOME, install_standins

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

ORION_STANDIN = Path(__file__).resolve().parents[3] / "planner" / "kinds" / "orion" / "bin" / "orion"


def apply(lab: Lab, tmp: Path, workload: str, title: str) -> tuple[int, Path, dict[str, Any]]:
    host = lab.hosts[0]
    inv = tmp / "lab.yml"
    lab.write_inventory(inv)
    (tmp / "plan.yaml").write_text(textwrap.dedent(f"""\
        plan: bad_output
        vars: {{oracle_home: {DEFAULT_HOME}, oracle_sid: orcl, slob_max_cache_pct: 100,
               oracle_diagnostics_pack: true}}
        plays:
          - name: bad output
            hosts: {host.name}
            workloads:
              - name: {title}
        """) + textwrap.indent(textwrap.dedent(workload), " " * 8))
    code = main(["apply", str(tmp / "plan.yaml"), "-i", str(inv), "--runs-dir", str(tmp / "runs"), "--no-report"])
    (run,) = [p for p in (tmp / "runs").iterdir() if p.is_dir()]
    (result,) = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == title]
    assert not list(run.rglob("*.tmp")) and not list(run.rglob("*.part"))
    return code, run, result


def kept(run: Path, result: dict[str, Any], kind: str) -> str:
    (art,) = [a for a in result["artifacts"] if a["kind"] == kind]
    return (run / art["path"]).read_text()


def executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path



def test_slb_output_garbage(make_lab: Callable[..., Lab], tmp_path: Path) -> None:
    lab = make_lab(1)
    kit = tmp_path / "garbage_kit"
    # TEST DOUBLE: an SLB kit whose runit.sh prints noise instead of memhammer's lines.
    executable(kit / "runit.sh", "#!/bin/sh\necho 'Users: 1'\nhead -c 300 /dev/urandom | od -c | head -5\n"
                                 "echo 'Total wops 12 garbled'\n")
    code, run, result = apply(lab, tmp_path, f"slb: {{kit: {kit}, users: 1, seconds: 1}}\n", "slb garbage")
    assert code == 2 and result["status"] == "failed"
    assert "slb parser: section 'output'" in result["msg"]
    assert "Total wops 12 garbled" in kept(run, result, "slb")


def test_awr_report_cut_in_the_middle(make_lab: Callable[..., Lab], tmp_path: Path) -> None:
    lab = make_lab(1)
    sandbox = lab.sandbox(lab.hosts[0].name)
    install_standins(sandbox)
    kit = sandbox / "home/oracle/SLOB"
    install_slob_kit(kit)
    # TEST DOUBLE: the stand-in kit runs, then its AWR report is cut after the header (as if the report
    # spool died): runit.sh is renamed and wrapped.
    (kit / "runit.sh").rename(kit / "runit_whole.sh")
    executable(kit / "runit.sh", '#!/bin/sh\n# -s <schemas> -t <threads>\nsh ./runit_whole.sh "$@" || exit\n'
                                 'head -n 12 awr.txt > awr.cut && mv awr.cut awr.txt\n')
    code, run, result = apply(lab, tmp_path, """\
        slob: {kit: /home/oracle/SLOB, readers: 1, run_time: 30, setup: true, database_statistics_type: awr}
        """, "awr cut")
    assert code == 2 and result["status"] == "failed"
    assert "awr_text parser: section" in result["msg"] and "truncated report" in result["msg"]
    text = kept(run, result, "awr_text")
    assert "WORKLOAD REPOSITORY" in text and len(text.splitlines()) == 12


def test_orion_summary_missing_its_result_lines(make_lab: Callable[..., Lab], tmp_path: Path) -> None:
    lab = make_lab(1)
    sandbox = lab.sandbox(lab.hosts[0].name)
    (sandbox / "dev").mkdir(parents=True, exist_ok=True)
    (sandbox / "dev/sdb").write_bytes(b"\0" * (1 << 20))
    # TEST DOUBLE: the ORION stand-in runs, then the Maximum/Minimum lines vanish from its summary.
    executable(sandbox / "opt/orion/bin/orion", f'#!/bin/sh\n"{ORION_STANDIN}" "$@" || exit\n'
               'for f in *_summary.txt; do grep -v -e Maximum -e Minimum "$f" > "$f.x"; mv "$f.x" "$f"; done\n')
    code, run, result = apply(lab, tmp_path, """\
        orion: {binary: /opt/orion/bin/orion, testname: ssd, luns: [/dev/sdb], run: simple, num_disks: 1,
                duration: 1}
        """, "orion lines missing")
    assert code == 2 and result["status"] == "failed"
    assert "orion parser: section 'summary'" in result["msg"]
    summary = kept(run, result, "orion_summary")
    assert "Maximum" not in summary and summary.strip()
    # the rest is kept as well: _iops/_mbps csv, and the stand-in (it says 19.3) writes _lat.csv in us (12c+)
    kinds = sorted(a["kind"] for a in result["artifacts"] if a["kind"].startswith("orion_csv"))
    assert kinds == ["orion_csv", "orion_csv", "orion_csv_us"]
