"""Issue 14 row 5: secrets never leak — a ``~`` password file, a password JSON escapes, a password split by the
1 MiB output cut, a fetched file holding it (over the real loopback sshd), password-like ``-e`` names, and a
password written into a plan's vars."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import yaml

from planner.cli.main import main
from planner.engine.runrecord import OUTPUT_LIMIT, RunRecord
from planner.rehearsal.lab import Lab
from planner.transport.connection import CommandResult

LEAKY_PLAN = """\
plan: leaky
plays:
  - name: leak
    hosts: lab
    workloads:
      - command: {argv: [sh, -c, '%s']}
"""


def _run(tmp_path: Path, script: str, host_vars: str, *extra: str) -> tuple[int, str, Path]:
    root = tmp_path / "host"
    root.mkdir(exist_ok=True)
    (tmp_path / "hosts.ini").write_text(f"[lab]\nalpha ansible_connection=local planner_root={root} {host_vars}\n")
    (tmp_path / "plan.yaml").write_text(LEAKY_PLAN % script)
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini"), "-v",
                 "--runs-dir", str(tmp_path / "runs"), *extra])
    return code, "", next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())


def _forms(secret: str) -> list[bytes]:
    """The secret as written and as every JSON encoder writes it."""
    return sorted({secret.encode(), json.dumps(secret)[1:-1].encode(),
                   json.dumps(secret, ensure_ascii=False)[1:-1].encode()})


def _leaks(run: Path, console: str, secret: str) -> list[str]:
    found = [f"{p.relative_to(run)} ({form!r})" for p in run.rglob("*") if p.is_file()
             for form in _forms(secret) if form in p.read_bytes()]
    return found + (["console"] if secret in console else [])


@pytest.mark.slow
def test_password_file_under_home_is_redacted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """`oracle_password_file: ~/pw`: the reader expanded ~, the secret collector did not."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "pw").write_text("Tilde-s3cret-4-planner\n")
    monkeypatch.setenv("HOME", str(home))
    code, _, run = _run(tmp_path, 'cat "$HOME/pw"', "oracle_password_file=~/pw")
    console = capsys.readouterr().out
    assert code == 0, console
    assert "********" in console
    assert _leaks(run, console, "Tilde-s3cret-4-planner") == []


@pytest.mark.slow
@pytest.mark.parametrize("secret", ['q"uote-s3cret', "back\\slash-s3cret", "nön-ascii-s3crét€"])
def test_passwords_json_escapes_are_redacted_too(secret: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Redaction ran on json.dumps' output: `q\\"uote` no longer matched `q"uote` and stayed in results.json."""
    monkeypatch.setenv("PLANNER_TEST_PW", secret)
    code, _, run = _run(tmp_path, 'printf "%s\\n" "$PLANNER_TEST_PW"', "oracle_password_env=PLANNER_TEST_PW")
    console = capsys.readouterr().out
    assert code == 0, console
    results = json.loads((run / "results.json").read_text())
    assert results[-1]["data"]["stdout"] == "********\n"
    assert _leaks(run, console, secret) == []


def test_a_secret_split_by_the_output_cut_is_masked(tmp_path: Path) -> None:
    secret = "Zq7-split-s3cret-Xy"
    rec = RunRecord(tmp_path, "cut", secrets=(secret,))
    for before in (OUTPUT_LIMIT - 5, OUTPUT_LIMIT - len(secret), OUTPUT_LIMIT - 1):
        out = "x" * before + secret + "tail"
        rec.log_command("h", "s", CommandResult("cmd", 0, out, "", 0.1))
    rec.close()
    for line in (tmp_path / rec.id / "commands.jsonl").read_text().splitlines():
        entry = json.loads(line)
        assert entry["truncated"] is True and len(entry["stdout"]) <= OUTPUT_LIMIT
        tail = entry["stdout"].rstrip("*")[-len(secret):]
        assert not any(tail.endswith(secret[:k]) for k in range(3, len(secret) + 1)), tail[-30:]


@pytest.mark.slow
@pytest.mark.ssh
def test_a_fetched_file_holding_the_password_is_redacted_with_a_note(
        lab: Lab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    secret = "Fetch3d-s3cret-over-ssh"
    monkeypatch.setenv("PLANNER_TEST_FETCH_PW", secret)
    inv = tmp_path / "lab.yml"
    lab.write_inventory(inv)
    host = lab.hosts[0].name
    data = yaml.safe_load(inv.read_text())
    data["all"]["hosts"] = {host: {**data["all"]["hosts"][host], "oracle_password_env": "PLANNER_TEST_FETCH_PW"}}
    inv.write_text(yaml.safe_dump(data))
    etc = lab.sandbox(host) / "etc"
    etc.mkdir(parents=True, exist_ok=True)
    (etc / "app14.conf").write_text(f"user=scott\ndb_password={secret}\n" + "filler\n" * 200_000 + secret)
    (tmp_path / "plan.yaml").write_text(textwrap.dedent(f"""\
        plan: fetchleak
        plays:
          - name: grab
            hosts: {host}
            collect:
              - fetch: {{src: /etc/app14.conf}}
              - fetch: {{src: /etc/app14.conf}}
        """))
    code = main(["apply", str(tmp_path / "plan.yaml"), "-i", str(inv), "--runs-dir", str(tmp_path / "runs")])
    console = capsys.readouterr().out
    assert code == 0, console
    run = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    both = sorted(run.rglob("app14.conf"))
    for fetched in both:
        text = fetched.read_text()
        assert text.startswith("user=scott\ndb_password=********\n") and text.endswith("filler\n********")
    meta = json.loads((run / "meta.json").read_text())
    assert meta["redacted_artifacts"] == [{"path": str(f.relative_to(run)), "replaced": 2,
                                           "note": "secrets replaced by ******** after the fetch"} for f in both]
    # said once per file name (SLOB's runit.log holds its connect string at every point), every one listed
    assert console.count("held a secret") == 1, console
    assert _leaks(run, console, secret) == []


@pytest.mark.slow
def test_password_like_extra_vars_are_redacted_in_meta_and_report(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, _, run = _run(tmp_path, "echo hello", "", "-e", "admin_password=Adm1n-s3cret",
                        "-e", '{"ansible_become_password": "B3come-s3cret"}', "-e", "readers=16")
    console = capsys.readouterr().out
    assert code == 0, console
    meta = json.loads((run / "meta.json").read_text())
    assert "admin_password=********" in meta["argv"] and "readers=16" in meta["argv"]
    report = (run / "report.md").read_text()
    assert "admin_password=********" in report
    for secret in ("Adm1n-s3cret", "B3come-s3cret"):
        assert _leaks(run, console, secret) == []


def test_a_password_in_plan_vars_is_refused_at_plan_check(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plan.yaml").write_text(textwrap.dedent("""\
        plan: clear
        vars:
          readers: 16
          sys_password: change_on_install
          db_password: "{{ admin_password }}"
        plays:
          - name: p
            hosts: localhost
            vars: {asm_passwd: welcome1}
            workloads:
              - command: {argv: ["true"]}
        """))
    code = main(["validate", str(tmp_path / "plan.yaml"), "-e", "admin_password=fromcli"])
    err = capsys.readouterr().err
    assert code == 5
    assert f"{tmp_path / 'plan.yaml'}:4:3: vars.sys_password: variable 'sys_password' holds a password" in err
    assert "sys_password_env" in err and "sys_password_file" in err
    assert ":9:" in err and "asm_passwd" in err
    assert "db_password" not in err  # a template fed by -e keeps the password out of the plan
    assert "Traceback" not in err
