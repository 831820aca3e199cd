"""Issue 40 L3: vault values were masked only verbatim: `{{ v | upper }}`, `{{ v[1:] }}` and
`{{ v | reverse | join('') }}` reached the record in clear. What a template derives from a secret (through a
filter, a slice, a method or an operator in the sandbox) is masked like the secret."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.cli.apply import load
from planner.cli.main import main
from planner.redaction import derived_secrets
from planner.safejinja import NativeSandboxEnvironment

SECRET = "Vault-s3cret-pw"
FORMS = (SECRET.upper(), SECRET[1:], SECRET[::-1])
PLAN = """\
plan: derived
plays:
  - name: p
    hosts: all
    workloads:
      - command: {argv: [echo, "{{ db_password | upper }}", "{{ db_password[1:] }}",
                         "{{ db_password | reverse | join('') }}"]}
"""


def test_the_sandbox_knows_what_it_derived_from_a_secret() -> None:
    env = NativeSandboxEnvironment()
    with derived_secrets([SECRET]) as derived:
        assert env.from_string("{{ v[:2] }}/{{ 'plain'[1:] | upper }}").render(v=SECRET) == "Va/LAIN"
        for t in ("{{ v | upper }}", "{{ v[1:] }}", "{{ v | reverse | join('') }}", "{{ v | list | join('.') }}"):
            env.from_string(t).render(v=SECRET)
    assert derived == [*FORMS, ".".join(SECRET)]  # not "Va" (too short to mask) nor "LAIN" (not a secret's)


def project(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "plan.yaml").write_text(PLAN)
    (tmp_path / "inv.yml").write_text(f"all:\n  hosts:\n    h1: {{ansible_connection: local, planner_root: "
                                      f"{tmp_path / 'h1'}, db_password: {SECRET}}}\n")
    return tmp_path / "plan.yaml", tmp_path / "inv.yml"


def test_load_finds_the_derived_values(tmp_path: Path) -> None:
    plan, inv = project(tmp_path)
    assert set(FORMS) <= set(load(plan, [inv], []).derived)


@pytest.mark.slow
def test_the_record_holds_no_derived_secret(tmp_path: Path) -> None:
    plan, inv = project(tmp_path)
    (tmp_path / "h1").mkdir()
    assert main(["apply", str(plan), "-i", str(inv), "--runs-dir", str(tmp_path / "runs"), "--no-report"]) == 0
    [run] = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    commands = [json.loads(line) for line in (run / "commands.jsonl").read_text().splitlines()]
    assert any("********" in c["command"] for c in commands)
    for f in run.rglob("*"):
        if f.is_file():
            text = f.read_text(errors="replace")
            assert not any(form in text for form in (SECRET, *FORMS)), f
