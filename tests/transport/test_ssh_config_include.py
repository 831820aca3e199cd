"""ssh_config ``Include`` read as OpenSSH reads it (ssh_config(5); readconf.c oInclude, read_config_file_depth):
paramiko ignores the keyword, planner expands it before paramiko parses. HOME is a tmp dir: ~/.ssh is tmp's."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import ConnectError
from planner.host import Host
from planner.transport.connect import _resolved_target
from planner.transport.ssh.client import resolve_target


@pytest.fixture
def dot_ssh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".ssh" / "config.d").mkdir(parents=True)
    return tmp_path / ".ssh"


def _where(cfg: Path, name: str) -> tuple[str, int | None, str | None]:
    t = resolve_target(Host(name="h", address=name), ssh_config=cfg)
    return t.hostname, t.port, t.user


def test_an_alias_defined_in_an_included_file_is_reached_at_its_hostname(dot_ssh: Path) -> None:
    (dot_ssh / "config.d" / "lab").write_text("Host db1\n  HostName 10.0.0.7\n  Port 2201\n")
    cfg = dot_ssh / "config"
    cfg.write_text("Include config.d/*\n")  # relative: under ~/.ssh, as OpenSSH reads a user configuration
    assert _where(cfg, "db1")[:2] == ("10.0.0.7", 2201)
    early = _resolved_target(Host(name="h", address="db1"), {"ssh_config": cfg})  # the early connects' path
    assert early is not None and (early.hostname, early.port) == ("10.0.0.7", 2201)


def test_globs_read_in_lexical_order_and_the_includers_state_comes_back(dot_ssh: Path) -> None:
    d = dot_ssh / "config.d"
    (d / "20-b").write_text("Host db1\n  HostName second\n")
    (d / "10-a").write_text("Host db1\n  HostName first\n  Port 2202\n")
    (d / "sub").mkdir()  # OpenSSH reads a directory as an empty file
    cfg = dot_ssh / "config"
    # A line after the Include is the includer's top level again (all hosts), not the included file's last block
    cfg.write_text(f"Include {d}/* ~/.ssh/none-*\nUser everyone\nHost db2\n  HostName third\n")
    assert _where(cfg, "db1") == ("first", 2202, "everyone")
    assert _where(cfg, "db2") == ("third", 22, "everyone")


def test_an_include_inside_a_block_applies_only_when_the_block_matches(dot_ssh: Path) -> None:
    (dot_ssh / "port").write_text("Port 2203\n")
    cfg = dot_ssh / "config"
    cfg.write_text("Host db1\n  Include port\n  HostName one\nHost *\n  User u\n")
    assert _where(cfg, "db1") == ("one", 2203, "u")
    assert _where(cfg, "db2") == ("db2", 22, "u")


def test_an_include_of_blocks_inside_a_block_is_refused_naming_the_line(dot_ssh: Path) -> None:
    (dot_ssh / "blocks").write_text("Host db1\n  Port 2204\n")
    cfg = dot_ssh / "config"
    cfg.write_text("Host db*\n  User u\n  Include blocks\n")
    with pytest.raises(ConnectError, match=rf"{cfg}:3: Include inside a Host/Match block is not read by planner "
                                           "— move it to the top of the file"):
        _where(cfg, "db1")


def test_an_include_cycle_stops_at_openssh_depth_with_a_clear_error(dot_ssh: Path) -> None:
    cfg = dot_ssh / "config"
    cfg.write_text("Include config\n")
    with pytest.raises(ConnectError, match=r"Include nested more than 16 deep .* a file includes itself"):
        _where(cfg, "db1")


def test_an_unreadable_included_file_is_openssh_s_error_not_a_traceback(dot_ssh: Path) -> None:
    bad = dot_ssh / "loop"
    bad.symlink_to(bad)  # open() fails with ELOOP also for root (OpenSSH: fopen fails, errno not ENOENT)
    cfg = dot_ssh / "config"
    cfg.write_text("Include loop\n")
    with pytest.raises(ConnectError, match=rf"{cfg}:1: Can't open user config file {bad}: Too many levels of "
                                           "symbolic links — make it readable or remove it from the Include"):
        _where(cfg, "db1")


def test_an_included_file_others_may_write_is_refused_as_openssh_refuses_it(dot_ssh: Path) -> None:
    (dot_ssh / "open").write_text("Host db1\n  ProxyCommand nc %h %p\n")
    (dot_ssh / "open").chmod(0o666)
    cfg = dot_ssh / "config"
    cfg.write_text("Include open\n")
    with pytest.raises(ConnectError, match=rf"{cfg}:1: Bad owner or permissions on {dot_ssh / 'open'} — "):
        _where(cfg, "db1")
