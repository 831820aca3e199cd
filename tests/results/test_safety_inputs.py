"""Issue 14 rows 6, 11 and 12 (options): inputs that never end are refused quickly by name, a crafted
results.json cannot make planner read outside the run folder, and bad run ids or --runs-dir are exit 5."""

from __future__ import annotations

import json
import os
import resource
import time
from pathlib import Path

import pytest
from test_report_helpers import seed_study

from planner.cli.main import main
from planner.inputs import MAX_INPUT_BYTES

PLAN = "plan: p\nplays:\n  - name: one\n    hosts: localhost\n    workloads:\n      - command: {argv: ['true']}\n"
LAUGHS = "\n".join(['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
                   + [f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},"
                      f"*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)}]" for i in range(8)])


def _bounded(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, float]:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.monotonic()
    code = main(argv)
    took = time.monotonic() - start
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 200, f"peak memory grew by {grown_mb:.0f} MB"
    return code, capsys.readouterr().err, took


def test_billion_laughs_in_a_plan_is_refused_fast(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(LAUGHS + "\n" + PLAN)
    assert len(plan.read_bytes()) < 1000
    code, err, took = _bounded(["validate", str(plan)], capsys)
    assert code == 5 and took < 10
    assert f"{plan}:1:1: YAML aliases expand this document by" in err and "billion laughs" in err


@pytest.mark.parametrize("where", ["host_vars/alpha.yml", "group_vars/all.yml", "hosts.yml"])
def test_billion_laughs_in_an_inventory_is_refused_fast(where: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plan.yaml").write_text(PLAN.replace("localhost", "alpha"))
    inv = tmp_path / "hosts.yml"
    inv.write_text("all:\n  hosts:\n    alpha: {ansible_connection: local}\n")
    target = tmp_path / where
    target.parent.mkdir(exist_ok=True)
    if where == "hosts.yml":
        target.write_text(LAUGHS + "\nall:\n  hosts:\n    alpha: {ansible_connection: local, x: *i}\n")
    else:
        target.write_text(LAUGHS + "\n")
    code, err, took = _bounded(["validate", str(tmp_path / "plan.yaml"), "-i", str(inv)], capsys)
    assert code == 5 and took < 10, err
    assert f"{target}:1:1: YAML aliases expand" in err


@pytest.mark.parametrize("how", ["-e @/dev/zero", "-i /dev/zero", "-e @fifo", "-i fifo", "plan fifo",
                                 "-e @big", "-i big", "host_vars fifo"])
def test_endless_or_huge_inputs_are_refused_quickly(how: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # nobody ever writes to it: reading it would block for ever
    big = tmp_path / "big"
    with big.open("wb") as f:
        f.truncate(MAX_INPUT_BYTES + 1)  # sparse
    plan = tmp_path / "plan.yaml"
    plan.write_text(PLAN)
    argv = ["validate", str(plan)]
    option, _, name = how.partition(" ")
    path = {"fifo": str(fifo), "big": str(big)}.get(name.lstrip("@"), name.lstrip("@"))
    if option == "-e":
        argv += ["-e", "@" + path]
    elif option == "-i":
        argv += ["-i", path]
    elif option == "plan":
        argv = ["validate", path]
    else:
        inv = tmp_path / "hosts.ini"
        inv.write_text("localhost ansible_connection=local\n")
        (tmp_path / "host_vars").mkdir()
        os.mkfifo(tmp_path / "host_vars" / "localhost.yml")
        argv += ["-i", str(inv)]
    code, err, took = _bounded(argv, capsys)
    assert code == 5 and took < 10, err
    assert "Traceback" not in err
    expected = {"fifo": "FIFO", "big": "larger than", "/dev/zero": "a device"}.get(name.lstrip("@"), "FIFO")
    assert expected in err, err


@pytest.mark.slow
def test_crafted_artifact_paths_stay_inside_the_run_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = seed_study(tmp_path / "runs")
    outside = tmp_path / "secret-fio.json"
    outside.write_text('{"fio version": "fio-3.35", "jobs": []}')
    results = json.loads((run / "results.json").read_text())
    climbing = "../" * 12 + str(outside).lstrip("/")
    (run / "artifacts" / "link.json").symlink_to(outside)
    results.append({**results[-1], "artifacts": [{"path": climbing, "kind": "fio_json"},
                                                 {"path": str(outside), "kind": "iozone"},
                                                 {"path": "artifacts/link.json", "kind": "slb"}]})
    (run / "results.json").write_text(json.dumps(results))
    from planner.results.measure import read_run

    data = read_run(run)
    refused = [a for a in data.artifacts if "outside the run folder" in " ".join(a.errors)]
    assert len(refused) == 3 and not any(a.parsed_ok for a in refused)
    assert main(["show", str(run)]) == 0
    out = capsys.readouterr().out
    assert out.count("the path leads outside the run folder") == 3
    assert main(["report", str(run), "-o", str(tmp_path / "r.md")]) == 0
    assert "outside the run folder" in (tmp_path / "r.md").read_text()


def test_a_damaged_results_file_is_exit_5(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = seed_study(tmp_path)
    (run / "results.json").write_text('[{"step": "x"}]')
    assert main(["show", str(run)]) == 5
    assert "not a results file" in capsys.readouterr().err


@pytest.mark.parametrize("run_id", ["*", "**", "[", "?"])
def test_a_run_id_is_not_a_glob(run_id: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed_study(tmp_path)
    code = main(["show", run_id, "--runs-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 5 and "Traceback" not in err and f"no run {run_id!r}" in err


@pytest.mark.parametrize("runs_dir", ["a_file", "a_file/below", "/proc/no/such"])
def test_a_runs_dir_planner_cannot_write_is_exit_5_before_the_run(runs_dir: str, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a_file").write_text("x")
    plan = tmp_path / "plan.yaml"
    plan.write_text(PLAN.replace("['true']", f"[touch, '{tmp_path}/ran']"))
    target = runs_dir if runs_dir.startswith("/") else str(tmp_path / runs_dir)
    code = main(["apply", str(plan), "--runs-dir", target])
    err = capsys.readouterr().err
    assert code == 5 and "--runs-dir" in err and "Traceback" not in err
    assert not (tmp_path / "ran").exists()
