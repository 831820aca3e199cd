"""Steady state end to end with real fio on a local host: a point whose IOPS fall partway gets the "not steady"
finding, a plan's steady_state: gets its verdict with numbers in the report, and bad options are refused at
file:line before any host is touched."""

from __future__ import annotations

import shutil
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.report.context import build_context
from planner.report.inside import with_tool
from planner.results.findings_run import not_steady
from planner.results.measure import read_run
from planner.results.point_series import PointSeries, read_points
from planner.timeseries import Downsampler

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")

# Two jobs at fixed rates: 4000 IO/s together for 3 s, then the second stops and 1000 IO/s remain
THROTTLED = """\
[global]
rw=randread
bs=4k
size=4m
ioengine=psync
time_based=1
[steady]
rate_iops=1000
runtime=6
[burst]
rate_iops=3000
runtime=3
"""


def apply(tmp_path: Path, workload: str, job_file: str | None = None) -> Path:
    root = tmp_path / "hosts" / "alpha"
    (root / "data").mkdir(parents=True, exist_ok=True)
    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root}\n")
    text = (job_file or THROTTLED).replace("[global]", f"[global]\nfilename={root}/data/t.dat")
    (tmp_path / "throttled.fio").write_text(text)
    (tmp_path / "plan.yaml").write_text("plan: steady\nplays:\n  - name: ssd\n    hosts: lab\n    workloads:\n"
                                        + textwrap.indent(workload, "      "))
    rc = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"),
               "--runs-dir", str(tmp_path / "runs")])
    assert rc == 0
    return next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())


@pytest.mark.slow
def test_a_point_throttled_partway_is_not_steady(tmp_path: Path) -> None:
    run = apply(tmp_path, "- fio: {job_file: throttled.fio}\n")
    (point,) = read_points(read_run(run)).points
    iops = point.headline
    assert iops is not None and iops.metric == "fio.iops" and iops.step_s == 1.0
    assert iops.values[0] == pytest.approx(4000, rel=0.1) and iops.values[4] == pytest.approx(1000, rel=0.1)
    (finding,) = not_steady([point])
    assert finding.code == "not_steady" and finding.message.startswith("IOPS fell ")
    assert "over the run — not steady" in finding.message
    fell = int(finding.message.split()[2].rstrip("%"))
    assert 40 <= fell <= 100
    report = next(run.glob("report*.md")).read_text()
    assert "not steady" in report and "IOPS fell" in report and "![IOPS over time" in report
    # planner's default fio criterion has a 60 s window: fio could not judge a 6 s point, and says so
    (v,) = build_context(read_run(run), run)["inside"]["verdicts"]
    assert "; fio: no verdict (its 60s window is longer than the " in v["state"] and "disagree" not in v["state"]
    assert list((run / "charts").glob("time-000-fio.iops.svg"))


@pytest.mark.slow
def test_a_plan_asking_for_steady_state_gets_its_verdict_with_numbers(tmp_path: Path) -> None:
    run = apply(tmp_path, "- fio: {target: /data/s.dat, rw: randread, bs: 4k, size: 4m, runtime: 8, ioengine: psync,\n"
                          "        extra: {rate_iops: 800},\n"
                          "        steady_state: {metric: iops, window: 3s, max_range_pct: 20, max_slope_pct: 10,\n"
                          "                       ramp: 2s}}\n")
    job = next(run.rglob("job.fio")).read_text()
    # fio's own criterion, its slope limit per second; fio may end the job once it holds, before the runtime
    assert "steadystate=iops_slope:3.333%" in job and "ss_dur=3s" in job and "ss_ramp=2s" in job
    data = read_run(run)
    ctx = build_context(data, run)
    (v,) = ctx["inside"]["verdicts"]
    assert v["asked"] and v["reached"] and v["state"].startswith("steady after ") and v["window_s"] == 3.0
    assert float(v["range_text"].strip("±%")) <= 20 and abs(float(v["slope_text"].rstrip("%"))) <= 10
    assert not not_steady(read_points(data).points)
    # fio's own verdict from its JSON, beside planner's: both judged the same 800 IO/s, both say steady
    assert "; fio: steady (iops_slope " in v["state"] and ", limit 3.333%)" in v["state"]
    assert "disagree" not in v["state"]


def test_fio_and_planner_disagreeing_are_both_said() -> None:
    fio_not = (False, "fio: not steady (iops 25%, limit 20%)")
    assert with_tool("steady after 3s", True, fio_not) == \
        "planner: steady after 3s; fio: not steady (iops 25%, limit 20%) — they disagree"
    assert with_tool("not steady", False, fio_not) == "not steady; fio: not steady (iops 25%, limit 20%)"
    # planner too short to judge, or fio unable to (window longer than the run): both said, no disagreement
    assert with_tool("too short to judge", None, fio_not).endswith("limit 20%)")
    assert with_tool("steady", True, (None, "fio: no verdict")) == "steady; fio: no verdict"
    assert with_tool("steady", True, None) == "steady"


@pytest.mark.parametrize("option, words", [
    ("window: 1s", "steady_state window '1s' is shorter than 3s"),
    ("window: 10 parsecs", "window"),
    ("max_range_pct: 0", "max_range_pct"),
    ("metric: latency", "metric"),
    ("window: 1e308", "steady_state window '1e+308' is longer than 30 days"),
    ("window: 99999999999999999999999h", "is longer than 30 days"),
    ("ramp: 99999999999999999999999h", "steady_state ramp '99999999999999999999999h' is longer than 30 days"),
])
def test_bad_steady_state_options_are_refused_at_their_line(tmp_path: Path, option: str, words: str,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "hosts.ini").write_text("[lab]\nalpha ansible_connection=local\n")
    (tmp_path / "plan.yaml").write_text(textwrap.dedent(f"""\
        plan: steady
        plays:
          - name: ssd
            hosts: lab
            workloads:
              - fio:
                  target: /data/s.dat
                  steady_state:
                    metric: iops
                    {option}
        """).replace("metric: iops\n            metric: latency", "metric: latency"))
    rc = main(["validate", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini")])
    err = capsys.readouterr().err
    assert rc == 5, err
    assert "plan.yaml:" in err and words in err and "Traceback" not in err


def _point(metric: str, values: list[float]) -> PointSeries:
    d = Downsampler(metric, "IO/s", "test", 1.0)
    for i, v in enumerate(values):
        d.add(float(i), v)
    return PointSeries("ssd", "alpha", "plays[0].workloads[0]", "orion", "orion", 0, "—", 0, False, (d.result(),))


def test_short_or_idle_points_are_not_called_unsteady() -> None:
    short = _point("fio.iops", [4000, 4000, 1000, 1000])  # a rehearsal's seconds: no trend to call
    idle = _point("iostat.iops", [0.2, 0.1, 3, 0.4, 0.1, 8])  # a stand-in's point: the device did nothing
    falling = _point("iostat.iops", [4000, 4000, 4000, 1000, 1000, 1000])
    standin = replace(falling, simulated=True)  # a rehearsal's ORION: iostat saw the lab host, not ORION
    assert short.too_short().startswith("too short to judge") and idle.too_short().startswith("no device")
    assert standin.too_short().startswith("simulated")
    assert [f.message.split(" —")[0] for f in not_steady([short, idle, standin, falling])] == [
        "device IOPS (iostat) fell 75% over the run"]
