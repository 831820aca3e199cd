"""OS statistics cut to charbench's run with every user logged on (issue 43): its ``-v`` console stamps each line
with the host's time of day and ``[active/total]`` users (planner.kinds.swingbench.window)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.kinds.swingbench.window import logged_on_window
from planner.parsers.ostats import parse_iostat
from planner.results.measure import os_summary, read_run
from tests.kinds.swingbench.test_wl_swingbench import apply, project

CUT = "cut to charbench's run with every user logged on"
PUBLIC = (Path(__file__).resolve().parents[2] / "data" / "swingbench" / "charbench_console_4users.txt").read_text()


def test_the_window_runs_from_every_user_logged_on_to_the_last_line() -> None:
    w = logged_on_window(PUBLIC)  # 10:58:35 [0/4], 10:58:37 [4/4], 10:58:38 [4/4]
    assert w is not None and (f"{w.begin:%H:%M:%S}", w.seconds) == ("10:58:37", 1.0)
    assert w.holds("10:58:38") and not w.holds("10:58:36")
    late = "23:59:58 [0/2] 0 0 0\n23:59:59 [2/2] 0 0 0\n00:00:09 [2/2] 60 1 0\n"
    assert logged_on_window(late) is not None and logged_on_window(late).seconds == 10  # past midnight
    assert logged_on_window("10:58:35 [0/4] 0 0 0\n10:58:40 [3/4] 0 0 0\n") is None  # never all logged on


def test_os_figures_are_cut_to_the_logged_on_run() -> None:
    head = "Linux 6.8.0 (db1) \t2026-12-02 \t_x86_64_\t(2 CPU)\n\n"
    rows = [f"2026-12-02T{t}+0000\nDevice            r/s     w/s  %util\nsdb           {iops:.2f}    0.00   50.00\n\n"
            for t, iops in (("10:58:30", 1.0), ("10:58:36", 9000.0), ("10:58:40", 1000.0), ("10:58:44", 3000.0),
                            ("10:58:50", 5.0))]
    console = "10:58:33 [0/4] 0 0 0\n10:58:36 [4/4] 0 0 0\n10:58:45 [4/4] 480 8 0\n"
    got = {m.name: m for m in os_summary(parse_iostat(head + "".join(rows), "iostat.txt"), logged_on_window(console))}
    assert got["os.read_iops"].value == pytest.approx(2000.0)  # the logon storm's 9000 is not the run's
    assert got["os.samples"].label("window") == CUT


@pytest.mark.slow
def test_a_swingbench_points_os_statistics_leave_out_the_jvm_and_the_logons(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: os_window knew SLOB's runit.log only, and the stand-in charbench printed no line once every user
    had logged on, so a Swingbench point's OS figures were the whole point's."""
    monkeypatch.setenv("PLANNER_STANDIN_TIME_SCALE", "0.05")  # 3 s of run, 1 s samples
    project(tmp_path)
    plan = tmp_path / "plan.yaml"
    collect = "    collect:\n      - iostat: {interval: 1}\n"
    plan.write_text(plan.read_text().replace("users: [2, 8]", "users: 2") + collect)
    code, out, results = apply(tmp_path)
    assert code == 0, [r["msg"] for r in results]
    samples = next(m for m in read_run(out).measurements if m.metric == "os.samples" and m.label("tool") == "iostat")
    assert samples.label("window") == CUT
