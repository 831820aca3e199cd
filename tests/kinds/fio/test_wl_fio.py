"""The fio workload step for real: 1-second runs on files in a sandbox, locally and over the SSH lab."""

from __future__ import annotations

import json
import shutil
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from planner.cli.main import main
from planner.errors import StepError
from planner.host import Host
from planner.kinds.fio.jobfile import job_targets, parse_job_file
from planner.kinds.fio.step import Fio
from planner.plan.model import SweepPoint
from planner.rehearsal.lab import Lab
from planner.results.runfolder import result_from_json
from planner.status import Artifact, Status
from planner.steps import REGISTRY
from planner.steps.base import StepContext
from planner.steps.wl_common import finish
from planner.transport.connection import CommandResult, Connection, LocalConnection

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")

QUICK = {"size": "4m", "runtime": 1, "bs": "4k", "ioengine": "psync", "direct": 0}


def make_ctx(host: Host, conn: Connection, tmp: Path, *, destructive: bool = False, index: int = 0,
             log: list[CommandResult] | None = None) -> StepContext:
    run = tmp / "run"
    art = run / "artifacts" / host.name / f"point{index:03d}"
    art.mkdir(parents=True, exist_ok=True)
    sink = log if log is not None else []
    return StepContext(host=host, conn=conn, vars={}, step_path="plays[0].workloads[0]", plan_dir=tmp,
                       artifacts=art, run_dir=run, log=lambda _h, _s, r: sink.append(r),
                       point=SweepPoint(index, (), 0), destructive=destructive)


@pytest.fixture
def local(tmp_path: Path) -> tuple[Host, Path]:
    root = tmp_path / "host"
    (root / "data").mkdir(parents=True)
    (root / "dev").mkdir()
    return Host("local", "localhost", connection="local", vars={"planner_root": str(root)}), root


def iops(out: Any) -> float:
    return next(v for k, v in {m.key: m.value for m in out.metrics}.items() if k.startswith("fio.iops"))


@pytest.mark.slow
@pytest.mark.parametrize("rw", ["randread", "randwrite"])
def test_file_target_runs_for_real(local: tuple[Host, Path], tmp_path: Path, rw: str) -> None:
    host, root = local
    log: list[CommandResult] = []
    ctx = make_ctx(host, LocalConnection(host), tmp_path, log=log)
    out = Fio({"target": "/data/fio.dat", "rw": rw, **QUICK}).apply(ctx)
    assert out.status is Status.CHANGED, out.msg
    assert iops(out) > 0 and out.msg.startswith("fio: fio.iops")
    assert (root / "data" / "fio.dat").stat().st_size == 4 * 1024 * 1024  # the target was mapped into the root
    kinds = {a.kind: ctx.run_dir / a.path for a in out.artifacts}
    assert {"fio_job", "fio_json"} <= set(kinds) <= {"fio_job", "fio_json", "fio_log", "series"}
    job = kinds["fio_job"].read_text()
    assert f"filename={root}/data/fio.dat" in job and f"rw={rw}" in job and "time_based=1" in job
    assert json.loads(kinds["fio_json"].read_text())["global options"]["rw"] == rw  # the step's args: [global]
    fio_cmd = next(r for r in log if " --output-format=json " in f" {r.command} ")
    assert fio_cmd.exit_code == 0 and "/tmp/planner/fio-plays-0-workloads-0/point000" in fio_cmd.command
    # issue 47: after fio, one command says which outputs and which per-interval logs to fetch (it was two)
    after = log[log.index(fio_cmd) + 1:]
    assert len(after) == 1 and "fiolog_" in after[0].command and "fio.json" in after[0].command, after
    assert "fio_log" in kinds and "series" in kinds


@pytest.mark.slow
def test_inline_job_and_job_file(local: tuple[Host, Path], tmp_path: Path) -> None:
    host, root = local
    ctx = make_ctx(host, LocalConnection(host), tmp_path)
    out = Fio({"job": {"name": "inline", "rw": "read", "filename": "/data/a.dat", "size": "2m"},
               "ioengine": "psync", "runtime": 1}).apply(ctx)
    assert out.status is Status.CHANGED, out.msg
    assert any("job=inline" in m.key for m in out.metrics)
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "two.fio").write_text(textwrap.dedent("""\
        ; a user's job file: its own values win over the step's
        [global]
        ioengine=psync
        size=2m
        [reader]
        rw=randread
        filename=/data/b.dat
        [writer]
        rw=randwrite
        filename=/data/c.dat
        """))
    out = Fio({"job_file": "jobs/two.fio", "runtime": 1}).apply(
        make_ctx(host, LocalConnection(host), tmp_path, index=1))
    assert out.status is Status.CHANGED, out.msg
    keys = " ".join(m.key for m in out.metrics)
    assert "job=reader,dir=read" in keys and "job=writer,dir=write" in keys
    assert (root / "data" / "b.dat").exists() and (root / "data" / "c.dat").exists()


@pytest.mark.slow
def test_write_to_signed_device_is_refused_before_fio_runs(local: tuple[Host, Path], tmp_path: Path) -> None:
    host, root = local
    dev = root / "dev" / "sdx"
    with dev.open("wb") as f:
        f.truncate(4 * 1024 * 1024)
        f.seek(1080)
        f.write(b"\x53\xef")  # an ext2/3/4 superblock magic
    log: list[CommandResult] = []
    ctx = make_ctx(host, LocalConnection(host), tmp_path, destructive=True, log=log)
    with pytest.raises(StepError, match=r"fio write refused: /dev/sdx holds .*0xEF53"):
        Fio({"target": "/dev/sdx", "rw": "randwrite", **QUICK}).apply(ctx)
    assert not any("fio" in r.command.split()[0:1] or "--output-format" in r.command for r in log)
    with pytest.raises(StepError, match="not marked destructive"):
        Fio({"target": "/dev/sdx", "rw": "randrw", **QUICK}).apply(make_ctx(host, LocalConnection(host), tmp_path))
    # reading a signed device is fine: the guard is for writes only
    out = Fio({"target": "/dev/sdx", "rw": "randread", **QUICK}).apply(make_ctx(host, LocalConnection(host), tmp_path))
    assert out.status is Status.CHANGED, out.msg


@pytest.mark.slow
def test_blank_device_write_runs_when_destructive(local: tuple[Host, Path], tmp_path: Path) -> None:
    host, root = local
    with (root / "dev" / "blank").open("wb") as f:
        f.truncate(4 * 1024 * 1024)
    out = Fio({"target": "/dev/blank", "rw": "randwrite", **QUICK}).apply(
        make_ctx(host, LocalConnection(host), tmp_path, destructive=True))
    assert out.status is Status.CHANGED and iops(out) > 0, out.msg


@pytest.mark.slow
def test_fio_failure_and_bad_output_fail_the_point_keeping_artifacts(local: tuple[Host, Path], tmp_path: Path) -> None:
    host, _ = local
    ctx = make_ctx(host, LocalConnection(host), tmp_path)
    out = Fio({"target": "/data/x.dat", "rw": "randread", "extra": {"no_such_option": 1}, **QUICK}).apply(ctx)
    assert out.status is Status.FAILED and "fio exit code" in out.msg
    assert [a.kind for a in out.artifacts][:1] == ["fio_job"]  # the job file is kept to see what was asked
    bad = ctx.artifacts / "fio.json"
    bad.write_text('{"fio version": "fio-3.33", "jobs": [')
    art = Artifact(str(bad.relative_to(ctx.run_dir)), "fio_json")
    from planner.parsers import parse_file

    out = finish(ctx, "fio", [art], art, None, lambda p: parse_file(p, "fio_json"))
    assert out.status is Status.FAILED and "fio parser" in out.msg and out.artifacts == (art,)
    assert bad.exists()


def test_check_has_no_side_effects_and_registry(local: tuple[Host, Path], tmp_path: Path) -> None:
    host, root = local
    log: list[CommandResult] = []
    change = Fio({"target": "/data/y.dat", "rw": "randwrite", **QUICK}).check(
        make_ctx(host, LocalConnection(host), tmp_path, log=log))
    assert change.changed and "would run fio" in change.msg and "/data/y.dat" in change.msg
    assert log == [] and not (root / "data" / "y.dat").exists()
    assert REGISTRY["fio"] is Fio


def test_job_file_parsing() -> None:
    sections = parse_job_file("[global]\nrw=randwrite\n[a]\nfilename=/dev/sdb:/dev/sdc\n[b]\nrw=read\n"
                              "filename=/data/f\nnorandommap\n", "t.fio")
    assert job_targets(sections) == [("/dev/sdb", True), ("/dev/sdc", True), ("/data/f", False)]
    assert sections[-1][1][-1] == ("norandommap", None)
    with pytest.raises(StepError, match="outside a"):
        parse_job_file("rw=read\n", "t.fio")
    with pytest.raises(StepError, match="no job"):
        parse_job_file("[global]\nrw=read\n", "t.fio")
    with pytest.raises(StepError, match="span lines"):
        Fio({"rw": "read\n[evil]"})._global()


@pytest.mark.slow
def test_sweep_end_to_end_through_the_cli(tmp_path: Path) -> None:
    root = tmp_path / "hosts" / "alpha"
    (root / "data").mkdir(parents=True)
    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root}\n")
    (tmp_path / "plan.yaml").write_text(textwrap.dedent("""\
        plan: fio_sweep
        plays:
          - name: fio
            hosts: lab
            workloads:
              - fio: {target: /data/sweep.dat, rw: [randread, randwrite], bs: 4k, size: 4m, runtime: 1,
                      ioengine: psync}
        """))
    rc = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"),
               "--runs-dir", str(tmp_path / "runs"), "--no-report"])
    assert rc == 0
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    results = [r for r in json.loads((run / "results.json").read_text()) if r["title"] == "fio"]
    assert [(r["point"], r["params"], r["status"]) for r in results] == [
        (0, {"rw": "randread"}, "changed"), (1, {"rw": "randwrite"}, "changed")]
    for r in results:
        assert {"fio_job", "fio_json"} <= {a["kind"] for a in r["artifacts"]} <= {"fio_job", "fio_json", "fio_log",
                                                                                  "series"}
        assert all((run / a["path"]).is_file() for a in r["artifacts"])
        assert any(m.key.startswith("fio.iops") and m.value > 0 for m in result_from_json(r).metrics)


@pytest.fixture
def lab_ctx(lab: Lab, tmp_path: Path) -> Iterator[tuple[StepContext, Path]]:
    from planner.transport.ssh.client import SSHConnection

    host = lab.hosts[1]
    conn = SSHConnection(host)
    conn.connect()
    (lab.sandbox(host.name) / "data").mkdir(exist_ok=True)
    yield make_ctx(host, conn, tmp_path), lab.sandbox(host.name)
    conn.close()


@pytest.mark.slow
@pytest.mark.ssh
def test_fio_over_real_ssh(lab_ctx: tuple[StepContext, Path]) -> None:
    ctx, sandbox = lab_ctx
    out = Fio({"target": "/data/ssh.dat", "rw": "randwrite", **QUICK}).apply(ctx)
    assert out.status is Status.CHANGED, out.msg
    assert iops(out) > 0 and (sandbox / "data" / "ssh.dat").exists()
    doc = json.loads((ctx.run_dir / next(a.path for a in out.artifacts if a.kind == "fio_json")).read_text())
    assert doc["jobs"][0]["write"]["iops"] > 0


@pytest.mark.slow
def test_buffered_device_and_sync_iodepth_warn(local: tuple[Host, Path], tmp_path: Path) -> None:
    """Issue 15 item 15: a buffered device benchmark and an iodepth sweep on psync say so on the point."""
    host, root = local
    with (root / "dev" / "blank").open("wb") as f:
        f.truncate(4 * 1024 * 1024)
    out = Fio({"target": "/dev/blank", "rw": "randread", **QUICK}).apply(
        make_ctx(host, LocalConnection(host), tmp_path))
    assert out.status is Status.CHANGED and "fio runs buffered on /dev/blank (no direct=1)" in out.msg, out.msg
    ctx = make_ctx(host, LocalConnection(host), tmp_path, index=1)
    ctx.point = SweepPoint(1, (("iodepth", 4),), 0)
    change = Fio({"target": "/data/q.dat", "rw": "randread", **QUICK, "iodepth": 4}).check(ctx)
    assert "iodepth is swept with the synchronous engine psync" in change.msg
    assert "buffered" not in change.msg  # a file, not a device
    ctx.point = SweepPoint(1, (("iodepth", 4),), 0)
    change = Fio({"target": "/data/q.dat", "rw": "randread", **QUICK, "ioengine": "libaio", "iodepth": 4}).check(ctx)
    assert "warning" not in change.msg


@pytest.mark.slow
def test_report_keeps_read_and_write_apart_and_finds_fio_traps(tmp_path: Path) -> None:
    """Issue 15 item 15: a zip over rw: [read, write] gives two metrics (dir=read, dir=write), not one merged
    row whose "best point" mixes reads and writes; the report's findings name the buffered device run and the
    iodepth sweep on a synchronous engine."""
    root = tmp_path / "hosts" / "alpha"
    (root / "data").mkdir(parents=True)
    (root / "dev").mkdir()
    with (root / "dev" / "blank").open("wb") as f:
        f.truncate(4 * 1024 * 1024)
    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root}\n")
    (tmp_path / "plan.yaml").write_text(textwrap.dedent("""\
        plan: fio_traps
        plays:
          - name: fio
            hosts: lab
            workloads:
              - name: buffered device
                fio: {target: /dev/blank, rw: randread, bs: 4k, size: 4m, runtime: 1, ioengine: psync}
              - name: zipped
                fio: {target: /data/z.dat, rw: [read, write], iodepth: [1, 4], bs: 4k, size: 4m, runtime: 1,
                      ioengine: psync}
                zip: [rw, iodepth]
        """))
    rc = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"),
               "--runs-dir", str(tmp_path / "runs")])
    assert rc == 0
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    report = (run / "report.md").read_text()
    # the report speaks in words (issue 17): the dir label distinguishes the two series, never merged
    assert "| zipped | fio IOPS, dir read |" in report and "| zipped | fio IOPS, dir write |" in report
    assert "| zipped | fio IOPS |" not in report
    assert "Device benchmark ran buffered" in report and "iodepth swept with a synchronous engine" in report


@pytest.mark.slow
def test_check_diff_shows_each_points_command_and_job_file(tmp_path: Path) -> None:
    """Issue 15 item 10: -C -D shows, per point, the command line and the job file planner would write."""
    root = tmp_path / "hosts" / "alpha"
    (root / "data").mkdir(parents=True)
    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root}\n")
    (tmp_path / "plan.yaml").write_text(textwrap.dedent("""\
        plan: preview
        plays:
          - name: p
            hosts: lab
            workloads:
              - fio: {target: /data/p.dat, rw: [read, randwrite], bs: 4k, size: 1m, runtime: 1, ioengine: psync}
              - slb: {users: 2, seconds: 1, affinity: "0"}
        """))
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "-C", "-D",
                   "--runs-dir", str(tmp_path / "runs")])
    text = out.getvalue()
    assert rc == 0, text
    assert "point 1/2, repeat 1/1: rw=read:" in text and "point 2/2, repeat 1/1: rw=randwrite:" in text
    assert text.count("$ fio --output-format=json --output=<point dir>/fio.json <point dir>/job.fio") == 2
    assert f"filename={root}/data/p.dat" in text and "rw=randwrite" in text
    assert "taskset -c 0 ./runit.sh 2 1" in text
    assert not (root / "data" / "p.dat").exists() and not (tmp_path / "runs").exists()


@pytest.mark.slow
def test_a_point_over_a_real_file_keeps_its_per_second_series(local: tuple[Host, Path], tmp_path: Path) -> None:
    from planner.timeseries import read

    host, _ = local
    ctx = make_ctx(host, LocalConnection(host), tmp_path)
    out = Fio({"target": "/data/fio.dat", "rw": "randread", **{**QUICK, "runtime": 4}}).apply(ctx)
    assert out.status is Status.CHANGED, out.msg
    job = next(ctx.run_dir / a.path for a in out.artifacts if a.kind == "fio_job").read_text()
    assert "log_avg_msec=1000" in job and "write_iops_log=" in job and "write_lat_log=" in job
    logs = sorted(Path(a.path).name for a in out.artifacts if a.kind == "fio_log")
    assert logs == ["fiolog_bw.1.log", "fiolog_clat.1.log", "fiolog_iops.1.log", "fiolog_lat.1.log"]
    got = {s.metric: s for s in read(next(ctx.run_dir / a.path for a in out.artifacts if a.kind == "series"))}
    assert set(got) == {"fio.iops", "fio.bw_mbs", "fio.clat_ms", "fio.lat_ms"}
    iops = got["fio.iops"]
    assert iops.step_s == 1.0 and 3 <= len(iops.t) <= 5 and iops.t[:3] == (0.0, 1.0, 2.0)
    assert all(v > 0 for v in iops.values) and iops.label("direction") == "read"
    # 4 KiB per I/O: the bandwidth series says what the IOPS series does
    assert got["fio.bw_mbs"].values[0] == pytest.approx(iops.values[0] * 4096 / 1e6, rel=0.05)


@pytest.mark.slow
def test_precondition_fills_the_target_before_the_first_point_only(local: tuple[Host, Path], tmp_path: Path) -> None:
    host, root = local
    log: list[CommandResult] = []
    args = {"target": "/data/pre.dat", "rw": "randread", **QUICK, "precondition": {"bs": "1m", "loops": 2}}
    out = Fio(args).apply(make_ctx(host, LocalConnection(host), tmp_path, log=log))
    assert out.status is Status.CHANGED, out.msg
    pre = [a for a in out.artifacts if a.kind == "fio_precondition"]
    assert sorted(Path(a.path).name for a in pre) == ["precondition.fio", "precondition.json"]
    job = (tmp_path / "run" / next(a.path for a in pre if a.path.endswith(".fio"))).read_text()
    assert "rw=write" in job and "bs=1m" in job and "loops=2" in job and "runtime" not in job
    assert f"filename={root}/data/pre.dat" in job and "write_iops_log" not in job
    written = json.loads((tmp_path / "run" / next(a.path for a in pre if a.path.endswith(".json"))).read_text())
    assert written["jobs"][0]["write"]["io_bytes"] == 2 * 4 * 1024 * 1024  # twice the 4 MiB target
    runs = [r for r in log if " --output-format=json " in f" {r.command} "]
    assert "precondition.fio" in runs[0].command and "job.fio" in runs[1].command  # before the measured run
    log.clear()
    Fio(args).apply(make_ctx(host, LocalConnection(host), tmp_path, log=log, index=1))
    assert not [r for r in log if "precondition.fio" in r.command]  # once per run and host, not every point
