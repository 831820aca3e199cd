"""paramiko without invoke at start-up: paramiko.config imports invoke (and with it unittest.mock and asyncio,
~0.1 s of every SSH run's start-up, a third of paramiko's import) for one feature, ssh_config's ``Match exec``.

This package's ``__init__`` hides invoke while client.py imports paramiko; ``restore`` lets it be imported again
right after, and ``ssh_config`` loads it for paramiko when a config file uses ``exec``. Nothing here imports
paramiko (client.py stays its only importer).
"""

from __future__ import annotations

import sys
from typing import Any

_hidden = False


def hide() -> None:
    """Before paramiko's import (only when neither it nor invoke is loaded yet)."""
    global _hidden
    if "paramiko" not in sys.modules and "invoke" not in sys.modules:
        sys.modules["invoke"] = None  # type: ignore[assignment]  # import invoke -> ImportError
        _hidden = True


def restore() -> None:
    """After paramiko's import: invoke may be imported again by anyone."""
    global _hidden
    if _hidden and "invoke" in sys.modules and sys.modules["invoke"] is None:
        del sys.modules["invoke"]
    _hidden = False


def ssh_config(paramiko: Any, path: str) -> Any:
    """``paramiko.SSHConfig.from_path(path)``, with invoke loaded first when the file says ``exec``."""
    with open(path, encoding="utf-8", errors="replace") as f:
        uses_exec = "exec" in f.read().lower()
    if uses_exec and paramiko.config.invoke is None:
        restore()
        import invoke

        paramiko.config.invoke = invoke
    return paramiko.SSHConfig.from_path(path)
