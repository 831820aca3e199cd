"""The userland and sshd a lab host imitates: older distributions' programs and algorithm sets (docs/userlands.md).

A lab host is this machine's sshd and userland. To rehearse what an older host has, each sshd can run in a
private mount namespace where a program is bind-mounted over by a stand-in (``Userland``): missing (exit 127,
as a shell says for a program it cannot find) or an older version that refuses an option it did not have yet.
Outside the namespace the machine's programs are untouched. ``SshdAlgorithms`` restricts what the sshd offers
to what an older OpenSSH release offered, as its distribution shipped it.
"""

from __future__ import annotations

import enum
import shlex
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Stand:
    """One program as an older userland has it: ``program`` (absolute path here) is bind-mounted over."""

    program: str
    script: str = ""  # the stand-in's body; "$REAL" is a copy of the real program (the original is covered)
    missing: bool = False  # not there at all: a file no one may execute covers it (PATH lookups pass it by)


# systemd's systemctl and journalctl imitated over the lab host's own units (standins/bin/systemctl): no systemd
# runs here; the stand-in keeps its units, their state and journal beside itself, in the covering folder.
_SYSTEMD_STANDIN = Path(__file__).parent / "standins" / "bin" / "systemctl"


def _systemd(tool: str) -> str:
    return f'exec {shlex.quote(sys.executable)} {shlex.quote(str(_SYSTEMD_STANDIN))} "${{REAL%/*}}" {tool} "$@"'


class Userland(enum.Enum):
    """A program as RHEL/OL 5-7 ship it (sources in docs/userlands.md), or as a host with systemd has it."""

    # coreutils < 8.15 (RHEL/OL 5 and 6) has no realpath: a shell says "not found", exit 127.
    NO_REALPATH = Stand("/usr/bin/realpath", 'echo "sh: realpath: command not found" >&2; exit 127')
    # util-linux < 2.24 (RHEL/OL 5, 6, 7) has setsid without -w/--wait (util-linux 2.24 release notes).
    SETSID_NO_WAIT = Stand("/usr/bin/setsid",
                           'case $1 in -w|--wait) echo "setsid: invalid option -- \'w\'" >&2; exit 1;; esac\n'
                           'exec "$REAL" "$@"')
    # Minimal installs and containers without them (docs/userlands.md: coreutils, util-linux).
    NO_BASE64 = Stand("/usr/bin/base64", missing=True)
    NO_SHA256SUM = Stand("/usr/bin/sha256sum", missing=True)
    NO_SETSID = Stand("/usr/bin/setsid", missing=True)
    NO_MKTEMP = Stand("/usr/bin/mktemp", missing=True)
    # A host whose services systemd runs: systemctl and journalctl over the units in the covering folder's
    # units/ (systemd_units() says where); docs/oracle-behaviour.md row 44.d1.
    SYSTEMCTL = Stand("/usr/bin/systemctl", _systemd("systemctl"))
    JOURNALCTL = Stand("/usr/bin/journalctl", _systemd("journalctl"))


# Mount each stand-in over its program ($1 the lab's stand-in folder; pairs of stand-in, program follow "--"),
# then exec the rest (sshd's argv): the process the lab started is still sshd.
_MOUNTS = """shift
while [ "$1" != -- ]; do mount --bind "$1" "$2" || exit 97; shift 2; done
shift
exec "$@"
"""


def hide(folder: Path, stands: Sequence[Userland], argv: list[str], *, user: str = "",
         login_shell: str | None = None) -> list[str]:
    """``argv`` (an sshd) in a private mount namespace where each stand-in covers its program, and ``user`` logs
    in with ``login_shell`` (a copy of /etc/passwd with that shell covers it)."""
    if not stands and not login_shell:
        return argv
    folder.mkdir(parents=True, exist_ok=True)
    pairs = [path for stand in stands for path in _stand_in(folder, stand.value)]
    if login_shell:
        passwd = folder / "passwd"
        lines = Path("/etc/passwd").read_text().splitlines()
        passwd.write_text("".join(_with_shell(line, user, login_shell) + "\n" for line in lines))
        passwd.chmod(0o644)
        pairs += [str(passwd), "/etc/passwd"]
    return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", _MOUNTS, "sh", str(folder),
            *pairs, "--", *argv]


def _stand_in(folder: Path, stand: Stand) -> tuple[str, str]:
    """(the stand-in script written in ``folder``, the program it covers)."""
    name = Path(stand.program).name
    if stand.missing:  # mode 644: the PATH lookups of dash and bash pass it by (exec-ing it fails: 126)
        (folder / name).write_text("")
        (folder / name).chmod(0o644)
        return str(folder / name), stand.program
    copy = folder / f"{name}.real"
    shutil.copy2(shutil.which(name) or stand.program, copy)  # the stand-in may exec the real one, then covered
    script = folder / name
    script.write_text(f"#!/bin/sh\nREAL={shlex.quote(str(copy))}\n{stand.script}\n")
    script.chmod(0o755)
    return str(script), stand.program


def _with_shell(line: str, user: str, shell: str) -> str:
    fields = line.split(":")
    return ":".join([*fields[:6], shell]) if len(fields) == 7 and fields[0] == user else line


@dataclass(frozen=True, slots=True)
class AlgorithmSet:
    """What one OpenSSH release's sshd offered by default (its myproposal.h; docs/userlands.md)."""

    release: str
    key_type: str  # the lab's host and client keys (ssh-keygen -t): what that release's hosts had
    kex: tuple[str, ...]
    hostkeys: tuple[str, ...]
    ciphers: tuple[str, ...]
    macs: tuple[str, ...]
    pubkeys: tuple[str, ...]  # the login signatures it verifies


_KEX_7 = ("curve25519-sha256", "curve25519-sha256@libssh.org", "ecdh-sha2-nistp256", "ecdh-sha2-nistp384",
          "ecdh-sha2-nistp521", "diffie-hellman-group-exchange-sha256", "diffie-hellman-group16-sha512",
          "diffie-hellman-group18-sha512", "diffie-hellman-group14-sha256", "diffie-hellman-group14-sha1")
_KEYS_7 = ("ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "ssh-ed25519", "rsa-sha2-512",
           "rsa-sha2-256", "ssh-rsa")
_CIPHERS_7 = ("chacha20-poly1305@openssh.com", "aes128-ctr", "aes192-ctr", "aes256-ctr", "aes128-gcm@openssh.com",
              "aes256-gcm@openssh.com")
_MACS_7 = ("umac-64-etm@openssh.com", "umac-128-etm@openssh.com", "hmac-sha2-256-etm@openssh.com",
           "hmac-sha2-512-etm@openssh.com", "hmac-sha1-etm@openssh.com", "umac-64@openssh.com",
           "umac-128@openssh.com", "hmac-sha2-256", "hmac-sha2-512", "hmac-sha1")


class SshdAlgorithms(enum.Enum):
    """An older sshd's algorithm offer: RHEL/OL 5 (4.3p2), 6 (5.3p1), 7 (7.4p1), 8 (8.0p1), upstream defaults."""

    OPENSSH_4_3 = AlgorithmSet(
        "4.3p2", "rsa",
        ("diffie-hellman-group-exchange-sha1", "diffie-hellman-group14-sha1", "diffie-hellman-group1-sha1"),
        ("ssh-rsa", "ssh-dss"),
        ("aes128-cbc", "3des-cbc", "blowfish-cbc", "cast128-cbc", "arcfour128", "arcfour256", "arcfour", "aes192-cbc",
         "aes256-cbc", "rijndael-cbc@lysator.liu.se", "aes128-ctr", "aes192-ctr", "aes256-ctr"),
        ("hmac-md5", "hmac-sha1", "hmac-ripemd160", "hmac-ripemd160@openssh.com", "hmac-sha1-96", "hmac-md5-96"),
        ("ssh-rsa", "ssh-dss"))
    OPENSSH_5_3 = AlgorithmSet(
        "5.3p1", "rsa",
        ("diffie-hellman-group-exchange-sha256", "diffie-hellman-group-exchange-sha1", "diffie-hellman-group14-sha1",
         "diffie-hellman-group1-sha1"),
        ("ssh-rsa", "ssh-dss"),
        ("aes128-ctr", "aes192-ctr", "aes256-ctr", "arcfour256", "arcfour128", "aes128-cbc", "3des-cbc",
         "blowfish-cbc", "cast128-cbc", "aes192-cbc", "aes256-cbc", "arcfour", "rijndael-cbc@lysator.liu.se"),
        ("hmac-md5", "hmac-sha1", "umac-64@openssh.com", "hmac-ripemd160", "hmac-ripemd160@openssh.com",
         "hmac-sha1-96", "hmac-md5-96"),
        ("ssh-rsa", "ssh-dss"))
    OPENSSH_7_4 = AlgorithmSet("7.4p1", "rsa", _KEX_7, _KEYS_7, _CIPHERS_7, _MACS_7, _KEYS_7)
    OPENSSH_8_0 = AlgorithmSet("8.0p1", "ecdsa", _KEX_7, _KEYS_7, _CIPHERS_7, _MACS_7, _KEYS_7)


def sshd_lines(algorithms: SshdAlgorithms) -> list[str]:
    """sshd_config lines restricting this machine's sshd to the set, less what it can no longer do (arcfour,
    blowfish, cast128, RIPEMD-160: dropped since, and never in paramiko either, so no handshake differs)."""
    s = algorithms.value
    lines = []
    for keyword, query, names in (("KexAlgorithms", "kex", s.kex), ("HostKeyAlgorithms", "key-sig", s.hostkeys),
                                  ("Ciphers", "cipher", s.ciphers), ("MACs", "mac", s.macs),
                                  ("PubkeyAcceptedAlgorithms", "key-sig", s.pubkeys)):
        known = set(subprocess.run(["ssh", "-Q", query], capture_output=True, text=True, check=True).stdout.split())
        lines.append(f"{keyword} {','.join(n for n in names if n in known)}")
    return lines
