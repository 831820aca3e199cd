"""Issue 46: only the hosts a run selects are judged (ansible-playbook works on those alone), `-l @retry-file`,
`-i host1,host2,` and the playbook folder's group_vars/ host_vars/."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.cli.main import main

PLAN = """\
plan: p
plays:
  - name: p
    hosts: all
    workloads:
      - command: {argv: [echo, "{{ greeting }}"]}
"""
HOSTS = """\
[lab]
good ansible_connection=local greeting=hi
win ansible_connection=winrm greeting=hi
templ ansible_connection=local ansible_host="{{ nowhere_defined }}" greeting=hi
"""


def _apply(tmp_path: Path, *args: str) -> int:
    return main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "--list-hosts",
                 "--runs-dir", str(tmp_path / "runs"), *args])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "plan.yaml").write_text(PLAN)
    (tmp_path / "hosts.ini").write_text(HOSTS)
    return tmp_path


def test_hosts_outside_the_limit_do_not_refuse_the_run(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _apply(project, "-l", "good") == 0, capsys.readouterr().err
    assert "good" in capsys.readouterr().out


def test_without_the_limit_both_are_refused_at_once(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _apply(project) == 5
    err = capsys.readouterr().err
    assert "ansible_connection 'winrm' is not supported" in err and "hosts.ini:3:" in err
    assert "nowhere_defined" in err and "templ" in err


def test_a_selected_unusable_host_is_refused(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _apply(project, "-l", "win") == 5
    assert "ansible_connection 'winrm' is not supported" in capsys.readouterr().err


def test_limit_from_a_retry_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "site.retry").write_text("good\n\n")
    assert _apply(project, "-l", f"@{project / 'site.retry'}") == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "good" in out and "templ" not in out


def test_an_inline_host_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plan.yaml").write_text(PLAN.replace('"{{ greeting }}"', "hi"))
    assert main(["apply", str(tmp_path / "plan.yaml"), "-i", "db1,db2:2222,", "--list-hosts"]) == 0
    out = capsys.readouterr().out
    assert "db1" in out and "db2" in out


def test_the_plan_folder_group_vars_count(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "hosts.ini").write_text("[lab]\ngood ansible_connection=local\n")
    (project / "inv").mkdir()
    (project / "hosts.ini").rename(project / "inv" / "hosts.ini")
    args = ["validate", str(project / "plan.yaml"), "-i", str(project / "inv" / "hosts.ini")]
    assert main(args) == 5 and "greeting" in capsys.readouterr().err
    (project / "group_vars").mkdir()
    (project / "group_vars" / "lab.yml").write_text("greeting: from the playbook folder\n")
    assert main(args) == 0, capsys.readouterr().err
