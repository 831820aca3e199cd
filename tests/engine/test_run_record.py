"""The run record is self-contained (issue 15 item 16): the resolved plan, a redacted inventory snapshot,
artifact checksums, the SQL a tool read on stdin and the OS samplers' commands; a killed run reads
"interrupted"."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from planner.cli.main import main
from planner.engine.runrecord import RunRecord, status_text
from planner.files import sha256_file
from planner.host import Host
from planner.steps.base import StepContext
from planner.transport.connection import LocalConnection

pytestmark = [pytest.mark.slow]


def _apply(tmp_path: Path) -> Path:
    root = tmp_path / "hosts" / "alpha"
    (root / "data").mkdir(parents=True)
    (tmp_path / "inv").mkdir()
    (tmp_path / "inv" / "hosts.ini").write_text(
        f"[lab]\nalpha ansible_connection=local planner_root={root} ansible_password=s3cr3t-ini\n")
    (tmp_path / "inv" / "group_vars").mkdir()
    (tmp_path / "inv" / "group_vars" / "all.yml").write_text("fname: resolved.dat\ndb_password: hunter2\n")
    (tmp_path / "plan.yaml").write_text(textwrap.dedent("""\
        plan: record
        plays:
          - name: p
            hosts: lab
            workloads:
              - fio: {target: "/data/{{ fname }}", rw: randread, bs: 4k, size: 1m, runtime: 1, ioengine: psync}
            collect: [vmstat, facts]
        """))
    rc = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "inv" / "hosts.ini"),
               "--runs-dir", str(tmp_path / "runs"), "--no-report"])
    assert rc == 0
    return next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())


@pytest.mark.skipif(not Path("/usr/bin/fio").exists() and not Path("/usr/local/bin/fio").exists(),
                    reason="fio is not installed")
def test_record_is_self_contained(tmp_path: Path) -> None:
    run = _apply(tmp_path)
    # the plan as given and as resolved for each host
    assert "{{ fname }}" in (run / "plan.yaml").read_text()
    resolved = yaml.safe_load((run / "plan.resolved.yaml").read_text())
    (play,) = resolved["plays"]
    fio = play["hosts"]["alpha"]["plays[0].workloads[0]"]
    assert fio["kind"] == "fio" and fio["points"][0]["args"]["target"] == "/data/resolved.dat"
    assert fio["points"][0]["point"] == 1 and fio["points"][0]["repeat"] == 1
    # the inventory and its vars files, redacted
    ini = (run / "inventory" / "hosts.ini").read_text()
    gv = (run / "inventory" / "group_vars" / "all.yml").read_text()
    assert "alpha ansible_connection=local" in ini and "s3cr3t-ini" not in ini and "ansible_password=********" in ini
    assert "fname: resolved.dat" in gv and "hunter2" not in gv and "db_password: ********" in gv
    assert json.loads((run / "meta.json").read_text())["inventory"]["snapshot"] == [
        "inventory/hosts.ini", "inventory/group_vars/all.yml"]
    # every artifact carries its checksum
    arts = [a for r in json.loads((run / "results.json").read_text()) for a in r.get("artifacts", [])]
    assert {a["kind"] for a in arts} >= {"fio_json", "vmstat", "facts"}
    for a in arts:
        assert a["sha256"] == sha256_file(run / a["path"]), a
    # the OS sampler's start and stop are in the command log
    cmds = [json.loads(line) for line in (run / "commands.jsonl").read_text().splitlines()]
    assert any("planner-ostats" in c["command"] and "vmstat" in c["command"] for c in cmds)
    assert any(c["command"].startswith("sh -c") and "kill -s TERM" in c["command"] for c in cmds)


def test_stdin_is_logged_with_secrets_redacted(tmp_path: Path) -> None:
    rec = RunRecord(tmp_path / "runs", "p", secrets=("t0psecret",))
    host = Host("local", "localhost", connection="local")
    ctx = StepContext(host=host, conn=LocalConnection(host), vars={}, step_path="plays[0].prep[0]",
                      plan_dir=tmp_path, artifacts=tmp_path, run_dir=rec.path, log=rec.log_command)
    sql = "alter user soe identified by \"Pw 1\";\nselect 't0psecret' from dual;\nexit\n"
    r = ctx.run(["wc", "-c"], stdin=sql.encode())
    assert r.stdout.strip() == str(len(sql.encode()))
    rec.close()
    (entry,) = [json.loads(line) for line in (rec.path / "commands.jsonl").read_text().splitlines()]
    assert entry["stdin"] == "alter user soe identified by ********;\nselect '********' from dual;\nexit\n"
    assert "Pw 1" not in (rec.path / "commands.jsonl").read_text()


def test_show_of_a_killed_run_says_interrupted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A SIGKILLed controller leaves meta.json at status running with no exit code."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    rec = RunRecord(tmp_path / "runs", "p")
    import platform

    rec.write_meta(run_id=rec.id, plan="p", status="running", exit_code=None, pid=dead.pid,
                   controller=platform.node(), plays=[], hosts={})
    rec.write("results.json", [])
    rec.close()
    assert main(["show", str(rec.path)]) == 0
    out = capsys.readouterr().out
    assert "interrupted" in out and "exit code None" not in out
    assert status_text({"status": "interrupted", "exit_code": 99, "interrupted_phase": "workload"}) == \
        "interrupted during workload (exit code 99)"
    assert status_text({"status": "complete", "exit_code": 0}) == "complete (exit code 0)"
