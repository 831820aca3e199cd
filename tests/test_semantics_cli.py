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


@pytest.mark.parametrize("value", ["0", "-3", "two"])
def test_forks_below_one_refused(tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plan.yaml").write_text(PLAN)
    assert main(["apply", str(tmp_path / "plan.yaml"), "-f", value, "--runs-dir", str(tmp_path / "runs")]) == 5
    err = capsys.readouterr().err
    assert "-f/--forks" in err and "1 or more" in err, err
    assert not (tmp_path / "runs").exists()
    assert main(["restore", str(tmp_path), "-f", value]) == 5
