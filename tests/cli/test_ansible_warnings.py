"""Issue 46: the warnings ansible-inventory 2.19.14 gives for the same inventories, in its words (checked with it
on these files): reserved and invalid variable names, an empty sub-folder, a script without `_meta` or with
stderr on success."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.cli.main import main


def _warnings(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["inventory", "--list", *args]) == 0
    return capsys.readouterr().err


def test_reserved_and_invalid_variable_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inv = tmp_path / "r.yml"
    inv.write_text("all:\n  hosts:\n    h1:\n      tags: a\n      name: n\n      none: 1\n      7.2: bar\n"
                   "      good: 1\n")
    err = _warnings(capsys, "-i", str(inv))
    assert f"[WARNING]: Found variable using reserved name 'tags'.\nOrigin: {inv}:4:7\n" in err
    assert f"[WARNING]: Found variable using reserved name 'name'.\nOrigin: {inv}:5:7\n" in err
    assert ("Accepting inventory variable with invalid name 'none'. This feature will be removed from ansible-core "
            f"version 2.23.\nOrigin: {inv}:6:7\n") in err
    assert "invalid name '7.2'" in err and "good" not in err


def test_an_empty_sub_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "inv" / "empty").mkdir(parents=True)
    (tmp_path / "inv" / "hosts.ini").write_text("h1\n")
    err = _warnings(capsys, "-i", str(tmp_path / "inv"))
    assert err == f"[WARNING]: Unable to parse {tmp_path / 'inv' / 'empty'} as an inventory source\n"


@pytest.mark.slow
def test_a_script_without_meta_and_with_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "inv.sh"
    script.write_text('#!/bin/sh\necho "oops on stderr" >&2\n'
                      'if [ "$1" = --list ]; then echo \'{"web": ["w1"]}\'; else echo \'{}\'; fi\n')
    script.chmod(0o755)
    err = _warnings(capsys, "-i", str(script))
    assert f"inventory script {script} wrote on stderr: oops on stderr" in err
    assert ("Inventory scripts should always provide 'meta.hostvars'. Host variables will be collected by running "
            "the inventory script with the '--host' option for each host.") in err
