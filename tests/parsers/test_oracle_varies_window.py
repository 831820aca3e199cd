"""SLOB's own snapshot window against planner's OS samplers (docs/oracle-behaviour.md 25.19): runit.sh takes its
begin and end snapshots inside the span the samplers cover, so the OS figures are cut to that window."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.kinds.slob.window import snap_window
from planner.parsers.ostats import parse_iostat
from planner.rehearsal.standins.profile import SLOB_FACTS, SlobRelease
from planner.results import os_window
from planner.results.measure import os_summary, read_run
from tests.kinds.test_oracle_varies import LICENSED, project, run

SLOB_CUT = "cut to SLOB's own snapshots"
# What SLOB 2.5's runit.sh prints around its snapshots, as planner saves it (stdout, then stderr): f_msg's
# "NOTIFY  : %Y.%m.%d-%H:%M:%S : text" (public copy, code index id 38272540123).
KIT_LOG = """NOTIFY  : 2026.12.02-23:59:20 : Connecting 1 (THREADS_PER_SCHEMA) session(s) to 4 schema(s) ...
NOTIFY  : 2026.12.02-23:59:50 : Before awr snap ID is 41
NOTIFY  : 2026.12.03-00:00:25 : Run time 35 seconds.
NOTIFY  : 2026.12.03-00:00:26 : After awr snap ID is 42
NOTIFY  : 2026.12.03-00:00:27 : SLOB test is complete.

--- stderr ---
NOTIFY  : 2026.12.02-23:59:20 : Test has been triggered. Processes are executing. Warm-up phase.
NOTIFY  : 2026.12.02-23:59:50 : Executing awr "before snap" procedure. Command: "sqlplus -S -L / as sysdba".
NOTIFY  : 2026.12.03-00:00:25 : Executing awr "after snap" procedure. Command: "sqlplus -S -L / as sysdba".
NOTIFY  : 2026.12.03-00:00:26 : Terminating background data collectors.
"""


def test_runit_sh_messages_give_slobs_own_window_across_midnight_and_clock_formats() -> None:
    w = snap_window(KIT_LOG)
    assert w is not None
    assert (w.begin, w.end) == (datetime(2026, 12, 2, 23, 59, 50), datetime(2026, 12, 3, 0, 0, 25))
    assert (w.statistics, w.begin_snap, w.end_snap, w.seconds) == ("awr", "41", "42", 35.0)
    assert "23:59:50-00:00:25 (35 s, snapshots 41-42)" in w.describe
    # iostat ISO, vmstat -t, mpstat's time of day, a 12-hour clock: the end of each sample's interval
    assert w.holds("2026-12-03T00:00:10+0000") and w.holds("2026-12-02 23:59:51") and w.holds("00:00:25")
    assert w.holds("12:00:05 AM") and not w.holds("12:00:05 PM")
    assert not w.holds("23:59:50")  # stamped at the begin snapshot: its interval lies before it
    assert not w.holds("23:59:30") and not w.holds("00:00:26") and not w.holds("Average")
    assert snap_window("NOTIFY  : 2026.12.02-23:59:50 : Before awr snap ID is 41\n") is None  # a run that failed


def _iostat(times_and_iops: list[tuple[str, float]]) -> str:
    head = "Linux 6.8.0 (db1) \t2026-12-02 \t_x86_64_\t(2 CPU)\n\n"
    rows = [f"{t}\navg-cpu:  %user   %nice %system %iowait  %steal   %idle\n"
            f"          10.00    0.00    5.00    1.00    0.00   84.00\n\n"
            f"Device            r/s     w/s  %util\nsdb           {iops:.2f}    0.00   50.00\n\n"
            for t, iops in times_and_iops]
    return head + "".join(rows)


def test_os_figures_are_cut_to_slobs_snapshots_and_say_so() -> None:
    w = snap_window(KIT_LOG)
    # since boot, warm-up (30 s of ramp-up at a higher rate), the window, report generation
    text = _iostat([("2026-12-02T23:59:19+0000", 5.0), ("2026-12-02T23:59:35+0000", 90000.0),
                    ("2026-12-02T23:59:50+0000", 90000.0), ("2026-12-03T00:00:05+0000", 1000.0),
                    ("2026-12-03T00:00:20+0000", 3000.0), ("2026-12-03T00:00:35+0000", 40.0)])
    parsed = parse_iostat(text, "iostat.txt")
    got = {m.name: m for m in os_summary(parsed, w)}
    assert got["os.read_iops"].value == pytest.approx(2000.0)
    assert got["os.samples"].value == 2 and got["os.samples"].label("window") == SLOB_CUT
    whole = {m.name: m for m in os_summary(parsed)}  # no runit.log (fio, iozone...): unchanged, no window label
    assert whole["os.samples"].value == 5 and whole["os.samples"].label("window") == ""
    assert os_summary(parse_iostat(text.replace("2026-12-0", "2027-01-0").replace("T23:", "T11:")
                                   .replace("T00:", "T12:"), "iostat.txt"), w)[-1].label("window") \
        == os_window.NONE_INSIDE.format("SLOB's own snapshots")  # another clock: the whole point is kept


@pytest.mark.slow
def test_a_slob_points_os_statistics_cover_its_awr_window_not_the_warm_up(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    assert SLOB_FACTS[SlobRelease.V2_5_3].warm_up_s == 30
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.1")  # 3 s of warm-up, 3 s of RUN_TIME, 1 s samples
    project(tmp_path, SlobRelease.V2_5_3, host_vars=LICENSED)
    plan = tmp_path / "plan.yaml"
    plan.write_text(plan.read_text() + "    collect:\n      - iostat: {interval: 1}\n      - vmstat: {interval: 1}\n")
    code, out, res = run(tmp_path)
    assert code == 0, res["msg"]
    log = (out / next(a["path"] for a in res["artifacts"] if a["path"].endswith("runit.log"))).read_text()
    assert "Warm-up phase." in log and "Before awr snap ID is" in log and '"after snap" procedure' in log
    measured = read_run(out).measurements
    samples = {m.label("tool"): m for m in measured if m.metric == "os.samples"}
    assert samples["iostat"].label("window") == SLOB_CUT, samples
    iostat = parse_iostat((out / next(a["path"] for a in res["artifacts"] if a["path"].endswith("iostat.txt")))
                          .read_text())
    whole = len({m.label("sample") for m in iostat.all("iostat.r_iops")}) - 1  # less the since-boot report
    assert 1 <= samples["iostat"].value < whole - 2  # the warm-up's samples are left out
    assert main(["report", str(out), "-o", str(tmp_path / "r.md")]) == 0
    assert f"OS statistics window {SLOB_CUT}" in (tmp_path / "r.md").read_text()
