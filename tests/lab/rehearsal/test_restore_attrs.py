"""Issue 40 Medium: restore put back a file's content but not its mode or owner: a 0640 file owned by
`nobody`, holding `db_password=`, came back 0644 root after the end-of-play restore and after `planner
restore`. The copy step saves mode and owner (uid:gid) with the content and puts them back, and the file's ACL
(and SELinux context, where the host has one: not testable here) too."""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.rehearsal.lab import Lab

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

PLAN = """\
plan: attrs
plays:
  - name: p
    hosts: all
    prep:
      - copy: {content: "db_password=changed\\n", dest: /etc/app.conf}
    workloads:
      - command: {argv: ["true"]}
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to nobody needs root")
@pytest.mark.parametrize("keep", [False, True], ids=["end of play", "planner restore"])
def test_restore_puts_back_mode_and_owner(keep: bool, make_lab: Callable[..., Lab], tmp_path: Path) -> None:
    lab = make_lab(1)
    if lab.user != "root":
        pytest.skip("the lab logs in as a user who cannot chown")
    root = lab.sandbox(lab.hosts[0].name)
    conf = root / "etc/app.conf"
    conf.parent.mkdir(parents=True)
    conf.write_text("db_password=Orig-s3cret\n")
    nobody = pwd.getpwnam("nobody")
    os.chown(conf, nobody.pw_uid, nobody.pw_gid)
    os.chmod(conf, 0o640)
    inv, plan, runs = tmp_path / "inv.yml", tmp_path / "plan.yaml", tmp_path / "runs"
    lab.write_inventory(inv)
    plan.write_text(PLAN)
    args = ["apply", str(plan), "-i", str(inv), "--runs-dir", str(runs), "--no-report"]
    assert main([*args, "--keep-prep"] if keep else args) == 0
    if keep:
        assert conf.read_text() == "db_password=changed\n"
        [run] = [p for p in runs.iterdir() if p.is_dir()]
        assert main(["restore", str(run)]) == 0
    st = conf.stat()
    assert conf.read_text() == "db_password=Orig-s3cret\n"
    assert (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid) == (0o640, nobody.pw_uid, nobody.pw_gid)


def _acl(path: Path) -> str:
    return subprocess.run(["getfacl", "-s", "-c", "-p", "--", str(path)], capture_output=True, text=True,
                          check=True).stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to nobody needs root")
@pytest.mark.skipif(shutil.which("setfacl") is None, reason="the acl package (.ci/run installs it)")
@pytest.mark.parametrize("keep", [False, True], ids=["end of play", "planner restore"])
def test_restore_puts_back_the_files_acl(keep: bool, make_lab: Callable[..., Lab], tmp_path: Path) -> None:
    lab = make_lab(1)
    if lab.user != "root":
        pytest.skip("the lab logs in as a user who cannot chown")
    root = lab.sandbox(lab.hosts[0].name)
    conf = root / "etc/app.conf"
    conf.parent.mkdir(parents=True)
    conf.write_text("db_password=Orig-s3cret\n")
    os.chmod(conf, 0o600)
    subprocess.run(["setfacl", "-m", "u:nobody:r", "--", str(conf)], check=True)  # the monitoring agent reads it
    before = _acl(conf)
    assert "user:nobody:r--" in before
    inv, plan, runs = tmp_path / "inv.yml", tmp_path / "plan.yaml", tmp_path / "runs"
    lab.write_inventory(inv)
    plan.write_text(PLAN)
    args = ["apply", str(plan), "-i", str(inv), "--runs-dir", str(runs), "--no-report"]
    assert main([*args, "--keep-prep"] if keep else args) == 0
    if keep:
        assert "nobody" not in _acl(conf)  # the write made a new file: its ACL went with the old one
        [run] = [p for p in runs.iterdir() if p.is_dir()]
        assert main(["restore", str(run)]) == 0
    assert conf.read_text() == "db_password=Orig-s3cret\n"
    assert _acl(conf) == before
