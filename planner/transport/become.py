"""The become (sudo) password: which inventory variable gives it, and how sudo is asked for it.

As Ansible's sudo become plugin (lib/ansible/plugins/become/sudo.py, option ``become_pass``): with a password,
sudo runs with ``-S -p <prompt>`` instead of ``-n``; the connection answers that fixed prompt on the command's
stdin when, and only when, sudo prints it (ansible's ssh connection does the same), so the password is never in
argv, an environment variable or a file on the host. A second prompt means sudo refused it ("Sorry, try
again."): stdin is closed there, so sudo gives up at once instead of waiting.
Foundation for the transports: imports nothing of paramiko.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from planner.errors import ConnectError, StepError
from planner.host import Host

# Ansible's sudo plugin reads become_pass from these (the last one set winning, as its config manager does).
PASSWORD_VARS = ("ansible_become_password", "ansible_become_pass", "ansible_sudo_pass", "ansible_sudo_password")
PROMPT = "[sudo via planner] password:"  # fixed text: sudo -p would expand %-escapes, so it holds none
PROMPT_BYTES = PROMPT.encode()


def fresh_prompt() -> str:
    """The prompt one command's sudo prints: PROMPT with a random word in it, so that nothing but that sudo can
    print the text planner answers (a login profile printing PROMPT is never taken for it), and sudo's ``%p``,
    the user whose password it asks for (the login user's; root's or the target's under rootpw, targetpw,
    runaspw: SLES's default sudoers has targetpw), said when the password is refused. The shown and recorded line
    keeps the fixed PROMPT. Hex only besides %p: no other %-escape for sudo, no quote for the shell."""
    word = os.urandom(8).hex()  # secrets.token_hex(8), without importing secrets (hmac, hashlib, OpenSSL)
    return PROMPT.replace("]", f" {word}]", 1).replace("password:", "password for %p:")


@dataclass(frozen=True, slots=True)
class BecomePassword:
    var: str  # the inventory variable it came from, for errors
    value: str = field(repr=False)  # a secret: never in a repr, an error or a command line


def inventory_password(host: Host, names: tuple[str, ...]) -> tuple[str, str] | None:
    """(variable, value) of the last of ``names`` the host sets (Ansible's aliases: the last one wins), a number
    taken as its text; anything else is refused naming the variable, never quoting the value."""
    found = [(var, host.vars[var]) for var in names if host.vars.get(var) is not None]
    if not found:
        return None
    var, value = found[-1]
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ConnectError(f"{host.name}: {var} must be a string, not a {type(value).__name__}",
                           hint=f"fix {var} in the inventory (quote it, or vault it with ansible-vault)")
    return var, value if isinstance(value, str) else str(value)


def become_password(host: Host) -> BecomePassword | None:
    """The sudo password the inventory gives the host, or None (sudo -n as before). The value is never quoted."""
    found = inventory_password(host, PASSWORD_VARS)
    if found is None:
        return None
    var, value = found
    if "\n" in str(value) or "\r" in str(value):
        raise ConnectError(f"{host.name}: {var} holds a line break, which sudo would take as the end of it",
                           hint=f"fix {var} in the inventory")
    return BecomePassword(var, str(value))


def refused(host: str, secret: BecomePassword, asked: str = "") -> StepError:
    """sudo asked again after the password was given: it is wrong (Ansible: "Incorrect sudo password").
    ``asked``: the user whose password sudo asked for (its %p), when the prompt said."""
    whose = f" (sudo asked for the password of {asked})" if asked else ""
    why = (f"; under `Defaults targetpw` (SLES's default sudoers) or rootpw/runaspw sudo asks for {asked}'s "
           "password, not the login user's: give that one, or remove those Defaults (docs/become.md)") if asked else ""
    return StepError(f"{host}: incorrect sudo password: sudo refused the value of {secret.var}{whose}",
                     hint=f"check {secret.var} in the inventory (or the Vault value it comes from){why}")


def requiretty(host: str, login: str | None) -> StepError:
    """sudo refused to run without a terminal (``Defaults requiretty``: RHEL/OL 5, 6 before 6.8, 7 before 7.3)."""
    who = login or "the login user"
    return StepError(f"{host}: sudo requires a terminal here (Defaults requiretty), and planner runs commands "
                     "without one: a terminal would merge the command's stderr into its stdout and echo its input",
                     hint=f"add `Defaults:{who} !requiretty` to sudoers on {host} (visudo -f /etc/sudoers.d/planner), "
                          "as Red Hat's own sudoers has had since RHEL 6.8 and 7.3 (docs/become.md)")


class PromptAnswer:
    """sudo's stderr before planner's first line of the command: its prompt answered once, its lecture kept.

    ``feed`` takes what has arrived so far (the caller's buffer) and returns what to keep looking at; ``reply``
    is the bytes to send now (the password and a newline), once; a second prompt raises ``refused``. A prompt
    holding ``%p`` matches whatever name sudo put there (up to the text after it), kept as ``asked``."""

    def __init__(self, host: str, secret: BecomePassword, prompt: bytes = PROMPT_BYTES) -> None:
        self.host, self.secret = host, secret
        self.prefix, _, self.suffix = prompt.partition(b"%p")
        self.named = b"%p" in prompt
        self.answered = False
        self.asked = ""

    def _find(self, head: bytes) -> tuple[int, int, str] | None:
        """(start, end, %p's name) of the prompt in ``head``, or None while it is not all there."""
        start = head.find(self.prefix)
        if start < 0:
            return None
        if not self.named:
            return start, start + len(self.prefix), ""
        end = head.find(self.suffix, start + len(self.prefix))
        if end < 0:
            return None
        return start, end + len(self.suffix), head[start + len(self.prefix):end].decode(errors="replace")

    def feed(self, head: bytes) -> tuple[bytes, bytes, bytes]:
        """(text before the prompt, for stderr; what remains to look at; bytes to send to the command's stdin)."""
        found = self._find(head)
        if found is None:
            return b"", head, b""
        start, end, name = found
        if self.answered:
            raise refused(self.host, self.secret, self.asked)
        self.answered, self.asked = True, name
        return head[:start], head[end:], self.secret.value.encode() + b"\n"


def asks_password(host: Host, become: bool) -> bool:
    """Whether a command with this ``become`` runs under ``sudo -S`` (what its shown line must say). Over SSH
    only: the local transport keeps sudo -n (it runs on the controller, which has its own sudo habits)."""
    return become and host.connection != "local" and become_password(host) is not None
