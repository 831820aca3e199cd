"""The slb workload step with the project's SLB-compatible kit, for real: copy, build once, run, parse."""

from __future__ import annotations

import os
import shutil
import stat
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.errors import StepError
from planner.host import Host
from planner.kinds.slb.step import DEFAULT_KIT, Slb, affinity_warning, cpu_list, load_kit, runit_argv
from planner.plan.model import SweepPoint
from planner.plan.schema import sweepable_params
from planner.rehearsal.lab import Lab
from planner.status import Status
from planner.steps import REGISTRY
from planner.steps.base import Outcome, StepContext
from planner.transport.connection import CommandResult, Connection, LocalConnection

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")
QUICK = {"users": 2, "seconds": 1, "buffer_mb": 8}


def make_ctx(host: Host, conn: Connection, tmp: Path, *, index: int = 0,
             log: list[CommandResult] | None = None) -> StepContext:
    run = tmp / "run"
    art = run / "artifacts" / host.name / f"point{index:03d}"
    art.mkdir(parents=True, exist_ok=True)
    sink = log if log is not None else []
    return StepContext(host=host, conn=conn, vars={}, step_path="plays[0].workloads[0]", plan_dir=tmp,
                       artifacts=art, run_dir=run, log=lambda _h, _s, r: sink.append(r),
                       point=SweepPoint(index, (), 0))


@pytest.fixture
def local(tmp_path: Path) -> Host:
    root = tmp_path / "host"
    root.mkdir()
    return Host("local", "localhost", connection="local", vars={"planner_root": str(root)})


def builds(log: list[CommandResult]) -> list[CommandResult]:
    return [r for r in log if "make;" in r.command]


@pytest.mark.slow
@needs_cc
def test_default_kit_runs_and_is_built_once(local: Host, tmp_path: Path) -> None:
    log: list[CommandResult] = []
    out = Slb({**QUICK, "affinity": "0"}).apply(make_ctx(local, LocalConnection(local), tmp_path, log=log))
    assert out.status is Status.CHANGED, out.msg
    rops = metric_values(out)["slb.rops_per_s{run=1}"]
    assert rops > 0 and metric_values(out)["slb.wops_per_s{run=1}"] > 0
    main = next(a for a in out.artifacts if a.kind == "slb")
    text = (tmp_path / "run" / main.path).read_text()
    assert text.startswith("Users: 2\n") and "Buffer area size  8192 KB" in text and "Test Summary:" in text
    run_cmd = next(r for r in log if "runit.sh" in r.command)
    assert "taskset -c 0 ./runit.sh 2 1" in run_cmd.command and "SLB_MB=8" in run_cmd.command
    assert len(builds(log)) == 1
    kit_dir = Path(local.vars["planner_root"]) / "tmp" / "planner" / "kits"
    (built,) = kit_dir.iterdir()
    assert os.access(built / "slb", os.X_OK) and os.access(built / "runit.sh", os.X_OK)
    assert stat.S_IMODE((built / "slb.c").stat().st_mode) == stat.S_IMODE((DEFAULT_KIT / "slb.c").stat().st_mode)

    # the next point reuses the build; a tampered binary is rebuilt
    log2: list[CommandResult] = []
    out2 = Slb({**QUICK, "users": 1}).apply(make_ctx(local, LocalConnection(local), tmp_path, index=1, log=log2))
    assert out2.status is Status.CHANGED and builds(log2) == [], out2.msg
    (built / "slb").write_bytes(b"#!/bin/sh\nexit 1\n")
    log3: list[CommandResult] = []
    out3 = Slb({**QUICK, "users": 1}).apply(make_ctx(local, LocalConnection(local), tmp_path, index=2, log=log3))
    assert out3.status is Status.CHANGED and len(builds(log3)) == 1, out3.msg


@pytest.mark.slow
@needs_cc
def test_kit_from_a_tarball(local: Host, tmp_path: Path) -> None:
    tar_path = tmp_path / "slbkit.tar.gz"
    with tarfile.open(tar_path, "w:gz") as tar:
        for name in ("slb.c", "runit.sh", "Makefile"):
            tar.add(DEFAULT_KIT / name, arcname=f"slbkit/{name}")
    kit = load_kit("slbkit.tar.gz", tmp_path)
    assert {f.path for f in kit.files} == {"slb.c", "runit.sh", "Makefile"}
    assert next(f for f in kit.files if f.path == "runit.sh").mode & 0o111
    out = Slb({**QUICK, "users": 1, "kit": "slbkit.tar.gz"}).apply(make_ctx(local, LocalConnection(local), tmp_path))
    assert out.status is Status.CHANGED, out.msg


@pytest.mark.slow
def test_bad_output_fails_the_point_and_keeps_the_artifact(local: Host, tmp_path: Path) -> None:
    kit = tmp_path / "fakekit"
    kit.mkdir()
    (kit / "runit.sh").write_text("#!/bin/sh\necho 'Users: 1'\necho 'Total wops 12 garbled'\n")
    (kit / "runit.sh").chmod(0o755)
    out = Slb({"users": 1, "kit": "fakekit"}).apply(make_ctx(local, LocalConnection(local), tmp_path))
    assert out.status is Status.FAILED and "slb parser" in out.msg
    (art,) = [a for a in out.artifacts if a.kind == "slb"]
    assert "garbled" in (tmp_path / "run" / art.path).read_text()
    (kit / "runit.sh").write_text("#!/bin/sh\necho 'kit broke' >&2\nexit 3\n")
    out = Slb({"users": 1, "kit": "fakekit"}).apply(make_ctx(local, LocalConnection(local), tmp_path, index=1))
    assert out.status is Status.FAILED and "exit code 3" in out.msg and "kit broke" in out.msg


def test_argument_checks(tmp_path: Path) -> None:
    assert runit_argv(6, None, "0-5") == ["taskset", "-c", "0-5", "./runit.sh", "6"]
    assert runit_argv(6, 30, None) == ["./runit.sh", "6", "30"]
    with pytest.raises(StepError, match="bad slb affinity"):
        runit_argv(6, None, "0-5; reboot")
    with pytest.raises(StepError, match="whole number"):
        Slb({"users": "six"})._argv()
    with pytest.raises(StepError, match="neither a directory nor a tarball"):
        load_kit("nope", tmp_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(StepError, match="no runit.sh"):
        load_kit("empty", tmp_path)
    assert REGISTRY["slb"] is Slb
    assert "buffer_mb" not in sweepable_params("slb")


def test_check_only_describes(local: Host, tmp_path: Path) -> None:
    log: list[CommandResult] = []
    change = Slb({"users": 6, "affinity": "0-5"}).check(make_ctx(local, LocalConnection(local), tmp_path, log=log))
    assert change.changed and "taskset -c 0-5 ./runit.sh 6" in change.msg and log == []


def test_affinity_beyond_the_hosts_cpus_warns(local: Host, tmp_path: Path) -> None:
    """Issue 15 item 14: a taskset list naming CPUs the host lacks is warned about (check and apply)."""
    assert cpu_list("0-3,8") == [0, 1, 2, 3, 8]
    assert affinity_warning("0-3", 4) == "" and affinity_warning("0-7", 0) == "" and affinity_warning(None, 2) == ""
    assert "CPU(s) 4, 5 but the host has 4 CPU(s) (0-3)" in affinity_warning("0-5", 4)
    ctx = make_ctx(local, LocalConnection(local), tmp_path)
    ctx.facts = {"cpus": 2}
    change = Slb({"users": 6, "affinity": "0-5"}).check(ctx)
    assert "names CPU(s) 2, 3, 4, 5 but the host has 2 CPU(s)" in change.msg


@pytest.mark.slow
@needs_cc
def test_affinity_warning_reaches_the_points_message(local: Host, tmp_path: Path) -> None:
    ctx = make_ctx(local, LocalConnection(local), tmp_path)
    ctx.facts = {"cpus": 1}
    out = Slb({**QUICK, "users": 1, "affinity": "0"}).apply(ctx)
    assert out.status is Status.CHANGED and "warning" not in out.msg, out.msg
    out = Slb({**QUICK, "users": 1, "affinity": "0,1"}).apply(ctx)  # this machine has 2 CPUs: taskset runs
    assert "names CPU(s) 1 but the host has 1 CPU(s)" in out.msg


@pytest.fixture
def lab_ctx(lab: Lab, tmp_path: Path) -> Iterator[StepContext]:
    from planner.transport.ssh.client import SSHConnection

    conn = SSHConnection(lab.hosts[2])
    conn.connect()
    yield make_ctx(lab.hosts[2], conn, tmp_path)
    conn.close()


@pytest.mark.slow
@needs_cc
@pytest.mark.ssh
def test_slb_over_real_ssh(lab_ctx: StepContext) -> None:
    out = Slb({**QUICK, "users": 1}).apply(lab_ctx)
    assert out.status is Status.CHANGED, out.msg
    assert metric_values(out)["slb.rops_per_s{run=1}"] > 0


def metric_values(out: Outcome) -> dict[str, float]:
    return {m.key: m.value for m in out.metrics}
