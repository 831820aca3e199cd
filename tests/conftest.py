"""Shared fixtures. The SSH lab: real OpenSSH servers on loopback (planner/rehearsal/lab.py)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from planner.rehearsal.lab import Lab, build_lab, sshd_available
from planner.rehearsal.labuser import no_mount_namespace

# Test files import shared pieces of one another by name (``from test_store_backends import cli``), as they did when
# the tree was flat: every folder of it is on sys.path (after everything else), so a file's place in the mirror of
# the packages (tests/layout.py) never breaks an import.
sys.path.extend(sorted({str(p.parent) for p in Path(__file__).parent.rglob("test_*.py")
                        if "data" not in p.relative_to(Path(__file__).parent).parts} - set(sys.path)))


def _require_sshd() -> None:
    reason = sshd_available()
    if reason:
        pytest.skip(f"SSH lab unavailable: {reason}")


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """Three lab hosts shared by the whole session; tests must not break them (use make_lab for that)."""
    _require_sshd()
    with build_lab(tmp_path_factory.mktemp("lab"), 3) as the_lab:
        yield the_lab


@pytest.fixture
def make_lab(tmp_path: Path) -> Iterator[Callable[..., Lab]]:
    """A factory of private labs, stopped after the test: for tests that kill hosts or swap keys."""
    _require_sshd()
    labs: list[Lab] = []

    def make(n_hosts: int = 1, **kw: object) -> Lab:
        new = build_lab(tmp_path / f"lab{len(labs)}", n_hosts, **kw)  # type: ignore[arg-type]
        labs.append(new)
        return new

    yield make
    for one in labs:
        one.stop()


# -- host prep (issue 4): a sandbox "/" with a fake sysfs, /proc and the Oracle stand-ins ---------------------
SCSI_SCHEDULERS = "[mq-deadline] kyber bfq none\n"  # a current blk-mq kernel's SCSI disk
WWID = "3600a0b80001234560000abcd12345678"


def make_prep_root(root: Path) -> Path:
    """sdb, sdc = the two paths of multipath alias violin_lun1 (dm-0, also by WWID); sdd = an old
    non-blk-mq kernel's disk; /proc/sys and /proc/meminfo; stand-ins with their seeded state."""
    from planner.rehearsal.standins import install_standins

    def block(name: str, schedulers: str) -> None:
        (root / "sys/block" / name / "queue").mkdir(parents=True, exist_ok=True)
        (root / "sys/block" / name / "queue/scheduler").write_text(schedulers)
        (root / "dev").mkdir(parents=True, exist_ok=True)
        (root / "dev" / name).write_bytes(b"")

    block("sdb", SCSI_SCHEDULERS)
    block("sdc", SCSI_SCHEDULERS)
    block("sdd", "noop deadline [cfq]\n")
    block("dm-0", "none\n")
    for slave in ("sdb", "sdc"):
        (root / "sys/block/dm-0/slaves" / slave).mkdir(parents=True, exist_ok=True)
    (root / "dev/mapper").mkdir(parents=True, exist_ok=True)
    (root / "dev/mapper/violin_lun1").symlink_to("../dm-0")
    (root / "dev/disk/by-id").mkdir(parents=True, exist_ok=True)
    (root / f"dev/disk/by-id/dm-uuid-mpath-{WWID}").symlink_to("../../dm-0")
    (root / "etc/udev/rules.d").mkdir(parents=True, exist_ok=True)
    (root / "proc/sys/vm").mkdir(parents=True, exist_ok=True)
    (root / "proc/sys/kernel").mkdir(parents=True, exist_ok=True)
    (root / "proc/sys/vm/swappiness").write_text("60\n")
    (root / "proc/sys/vm/nr_hugepages").write_text("0\n")
    (root / "proc/sys/kernel/sem").write_text("250\t32000\t100\t128\n")
    (root / "proc/meminfo").write_text("MemTotal:       65755476 kB\nHugepagesize:       2048 kB\n")
    install_standins(root)
    return root


@pytest.fixture
def prep_root(tmp_path: Path) -> Path:
    return make_prep_root(tmp_path / "host")


@pytest.fixture
def small_disk() -> Iterator[Callable[[Path, str], Path]]:
    """mount(path, size): a tmpfs of that size at path, unmounted after the test."""
    mounted: list[Path] = []

    def mount(path: Path, size: str) -> Path:
        path.mkdir(parents=True, exist_ok=True)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            pytest.skip(f"cannot mount a small tmpfs to fill up (needs root / CAP_SYS_ADMIN): {r.stderr.strip()}")
        mounted.append(path)
        return path

    yield mount
    for path in reversed(mounted):
        subprocess.run(["umount", "-l", str(path)], check=False, capture_output=True)


# -- the results store (issue 19): a throwaway PostgreSQL cluster and a store of each backend -----------------
from pg_cluster import pg_cluster, store_url  # noqa: E402, F401

# -- the two tiers (README "Tests"): `pytest -m "not slow"` is the fast tier, pure units that start no process;
# the rest needs the machine. The markers are checked, not trusted: a test that asks for one of these fixtures
# (directly or through another fixture) without the markers named fails collection, and a test without `slow`
# that starts any process (sshd, fio, PostgreSQL, chromium, a rehearsal, a shell command) fails when it does.
TIER_FIXTURES = {"lab": ("slow", "ssh"), "make_lab": ("slow", "ssh"), "pg_cluster": ("slow",),
                 "store_url": ("slow",), "small_disk": ("slow",)}


def _unmarked(item: pytest.Item) -> list[str]:
    marks = {m.name for m in item.iter_markers()}
    wanted = {m for f in getattr(item, "fixturenames", ()) for m in TIER_FIXTURES.get(f, ())}
    if "ssh" in marks:
        wanted.add("slow")
    return [f"{item.nodeid}: mark it {', '.join(sorted(wanted - marks))}"] if wanted - marks else []


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    unmarked = [line for item in items for line in _unmarked(item)]
    if unmarked:
        raise pytest.UsageError("tests that need the machine must say so (tests/conftest.py TIER_FIXTURES):\n"
                                + "\n".join(unmarked))


_STARTED = pytest.StashKey[list[str]]()


@contextlib.contextmanager
def _no_process(item: pytest.Item) -> Iterator[None]:
    """Every process a test starts goes through subprocess.Popen (subprocess.run, asyncio, the local
    transport, the lab's sshd, pg_ctl, chromium): in the fast tier, starting one fails with the reason. Fixtures
    of any scope that the item sets up count as the item's."""
    if item.get_closest_marker("slow") is not None:
        yield
        return
    started = item.stash.setdefault(_STARTED, [])
    before, real = len(started), subprocess.Popen.__init__

    def refuse(self: subprocess.Popen[bytes], args: object, *a: object, **kw: object) -> None:
        started.append(f"{args!r:.120}")
        pytest.fail(f"this test starts a process ({started[-1]}): mark it slow (README, Tests)", pytrace=False)

    subprocess.Popen.__init__ = refuse  # type: ignore[assignment,method-assign]
    try:
        yield
    finally:
        subprocess.Popen.__init__ = real  # type: ignore[method-assign]
    if len(started) > before:  # refused, but the code under test caught the failure: still a failure
        pytest.fail(f"this test starts a process ({started[before]}): mark it slow (README, Tests)", pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    with _no_process(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    with _no_process(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    if nextitem is None or nextitem.path != item.path:  # module and session fixtures end here: not the test's
        result = yield
    else:
        with _no_process(item):
            result = yield
    _accounts_untouched()
    return result


def _inodes() -> dict[str, int]:
    return {p: os.stat(p).st_ino for p in ("/etc/passwd", "/etc/shadow", "/etc/group") if os.path.exists(p)}


_ACCOUNT_FILES = _inodes()


def _accounts_untouched() -> None:
    """useradd, userdel and chpasswd replace /etc/passwd, shadow and group by rename, and Linux then detaches
    every other mount namespace's bind mount of them: each lab sshd's accounts (planner.rehearsal.labuser)
    vanish mid-run for whatever test runs beside (tests/FAULTS.md). A test needing an account uses a LabUser."""
    global _ACCOUNT_FILES
    now = _inodes()
    if now != _ACCOUNT_FILES:
        _ACCOUNT_FILES = now
        pytest.fail("this test replaced the machine's account files (useradd/userdel/chpasswd?): every lab "
                    "beside it loses its login; give it a planner.rehearsal.labuser.LabUser", pytrace=False)


# -- the slow tier on two cores (README "Tests": `-n 2`): each pytest-xdist worker gets a /tmp of its own, in a
# private mount namespace, because what planner puts on a local host lives at fixed paths there (the host lock
# /tmp/planner.lock.<host>, the work folders /tmp/planner/...) and two workers would take each other's.
_CLONE_NEWNS = 0x00020000
_PRIVATE = "PLANNER_TESTS_PRIVATE_TMP"  # set once the worker's /tmp is its own: never bind (and empty) it twice
# Set to a name of its own by each of several test suites run at once on one machine (parallel checkouts): every
# run then gets a private /tmp, its workers' folders named after it, so none takes another's locks.
_ISOLATE = "PLANNER_TESTS_ISOLATE"


def _kept_from_tmp() -> list[str]:
    """The entries of the shared /tmp this run itself lives in (a checkout, a venv, the working folder, HOME
    cloned there): each stays visible in the worker's own /tmp."""
    places = [Path.cwd(), Path(sys.prefix), Path(__file__).resolve().parent, Path.home()]
    names = {p.resolve().relative_to("/tmp").parts[0] for p in places
             if p.resolve().is_relative_to("/tmp") and p.resolve() != Path("/tmp")}
    return sorted(names)


def _private_tmp(worker: str) -> str | None:
    """Bind a fresh folder over /tmp for this worker only; the reason when this machine cannot. Never emptied
    while mounted: the folder is cleared at the next start, in a namespace where nothing is bound into it."""
    if os.geteuid() != 0:
        return "a private /tmp needs root (mount namespaces)"
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(_CLONE_NEWNS) != 0:
        return f"unshare(CLONE_NEWNS): {os.strerror(ctypes.get_errno())}"
    own, shared = Path(f"/var/tmp/planner-tests-{worker}"), Path(f"/var/tmp/planner-tests-{worker}.shared")
    for folder in (own, shared):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
    own.chmod(0o1777)  # as /tmp is: the lab's non-root login writes there too
    kept = _kept_from_tmp()
    for name in kept:
        (own / name).mkdir()
    steps = [["mount", "--make-rprivate", "/"], ["mount", "--bind", "/tmp", str(shared)],
             ["mount", "--bind", str(own), "/tmp"],
             *(["mount", "--rbind", str(shared / name), f"/tmp/{name}"] for name in kept)]
    for argv in steps:
        done = subprocess.run(argv, capture_output=True, text=True)
        if done.returncode != 0:
            return f"{' '.join(argv)}: {done.stderr.strip()}"
    return None


@pytest.hookimpl(optionalhook=True)  # a venv without pytest-xdist still runs the tiers, serially
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker per core (at most 4: each brings its own sshd labs and PostgreSQL), or a single one
    where the workers cannot each have a /tmp of their own."""
    if os.geteuid() != 0 or not shutil.which("mount") or no_mount_namespace() is not None:
        return 1
    return max(1, min(4, len(os.sched_getaffinity(0))))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    isolate = os.environ.get(_ISOLATE, "")  # several suites at once on one machine (parallel checkouts)
    if isolate:
        worker = f"{isolate}-{worker or 'solo'}"
    elif not worker or os.environ.get("PYTEST_XDIST_WORKER_COUNT") == "1":  # alone: nobody to collide with
        return
    if os.environ.get(_PRIVATE):  # a pytest inside a test (pytester) or a child of the worker: already private
        return
    why = _private_tmp(worker)
    if why is not None:
        raise pytest.UsageError(f"the tests cannot run in parallel here ({why}): run them without -n")
    os.environ[_PRIVATE] = worker
    if config.option.basetemp:  # xdist names one under the controller's /tmp, which this worker no longer sees
        Path(config.option.basetemp).parent.mkdir(parents=True, exist_ok=True)

