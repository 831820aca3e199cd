"""oewizard's passwords (issue 43): oewizard takes them as ``-p``/``-dbap`` on its command line, visible in /proc
while it builds; its wizard config (``-c``) holds ``password``/``dbapassword`` default parameters, but no public
source shows character mode (``-cl``) reading them in place of the options (docs/oracle-behaviour.md 43.s6), so
they stay on the command line and every record masks them, in whatever form the shell or JSON quoted them."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from planner.redaction import MASK
from tests.kinds.swingbench.test_wl_swingbench import apply, project

# a space, both quotes, a backslash, a dollar and a backquote: shlex.quote and JSON write each differently
SOE_PW, DBA_PW = "s0e 'pw' \"q\" \\x", "Sys$(id)`w` it's"


def forms(secret: str) -> set[str]:
    """The secret as a record could hold it: raw, shell-quoted, and either inside a JSON string."""
    quoted = shlex.quote(secret)
    return {secret, quoted, json.dumps(secret)[1:-1], json.dumps(quoted)[1:-1]}


@pytest.mark.slow
def test_oewizards_quoted_passwords_never_reach_the_record(tmp_path: Path) -> None:
    project(tmp_path)
    (tmp_path / "vars.json").write_text(json.dumps({"swingbench_password": SOE_PW, "swingbench_dba_password": DBA_PW}))
    code, run, results = apply(tmp_path, "-e", f"@{tmp_path / 'vars.json'}")
    assert code == 0, [r["msg"] for r in results]
    commands = (run / "commands.jsonl").read_text()
    oewizard = next(line for line in commands.splitlines() if "bin/oewizard" in line)
    assert "-dbap" in oewizard and MASK in oewizard  # on its command line, masked in the record
    leaks = [(f.name, form) for f in run.rglob("*") if f.is_file()
             for form in forms(SOE_PW) | forms(DBA_PW) if form in f.read_text(errors="replace")]
    assert leaks == []
