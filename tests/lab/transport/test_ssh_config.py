"""~/.ssh/config and known_hosts handling: precedence, aliases, ProxyJump, tolerant known_hosts parsing."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from planner.errors import ConnectError
from planner.host import Host
from planner.rehearsal.lab import Lab
from planner.transport.connect import connect_all
from planner.transport.ssh.client import SSHConnection, known_keys, resolve_target


def _config(tmp_path: Path, lab: Lab, extra: str = "") -> Path:
    lines = []
    for h in lab.hosts:
        lines += [f"Host alias-{h.name}", f"  HostName {h.address}", f"  Port {h.port}", f"  User {h.user}",
                  f"  IdentityFile {lab.client_key}", f"  UserKnownHostsFile {lab.known_hosts}",
                  "  ServerAliveInterval 7", "  ConnectTimeout 3"]
    path = tmp_path / "ssh_config"
    path.write_text("\n".join(lines) + "\n" + extra)
    return path


@pytest.mark.slow
@pytest.mark.ssh
def test_inventory_beats_ssh_config_beats_defaults(lab: Lab, tmp_path: Path) -> None:
    cfg = _config(tmp_path, lab)
    h = lab.hosts[0]
    t = resolve_target(Host(name="db1", address=f"alias-{h.name}"), ssh_config=cfg)
    assert (t.hostname, t.port, t.user) == (h.address, h.port, h.user)
    assert t.key_files == (str(lab.client_key),) and t.known_hosts == (lab.known_hosts,)
    assert (t.keepalive_s, t.connect_timeout) == (7, 3.0)
    assert t.key_name == f"[{h.address}]:{h.port}"
    t = resolve_target(Host(name="db1", address=f"alias-{h.name}", port=2222, user="oracle"), ssh_config=cfg,
                       connect_timeout=1.5)
    assert (t.port, t.user, t.connect_timeout) == (2222, "oracle", 1.5)
    t = resolve_target(Host(name="db2", address="not-in-config", port=22), ssh_config=cfg)
    assert (t.hostname, t.port, t.key_name) == ("not-in-config", 22, "not-in-config")


@pytest.mark.slow
@pytest.mark.ssh
def test_ssh_config_alias_connects(lab: Lab, tmp_path: Path) -> None:
    cfg = _config(tmp_path, lab)
    target = lab.hosts[1]
    with SSHConnection(Host(name="db1", address=f"alias-{target.name}"), ssh_config=cfg) as c:
        r = c.run(["sh", "-c", 'echo "$SSH_CONNECTION"'])
    assert r.ok and r.stdout.split()[2:] == [target.address, str(target.port)]


@pytest.mark.slow
@pytest.mark.ssh
def test_an_alias_defined_only_in_an_included_file_is_reached(lab: Lab, tmp_path: Path) -> None:
    """paramiko ignores ``Include``; OpenSSH (and so ansible) reads the included files: planner reads them too."""
    (tmp_path / "config.d").mkdir()
    _config(tmp_path, lab).rename(tmp_path / "config.d" / "lab")
    cfg = tmp_path / "ssh_config"
    cfg.write_text(f"Include {tmp_path}/config.d/*\n")
    target = lab.hosts[2]
    with SSHConnection(Host(name="db1", address=f"alias-{target.name}"), ssh_config=cfg) as c:
        r = c.run(["sh", "-c", 'echo "$SSH_CONNECTION"'])
    assert r.ok and r.stdout.split()[2:] == [target.address, str(target.port)]


@pytest.mark.slow
@pytest.mark.ssh
def test_proxy_jump_reaches_the_host_through_another(lab: Lab, tmp_path: Path) -> None:
    jump, target = lab.hosts[0], lab.hosts[2]
    cfg = _config(tmp_path, lab, f"Host behind\n  HostName {target.address}\n  Port {target.port}\n"
                                 f"  IdentityFile {lab.client_key}\n  UserKnownHostsFile {lab.known_hosts}\n"
                                 f"  ProxyJump {jump.user}@alias-{jump.name}\n")
    with SSHConnection(Host(name="db1", address="behind"), ssh_config=cfg) as c:
        r = c.run(["sh", "-c", 'echo "$SSH_CONNECTION"'])
        assert r.ok and r.stdout.split()[2:] == [target.address, str(target.port)]
        hop = c._jump  # the jump connection is kept open alongside (and closed with) the main one
        assert hop is not None and hop.target.port == jump.port
    assert hop.transport is None


def test_missing_explicit_ssh_config_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConnectError, match="does not exist"):
        resolve_target(Host(name="x", address="x"), ssh_config=tmp_path / "nope")


@pytest.mark.slow
@pytest.mark.ssh
def test_known_hosts_read_line_by_line(lab: Lab, tmp_path: Path) -> None:
    blob = lab.known_hosts.read_text().splitlines()[0].split()[1:3]
    key = " ".join(blob)
    known = tmp_path / "known_hosts"
    known.write_text("\n".join([
        "# comment",
        "garbage without a key",
        f"@cert-authority *.ca.example {key}",
        f"db1.example,10.0.0.1 {key}",
        "db2.example ssh-ed25519 AAAA-not-base64!!",
        f"*.lab.example,!bad.lab.example {key}",
        f"[db1.example]:2222 {key}",
    ]) + "\n")
    assert [k.line for k in known_keys([known], "db1.example")] == [4]
    # The CA line is read too, as a CA key (issue 14 row 8), never as a host key.
    assert [(k.line, k.marker) for k in known_keys([known], "db1.ca.example")] == [(3, "cert-authority")]
    assert [k.line for k in known_keys([known], "10.0.0.1")] == [4]
    assert [k.line for k in known_keys([known], "x.lab.example")] == [6]
    assert known_keys([known], "bad.lab.example") == []
    assert [k.line for k in known_keys([known], "[db1.example]:2222")] == [7]
    assert known_keys([known, tmp_path / "absent"], "db9.example") == []


@pytest.mark.slow
@pytest.mark.ssh
def test_ten_connections_open_concurrently(make_lab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    lab = make_lab(10)
    started = time.monotonic()
    conns = connect_all(lab.hosts, forks=10)
    elapsed = time.monotonic() - started
    try:
        assert all(isinstance(c, SSHConnection) for c in conns.values()), conns
        assert elapsed < 5.0  # measured ~0.1-0.2 s on 2 cores; generous for slow CI
    finally:
        for c in conns.values():
            if isinstance(c, SSHConnection):
                c.close()


@pytest.mark.slow
@pytest.mark.ssh
def test_proxy_command_is_used(lab: Lab, tmp_path: Path) -> None:
    jump, target = lab.hosts[0], lab.hosts[1]
    proxy = (f"ssh -q -i {lab.client_key} -o UserKnownHostsFile={lab.known_hosts} -o BatchMode=yes "
             f"-p {jump.port} {jump.user}@{jump.address} -W %h:%p")
    cfg = _config(tmp_path, lab, f"Host via-cmd\n  HostName {target.address}\n  Port {target.port}\n"
                                 f"  IdentityFile {lab.client_key}\n  UserKnownHostsFile {lab.known_hosts}\n"
                                 f"  ProxyCommand {proxy}\n")
    conn = SSHConnection(Host(name="db1", address="via-cmd"), ssh_config=cfg)
    assert conn.target.proxy_command is not None and f"-W {target.address}:{target.port}" in conn.target.proxy_command
    with conn:
        r = conn.run(["sh", "-c", 'echo "$SSH_CONNECTION"'])
    assert r.ok and r.stdout.split()[2:] == [target.address, str(target.port)]


@pytest.mark.slow
def test_a_match_exec_command_reads_no_stdin_of_the_controllers(tmp_path: Path) -> None:
    """OpenSSH runs a ``Match exec`` command with stdin on /dev/null (readconf.c execute_in_shell); paramiko's invoke
    copied planner's own stdin to it, and where that cannot be read (here pytest's) the lookup failed in no words."""
    got = tmp_path / "stdin-seen"
    cfg = tmp_path / "ssh_config"
    cfg.write_text(f"Match originalhost alias exec \"cat > {got}\"\n  User from-exec\n")
    t = resolve_target(Host(name="db1", address="alias"), ssh_config=cfg)
    assert t.user == "from-exec" and got.read_text() == ""
