"""The stand-in ORION: real arguments, real time (scaled), outputs the ORION parsers read."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from planner.parsers import parse_file

pytestmark = [pytest.mark.slow]

ORION = Path(__file__).resolve().parents[3] / "planner" / "kinds" / "orion" / "bin" / "orion"


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(ORION), *args], cwd=cwd, capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "PLANNER_STANDIN_TIME_SCALE": "0.001"})


@pytest.fixture()
def lun(tmp_path: Path) -> Path:
    dev = tmp_path / "disk1"
    dev.write_bytes(b"\0" * 4096)
    (tmp_path / "ssd.lun").write_text(f"{dev}\n")
    return dev


def test_simple_run_outputs_parse(tmp_path: Path, lun: Path) -> None:
    r = run(tmp_path, "-run", "simple", "-testname", "ssd", "-num_disks", "1", "-duration", "2")
    assert r.returncode == 0, r.stdout
    summary = next(tmp_path.glob("ssd_*_summary.txt"))
    p = parse_file(summary, "orion_summary")
    assert p.value("orion.max_small_iops") > 0 and p.value("orion.max_large_mbps") > 0
    assert p.value("orion.small_io_kb") == 8 and p.value("orion.point_duration_s") == 2
    assert p.value("orion.lun_size_bytes") == 4096
    iops = parse_file(next(tmp_path.glob("ssd_*_iops.csv")), "orion_csv")
    cells = sorted((int(m.label("small")), m.value) for m in iops.metrics)
    assert [s for s, _ in cells] == [1, 2, 3, 4, 5]
    assert [v for _, v in cells] == sorted(v for _, v in cells)  # more outstanding I/Os, more IOPS
    assert max(v for _, v in cells) == p.value("orion.max_small_iops")
    assert parse_file(next(tmp_path.glob("ssd_*_mbps.csv")), "orion_csv").metrics
    assert "PLANNER STAND-IN" in next(tmp_path.glob("ssd_*_trace.txt")).read_text()


def test_writes_cost_iops_and_dss_prints_only_mbps(tmp_path: Path, lun: Path) -> None:
    run(tmp_path, "-run", "oltp", "-testname", "ssd", "-duration", "1")
    read_iops = parse_file(next(tmp_path.glob("ssd_*_summary.txt")), "orion_summary").value("orion.max_small_iops")
    for f in tmp_path.glob("ssd_*"):
        f.unlink()
    run(tmp_path, "-run", "oltp", "-testname", "ssd", "-duration", "1", "-write", "50")
    p = parse_file(next(tmp_path.glob("ssd_*_summary.txt")), "orion_summary")
    assert p.value("orion.max_small_iops") < read_iops and p.value("orion.write_pct") == 50
    for f in tmp_path.glob("ssd_*"):
        f.unlink()
    r = run(tmp_path, "-run", "dss", "-testname", "ssd", "-duration", "1")
    assert "Maximum Large MBPS" in r.stdout and "IOPS" not in r.stdout


def test_missing_lun_file_or_device_is_an_error(tmp_path: Path) -> None:
    r = run(tmp_path, "-run", "simple", "-testname", "nolun")
    assert r.returncode == 1 and "nolun.lun" in r.stdout
    (tmp_path / "ghost.lun").write_text("/dev/does-not-exist\n")
    r = run(tmp_path, "-run", "simple", "-testname", "ghost")
    assert r.returncode == 1 and "/dev/does-not-exist" in r.stdout


def test_bad_run_type_prints_usage(tmp_path: Path) -> None:
    r = run(tmp_path, "-run", "fast")
    assert r.returncode == 1 and "Usage" in r.stdout
