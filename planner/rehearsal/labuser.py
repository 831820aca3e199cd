"""A non-root login with sudo for the SSH lab, without touching the machine's accounts.

A real database host is reached as a plain user (oracle, an admin account) and becomes root with sudo; the lab
normally logs in as the user running the tests (root in CI), so a root-only file never refuses anything. With a
``LabUser``, each sshd runs in a private mount namespace (unshare(1) --mount, propagation private) where
/etc/passwd, /etc/group, /etc/shadow and /etc/sudoers.d are bind-mounted copies that add one user with
``NOPASSWD: ALL`` sudo: sshd logs the client in as that user, sudo lets it become root, and outside the
namespace the machine's accounts are exactly as they were. Needs root (mount namespaces, sshd changing user).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

# o=$1 is the overlay folder; the rest is sshd's argv, exec'd so the process the lab started *is* sshd.
_MOUNTS = """o=$1; shift
for f in passwd group shadow; do
  if [ -e "/etc/$f" ]; then mount --bind "$o/$f" "/etc/$f" || exit 97; fi
done
mount --bind "$o/sudoers.d" /etc/sudoers.d || exit 97
if [ -e "$o/sudoers" ]; then mount --bind "$o/sudoers" /etc/sudoers || exit 97; fi
exec "$@"
"""


# A login name as useradd(8) takes it by default (NAME_REGEX): an inventory's ansible_user is outside text.
_NAME = re.compile(r"[a-z_][a-z0-9_-]{0,31}")


def closed_to_others(path: Path) -> Path | None:
    """The first folder on the way to ``path`` (through its symlinks too) that other users cannot search, or
    None: a lab user can reach it (e.g. not a Python under /root, mode 0700)."""
    for p in (Path(os.path.abspath(path)), Path(os.path.realpath(path))):
        for folder in reversed(p.parents):
            with contextlib.suppress(OSError):
                if not os.stat(folder).st_mode & 0o001:
                    return folder
    return None


def no_mount_namespace() -> str | None:
    """None when a private mount namespace can be made here, else why not."""
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"], capture_output=True,
                           text=True, check=False)
    if probe.returncode != 0:  # a container without CAP_SYS_ADMIN, seccomp...
        return f"no private mount namespace here: {probe.stderr.strip() or probe.returncode}"
    return None


def login_name(name: object) -> bool:
    """Whether ``name`` can be a lab login: a plain account name, never root."""
    return isinstance(name, str) and name != "root" and _NAME.fullmatch(name) is not None


@dataclass(frozen=True, slots=True)
class LabUser:
    """``name`` (and ``others``: more logins, e.g. one per inventory ansible_user) may log in and sudo to anyone.

    A name this machine already has keeps its account; only the sudo rule is added for it."""

    name: str = "planner-lab"
    others: tuple[str, ...] = ()
    # Set: the logins' sudo asks for this password (no NOPASSWD), as a host whose inventory holds
    # ansible_become_password. Set on the new accounts only (the overlay's shadow), never the machine's.
    sudo_password: str | None = field(default=None, repr=False)
    # Set: the lab's sudo rules (sudoers.d text) instead of "each login may run anything", e.g. NOPASSWD to the
    # database account only, as labs grant an admin login.
    rules: str | None = None
    # Set: the whole /etc/sudoers mounted over the machine's, e.g. a distribution's default (docs/become.md).
    sudoers: str | None = None
    shell: str = "/bin/sh"  # the new accounts' login shell (its profile is what a login to them reads)
    # Set: root's password in the overlay's shadow, for sudoers asking for the target's (targetpw, SLES) or root's
    root_password: str | None = field(default=None, repr=False)

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *(n for n in self.others if n != self.name))

    @staticmethod
    def unavailable() -> str | None:
        """None when a non-root lab user can be made here, else why not."""
        if os.geteuid() != 0:
            return "a non-root lab user needs root (mount namespaces; sshd must change user)"
        for tool in ("unshare", "sudo", "mount"):
            if shutil.which(tool) is None:
                return f"{tool} is missing"
        if not Path("/etc/sudoers.d").is_dir():
            return "/etc/sudoers.d is missing (sudo's include directory)"
        return no_mount_namespace()

    def uid(self) -> int:
        """A uid no account of this machine uses (stable for one machine)."""
        return self.uids()[self.name]

    def uids(self) -> dict[str, int]:
        """Each login's uid: its own where the machine has the account, else one no account uses."""
        accounts = {p.pw_name: p.pw_uid for p in pwd.getpwall()}
        free = (u for u in range(64100, 65000) if u not in set(accounts.values()))
        return {n: accounts[n] if n in accounts else next(free) for n in self.names}

    def ids(self, name: str) -> tuple[int, int]:
        """(uid, gid) of one of the logins (each new account has a group of its own, of the same number)."""
        with contextlib.suppress(KeyError):
            entry = pwd.getpwnam(name)
            return entry.pw_uid, entry.pw_gid
        uid = self.uids()[name]
        return uid, uid

    def prepare(self, lab_root: Path) -> Path:
        """Write the overlay files and the users' homes under ``lab_root``; returns the overlay folder."""
        overlay = lab_root / "etc-overlay"
        (overlay / "sudoers.d").mkdir(parents=True, exist_ok=True)
        existing = {p.pw_name for p in pwd.getpwall()}
        lines: dict[str, list[str]] = {"passwd": [], "group": [], "shadow": []}
        for name, uid in self.uids().items():
            if name in existing:
                continue
            home = lab_root / "home" / name
            home.mkdir(parents=True, exist_ok=True)
            os.chown(home, uid, uid)
            lines["passwd"].append(f"{name}:x:{uid}:{uid}:planner lab:{home}:{self.shell}")
            lines["group"].append(f"{name}:x:{uid}:")
            # "*": no password, not locked: sshd (UsePAM no) and sudo's PAM account check accept the login
            lines["shadow"].append(f"{name}:{self._hash()}:19000:0:99999:7:::")
        for name, extra in lines.items():
            src = Path("/etc") / name
            text = src.read_text() if src.exists() else ""
            if name == "shadow" and self.root_password is not None:
                text = re.sub(r"(?m)^root:[^:]*:", lambda _m: f"root:{self._hash(self.root_password)}:", text)
            dst = overlay / name
            dst.write_text(text.rstrip("\n") + ("\n" if text else "") + "".join(x + "\n" for x in extra))
            if src.exists():
                shutil.copystat(src, dst)
                st = src.stat()
                os.chown(dst, st.st_uid, st.st_gid)
        for entry in Path("/etc/sudoers.d").iterdir():
            if entry.is_file():
                shutil.copy2(entry, overlay / "sudoers.d" / entry.name)
        rule = overlay / "sudoers.d" / "planner-lab"
        if self.sudoers is not None:  # root-owned 0440, as visudo leaves it; sudo refuses anything looser
            (overlay / "sudoers").write_text(self.sudoers)
            (overlay / "sudoers").chmod(0o440)
        if self.rules is not None:
            rule.write_text(self.rules)
        elif self.sudo_password is None:
            rule.write_text("".join(f"{n} ALL=(ALL) NOPASSWD: ALL\n" for n in self.names))
        else:  # every command asks (no cached timestamp, no lecture file): sudo's state stays off this machine
            rule.write_text("".join(f"Defaults:{n} lecture=never, timestamp_timeout=0\n{n} ALL=(ALL) ALL\n"
                                    for n in self.names))
        rule.chmod(0o440)  # sudo ignores a sudoers file others may write
        return overlay

    def _hash(self, password: str | None = None) -> str:
        """The shadow field: "*" without a sudo password, else its SHA-512 crypt (the password on stdin only)."""
        password = self.sudo_password if password is None else password
        if password is None:
            return "*"
        r = subprocess.run(["openssl", "passwd", "-6", "-stdin"], input=password + "\n",
                           capture_output=True, text=True, check=True)
        return r.stdout.strip()

    @staticmethod
    def wrap(overlay: Path, argv: list[str]) -> list[str]:
        return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", _MOUNTS, "sh", str(overlay),
                *argv]
