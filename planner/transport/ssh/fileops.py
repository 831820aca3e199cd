"""What the host-side file scripts' answers mean (planner/transport/ssh/scripts.py), as planner's errors.

Kept apart from the paramiko client: these read exit codes and stderr, and name the failure for the user.
"""

from __future__ import annotations

import errno
import os
import re
from typing import Any

from planner.errors import ConnectError, PlannerError, StepError
from planner.transport import hostprograms
from planner.transport.connection import CommandResult
from planner.transport.streams import FetchTooLarge, outside_root


def refused(host: str, r: CommandResult, remote: str, root: str, max_bytes: int | None) -> None:
    """The GET script's refusals as the errors they mean."""
    if r.exit_code == 3:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), remote)
    if r.exit_code == 4:
        raise outside_root(host, remote, r.stderr, root)
    if r.exit_code == 5 and max_bytes is not None:
        raise FetchTooLarge(host, remote, int(r.stderr.strip() or 0), max_bytes)
    check(host, r, f"read {remote}")


def file_error(host: str, transport: Any, e: BaseException, what: str) -> PlannerError:
    """An SFTP failure: ConnectError when the connection died under it (the point may be retried)."""
    if transport is None or not transport.is_active():
        return ConnectError(f"{host}: connection lost while trying to {what}: {e or type(e).__name__}",
                            hint="the host or its sshd went away")
    return StepError(f"{host}: cannot {what}: {e or type(e).__name__}")


def check(host: str, r: CommandResult, what: str) -> None:
    if not r.ok:
        raise StepError(f"{host}: cannot {what}: exit {r.exit_code}: {r.stderr.strip()}")


# What sh, bash, dash, ksh and csh say when the setsid every command is started by is not there (or cannot be
# executed): before the command's own first word, so it never ran.
_NO_SETSID = re.compile(r"(?:^|[ /])setsid: (?:[Cc]ommand not found|not found|Permission denied)", re.M)


def missing_setsid(host: str, r: CommandResult) -> ConnectError | None:
    """The host has no setsid (planner.transport.ssh.scripts.in_process_group): no command can run there."""
    if r.exit_code in (1, 126, 127) and _NO_SETSID.search(r.stderr[:2000]):
        return ConnectError(f"{host}: {hostprograms.refusal(['setsid'])}",
                            hint="install it, or run planner on another host")
    return None
