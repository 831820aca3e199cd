"""The iozone workload step. iozone is not packaged here (Debian non-free), so the full step runs against a
TEST DOUBLE: a small shell script, written by the test, that checks its files and prints iozone's
throughput-mode lines (layout of tests/data/iozone; the seed's "Parent sees ... = 4681.36 KB/sec")."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.errors import StepError
from planner.host import Host
from planner.inventory.graph import load_inventory
from planner.kinds.iozone.sizes import size_kb as record_kb
from planner.kinds.iozone.step import Iozone, create_argv, iozone_argv
from planner.plan.loader import check_plan, load_plan
from planner.plan.model import SweepPoint
from planner.rehearsal.lab import Lab
from planner.status import Status
from planner.steps import ARG_CHECKS, REGISTRY
from planner.steps.base import Outcome, StepContext
from planner.transport.connection import CommandResult, Connection, LocalConnection

SEED_RUN = ["iozone", "-w", "-e", "-c", "-r", "8", "-i", "2", "-s", "1g", "-t", "4", "-F", "file1", "file2", "file3",
            "file4"]
SEED_CREATE = ["iozone", "-w", "-e", "-c", "-r", "8", "-i", "0", "-s", "1g", "-t", "1", "-F", "file1"]

FAKE_IOZONE = textwrap.dedent("""\
    #!/bin/sh
    # TEST DOUBLE for iozone (planner tests): logs its argv, creates/checks the -F files, prints the
    # throughput-mode block in iozone's layout. Not iozone.
    echo "$*" >> "$(dirname "$0")/calls.log"
    n=1; test=""; files=""
    while [ $# -gt 0 ]; do
        case $1 in
            -t) n=$2; shift ;;
            -i) test=$2; shift ;;
            -F) shift; files="$*"; break ;;
        esac
        shift
    done
    echo "        Iozone: Performance Test of File I/O (planner test double)"
    echo "        Record Size 8 kB"
    echo "        Throughput test with $n processes"
    if [ "$test" = 0 ]; then
        for f in $files; do head -c 65536 /dev/zero > "$f" || exit 1; done
        echo "        Children see throughput for  $n initial writers  =   90000.00 kB/sec"
        echo "        Parent sees throughput for  $n initial writers   =   80000.00 kB/sec"
    else
        for f in $files; do
            test -f "$f" || { echo "Can not open temp file: $f" >&2; exit 1; }
        done
        echo "        Children see throughput for  $n random readers  =    5000.00 kB/sec"
        echo "        Parent sees throughput for  $n random readers   =    4681.36 KB/sec"
        echo "        Min throughput per process                      =    1100.00 kB/sec"
        echo "        Max throughput per process                      =    1400.00 kB/sec"
        echo "        Avg throughput per process                      =    1250.00 kB/sec"
        echo "        Min xfer                                        =  900000.00 kB"
    fi
    echo ""
    echo "iozone test complete."
    """)


def make_ctx(host: Host, conn: Connection, tmp: Path, *, index: int = 0,
             log: list[CommandResult] | None = None) -> StepContext:
    run = tmp / "run"
    art = run / "artifacts" / host.name / f"point{index:03d}"
    art.mkdir(parents=True, exist_ok=True)
    sink = log if log is not None else []
    return StepContext(host=host, conn=conn, vars={}, step_path="plays[0].workloads[2]", plan_dir=tmp,
                       artifacts=art, run_dir=run, log=lambda _h, _s, r: sink.append(r),
                       point=SweepPoint(index, (), 0))


def install_fake(root: Path) -> Path:
    """The double at /opt/iozone/iozone inside the host's root (the step maps the binary path)."""
    fake = root / "opt" / "iozone" / "iozone"
    fake.parent.mkdir(parents=True, exist_ok=True)
    fake.write_text(FAKE_IOZONE)
    fake.chmod(0o755)
    return fake


@pytest.fixture
def local(tmp_path: Path) -> tuple[Host, Path]:
    root = tmp_path / "host"
    install_fake(root)
    return Host("local", "localhost", connection="local", vars={"planner_root": str(root)}), root


def test_argv_is_built_like_the_seed() -> None:
    files = ["file1", "file2", "file3", "file4"]
    assert iozone_argv("iozone", ["-w", "-e", "-c"], 8, [2], "1g", 4, files) == SEED_RUN
    assert create_argv("iozone", ["-w", "-e", "-c"], 8, "1g", "file1") == SEED_CREATE
    # without -w in the flags the creation run still keeps file1 to be copied
    assert create_argv("iozone", ["-e"], "8k", "1g", "f1")[:3] == ["iozone", "-e", "-w"]
    assert iozone_argv("iozone", [], "64k", [0, 1], "4m", 2, ["a", "b", "c"]) == \
        ["iozone", "-r", "64k", "-i", "0", "-i", "1", "-s", "4m", "-t", "2", "-F", "a", "b"]
    assert [record_kb(x) for x in (8, "8k", "1m", "1M", "x", None)] == [8, 8, 1024, 1024, None, None]


@pytest.mark.parametrize("rate", ["fast", "0", -5, 0.0])
def test_a_bad_iozone_min_mb_per_s_is_said_by_name_not_an_internal_error(rate: object) -> None:
    """The timeout's rate is a host variable (user input): text, zero or a negative rate was a ValueError or a
    ZeroDivisionError (an "internal error" with a traceback in the record) or a negative timeout."""
    step = Iozone({"tests": [0], "file_size": "1g"})
    with pytest.raises(StepError, match=r"iozone_min_mb_per_s must be a number of MB/s > 0, not"):
        step.default_timeout_s({"iozone_min_mb_per_s": rate})
    assert step.default_timeout_s({}) == step.default_timeout_s({"iozone_min_mb_per_s": 10})


def test_a_bad_iozone_min_mb_per_s_is_refused_by_the_plan_check(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Before any host is touched: the step's place in the plan, the host and the variable."""
    monkeypatch.chdir(tmp_path)
    Path("x.yaml").write_text("plan: t\nplays:\n  - name: A\n    hosts: db\n    workloads:\n"
                              "      - iozone: {tests: [0], file_size: 1g}\n")
    inv = tmp_path / "inv.yaml"
    inv.write_text("all:\n  children:\n    db:\n      hosts:\n"
                   "        db01: {ansible_connection: local, iozone_min_mb_per_s: fast}\n")
    got = [str(p) for p in check_plan(load_plan(Path("x.yaml")), load_inventory(inv), {}, kinds=ARG_CHECKS)]
    assert len(got) == 1 and got[0].startswith("x.yaml:6:")
    assert "iozone_min_mb_per_s must be a number of MB/s > 0, not 'fast'" in got[0] and "db01" in got[0]


@pytest.mark.slow
def test_full_step_with_created_files(local: tuple[Host, Path], tmp_path: Path) -> None:
    host, root = local
    log: list[CommandResult] = []
    step = Iozone({"binary": "/opt/iozone/iozone", "record_size": 8, "file_size": "1g", "tests": [2],
                   "threads": 4, "files": "/u02/iozone/file", "create_files": True, "flags": ["-w", "-e", "-c"]})
    out = step.apply(make_ctx(host, LocalConnection(host), tmp_path, log=log))
    assert out.status is Status.CHANGED, out.msg
    assert metric_values(out)["iozone.throughput{view=parent,run=1,test=random readers,procs=4}"] == 4681.36
    assert round(metric_values(out)["iozone.iops{view=parent,run=1,test=random readers,procs=4}"]) == 585
    d = root / "u02" / "iozone"
    calls = (root / "opt" / "iozone" / "calls.log").read_text().splitlines()
    assert calls == [f"-w -e -c -r 8 -i 0 -s 1g -t 1 -F {d}/file1",
                     f"-w -e -c -r 8 -i 2 -s 1g -t 4 -F {d}/file1 {d}/file2 {d}/file3 {d}/file4"]
    assert all((d / f"file{i}").read_bytes() == bytes(65536) for i in range(1, 5))  # file1 copied to 2..4
    # iozone.out and create.out; the empty stderr files are not kept
    assert sorted(Path(a.path).name for a in out.artifacts) == ["create.out", "iozone.out"]
    main = next(a for a in out.artifacts if a.kind == "iozone")
    assert "Parent sees throughput for  4 random readers" in (tmp_path / "run" / main.path).read_text()


@pytest.mark.slow
def test_default_files_and_missing_files_fail(local: tuple[Host, Path], tmp_path: Path) -> None:
    host, root = local
    out = Iozone({"binary": "/opt/iozone/iozone", "record_size": "8k", "file_size": "4m", "tests": [2],
                  "threads": 2}).apply(make_ctx(host, LocalConnection(host), tmp_path))
    assert out.status is Status.FAILED and "exit code 1" in out.msg and "Can not open temp file" in out.msg
    assert "/tmp/planner/iozone-plays-0-workloads-2/file1" in out.msg  # default files: the step's folder
    out = Iozone({"binary": "/opt/iozone/iozone", "record_size": "8k", "file_size": "4m", "tests": [2],
                  "threads": 2, "create_files": True}).apply(make_ctx(host, LocalConnection(host), tmp_path, index=1))
    assert out.status is Status.CHANGED, out.msg
    with pytest.raises(StepError, match="needs 3 files, 2 given"):
        Iozone({"tests": [2], "threads": 3, "files": ["a", "b"]}).apply(make_ctx(host, LocalConnection(host), tmp_path))


@pytest.mark.slow
def test_garbage_output_fails_with_the_parse_error_and_keeps_it(local: tuple[Host, Path], tmp_path: Path) -> None:
    host, root = local
    (root / "opt" / "iozone" / "iozone").write_text("#!/bin/sh\necho 'iozone: something odd happened'\n")
    out = Iozone({"binary": "/opt/iozone/iozone", "tests": [2]}).apply(make_ctx(host, LocalConnection(host), tmp_path))
    assert out.status is Status.FAILED and "iozone parser" in out.msg
    main = next(a for a in out.artifacts if a.kind == "iozone")
    assert "something odd" in (tmp_path / "run" / main.path).read_text()


def test_check_and_registry(local: tuple[Host, Path], tmp_path: Path) -> None:
    host, _ = local
    log: list[CommandResult] = []
    change = Iozone({"tests": [2], "threads": 2, "record_size": 8, "files": ["/a", "/b"]}).check(
        make_ctx(host, LocalConnection(host), tmp_path, log=log))
    assert change.changed and change.msg.startswith("would run iozone -r 8 -i 2 -t 2 -F ") and log == []
    assert REGISTRY["iozone"] is Iozone


@pytest.fixture
def lab_ctx(lab: Lab, tmp_path: Path) -> Iterator[tuple[StepContext, Path]]:
    from planner.transport.ssh.client import SSHConnection

    host = lab.hosts[0]
    install_fake(lab.sandbox(host.name))
    conn = SSHConnection(host)
    conn.connect()
    yield make_ctx(host, conn, tmp_path), lab.sandbox(host.name)
    conn.close()


@pytest.mark.slow
@pytest.mark.ssh
def test_iozone_double_over_real_ssh(lab_ctx: tuple[StepContext, Path]) -> None:
    ctx, _ = lab_ctx
    out = Iozone({"binary": "/opt/iozone/iozone", "record_size": 8, "file_size": "1m", "tests": [2],
                  "threads": 2, "create_files": True, "flags": ["-e"]}).apply(ctx)
    assert out.status is Status.CHANGED, out.msg
    assert round(metric_values(out)["iozone.iops{view=parent,run=1,test=random readers,procs=2}"]) == 585


def metric_values(out: Outcome) -> dict[str, float]:
    return {m.key: m.value for m in out.metrics}
