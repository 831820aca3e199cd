"""The orion step over the stand-in ORION: files collected and parsed, the destructive guard, bad LUNs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.rehearsal.standins.awrgen import MARKER
from planner.results.runfolder import result_from_json

STANDIN = Path(__file__).resolve().parents[3] / "planner" / "kinds" / "orion" / "bin" / "orion"

PLAN = """\
plan: orion_test
plays:
  - name: orion
    hosts: lab
    workloads:
      - name: orion run
        orion: {{binary: /opt/orion/bin/orion, testname: ssd, luns: [{luns}], run: {run}, num_disks: 1,
                duration: 1{extra}}}
{options}
"""


def project(tmp: Path, luns: str = "/dev/sdb", extra: str = "", options: str = "", run: str = "simple") -> Path:
    root = tmp / "hosts" / "alpha"
    (root / "dev").mkdir(parents=True)
    (root / "dev" / "sdb").write_bytes(b"\0" * (1 << 20))
    (root / "opt" / "orion" / "bin").mkdir(parents=True)
    (root / "opt" / "orion" / "bin" / "orion").symlink_to(STANDIN)
    (tmp / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root}\n")
    (tmp / "plan.yaml").write_text(PLAN.format(luns=luns, extra=extra, options=options, run=run))
    return root


def apply(tmp: Path) -> tuple[int, Path, dict]:
    code = main(["apply", str(tmp / "plan.yaml"), "-i", str(tmp / "hosts.ini"), "--runs-dir", str(tmp / "runs"),
                 "--no-report"])
    run = sorted(p for p in (tmp / "runs").iterdir() if p.is_dir())[-1]
    result = next(r for r in json.loads((run / "results.json").read_text()) if r["title"] == "orion run")
    return code, run, result


@pytest.mark.slow
def test_simple_run_collects_every_file_and_parses_the_summary(tmp_path: Path) -> None:
    root = project(tmp_path)
    code, run, result = apply(tmp_path)
    assert code == 0, result["msg"]
    names = [Path(a["path"]).name for a in result["artifacts"]]
    for suffix in ("_summary.txt", "_iops.csv", "_mbps.csv", "_lat.csv", "_trace.txt"):
        assert any(n.startswith("ssd_") and n.endswith(suffix) for n in names), (suffix, names)
    kinds = {Path(a["path"]).name: a["kind"] for a in result["artifacts"]}
    # the stand-in claims ORION 19.3: _lat.csv is in microseconds from 12c on, read as such (issue 16 row 8)
    assert sum(k == "orion_csv" for k in kinds.values()) == 2
    (lat,) = [n for n, k in kinds.items() if k == "orion_csv_us"]
    assert lat.endswith("_lat.csv") and any(n.endswith("_hist.txt") for n in names)
    from planner.parsers import parse_file
    lat_art = next(a for a in result["artifacts"] if a["path"].endswith("_lat.csv"))
    cells = [m.value for m in parse_file(run / lat_art["path"], "orion_csv_us").metrics]
    assert cells and all(0 < v < 50 for v in cells)  # milliseconds, not 1000x too high
    metrics = {m.key: m.value for m in result_from_json(result).metrics}
    assert metrics["orion.max_small_iops{small=5,large=0}"] > 1000
    assert 0 < metrics["orion.min_small_latency_ms{small=1,large=0}"] < 5
    summary = next(a for a in result["artifacts"] if a["kind"] == "orion_summary")
    text = (run / summary["path"]).read_text()
    assert MARKER in text and f"Name: {root}/dev/sdb" in text
    commands = (run / "commands.jsonl").read_text()
    assert "-run simple -testname ssd -num_disks 1" in commands


@pytest.mark.slow
def test_write_refused_on_a_device_holding_ext4(tmp_path: Path) -> None:
    root = project(tmp_path, extra=", write: 30", run="advanced", options="        destructive: true")
    dev = bytearray(1 << 20)
    dev[1080:1082] = b"\x53\xef"  # ext2/3/4 superblock magic at 1024 + 0x38
    (root / "dev" / "sdb").write_bytes(bytes(dev))
    code, run, result = apply(tmp_path)
    assert code == 2 and result["status"] == "failed"
    assert "refused" in result["msg"] and "ext" in result["msg"]
    assert "opt/orion/bin/orion" not in (run / "commands.jsonl").read_text()  # ORION never started


def test_write_needs_destructive_true(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Refused by the plan check (exit 5, file:line:col and the fix), so no run starts and the LUN is untouched."""
    root = project(tmp_path, extra=", write: 30", run="advanced")
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "--runs-dir",
                 str(tmp_path / "runs"), "--no-report"])
    err = capsys.readouterr().err
    assert code == 5, err
    assert "plan.yaml:7:" in err and "not marked destructive" in err and "add 'destructive: true'" in err, err
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
    assert (root / "dev" / "sdb").read_bytes() == b"\0" * (1 << 20)


@pytest.mark.slow
def test_write_on_a_blank_device_marked_destructive_runs(tmp_path: Path) -> None:
    project(tmp_path, extra=", write: 30", run="advanced", options="        destructive: true")
    code, _run, result = apply(tmp_path)
    assert code == 0, result["msg"]
    assert "-write 30" in result["msg"]


@pytest.mark.slow
def test_a_missing_lun_fails_clearly(tmp_path: Path) -> None:
    project(tmp_path, luns="/dev/sdz")
    code, _run, result = apply(tmp_path)
    assert code == 2 and "/dev/sdz" in result["msg"] and "No such file" in result["msg"]
