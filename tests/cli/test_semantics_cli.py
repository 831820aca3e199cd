"""Issue 15 items 8 and 9: options refused or honoured as a user expects (no host involved)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.cli.main import main

PLAN = """\
plan: tagged
plays:
  - name: p
    hosts: localhost
    prep:
      - {name: slow prep, command: {argv: ["true"]}, tags: [slow]}
    workloads:
      - {name: fast one, command: {argv: ["true"]}, tags: [fast]}
      - {name: untagged, command: {argv: ["true"]}}
"""


def test_list_tasks_with_tags_lists_only_the_tagged_tasks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plan.yaml").write_text(PLAN)
    assert main(["apply", str(tmp_path / "plan.yaml"), "--list-tasks", "-t", "fast"]) == 0
    out = capsys.readouterr().out
    assert "fast one" in out
    assert "slow prep" not in out and "untagged" not in out, out
    assert main(["apply", str(tmp_path / "plan.yaml"), "--list-tasks", "--skip-tags", "fast"]) == 0
    out = capsys.readouterr().out
    assert "fast one" not in out and "slow prep" in out and "untagged" in out


@pytest.mark.parametrize(("value", "code"), [("0", 5), ("-3", 5), ("two", 2)])  # "two": argparse's usage error,
def test_forks_below_one_refused(tmp_path: Path, value: str, code: int,  # exit 2 as in ansible-playbook
                                 capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plan.yaml").write_text(PLAN)
    assert main(["apply", str(tmp_path / "plan.yaml"), "-f", value, "--runs-dir", str(tmp_path / "runs")]) == code
    err = capsys.readouterr().err
    assert "-f/--forks" in err and "1 or more" in err, err
    assert not (tmp_path / "runs").exists()
    assert main(["restore", str(tmp_path), "-f", value]) == code


ONE_PASS = """\
plan: one_pass
plays:
  - name: p
    hosts: localhost
    workloads:
      - fio: {rw: read, bs: 8k, size: 1m, iodepth: "{{ depth }}"}
        repeat: many
      - command: {argv: [echo, "{{ not_defined }}"]}
    collect: [ash]
"""


def test_every_problem_of_a_plan_in_one_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Schema errors, undefined variables and unimplemented kinds together: fixing one list must not reveal
    another."""
    (tmp_path / "plan.yaml").write_text(ONE_PASS)
    assert main(["validate", str(tmp_path / "plan.yaml")]) == 5
    err = capsys.readouterr().err
    assert "plan.yaml:7:17: plays[0].workloads[0].repeat" in err, err  # the schema error
    assert "undefined variable 'depth'" in err and "undefined variable 'not_defined'" in err, err
    assert "collect: ash is not implemented yet" in err
    assert "4 problems found" in err, err


@pytest.mark.parametrize("value", ["randrd", "[read, randrd]"])
def test_fio_option_values_checked_at_validate(tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plan.yaml").write_text(
        f"plan: f\nplays:\n  - name: p\n    hosts: localhost\n    workloads:\n"
        f"      - fio: {{rw: {value}, bs: 8k, size: 1m, iodepth: 1, numjobs: 2}}\n")
    assert main(["validate", str(tmp_path / "plan.yaml")]) == 5
    err = capsys.readouterr().err
    assert "fio would refuse rw='randrd'" in err, err
    assert "rw takes one of read, write, trim, randread, randwrite" in err  # the valid set, in the hint
    (tmp_path / "plan.yaml").write_text(
        "plan: f\nplays:\n  - name: p\n    hosts: localhost\n    workloads:\n"
        "      - fio: {rw: [randread, 'randwrite:8'], bs: [8k, '4k,64k'], size: 50%, iodepth: 32, direct: 1,"
        " runtime: 300}\n")
    assert main(["validate", str(tmp_path / "plan.yaml")]) == 0, capsys.readouterr().err
