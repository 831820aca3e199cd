"""The engine end to end through the local transport: apply, check, diff, idempotence, restore, failures."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from planner.cli.main import main

PLAN = """\
plan: local_engine
description: engine test
vars:
  cpu_count: 16
  recycle: 64M
plays:
  - name: prep and measure
    hosts: lab
    prep:
      - name: init.ora fragment
        template: {{src: files/init.ora.j2, dest: /etc/init_slob.ora, mode: "0644"}}
        tags: [initora]
      - copy: {{content: "noop\\n", dest: /etc/scheduler.txt}}
    workloads:
      - command: {{argv: [sh, -c, 'echo measured > "$1/result.txt"', sh, "{{{{ planner_root }}}}"]}}
    collect:
      - fetch: {{src: /result.txt}}
{extra}
"""

TEMPLATE = "*.cpu_count={{ cpu_count }}\n*.db_recycle_cache_size={{ recycle }}\n# host {{ inventory_hostname }}\n"


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "init.ora.j2").write_text(TEMPLATE)
    for h in ("alpha", "beta"):
        (tmp_path / "hosts" / h / "etc").mkdir(parents=True)
    inv = tmp_path / "hosts.ini"
    inv.write_text(textwrap.dedent(f"""\
        [lab]
        alpha ansible_connection=local planner_root={tmp_path}/hosts/alpha
        beta ansible_connection=local planner_root={tmp_path}/hosts/beta
        """))
    (tmp_path / "plan.yaml").write_text(PLAN.format(extra=""))
    return tmp_path


def run(project: Path, *extra: str) -> int:
    return main(["apply", str(project / "plan.yaml"), "-i", str(project / "hosts.ini"),
                 "--runs-dir", str(project / "runs"), "--no-report", *extra])


def only_run(project: Path) -> Path:
    runs = sorted(p for p in (project / "runs").iterdir() if p.is_dir())
    return runs[-1]


@pytest.mark.slow
def test_apply_writes_a_complete_run_record(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(project) == 0
    out = capsys.readouterr().out
    assert "TASK [init.ora fragment]" in out and "PLAY RECAP" in out
    rec = only_run(project)
    meta = json.loads((rec / "meta.json").read_text())
    assert meta["status"] == "complete" and meta["exit_code"] == 0
    assert meta["planner_version"] and meta["python"] and "git" in meta
    assert (rec / "plan.yaml").read_text() == (project / "plan.yaml").read_text()
    assert json.loads((rec / "facts" / "alpha.json").read_text())["cpus"] >= 1
    commands = [json.loads(line) for line in (rec / "commands.jsonl").read_text().splitlines()]
    assert any("result.txt" in c["command"] and c["exit_code"] == 0 for c in commands)
    assert all({"duration_s", "stdout", "stderr", "host"} <= c.keys() for c in commands)
    results = json.loads((rec / "results.json").read_text())
    fetched = [r for r in results if r["title"] == "fetch" and r["host"] == "beta"]
    assert fetched and (rec / fetched[0]["artifacts"][0]["path"]).read_text() == "measured\n"
    # prep was restored at the end: the files did not exist before, so they are gone again
    assert not (project / "hosts" / "alpha" / "etc" / "init_slob.ora").exists()
    restore = json.loads((rec / "restore.json").read_text())
    assert len(restore) == 4 and all(e["reverted"] for e in restore)
    assert not list(rec.rglob("*.tmp"))


@pytest.mark.slow
def test_check_mode_predicts_and_touches_nothing(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(project, "--check", "--diff") == 0
    out = capsys.readouterr().out
    assert "changed: [alpha]" in out
    assert "+*.cpu_count=16" in out and "+# host alpha" in out
    assert "skipping: [alpha]" in out  # workloads do not run in check mode
    assert not (project / "hosts" / "alpha" / "etc" / "init_slob.ora").exists()
    assert not (project / "runs").exists()


@pytest.mark.slow
def test_second_apply_changes_nothing_when_prep_is_kept(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(project, "--keep-prep", "--skip-tags", "never") == 0
    first = capsys.readouterr().out
    assert "changed=3" in first  # template + copy + command per host
    assert (project / "hosts" / "beta" / "etc" / "init_slob.ora").read_text().startswith("*.cpu_count=16")
    assert run(project, "--keep-prep", "-t", "initora") == 0
    second = capsys.readouterr().out
    assert "changed=0" in second and "changed=1" not in second
    assert "ok: [alpha]" in second


@pytest.mark.slow
def test_restore_puts_back_an_existing_file(project: Path) -> None:
    target = project / "hosts" / "alpha" / "etc" / "scheduler.txt"
    target.write_text("mq-deadline\n")
    assert run(project) == 0
    assert target.read_text() == "mq-deadline\n"


@pytest.mark.slow
def test_one_failing_host_does_not_stop_the_other(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "hosts" / "beta" / "etc").rmdir()  # beta cannot take the template
    (project / "hosts" / "beta" / "etc").write_text("not a directory")
    assert run(project) == 2
    out = capsys.readouterr().out
    assert "fatal: [beta]: FAILED!" in out
    assert "ok: [alpha]" in out or "changed: [alpha]" in out
    rec = only_run(project)
    assert json.loads((rec / "meta.json").read_text())["status"] == "failed"
    results = json.loads((rec / "results.json").read_text())
    assert any(r["host"] == "alpha" and r["title"] == "fetch" and r["status"] == "ok" for r in results)
    assert not any(r["host"] == "beta" and r["title"] == "fetch" for r in results)


def test_bad_plan_exits_5_with_location(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "plan.yaml").write_text(PLAN.format(extra="").replace("copy: {", "coppy: {"))
    assert run(project) == 5
    err = capsys.readouterr().err
    assert "plan.yaml:13:" in err and "coppy" in err and "copy" in err
    assert not (project / "runs").exists()


@pytest.mark.slow
def test_template_error_fails_the_step_not_the_run(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "files" / "init.ora.j2").write_text("{{ no_such_var }}\n")
    assert run(project) == 2
    assert "no_such_var" in capsys.readouterr().out
