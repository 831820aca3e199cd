"""OS statistics on short points (issue 15 item 12): the interval follows the point's expected length, the
window is never empty, and the report says how many samples it had."""

from __future__ import annotations

import re
import shutil
import textwrap
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.engine.window import WindowSpec, expected_seconds, sample_interval


def test_interval_follows_the_points_length() -> None:
    assert expected_seconds("fio", {"runtime": 2}) == 2 and expected_seconds("fio", {"runtime": "1m"}) == 60
    assert expected_seconds("fio", {"runtime": 10, "ramp_time": 5}) == 15
    assert expected_seconds("slb", {}) == 20 and expected_seconds("calibrate_io", {}) == 600  # as preflight says
    auto = WindowSpec(("mpstat",))
    assert sample_interval(auto, 2) == (1, "") and sample_interval(auto, 12) == (4, "")
    assert sample_interval(auto, 600) == (5, "") and sample_interval(auto, None) == (1, "")
    given = WindowSpec(("mpstat",), 5)
    assert sample_interval(given, 600) == (5, "")
    interval, note = sample_interval(given, 2)
    assert interval == 1 and "every 1s instead of 5s" in note


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("fio") is None or shutil.which("mpstat") is None, reason="needs fio and mpstat")
def test_a_short_point_with_the_default_interval_has_samples(tmp_path: Path) -> None:
    """A 1 s fio point with collect: [mpstat, vmstat] at the default interval: with 5 s sampling the window held
    no mpstat row and the report listed "mpstat parser: section 'CPU': no CPU rows"."""
    root = tmp_path / "hosts" / "alpha"
    (root / "data").mkdir(parents=True)
    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root}\n")
    (tmp_path / "plan.yaml").write_text(textwrap.dedent("""\
        plan: short
        plays:
          - name: p
            hosts: lab
            workloads:
              - fio: {target: /data/s.dat, rw: randread, bs: 4k, size: 1m, runtime: 1, ioengine: psync}
            collect: [mpstat, vmstat]
        """))
    rc = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"),
               "--runs-dir", str(tmp_path / "runs")])
    assert rc == 0
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    report = (run / "report.md").read_text()
    assert "no CPU rows" not in report
    # one row for all samplers: "Samples in the window (mpstat / vmstat) 1 / 2"
    m = re.search(r"samples in the window \(([\w /]+)\) ([\d /]+)", report, re.I)
    assert m, report
    counts = dict(zip(m.group(1).split(" / "), m.group(2).strip().split(" / "), strict=True))
    assert set(counts) == {"mpstat", "vmstat"} and all(int(n) >= 1 for n in counts.values()), report
