"""The programs planner runs on every host and the packages that bring them (issue 41; docs/userlands.md): the
facts script finds each in PATH with builtins, and what a host lacks is said with the package to install."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from planner.transport import facts, hostprograms


@pytest.mark.slow
@pytest.mark.parametrize("shell", ["dash", "bash"])
def test_the_facts_name_what_path_lacks_and_pass_by_a_file_no_one_may_execute(tmp_path: Path, shell: str) -> None:
    """bash's `command -v` prints a file it cannot execute: the check looks at the file's x bit itself."""
    for p in hostprograms.NEEDED:
        if p.name != "base64":
            (tmp_path / p.name).symlink_to(subprocess.run(["sh", "-c", f"command -v {p.name}"], capture_output=True,
                                                          text=True, check=True).stdout.strip())
    (tmp_path / "base64").write_text("")
    (tmp_path / "base64").chmod(0o644)
    out = subprocess.run([shutil.which(shell) or shell, "-c", hostprograms.CHECK], capture_output=True, text=True,
                         env={**os.environ, "PATH": f"{tmp_path}:"}, check=True).stdout
    assert facts.parse(out).missing == ("base64",)


def test_a_missing_sampler_names_its_package() -> None:
    """It said "iostat not installed on db1: no iostat data" and left the user to find the package."""
    assert hostprograms.skipped("iostat", "db1") == ("iostat not installed on db1: no iostat data (install the "
                                                     "package sysstat on RHEL/OL/SLES, sysstat on Debian/Ubuntu)")
    assert "procps-ng" in hostprograms.skipped("vmstat", "db1")


def test_the_refusal_names_each_program_what_for_and_both_packages() -> None:
    said = hostprograms.refusal(["mktemp", "setsid"])
    assert "mktemp (planner needs it for the private temporary folder" in said
    assert "coreutils (RHEL/OL 5: mktemp) on RHEL/OL/SLES, coreutils on Debian/Ubuntu" in said
    assert "util-linux (RHEL/OL 6: util-linux-ng) on RHEL/OL/SLES, util-linux on Debian/Ubuntu" in said
