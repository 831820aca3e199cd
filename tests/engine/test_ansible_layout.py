"""Issue 46: the console layout as ansible-playbook 2.19.14 prints it off a terminal (its output for the same
shapes, checked with it): 80-column banners, the PLAY RECAP host column padded to 26, --list-hosts/--list-tasks."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.engine.console import Console
from planner.status import HostStats

ANSIBLE_RECAP = [  # ansible-playbook 2.19.14, ANSIBLE_NOCOLOR=1, two hosts each with one changed task
    "PLAY RECAP *********************************************************************",
    "a-very-long-host-name-longer-than-26.example.com : ok=1    changed=1    unreachable=0    failed=0    "
    "skipped=0    rescued=0    ignored=0   ",
    "localhost                  : ok=1    changed=1    unreachable=0    failed=0    skipped=0    rescued=0    "
    "ignored=0   ",
]


def test_banners_and_recap_as_ansible() -> None:
    out = io.StringIO()
    console = Console(stream=out)
    console.banner("PLAY", "all")
    console.recap({"localhost": HostStats(ok=1, changed=1),
                   "a-very-long-host-name-longer-than-26.example.com": HostStats(ok=1, changed=1)})
    lines = out.getvalue().splitlines()
    assert lines[1] == "PLAY [all] " + "*" * 69 and len(lines[1]) == 80
    assert lines[3:] == ANSIBLE_RECAP


def test_list_hosts_and_tasks_as_ansible(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    Path("hosts.ini").write_text("[web]\nw1 ansible_connection=local\nw2 ansible_connection=local\n")
    Path("plan.yaml").write_text("plan: p\nplays:\n  - name: p one\n    hosts: web\n    tags: [pt]\n    prep:\n"
                                 "      - {name: task one, command: {argv: ['true']}, tags: [fast]}\n"
                                 "    workloads:\n      - command: {argv: ['true']}\n")
    assert main(["apply", "plan.yaml", "-i", "hosts.ini", "--list-hosts", "--list-tasks"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "", "playbook: plan.yaml", "", "  play #1 (web): p one\tTAGS: [pt]", "    pattern: ['web']", "    hosts (2):",
        "      w1", "      w2", "    tasks:", "      prep : task one\tTAGS: [fast, pt]",
        "      workloads : command\tTAGS: [pt]"]
