"""A play's ``vars:`` set the connection variables as ansible-playbook's do (issue 39): above the inventory's and the
plan's vars, below ``-e``. Before, only the plan's vars and ``-e`` did; a play's were silently ignored for the
connection. A run keeps one connection per host, so two plays reaching one host differently are refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from planner.cli.main import main

ROOT = Path(__file__).resolve().parents[3]
INVENTORY = "[lab]\nalpha ansible_host=192.0.2.1 ansible_user=oracle ansible_port=22\nbeta ansible_host=192.0.2.2\n"
PLAN = """\
plan: p
vars: {ansible_user: planuser, planner_workdir: /var/tmp/planner}
plays:
  - name: A
    hosts: alpha
    vars: {ansible_user: admin, ansible_port: 2222, ansible_ssh_private_key_file: /keys/lab,
           ansible_become_user: grid, planner_workdir: /var/tmp/a}
    prep:
      - command: {cmd: 'true'}
  - name: B
    hosts: beta
    prep:
      - command: {cmd: 'true'}
"""


def _load(tmp_path: Path, plan: str, extra: list[str]) -> object:
    from planner.cli.apply import load

    (tmp_path / "hosts.ini").write_text(INVENTORY)
    (tmp_path / "plan.yaml").write_text(plan)
    return load(tmp_path / "plan.yaml", tmp_path / "hosts.ini", extra)


def test_a_plays_vars_set_its_hosts_connection_over_the_inventory_and_the_plans_vars(tmp_path: Path) -> None:
    loaded = _load(tmp_path, PLAN, [])
    (alpha,) = loaded.play_hosts["A"]  # type: ignore[attr-defined]
    assert (alpha.user, alpha.port, str(alpha.key_file), alpha.become_user) == ("admin", 2222, "/keys/lab", "grid")
    assert alpha.vars["planner_workdir"] == "/var/tmp/a"
    (beta,) = loaded.play_hosts["B"]  # type: ignore[attr-defined]
    assert (beta.user, beta.vars["planner_workdir"]) == ("planuser", "/var/tmp/planner")  # the plan's vars


def test_the_plans_vars_do_not_override_the_inventorys_connection(tmp_path: Path) -> None:
    """README: plan vars < inventory < play vars < -e. Before, the plan's vars won over the inventory's login."""
    loaded = _load(tmp_path, PLAN.replace("vars: {ansible_user: admin, ", "vars: {"), [])
    (alpha,) = loaded.play_hosts["A"]  # type: ignore[attr-defined]
    assert alpha.user == "oracle"


def test_e_wins_over_a_plays_vars(tmp_path: Path) -> None:
    loaded = _load(tmp_path, PLAN, ["ansible_user=fromcli", "planner_workdir=/srv/p"])
    (alpha,) = loaded.play_hosts["A"]  # type: ignore[attr-defined]
    assert (alpha.user, alpha.port, alpha.vars["planner_workdir"]) == ("fromcli", 2222, "/srv/p")


def test_two_plays_reaching_one_host_differently_are_refused_by_validate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "hosts.ini").write_text(INVENTORY)
    (tmp_path / "plan.yaml").write_text(PLAN.replace("hosts: beta", "hosts: alpha"))
    code = main(["validate", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini")])
    err = capsys.readouterr().err
    assert code == 5, err
    line = next(i for i, x in enumerate(PLAN.splitlines(), 1) if "name: B" in x)
    assert f"plan.yaml:{line}:" in err, err
    assert "host alpha is reached with another ansible_port, ansible_user, ansible_ssh_private_key_file, " \
           "ansible_become_user, planner_workdir than in play 'A'" in err
    assert "one connection, lock and work folder per host" in err


# -- over the real sshd lab ------------------------------------------------------------------------------------------
LAB_PLAN = """plan: play_login
inventory: ../inventory/lab.yaml
plays:
  - name: Violin
    hosts: violin
    vars: {ansible_user: dbadmin}
    workloads:
      - command: {argv: [id, -un]}
"""


def _lab_user_reason() -> str | None:
    import planner
    from planner.rehearsal.lab import sshd_available
    from planner.rehearsal.labuser import LabUser, closed_to_others

    closed = closed_to_others(Path(planner.__file__))
    return sshd_available() or LabUser.unavailable() or (f"{closed} is closed to other users" if closed else None)


@pytest.mark.slow
@pytest.mark.ssh
@pytest.mark.parametrize("given_by", ["play vars", "-e"])
def test_the_rehearsal_logs_in_as_the_plays_ansible_user_and_says_so(
        given_by: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: the play's ansible_user was ignored; the rehearsal logged in as the inventory's oracle. -e did set
    it already; the lab shows it too."""
    reason = _lab_user_reason()
    if reason:
        pytest.skip(f"no non-root lab login here: {reason}")
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "inventory", tmp_path / "inventory")
    (tmp_path / "plans").mkdir()
    plan = LAB_PLAN if given_by == "play vars" else LAB_PLAN.replace("    vars: {ansible_user: dbadmin}\n", "")
    (tmp_path / "plans" / "p.yaml").write_text(plan)
    extra = ["-e", "ansible_user=dbadmin"] if given_by == "-e" else []
    code = main(["apply", "--rehearse", str(tmp_path / "plans" / "p.yaml"), "--runs-dir", str(tmp_path / "runs"),
                 *extra])
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
    assert "logged in as dbadmin (the hosts' ansible_user), become through real sudo" in out
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    meta = json.loads((run / "meta.json").read_text())
    assert meta["hosts"]["oel57"]["user"] == "dbadmin"
    (ran,) = [c for line in (run / "commands.jsonl").read_text().splitlines()
              if (c := json.loads(line))["command"] == "id -un"]
    assert ran["stdout"] == "dbadmin\n"  # the login itself, not only its name in the record
