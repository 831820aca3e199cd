"""A throwaway lab of real OpenSSH servers on loopback, for tests and ``planner apply --rehearse``.

Each lab host is one ``/usr/sbin/sshd -D`` process on its own loopback address (127.0.0.2, 127.0.0.3,
...; 127.0.0.1 with distinct ports when those cannot be bound) and an unprivileged port, with a
throwaway ed25519 host key. One throwaway client key logs in to all of them; ``known_hosts`` lists
every host key. Each host has a sandbox directory that plays its "/" (the ``planner_root`` host var).

sshd runs as the current user. As root, OpenSSH insists on its privilege-separation directory
``/run/sshd``; Debian creates it only when its service starts, so the lab creates it (empty, 0755)
when it is missing. Only processes the lab started are ever signalled.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from planner.host import Host
from planner.rehearsal.labuser import LabUser
from planner.rehearsal.labworld import SshdAlgorithms, Userland, hide, sshd_lines

SSHD = Path("/usr/sbin/sshd")
_PRIVSEP_DIR = Path("/run/sshd")


class LabError(RuntimeError):
    """The lab could not be built (sshd missing, did not start...)."""


def sshd_available() -> str | None:
    """None when a lab can be built here, else the reason why not."""
    if not SSHD.exists():
        return f"{SSHD} is missing (apt-get install openssh-server)"
    if shutil.which("ssh-keygen") is None:
        return "ssh-keygen is missing (apt-get install openssh-client)"
    return None


@dataclass(frozen=True, slots=True)
class LabHost:
    """One lab host: the Host planner sees plus the sshd process behind it."""

    host: Host
    sandbox: Path
    sshd_dir: Path  # config, host key, pid file, log


class Lab:
    """n sshd processes; use as a context manager or call stop()."""

    def __init__(self, root: Path, user: str, client_key: Path, known_hosts: Path) -> None:
        self.root = root
        self.user = user
        self.client_key = client_key
        self.known_hosts = known_hosts
        self._hosts: dict[str, LabHost] = {}
        self._procs: dict[str, subprocess.Popen[bytes]] = {}
        self._overlay: Path | None = None  # a LabUser's account files (labuser.py); None: log in as ourselves
        self._userland: tuple[Userland, ...] = ()  # programs as an older distribution has them (labworld.py)
        self._sshd: SshdAlgorithms | None = None  # an older sshd's algorithm offer (labworld.py); None: this one's
        self._login_shell: str | None = None  # the login's shell (csh, ksh...); None: as /etc/passwd says

    @property
    def hosts(self) -> list[Host]:
        return [lh.host for lh in self._hosts.values()]

    def host(self, name: str) -> Host:
        return self._hosts[name].host

    def sandbox(self, name: str) -> Path:
        return self._hosts[name].sandbox

    def log(self, name: str) -> str:
        """What this host's sshd wrote to stderr (for failure messages)."""
        path = self._hosts[name].sshd_dir / "sshd.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def sshd_pid(self, name: str) -> int:
        return self._procs[name].pid

    def write_inventory(self, path: Path) -> None:
        """An Ansible YAML inventory of the lab hosts (also usable by ansible-playbook)."""
        import yaml  # lazy: only inventory writers need it

        common_args = f"-o UserKnownHostsFile={self.known_hosts} -o StrictHostKeyChecking=yes"
        hosts = {
            lh.host.name: {
                "ansible_host": lh.host.address,
                "ansible_port": lh.host.port,
                "ansible_user": self.user,
                "ansible_ssh_private_key_file": str(self.client_key),
                "ansible_ssh_common_args": common_args,
                "planner_root": str(lh.sandbox),
                "planner_known_hosts": str(self.known_hosts),
            }
            for lh in self._hosts.values()
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump({"all": {"hosts": hosts}}, sort_keys=False))

    def unreachable_host(self, name: str = "unreachable") -> Host:
        """A Host on a loopback port where nothing listens (the port was free a moment ago)."""
        return Host(name=name, address="127.0.0.1", port=_free_port("127.0.0.1"), user=self.user,
                    key_file=self.client_key, vars={"planner_root": str(self.root / "hosts" / name)})

    def kill_sshd(self, name: str) -> None:
        """The host goes down hard: SIGKILL its sshd listener and every process under it."""
        proc = self._procs.get(name)
        if proc is None or proc.poll() is not None:
            return
        _kill_tree(proc.pid)
        proc.wait()

    def stop(self) -> None:
        for name in list(self._procs):
            self.kill_sshd(name)
        self._procs.clear()
        _kill_sandbox_strays(self.root / "hosts")


    def __enter__(self) -> Lab:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def build_lab(root: Path, n_hosts: int, *, name_prefix: str = "lab", start_timeout_s: float = 10.0,
              names: Sequence[str] | None = None, user: LabUser | None = None,
              password_logins: Sequence[str] = (), userland: Sequence[Userland] = (),
              sshd: SshdAlgorithms | None = None, login_shell: str | None = None) -> Lab:
    """Start ``n_hosts`` sshd processes under ``root`` and wait until all accept connections.

    ``names`` gives the hosts their names (rehearsal mirrors inventory names); default lab01, lab02...
    ``user``: the hosts are reached as that non-root user, who may sudo (planner.rehearsal.labuser); ``root``
    must then be reachable by others (each parent directory searchable).
    ``password_logins``: these accounts log in with their password only (no key), the others with the key only.
    ``userland``: programs covered by an older distribution's behaviour (planner.rehearsal.labworld).
    ``sshd``: the sshds offer only what that OpenSSH release offered, with keys of the type its hosts had.
    ``login_shell``: the login (without ``user``) has this shell, as /etc/passwd says inside the sshds' namespace.
    """
    reason = sshd_available() or (user.unavailable() if user else None)
    if reason:
        raise LabError(reason)
    if os.geteuid() == 0 and not _PRIVSEP_DIR.is_dir():
        _PRIVSEP_DIR.mkdir(mode=0o755, parents=True, exist_ok=True)
    root = root.resolve()
    root.mkdir(parents=True, exist_ok=True)
    client_key = root / "client_key"
    _keygen(client_key, sshd.value.key_type if sshd else "ed25519")
    authorized = root / "authorized_keys"
    authorized.write_text(client_key.with_suffix(".pub").read_text())
    lab = Lab(root, user.name if user else getpass.getuser(), client_key, root / "known_hosts")
    lab._userland, lab._sshd, lab._login_shell = tuple(userland), sshd, login_shell
    if user:
        closed = [str(p) for p in (root, *root.parents) if not os.stat(p).st_mode & 0o001]
        if closed:
            raise LabError(f"{user.name} could not reach the lab: {', '.join(closed)} not searchable by others")
        lab._overlay = user.prepare(root)
    width = max(2, len(str(n_hosts)))
    try:
        for i in range(n_hosts):
            name = names[i] if names else f"{name_prefix}{i + 1:0{width}d}"
            _start_host(lab, name, i, authorized, password_logins)
        deadline = time.monotonic() + start_timeout_s
        for name, lh in lab._hosts.items():
            _wait_ready(lab, name, lh.host, deadline)
        lab.known_hosts.write_text("".join(_known_hosts_line(lh) for lh in lab._hosts.values()))
    except BaseException:
        lab.stop()
        raise
    return lab


def _start_host(lab: Lab, name: str, index: int, authorized: Path, password_logins: Sequence[str] = ()) -> None:
    sshd_dir = lab.root / "sshd" / name
    sandbox = lab.root / "hosts" / name
    sshd_dir.mkdir(parents=True, exist_ok=True)
    sandbox.mkdir(parents=True, exist_ok=True)
    _keygen(sshd_dir / "host_key", lab._sshd.value.key_type if lab._sshd else "ed25519")
    address = _loopback_address(index)
    port = _free_port(address)
    config = sshd_dir / "sshd_config"
    config.write_text("\n".join([
        f"Port {port}",
        f"ListenAddress {address}",
        f"HostKey {sshd_dir / 'host_key'}",
        f"PidFile {sshd_dir / 'sshd.pid'}",
        f"AuthorizedKeysFile {authorized}",
        # The lab dir may be group-writable (tmp dirs) and sshd may not run as root: no StrictModes, no PAM.
        "StrictModes no",
        "UsePAM no",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "PubkeyAuthentication yes",
        "PermitRootLogin yes",
        "Subsystem sftp internal-sftp",
        # Benchmarks open many sessions at once (ansible forks); the default 10:30:100 drops some.
        "MaxStartups 200",
        "MaxSessions 200",
        "UseDNS no",
        # bash sources ~/.bashrc for every ssh command unless SHLVL is already set (bash's SSH_SOURCE_BASHRC
        # rule); a heavy bashrc (pyenv init: ~100-400 ms here) would dominate every round trip measured.
        "SetEnv SHLVL=1",
        "LogLevel ERROR",
        *(sshd_lines(lab._sshd) if lab._sshd else ()),
        *_password_match(password_logins),
        "",
    ]))
    log = (sshd_dir / "sshd.log").open("wb")
    # A new session per sshd: its process group is ours alone, so stop() cannot hit anything else.
    argv = hide(sshd_dir / "userland", lab._userland, [str(SSHD), "-D", "-e", "-f", str(config)],
                user=lab.user, login_shell=lab._login_shell)
    if lab._overlay is not None:
        argv = LabUser.wrap(lab._overlay, argv)
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                            stdout=log, stderr=log, start_new_session=True)
    log.close()
    lab._procs[name] = proc
    host = Host(name=name, address=address, port=port, user=lab.user, key_file=lab.client_key,
                vars={"planner_root": str(sandbox), "planner_known_hosts": str(lab.known_hosts)})
    lab._hosts[name] = LabHost(host, sandbox, sshd_dir)


def _password_match(logins: Sequence[str]) -> list[str]:
    """An sshd Match block (it must come last) letting only these accounts in, by password and never a key:
    a login that succeeds proves the password was used."""
    if not logins:
        return []
    return [f"Match User {','.join(logins)}", "    PasswordAuthentication yes", "    PubkeyAuthentication no"]


def _wait_ready(lab: Lab, name: str, host: Host, deadline: float) -> None:
    """Poll until sshd answers with its SSH banner (a bare TCP accept could precede it)."""
    proc = lab._procs[name]
    while True:
        if proc.poll() is not None:
            raise LabError(f"sshd for {name} exited with {proc.returncode}: {lab.log(name).strip()}")
        try:
            with socket.create_connection((host.address, host.port or 22), timeout=1.0) as s:
                if s.recv(8).startswith(b"SSH-"):
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise LabError(f"sshd for {name} did not accept connections on {host.address}:{host.port}: "
                           f"{lab.log(name).strip()}")
        time.sleep(0.01)  # poll interval, bounded by the deadline above


def _known_hosts_line(lh: LabHost) -> str:
    keytype, blob = (lh.sshd_dir / "host_key.pub").read_text().split()[:2]
    return f"[{lh.host.address}]:{lh.host.port} {keytype} {blob}\n"


def _keygen(path: Path, kind: str = "ed25519") -> None:
    for p in (path, path.with_suffix(".pub")):
        p.unlink(missing_ok=True)
    size = ["-b", "2048"] if kind == "rsa" else []
    subprocess.run(["ssh-keygen", "-q", "-t", kind, *size, "-N", "", "-C", f"planner-lab {path.name}",
                    "-f", str(path)], check=True, stdin=subprocess.DEVNULL, capture_output=True)


_loopback_ok: bool | None = None


def _loopback_address(index: int) -> str:
    """127.0.0.(index+2), or 127.0.0.1 when other loopback addresses cannot be bound here."""
    global _loopback_ok
    if _loopback_ok is None:
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.2", 0))
            _loopback_ok = True
        except OSError:
            _loopback_ok = False
    if not _loopback_ok or index > 250:
        return "127.0.0.1"
    return f"127.0.0.{index + 2}"


def _free_port(address: str) -> int:
    with socket.socket() as s:
        s.bind((address, 0))
        return int(s.getsockname()[1])


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def _kill_sandbox_strays(hosts_dir: Path) -> None:
    """Kill what lab commands left behind in their own sessions (e.g. an OS-stats sampler on a host whose
    sshd a fault test killed: nobody could reach it to stop it). Only processes whose command line names
    this lab's sandboxes, so only processes the lab's hosts started."""
    needle = str(hosts_dir).encode() + b"/"
    own_group = os.getpgid(0)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle in (entry / "cmdline").read_bytes() and os.getpgid(int(entry.name)) != own_group:
                os.killpg(os.getpgid(int(entry.name)), signal.SIGKILL)
        except (OSError, ProcessLookupError):
            continue


def _kill_tree(pid: int) -> None:
    """SIGKILL ``pid`` and its descendants. sshd puts each connection in a new session, so a
    process-group kill would miss them; walk /proc instead."""
    tree = _children()
    todo, seen = [pid], []
    while todo:
        p = todo.pop()
        seen.append(p)
        todo.extend(tree.get(p, []))
    # Freeze first so no process sees another die (a crash takes them all at once), then kill.
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        for p in seen:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, sig)
