"""The shipped SLB-compatible kit (planner/kinds/slb/kit): builds, runs, prints the seed's lines, honours taskset."""

from __future__ import annotations

import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import planner

KIT = Path(planner.__file__).parent / "kinds" / "slb" / "kit"

# The layout of Kevin Closson's SLB output, from the project's seed (slb-silly-little-benchmark.txt).
SEED_LINES = (
    "Total wops 239999724  Secs 30.1  Avg nsec/op 125 TPUT ops/sec 7978921.92",
    "Total rops 399999540  Secs 30.1  Avg nsec/op 75 TPUT ops/sec 13300920.06",
    "Test Summary: Total wops 1859997861  Total rops  3159996366 Runtime seconds: 31 wops/s 59615316 rops/s 101281934",
)
OPS_RE = re.compile(
    r"^Total (?P<kind>wops|rops) (?P<ops>\d+)\s+Secs (?P<secs>\d+\.\d)\s+Avg nsec/op (?P<nsec>\d+)"
    r"\s+TPUT ops/sec (?P<tput>\d+\.\d\d)$", re.M)
SUMMARY_RE = re.compile(
    r"^Test Summary: Total wops (?P<wops>\d+)\s+Total rops\s+(?P<rops>\d+)\s+Runtime seconds: (?P<secs>\d+)"
    r"\s+wops/s (?P<wps>\d+)\s+rops/s (?P<rps>\d+)$", re.M)

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")
needs_taskset = pytest.mark.skipif(shutil.which("taskset") is None or not sys.platform.startswith("linux"),
                                   reason="taskset (Linux) not available")


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("cc") is None:
        pytest.skip("no C compiler (cc)")
    d = tmp_path_factory.mktemp("slbkit")
    for name in ("slb.c", "runit.sh", "Makefile"):
        shutil.copy2(KIT / name, d / name)
    subprocess.run(["cc", "-O2", "-Wall", "-Werror", "-o", str(d / "slb"), str(d / "slb.c")], check=True,
                   capture_output=True, timeout=60)
    return d


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "SLB_MB": "16", **extra}


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, env=_env())


def _check_output(out: str, users: int) -> None:
    assert out.startswith(f"Users: {users}\n")
    assert out.count("Buffer area size  16384 KB  ADDR 0x") == users
    assert out.count("Waiting for semaphore...") == users
    lines = list(OPS_RE.finditer(out))
    assert sorted(m["kind"] for m in lines) == ["rops"] * users + ["wops"] * users
    for m in lines:
        ops, secs, nsec, tput = int(m["ops"]), float(m["secs"]), int(m["nsec"]), float(m["tput"])
        assert ops > 0 and tput > 0
        assert 0.9 <= secs <= 3.0  # 1 s asked; phases end at the first clock check past the time
        assert abs(tput - ops / secs) / tput < 0.1  # Secs is rounded to 0.1 in the line
        assert 0 <= nsec < 100_000
    summary = SUMMARY_RE.search(out)
    assert summary is not None, out
    assert int(summary["wops"]) == sum(int(m["ops"]) for m in lines if m["kind"] == "wops")
    assert int(summary["rops"]) == sum(int(m["ops"]) for m in lines if m["kind"] == "rops")
    assert int(summary["secs"]) >= 1 and int(summary["wps"]) > 0 and int(summary["rps"]) > 0


def test_regexes_match_the_seed_layout() -> None:
    text = "\n".join(SEED_LINES)
    assert [m["kind"] for m in OPS_RE.finditer(text)] == ["wops", "rops"]
    m = SUMMARY_RE.search(text)
    assert m is not None and m["rops"] == "3159996366" and m["secs"] == "31"


@pytest.mark.slow
@needs_cc
def test_two_users_print_the_seed_lines(kit: Path) -> None:
    r = _run([str(kit / "runit.sh"), "2", "1"])
    assert r.returncode == 0, r.stderr
    _check_output(r.stdout, 2)


@pytest.mark.slow
@needs_cc
@needs_taskset
def test_runs_pinned_under_taskset(kit: Path) -> None:
    r = _run(["taskset", "-c", "0", str(kit / "runit.sh"), "2", "1"])
    assert r.returncode == 0, r.stderr
    _check_output(r.stdout, 2)


def _children(pid: int) -> list[int]:
    kids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                kids.append(int(entry.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
@needs_cc
@needs_taskset
def test_users_inherit_affinity_and_sigterm_stops_them_all(kit: Path) -> None:
    proc = subprocess.Popen(["taskset", "-c", "0", str(kit / "runit.sh"), "2", "60"], env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 10
        kids: list[int] = []
        while len(kids) < 2 and time.monotonic() < deadline and proc.poll() is None:
            kids = _children(proc.pid)
            time.sleep(0.01)
        assert len(kids) == 2
        for kid in kids:
            allowed = [ln for ln in Path(f"/proc/{kid}/status").read_text().splitlines()
                       if ln.startswith("Cpus_allowed_list:")]
            assert allowed == ["Cpus_allowed_list:\t0"]
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
        assert proc.returncode != 0
        deadline = time.monotonic() + 5
        while any(_alive(k) for k in kids) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not any(_alive(k) for k in kids)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


@pytest.mark.slow
@needs_cc
def test_a_failed_user_fails_the_run(kit: Path) -> None:
    def limit_memory() -> None:  # malloc of the 64 MiB buffer fails under a 32 MiB address-space cap
        resource.setrlimit(resource.RLIMIT_AS, (32 << 20, 32 << 20))

    r = subprocess.run([str(kit / "slb"), "-u", "2", "-s", "1", "-m", "64"], capture_output=True, text=True,
                       timeout=30, preexec_fn=limit_memory)
    assert r.returncode == 1
    assert "cannot allocate" in r.stderr
    assert "Test Summary" not in r.stdout


@pytest.mark.slow
@needs_cc
@pytest.mark.parametrize("args", [["0"], ["x"], []])
def test_bad_arguments_exit_2(kit: Path, args: list[str]) -> None:
    r = _run([str(kit / "runit.sh"), *args])
    assert r.returncode == 2
    assert "Test Summary" not in r.stdout
