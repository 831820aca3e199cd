"""Issue 14 item 1: `planner restore RUN` and `apply --resume RUN` never write a redacted value to a host.

The shareable restore.json is redacted like every record file; the host's original file held the password, so
writing that copy back would leave ``db_password=********`` and destroy the original. The unredacted copy lives
in ``<runs_dir>/.<run id>.restore.json`` (0600, beside the run folder, never in it); without it restore refuses.
Over the real loopback sshd: a copy step replaces /etc/app.conf, then a workload blocks; the controller is
SIGKILLed while it blocks.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_fault_interrupts import (
    kill_when_blocked,
    processes_with,
    unique_sleep,
)
from test_fault_resume import planner

pytestmark = [pytest.mark.slow]

PASSWORD = "Orig-s3cr3t-pw-for-restore-test"
ORIGINAL = f"# app settings\ndb_password={PASSWORD}\n"

PLAN = ("""\
plan: secret_restore
plays:
  - name: p
    hosts: all
    prep:
      - copy: {{content: "db_password=changed\\n", dest: /etc/app.conf}}
    workloads:
      - command: {{argv: [sh, -c, '[ -e "$1/blocked" ] || {{ : >"$1/blocked"; sleep "$2"; }}', """
        """sh, "{{{{ planner_root }}}}", "{sleep}"]}}
""")


def killed_run(tmp_path: Path, make_lab: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
               ) -> tuple[Path, Path, Path, str]:
    monkeypatch.setenv("PLANNER_TEST_APP_PW", PASSWORD)  # inherited by the planner subprocesses
    lab = make_lab(1)
    host = lab.hosts[0].name
    root = lab.sandbox(host)
    (root / "etc").mkdir(parents=True)
    (root / "etc/app.conf").write_text(ORIGINAL)
    sleep = unique_sleep()
    plan, inv, runs = tmp_path / "plan.yaml", tmp_path / "inv.yml", tmp_path / "runs"
    plan.write_text(PLAN.format(sleep=sleep))
    lab.write_inventory(inv)
    data = yaml.safe_load(inv.read_text())
    data["all"]["hosts"][host]["oracle_password_env"] = "PLANNER_TEST_APP_PW"
    inv.write_text(yaml.safe_dump(data))
    run = kill_when_blocked(plan, inv, runs, root / "blocked", sleep)
    assert (root / "etc/app.conf").read_text() == "db_password=changed\n"
    shared = (run / "restore.json").read_text()
    # the shareable copy holds no original content at all (issue 40 L11): its size and hash only
    assert PASSWORD not in shared and "bytes, sha256 " in shared and "in the private restore log only" in shared
    private = runs / f".{run.name}.restore.json"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    from planner.engine.restore import read_private

    assert (read_private(private, run) or [{}])[0]["saved"]["content"] == ORIGINAL
    return root, run, private, sleep


@pytest.mark.ssh
@pytest.mark.timeout(90)
def test_restore_writes_back_the_unredacted_original(tmp_path: Path, make_lab: Callable[..., Any],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    root, run, private, sleep = killed_run(tmp_path, make_lab, monkeypatch)
    done = planner("restore", str(run))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "etc/app.conf").read_text() == ORIGINAL  # not db_password=********
    assert not processes_with(sleep)
    shared = json.loads((run / "restore.json").read_text())
    assert shared[0]["reverted"] and PASSWORD not in json.dumps(shared)
    # the unredacted copy is gone once nothing is left to restore; restoring again has nothing to do
    assert not private.exists()
    again = planner("restore", str(run))
    assert again.returncode == 0 and "changed" not in again.stdout, again.stdout + again.stderr
    assert (root / "etc/app.conf").read_text() == ORIGINAL


@pytest.mark.ssh
@pytest.mark.timeout(90)
def test_resume_restores_the_unredacted_original(tmp_path: Path, make_lab: Callable[..., Any],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    root, run, _private, sleep = killed_run(tmp_path, make_lab, monkeypatch)
    done = planner("apply", "--resume", str(run), "--no-report")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "etc/app.conf").read_text() == ORIGINAL
    assert PASSWORD not in (run / "restore.json").read_text()
    assert not processes_with(sleep)


@pytest.mark.ssh
@pytest.mark.timeout(90)
def test_restore_and_resume_refuse_without_the_private_copy(tmp_path: Path, make_lab: Callable[..., Any],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    root, run, private, sleep = killed_run(tmp_path, make_lab, monkeypatch)
    private.unlink()  # e.g. a run folder moved or received from a colleague
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    for args in (["restore", str(run)], ["apply", "--resume", str(run), "--no-report"]):
        done = planner(*args)
        assert done.returncode == 5, done.stdout + done.stderr
        assert "unredacted original state" in done.stderr and "********" in done.stderr
        assert "Traceback" not in done.stderr
    assert (root / "etc/app.conf").read_text() == "db_password=changed\n"  # nothing written to the host
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before  # nor to the record
    assert processes_with(sleep), "a refused restore must not touch the host"
    planner_kill = planner("restore", str(run))  # still refused, still harmless
    assert planner_kill.returncode == 5


ATTACKER_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIattacker attacker@elsewhere\n"


def _forged_entry(root: Path) -> dict[str, Any]:
    """What a log placed beside a received folder says: the host's "original" authorized_keys is the attacker's."""
    dest = "/home/victim/.ssh/authorized_keys"
    return {"play": "plays[0]", "host": "h", "step": "plays[0].prep[0]", "title": "keys", "kind": "copy",
            "args": {"content": "x", "dest": dest}, "saved": {"dest": f"{root}{dest}", "content": ATTACKER_KEY},
            "reverted": False}


@pytest.mark.ssh
@pytest.mark.timeout(120)
@pytest.mark.parametrize("forgery", ["unsealed list", "forged seal", "another run's log"])
def test_restore_refuses_a_log_it_did_not_write_for_this_run(forgery: str, tmp_path: Path,
                                                             make_lab: Callable[..., Any],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.engine.restore import run_binding

    root, run, private, sleep = killed_run(tmp_path, make_lab, monkeypatch)
    keys = root / "home/victim/.ssh/authorized_keys"
    keys.parent.mkdir(parents=True)
    keys.write_text("ssh-ed25519 AAAA victim@here\n")
    entry = {**_forged_entry(root), "host": json.loads((run / "restore.json").read_text())[0]["host"]}
    if forgery == "unsealed list":  # the log format before runs were bound: any writer could make one
        private.write_text(json.dumps([entry]))
    elif forgery == "forged seal":
        private.write_text(json.dumps({"planner_restore_log": 2, "run": run_binding(run), "entries": [entry],
                                       "seal": "0" * 64}))
    else:  # genuine, but made for another run of the same id (another start): its entries are not this run's
        meta = json.loads((run / "meta.json").read_text())
        from planner.engine.origin import sealed  # sealed again here: this test is about the restore log

        (run / "meta.json").write_text(json.dumps(sealed({**meta, "started": "2020-01-01T00:00:00Z"})))
    for args in (["restore", str(run)], ["apply", "--resume", str(run), "--no-report"]):
        done = planner(*args)
        assert done.returncode == 5, done.stdout + done.stderr
        assert f"the restore log {private}" in done.stderr and "not used" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert keys.read_text() == "ssh-ed25519 AAAA victim@here\n"
    assert (root / "etc/app.conf").read_text() == "db_password=changed\n"
    assert processes_with(sleep), "a refused restore touches no host"


@pytest.mark.ssh
@pytest.mark.timeout(120)
def test_restore_writes_only_where_the_step_writes(tmp_path: Path, make_lab: Callable[..., Any],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A sealed log whose saved path differs from the step's own: the path is never used as given."""
    from planner.engine.restore import read_private, run_binding, write_private

    root, run, private, _sleep = killed_run(tmp_path, make_lab, monkeypatch)
    [entry] = read_private(private, run) or []
    entry["saved"] = {**entry["saved"], "dest": f"{root}/home/victim/.ssh/authorized_keys"}
    write_private(private, [entry], run_binding(run))
    done = planner("restore", str(run))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "the restore log names" in done.stdout and "where this step writes" in done.stdout, done.stdout
    assert not (root / "home").exists()


@pytest.mark.ssh
@pytest.mark.timeout(120)
@pytest.mark.parametrize("workdir", ["/tmp/elsewhere", "{wd}/../../other-run/h"])
def test_restore_refuses_a_remote_folder_that_is_not_the_runs(workdir: str, tmp_path: Path,
                                                              make_lab: Callable[..., Any],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """meta.json says where the run's processes were recorded on each host; a restore stops what is there."""
    _root, run, _private, sleep = killed_run(tmp_path, make_lab, monkeypatch)
    meta = json.loads((run / "meta.json").read_text())
    [(host, where)] = meta["remote"].items()
    meta["remote"][host] = {**where, "workdir": workdir.format(wd=where["workdir"])}
    (run / "meta.json").write_text(json.dumps(meta))
    done = planner("restore", str(run))
    assert done.returncode == 5, done.stdout + done.stderr
    assert f"remote.{host} names workdir" in done.stderr and "not this run's folder" in done.stderr, done.stderr
    assert processes_with(sleep), "nothing was touched"
