"""charbench's password never on its command line (issue 40): it goes in the point's private copy of the config,
<Connection>'s <Password>, which ``-p`` only overrides (charbench -h 2.7; docs/oracle-behaviour.md 43.s3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.errors import StepError
from planner.kinds.swingbench.step import CONFIG_COPY, with_password
from tests.kinds.swingbench.test_wl_swingbench import SECRET, apply, project

CONFIG = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<SwingBenchConfiguration xmlns="http://www.dominicgiles.com/swingbench/config">
    <Name>Order Entry (PLSQL) V2</Name>
    <Connection>
        <UserName>soe</UserName>
        <Password>enc(V8Lpfha7Da25Pu0/VABB7A==)</Password>
        <ConnectString>//h/s</ConnectString>
    </Connection>
    <Load><NumberOfUsers>10</NumberOfUsers></Load>
</SwingBenchConfiguration>
"""


def test_the_password_replaces_the_configs_own() -> None:
    out = with_password(CONFIG, "a<b&c")
    assert "<Password>a&lt;b&amp;c</Password>" in out and "enc(" not in out
    assert out.replace("<Password>a&lt;b&amp;c</Password>", "") == CONFIG.replace(
        "<Password>enc(V8Lpfha7Da25Pu0/VABB7A==)</Password>", "")


def test_a_config_without_password_gets_one_after_the_user_name() -> None:
    bare = CONFIG.replace("        <Password>enc(V8Lpfha7Da25Pu0/VABB7A==)</Password>\n", "")
    assert "<UserName>soe</UserName><Password>pw</Password>" in with_password(bare, "pw")
    assert with_password(bare.replace("<UserName>soe</UserName>", ""), "pw").count("<Password>pw</Password>") == 1


def test_a_config_without_connection_is_refused() -> None:
    with pytest.raises(StepError, match="no <Connection>"):
        with_password("<SwingBenchConfiguration><Load/></SwingBenchConfiguration>", "pw")


@pytest.mark.slow
def test_charbench_runs_with_no_password_on_its_command_line(tmp_path: Path) -> None:
    project(tmp_path)
    code, run, results = apply(tmp_path)
    assert code == 0, [r["msg"] for r in results]  # the stand-in checked the config's password against oewizard's
    lines = [json.loads(line) for line in (run / "commands.jsonl").read_text().splitlines()]
    charbench = [str(c) for c in lines if "bin/charbench" in str(c)]
    assert len(charbench) == 2 and not any("'-p'" in c or " -p " in c or SECRET in c for c in charbench)
    assert not list(tmp_path.rglob(CONFIG_COPY))  # the copy holding the password is gone from the host
