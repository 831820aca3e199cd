"""Issue 46: Ansible's special tags, as ansible-core 2.19's Taggable.evaluate_tags decides them.

`never` runs only when named; `always` runs under any -t unless skipped by name (or by `--skip-tags all`
together with `always`); `-t tagged` / `-t untagged` select by whether a step has tags at all; no -t is -t all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.cli.main import main
from planner.engine.options import RunOptions, selected
from planner.plan.model import Play, Section, StepSpec


def _step(*tags: str) -> StepSpec:
    return StepSpec("command", Section.WORKLOADS, {}, "plays[0].workloads[0]", tags=frozenset(tags))


PLAY = Play("p", "all")
CASES = [  # (step tags, -t, --skip-tags, runs) — each row is ansible-core's answer for a task
    ((), "", "", True),
    (("never",), "", "", False),
    (("never", "debug"), "debug", "", True),
    (("never",), "never", "", True),
    (("always",), "x", "", True),
    (("always",), "x", "always", False),
    (("always",), "", "all", True),
    (("always",), "", "all,always", False),
    (("x",), "", "all", False),
    ((), "tagged", "", False),
    (("x",), "tagged", "", True),
    (("never", "x"), "tagged", "", False),
    ((), "untagged", "", True),
    (("x",), "untagged", "", False),
    (("x",), "", "tagged", False),
    ((), "", "tagged", True),
    (("x",), "all", "", True),
    (("never",), "all", "", False),
    (("y",), "x", "", False),
]


@pytest.mark.parametrize(("tags", "only", "skip", "runs"), CASES)
def test_special_tags_as_ansible(tags: tuple[str, ...], only: str, skip: str, runs: bool) -> None:
    opts = RunOptions(tags=frozenset(filter(None, only.split(","))), skip_tags=frozenset(filter(None, skip.split(","))))
    assert selected(_step(*tags), PLAY, opts) is runs


def test_list_tasks_leaves_never_out_by_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plan.yaml").write_text("""\
plan: tags
plays:
  - name: p
    hosts: localhost
    workloads:
      - {name: debug only, command: {argv: ["true"]}, tags: [never, debug]}
      - {name: every time, command: {argv: ["true"]}, tags: [always]}
      - {name: fast one, command: {argv: ["true"]}, tags: [fast]}
""")
    assert main(["apply", str(tmp_path / "plan.yaml"), "--list-tasks"]) == 0
    out = capsys.readouterr().out
    assert "debug only" not in out and "every time" in out and "fast one" in out
    assert main(["apply", str(tmp_path / "plan.yaml"), "--list-tasks", "-t", "fast"]) == 0
    out = capsys.readouterr().out
    assert "every time" in out and "debug only" not in out
