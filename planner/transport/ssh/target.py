"""Where and how to reach a host over SSH: inventory values merged over an ssh_config file over defaults.

Free of paramiko (planner/transport/ssh/client.py reads the config file and connects); Fabric's precedence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner.errors import ConnectError
from planner.host import Host
from planner.transport.become import inventory_password
from planner.transport.ssh.algorithms import Wanted, wanted


@dataclass(frozen=True, slots=True)
class SSHTarget:
    """Where and how to connect, after merging inventory, ssh_config and defaults."""

    hostname: str
    port: int
    user: str
    key_files: tuple[str, ...]
    connect_timeout: float
    keepalive_s: float  # ServerAliveInterval: 0 turns keepalives and dead-peer detection off
    known_hosts: tuple[Path, ...]  # user files; new keys go to the first
    key_host: str  # HostKeyAlias, else hostname: what known_hosts records
    proxy_command: str | None = None
    proxy_jump: str | None = None
    accept_new: bool = False
    keepalive_count: int = 3  # ServerAliveCountMax: the host is dead after keepalive_s * keepalive_count silent
    password: str | None = field(default=None, repr=False)  # ansible_password: a secret, never in a repr
    algorithms: tuple[Wanted, ...] = ()  # HostKeyAlgorithms, KexAlgorithms... (-o options, then ssh_config)

    @property
    def key_name(self) -> str:
        """The known_hosts name: host, or [host]:port off port 22 (as OpenSSH and paramiko write it)."""
        return self.key_host if self.port == 22 else f"[{self.key_host}]:{self.port}"



# Ansible's ssh connection reads its password option from these, the last one set winning (its config manager).
PASSWORD_VARS = ("ansible_password", "ansible_ssh_pass", "ansible_ssh_password")
DEFAULT_KEEPALIVE_S = 15.0  # with the count of 3: a frozen host is declared gone after 45 s, OpenSSH's figures


def _number(host: Host, var: str, fallback: Any, kind: type) -> float:
    """An inventory var over the ssh_config value: a non-negative number (a count at least 1)."""
    raw = host.vars.get(var, fallback)
    try:
        value = kind(raw)
        if value < 0 or (kind is int and value < 1):
            raise ValueError(raw)
    except (TypeError, ValueError):
        raise ConnectError(f"{host.name}: {var} (or its ssh_config keyword) must be a "
                           f"{'whole number >= 1' if kind is int else 'number of seconds >= 0'}, not {raw!r}",
                           hint=f"fix {var} in the inventory") from None
    return float(value)


def login_password(host: Host) -> str | None:
    """The SSH login password the inventory gives, or None. The value itself is never quoted."""
    found = inventory_password(host, PASSWORD_VARS)
    return found[1] if found is not None else None


class ExecDeferred(Exception):  # noqa: N818 - not an error: the lookup stopped before running a command
    """A lookup that may not run commands (the early connects') met a ``Match exec`` it would have run."""


# ssh_config's answer for one host: (host, the config file) -> paramiko's lookup result (client.py reads it)
Lookup = Callable[[Host, Path], Mapping[str, Any]]


def resolve(host: Host, lookup: Lookup, *, ssh_config: Path | None = None, known_hosts: Path | None = None,
            accept_new_host_keys: bool = False, connect_timeout: float | None = None,
            keepalive_s: float | None = None) -> SSHTarget:
    """Every connection's target: inventory > the ssh_config file (``--ssh-config``, else ~/.ssh/config if there,
    read by ``lookup`` only then) > defaults."""
    path = ssh_config or Path("~/.ssh/config").expanduser()
    if ssh_config is not None and not path.exists():
        raise ConnectError(f"{host.name}: ssh config {path} does not exist", hint="fix --ssh-config")
    cfg = lookup(host, path) if path.exists() else {}
    return merge_target(host, cfg, known_hosts=known_hosts, accept_new_host_keys=accept_new_host_keys,
                        connect_timeout=connect_timeout, keepalive_s=keepalive_s)


def merge_target(host: Host, cfg: Mapping[str, Any], *, known_hosts: Path | None = None,
                 accept_new_host_keys: bool = False, connect_timeout: float | None = None,
                 keepalive_s: float | None = None) -> SSHTarget:
    """Inventory > ssh_config (``cfg``: paramiko's lookup result for the host) > defaults."""
    hostname = str(cfg.get("hostname", host.address))
    port = host.port or int(cfg.get("port", 22))
    keys = [str(host.key_file.expanduser())] if host.key_file else []
    if keys and not Path(keys[0]).exists():
        raise ConnectError(f"{host.name}: key file {keys[0]} does not exist",
                           hint="fix ansible_ssh_private_key_file in the inventory")
    keys += [str(Path(k).expanduser()) for k in cfg.get("identityfile", []) if Path(k).expanduser().exists()]
    if known_hosts is not None:
        user_files = [known_hosts]
    elif host.vars.get("planner_known_hosts"):
        user_files = [Path(str(host.vars["planner_known_hosts"]))]
    elif "userknownhostsfile" in cfg:
        user_files = [Path(p).expanduser() for p in str(cfg["userknownhostsfile"]).split()]
    else:
        user_files = [Path("~/.ssh/known_hosts").expanduser(), Path("~/.ssh/known_hosts2").expanduser()]
    return SSHTarget(
        hostname=hostname, port=port, user=host.user or str(cfg.get("user") or _local_user()),
        key_files=tuple(dict.fromkeys(keys)),
        connect_timeout=connect_timeout or float(cfg.get("connecttimeout", 10.0)),
        keepalive_s=keepalive_s if keepalive_s is not None else _number(
            host, "planner_keepalive_s", cfg.get("serveraliveinterval", DEFAULT_KEEPALIVE_S), float),
        keepalive_count=int(_number(host, "planner_keepalive_count", cfg.get("serveralivecountmax", 3), int)),
        known_hosts=tuple(user_files), key_host=str(cfg.get("hostkeyalias", hostname)),
        proxy_command=cfg.get("proxycommand") if str(cfg.get("proxycommand", "none")) != "none" else None,
        proxy_jump=cfg.get("proxyjump") if str(cfg.get("proxyjump", "none")) != "none" else None,
        accept_new=accept_new_host_keys or str(cfg.get("stricthostkeychecking", "")) == "accept-new",
        password=login_password(host), algorithms=wanted(host, cfg))


def _local_user() -> str:
    """The controller's user, as ssh defaults to it. getpass is imported here: it imports termios, and a host
    whose inventory or ssh_config names its user (the usual case) never asks."""
    import getpass

    return getpass.getuser()
