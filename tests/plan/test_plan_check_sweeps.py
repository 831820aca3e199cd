"""A step kind's own argument check (validate) sees one sweep point's values, as the host will, never the
unexpanded sweep lists: a valid sweep passes, a bad value in it is named once."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.cli.main import main

PLAN = """\
plan: cal
plays:
  - name: p
    hosts: localhost
    workloads:
      - calibrate_io: {num_physical_disks: 4, max_latency: [20, 40]}
      - calibrate_io: {num_physical_disks: [4, 8], max_latency: [5, 20]}
        zip: [num_physical_disks, max_latency]
"""


def test_validate_gets_each_sweep_point_not_the_lists(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "p.yaml").write_text(PLAN)
    code = main(["validate", str(tmp_path / "p.yaml")])
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("ERROR!")]
    assert code == 5
    assert len(err) == 1, err  # the first step's sweep is valid; the second's 5 ms point is said once
    assert "p.yaml:7:" in err[0] and "max_latency 5 ms is below Oracle's minimum" in err[0]


def test_a_bad_zip_still_checks_every_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "p.yaml").write_text(PLAN.replace("[4, 8], max_latency: [5, 20]", "[4, 8], max_latency: [5, 20, 30]"))
    code = main(["validate", str(tmp_path / "p.yaml")])
    err = capsys.readouterr().err
    assert code == 5
    assert "zip lists must have the same length" in err and "max_latency 5 ms is below" in err
    assert "got [" not in err


def test_a_matrix_too_large_to_walk_checks_each_value_once() -> None:
    from planner.plan.check import MAX_CHECKED_POINTS, _points
    from planner.plan.model import Section, StepSpec

    args = {"rw": ["read", "write"], "bs": [f"{k}k" for k in range(1, 70)], "iodepth": list(range(1, 70)),
            "numjobs": [1, 2], "target": "/data/f"}
    spec = StepSpec("fio", Section.WORKLOADS, args, "plays[0].workloads[0]")
    points = _points(spec, args)
    assert MAX_CHECKED_POINTS < 2 * 69 * 69 * 2 and len(points) == 2 + 69 + 69 + 2 - 3
    assert {p["bs"] for p in points} == set(args["bs"]) and all(isinstance(p["iodepth"], int) for p in points)
    small = {**args, "bs": ["4k", "8k"], "iodepth": [1, 2]}
    assert len(_points(spec, small)) == 16  # a matrix of sensible size: every combination


@pytest.mark.parametrize("bad", ["true", "num_physical_disks", "{a: 1}", "[1, 2]"])
def test_a_zip_that_is_not_a_list_of_names_is_said_not_a_traceback(
        bad: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "p.yaml").write_text(PLAN.replace("zip: [num_physical_disks, max_latency]", f"zip: {bad}"))
    code = main(["validate", str(tmp_path / "p.yaml")])
    err = capsys.readouterr().err
    assert code == 5 and "Traceback" not in err and "internal error" not in err
    assert "p.yaml:" in err and "zip" in err
