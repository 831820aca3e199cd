"""Durations in a plan are bounded (issue 40 L6): ``timeout: 99999999999999999999999h`` passed validate and
overflowed where the run added it up."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from planner.cli.main import main


@pytest.mark.parametrize("timeout", ["99999999999999999999999h", "1e308", str(10**400), "800h"])
def test_a_timeout_past_30_days_is_refused_at_its_line(tmp_path: Path, timeout: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "hosts.ini").write_text("[lab]\nalpha ansible_connection=local\n")
    (tmp_path / "plan.yaml").write_text(textwrap.dedent(f"""\
        plan: bounded
        plays:
          - name: p
            hosts: lab
            prep:
              - command: {{argv: ["true"]}}
                timeout: {timeout}
        """))
    rc = main(["validate", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini")])
    err = capsys.readouterr().err
    assert rc == 5, err
    assert "plan.yaml:7:" in err and "longer than 30 days" in err and "Traceback" not in err


def test_a_timeout_of_a_day_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "hosts.ini").write_text("[lab]\nalpha ansible_connection=local\n")
    (tmp_path / "plan.yaml").write_text("plan: ok\nplays:\n  - name: p\n    hosts: lab\n    prep:\n"
                                        "      - command: {argv: ['true']}\n        timeout: 24h\n")
    assert main(["validate", str(tmp_path / "plan.yaml"), "-i", str(tmp_path / "hosts.ini")]) == 0, \
        capsys.readouterr().err
