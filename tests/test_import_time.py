"""Start-up (issue 20 item 4): heavy libraries load only for the verbs that need them. Not a timing test: it
asserts which modules a fresh interpreter has loaded, which is what the start-up time rests on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow]


def loaded_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"],
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_building_the_parser_loads_no_heavy_library() -> None:
    """Every verb builds the whole parser (``--help`` included): it must not import what one verb needs."""
    mods = loaded_after("from planner.cli.main import build_parser; build_parser()")
    assert not mods & {"paramiko", "jsonschema", "jinja2", "matplotlib", "rich", "planner.results.analyze"}


def test_the_step_registry_does_not_load_jsonschema() -> None:
    """`planner inventory`, `results`... register the step kinds; only a plan's validation needs jsonschema."""
    assert "jsonschema" not in loaded_after("import planner.steps")


def test_paramiko_loads_without_invoke() -> None:
    mods = loaded_after("import planner.transport.ssh.client")
    assert "paramiko" in mods and "invoke" not in mods and "unittest.mock" not in mods


def test_an_ssh_config_with_match_exec_still_works(tmp_path: Path) -> None:
    """invoke is what paramiko runs `Match exec` with: loaded when a config uses it."""
    config = tmp_path / "ssh_config"
    config.write_text('Match exec "test -d /"\n  User from_exec\n')
    out = subprocess.run([sys.executable, "-c", "import sys; from planner.transport.ssh import client; "
                          f"print(client._parse_config({str(config)!r}, 0).lookup('lab01').get('user'))"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "from_exec"
