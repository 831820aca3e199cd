"""OS statistics cut to HammerDB's timed test, not its ramp-up (issue 43): the timed driver's lines carry no
wall-clock time, its log does with ``vuset timestamps 1`` (planner.kinds.hammerdb.window; docs/oracle-behaviour.md
43.h9), and os_window asks the kind where its window is (``KindSpec.own_window``)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from test_wl_hammerdb import apply, project

from planner.cli.main import main
from planner.kinds.hammerdb.window import timed_window
from planner.parsers.ostats import parse_iostat
from planner.results import os_window
from planner.results.measure import os_summary, read_run

CUT = "cut to HammerDB's timed test"
# What HammerDB 4.12 writes with logtotemp and timestamps (genvu.tcl lines 116-123: the message keeps its newline,
# puts adds one; Tcl's default clock format), the monitor's lines from oraoltp.tcl lines 2539-2586.
LOG = """Hammerdb Log @ Wed Dec 02 23:55:00 UTC 2026
+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-
Timestamp 1 @ Wed Dec 02 23:55:01 UTC 2026
Vuser 1:Beginning rampup time of 1 minutes

Timestamp 2 @ Wed Dec 02 23:55:01 UTC 2026
Vuser 2:Processing 10000000 transactions with output suppressed...

Timestamp 1 @ Wed Dec 02 23:59:49 UTC 2026
Vuser 1:Rampup complete, Taking start AWR snapshot.

Timestamp 1 @ Wed Dec 02 23:59:50 UTC 2026
Vuser 1:Start Snapshot 93 taken at 02 DEC 2026 23:59 of instance ORCL (1) of database ORCL (2066100034)

Timestamp 1 @ Wed Dec 02 23:59:50 UTC 2026
Vuser 1:Timing test period of 1 in minutes

Timestamp 1 @ Thu Dec 03 00:00:50 UTC 2026
Vuser 1:Test complete, Taking end AWR snapshot.

Timestamp 1 @ Thu Dec 03 00:00:52 UTC 2026
Vuser 1:TEST RESULT : System achieved 8043 NOPM from 16365 Oracle TPM

"""


def test_the_timed_test_is_read_from_hammerdbs_timestamped_log() -> None:
    w = timed_window(LOG)
    assert w is not None and w.within == "HammerDB's timed test"
    assert (w.begin, w.end, w.seconds) == (datetime(2026, 12, 2, 23, 59, 50), datetime(2026, 12, 3, 0, 0, 50), 60)
    assert w.holds("2026-12-03T00:00:10+0000") and not w.holds("23:59:45") and not w.holds("00:00:55")
    assert timed_window(LOG.replace("Timestamp", "Stamp")) is None  # no timestamps: no window, the whole point
    assert timed_window(LOG.split("Vuser 1:Test complete")[0]) is None  # a run that never ended its test
    assert os_window.source(["a/run_console.txt", "a/hammerdb.log"])[0] == "a/hammerdb.log"


def test_os_figures_are_cut_to_the_timed_test_not_the_rampup() -> None:
    head = "Linux 6.8.0 (db1) \t2026-12-02 \t_x86_64_\t(2 CPU)\n\n"
    rows = [f"{t}\nDevice            r/s     w/s  %util\nsdb           {iops:.2f}    0.00   50.00\n\n"
            for t, iops in (("2026-12-02T23:59:00+0000", 1.0), ("2026-12-02T23:59:30+0000", 90000.0),
                            ("2026-12-03T00:00:20+0000", 1000.0), ("2026-12-03T00:00:50+0000", 3000.0),
                            ("2026-12-03T00:01:20+0000", 5.0))]
    got = {m.name: m for m in os_summary(parse_iostat(head + "".join(rows), "iostat.txt"), timed_window(LOG))}
    assert got["os.read_iops"].value == pytest.approx(2000.0)  # the ramp-up's 90000 is not the test's
    assert got["os.samples"].value == 2 and got["os.samples"].label("window") == CUT


@pytest.mark.slow
def test_a_points_os_statistics_cover_hammerdbs_timed_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: hammerdbcli wrote no timestamped log and os_window knew SLOB's runit.log only, so the OS figures
    were the whole point's, ramp-up and build check included, beside NOPM of the timed test."""
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.05")  # 3 s of ramp-up, 3 s of timed test, 1 s samples
    project(tmp_path)
    plan = tmp_path / "plan.yaml"
    plan.write_text(plan.read_text().replace("virtual_users: [2, 4]", "virtual_users: 2")
                    .replace("rampup: 1, duration: 2", "rampup: 1, duration: 1")
                    .replace("collect: [awr]", "collect:\n      - awr\n      - iostat: {interval: 1}"))
    code, out, results = apply(tmp_path)
    assert code == 0, [r["msg"] for r in results]
    log = next(a["path"] for a in results[0]["artifacts"] if a["path"].endswith("hammerdb.log"))
    assert "Timestamp 1 @ " in (out / log).read_text()
    samples = next(m for m in read_run(out).measurements if m.metric == "os.samples" and m.label("tool") == "iostat")
    assert samples.label("window") == CUT
    iostat = next(a["path"] for a in results[0]["artifacts"] if a["path"].endswith("iostat.txt"))
    whole = len({m.label("sample") for m in parse_iostat((out / iostat).read_text()).all("iostat.r_iops")}) - 1
    assert 1 <= samples.value < whole - 2  # the ramp-up's samples are left out
    assert main(["report", str(out), "-o", str(tmp_path / "r.md")]) == 0
    report = (tmp_path / "r.md").read_text()
    assert f"OS statistics window {CUT}" in report
    assert "The load generator ran on the database host" in report  # the caveat, said by the report (43.h11)
