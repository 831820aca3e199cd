"""Hostile names and host output (issue 14 rows 4, 10, 13): nothing a host or an inventory says runs on the controller,
leaves the sandbox, or reaches the terminal raw."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest

from planner.host import Host
from planner.rehearsal.sandbox import populate


@pytest.mark.slow
def test_rehearsal_env_file_quotes_a_hostile_host_name(tmp_path: Path) -> None:
    """Row 4: an inventory host named oel'$(touch MARKER)' must stay a name when runit.sh sources standin.env."""
    marker = tmp_path / "x"
    name = f"oel'$(touch {marker})'"
    root = tmp_path / "root"
    populate(root, Host(name, "127.0.0.1", vars={"cpus": 8}), devices=(), kits={"slob": "/home/oracle/SLOB"},
             oracle=False)
    kit = root / "home/oracle/SLOB"
    r = subprocess.run(["sh", "-c", '. ./standin.env && printf %s "$PLANNER_STANDIN_HOSTNAME"'], cwd=kit,
                       capture_output=True, text=True, check=True)
    assert not marker.exists(), "the host name ran as a command on the controller"
    assert r.stdout == name


def _apply(tmp: Path, plan: str, inv: Path, *extra: str) -> int:
    from planner.cli.main import main

    (tmp / "plan.yaml").write_text(plan)
    return main(["apply", str(tmp / "plan.yaml"), "-i", str(inv), "--runs-dir", str(tmp / "runs"), "--no-report",
                 *extra])


def _run_dir(tmp: Path) -> Path:
    (run,) = [p for p in (tmp / "runs").iterdir() if p.is_dir()]
    return run


CONTROLS_PLAN = r"""
plan: controls
plays:
  - name: hostile output
    hosts: all
    prep:
      - command: {argv: [printf, '\033]0;pwned\007\033[2Jhidden\000end\r\302\233x']}
"""


@pytest.mark.slow
@pytest.mark.ssh
def test_terminal_controls_from_host_output_are_shown_escaped(lab, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Row 13: ESC, OSC, BEL, NUL, CR and 8-bit CSI in a command's output reach neither the console nor console.log
    raw; they are shown as \\xNN."""
    inv = tmp_path / "lab.yml"
    lab.write_inventory(inv)
    assert _apply(tmp_path, CONTROLS_PLAN, inv, "-l", lab.hosts[0].name, "-v") == 0
    shown = capsys.readouterr().out
    log = (_run_dir(tmp_path) / "console.log").read_text()
    for text in (shown, log):
        assert r"\x1b]0;pwned\x07\x1b[2Jhidden\x00end\x0d\x9bx" in text
        assert not any(c in text for c in "\x1b\x07\x00\r\x9b")


LINK_PLAN = """
plan: links
plays:
  - name: fetch through links
    hosts: all
    collect:
      - fetch: {src: /var/log/inside.txt}
      - fetch: {src: /var/log/escape.txt}
"""


@pytest.mark.slow
@pytest.mark.ssh
def test_fetch_refuses_a_symlink_out_of_planner_root_and_keeps_artifacts_private(make_lab, tmp_path: Path) -> None:
    """Row 10: a link in the sandbox pointing outside it (think /etc/shadow) is not copied; what is fetched, and
    commands.jsonl, are 0600 like the other record files."""
    lab = make_lab(1)
    name = lab.hosts[0].name
    secret = tmp_path / "outside" / "shadow"
    secret.parent.mkdir()
    secret.write_text("root:$6$hash:19000::::::\n")
    logs = lab.sandbox(name) / "var/log"
    logs.mkdir(parents=True)
    (logs / "real.txt").write_text("fine\n")
    (logs / "inside.txt").symlink_to("real.txt")  # a link that stays inside the sandbox is followed
    (logs / "escape.txt").symlink_to(secret)
    inv = tmp_path / "lab.yml"
    lab.write_inventory(inv)
    assert _apply(tmp_path, LINK_PLAN, inv) == 2
    run = _run_dir(tmp_path)
    copied = [p for p in (run / "artifacts").rglob("*") if p.is_file()]
    assert [p.name for p in copied] == ["inside.txt"], copied
    assert copied[0].read_text() == "fine\n"
    assert not any("19000" in p.read_text(errors="replace") for p in run.rglob("*") if p.is_file())
    for p in [*copied, run / "commands.jsonl"]:
        assert stat.S_IMODE(p.stat().st_mode) == 0o600, p
    text = (run / "console.log").read_text()
    assert "outside planner_root" in text
