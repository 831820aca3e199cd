"""A non-root login with sudo for the SSH lab, without touching the machine's accounts.

A real database host is reached as a plain user (oracle, an admin account) and becomes root with sudo; the lab
normally logs in as the user running the tests (root in CI), so a root-only file never refuses anything. With a
``LabUser``, each sshd runs in a private mount namespace (unshare(1) --mount, propagation private) where
/etc/passwd, /etc/group, /etc/shadow and /etc/sudoers.d are bind-mounted copies that add one user with
``NOPASSWD: ALL`` sudo: sshd logs the client in as that user, sudo lets it become root, and outside the
namespace the machine's accounts are exactly as they were. Needs root (mount namespaces, sshd changing user).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

# o=$1 is the overlay folder; the rest is sshd's argv, exec'd so the process the lab started *is* sshd.
_MOUNTS = """o=$1; shift
for f in passwd group shadow; do
  if [ -e "/etc/$f" ]; then mount --bind "$o/$f" "/etc/$f" || exit 97; fi
done
mount --bind "$o/sudoers.d" /etc/sudoers.d || exit 97
exec "$@"
"""


@dataclass(frozen=True, slots=True)
class LabUser:
    name: str = "planner-lab"

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
        probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"], capture_output=True,
                               text=True, check=False)
        if probe.returncode != 0:  # a container without CAP_SYS_ADMIN, seccomp...
            return f"no private mount namespace here: {probe.stderr.strip() or probe.returncode}"
        return None

    def uid(self) -> int:
        """A uid no account of this machine uses (stable for one machine)."""
        taken = {p.pw_uid for p in pwd.getpwall()} | {g for g in range(0, 1000)}
        return next(u for u in range(64100, 65000) if u not in taken)

    def prepare(self, lab_root: Path) -> Path:
        """Write the overlay files and the user's home under ``lab_root``; returns the overlay folder."""
        uid = self.uid()
        overlay = lab_root / "etc-overlay"
        home = lab_root / "home" / self.name
        home.mkdir(parents=True, exist_ok=True)
        os.chown(home, uid, uid)
        (overlay / "sudoers.d").mkdir(parents=True, exist_ok=True)
        line = {"passwd": f"{self.name}:x:{uid}:{uid}:planner lab:{home}:/bin/sh",
                "group": f"{self.name}:x:{uid}:",
                # "*": no password, not locked: sshd (UsePAM no) and sudo's PAM account check accept the login
                "shadow": f"{self.name}:*:19000:0:99999:7:::"}
        for name, extra in line.items():
            src = Path("/etc") / name
            text = src.read_text() if src.exists() else ""
            dst = overlay / name
            dst.write_text(text.rstrip("\n") + ("\n" if text else "") + extra + "\n")
            if src.exists():
                shutil.copystat(src, dst)
                st = src.stat()
                os.chown(dst, st.st_uid, st.st_gid)
        for entry in Path("/etc/sudoers.d").iterdir():
            if entry.is_file():
                shutil.copy2(entry, overlay / "sudoers.d" / entry.name)
        rule = overlay / "sudoers.d" / "planner-lab"
        rule.write_text(f"{self.name} ALL=(ALL) NOPASSWD: ALL\n")
        rule.chmod(0o440)  # sudo ignores a sudoers file others may write
        return overlay

    @staticmethod
    def wrap(overlay: Path, argv: list[str]) -> list[str]:
        return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", _MOUNTS, "sh", str(overlay),
                *argv]
