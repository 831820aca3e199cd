"""paramiko without invoke at start-up: paramiko.config imports invoke (and with it unittest.mock and asyncio,
~0.1 s of every SSH run's start-up, a third of paramiko's import) for one feature, ssh_config's ``Match exec``.

This package's ``__init__`` hides invoke while client.py imports paramiko; ``restore`` lets it be imported again
right after, and ``ssh_config`` loads it for paramiko when a config file uses ``exec`` (a lookup under
``exec_allowed(False)`` stops where one would run instead: the early connects run none). Nothing here imports
paramiko (client.py stays its only importer).

paramiko's ``__init__`` also sets ``__version__ = importlib.metadata.version("paramiko")`` (it becomes the
client's banner, ``SSH-2.0-paramiko_<version>``): importing importlib.metadata (email, zipfile, csv...) costs
~20 ms of CPU at every SSH run, for one value nothing else in an apply reads. While paramiko is imported,
``importlib.metadata`` is a stand-in whose ``version`` reads the same METADATA file importlib.metadata would
(the first distribution of that name on sys.path), and hands over to the real module whenever the layout is
not the plain one (several candidates, an egg, a zip on sys.path, another finder of distributions).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import re
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_hidden = False
_METADATA = "importlib.metadata"


def hide() -> None:
    """Before paramiko's import (only when neither it nor invoke is loaded yet)."""
    global _hidden
    if "paramiko" not in sys.modules and "invoke" not in sys.modules:
        sys.modules["invoke"] = None  # type: ignore[assignment]  # import invoke -> ImportError
        _hidden = True
        if _METADATA not in sys.modules:
            sys.meta_path.insert(0, _AtParamiko())


def restore() -> None:
    """After paramiko's import: invoke may be imported again by anyone."""
    global _hidden
    if _hidden and "invoke" in sys.modules and sys.modules["invoke"] is None:
        del sys.modules["invoke"]
    _real_metadata()  # the next `import importlib.metadata` is the real one
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _AtParamiko)]
    _hidden = False


class _AtParamiko:
    """A meta path finder that finds nothing: at paramiko's own import (not before: planner.transport.ssh is
    imported without paramiko too) it puts the stand-in in place, then leaves."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name == "paramiko":
            sys.meta_path[:] = [f for f in sys.meta_path if f is not self]
            if _METADATA not in sys.modules:
                sys.modules[_METADATA] = _stand_in()


def _real_metadata() -> None:
    if getattr(sys.modules.get(_METADATA), "_planner_stand_in", False):
        del sys.modules[_METADATA]


def _any_other(attr: str) -> Any:
    """The stand-in left in place (paramiko imported by someone else than client.py): the real module answers."""
    _real_metadata()
    import importlib.metadata

    return getattr(importlib.metadata, attr)


def _stand_in() -> types.ModuleType:
    module = types.ModuleType(_METADATA, "importlib.metadata.version only, while paramiko is imported")
    module.version = _version  # type: ignore[attr-defined]
    module._planner_stand_in = True  # type: ignore[attr-defined]
    module.__getattr__ = _any_other  # type: ignore[method-assign]
    return module


def _version(name: str) -> str:
    found = _plain_metadata(name)
    if found is not None:
        with open(found, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.strip():
                    break  # the end of the headers: no Version in them
                if line.startswith("Version:"):
                    return line.partition(":")[2].strip()
    _real_metadata()
    import importlib.metadata

    return importlib.metadata.version(name)


def _plain_metadata(name: str) -> str | None:
    """The METADATA file of ``name``'s distribution as importlib.metadata finds it first (its PathFinder over
    sys.path in order, a folder's ``<name>-<version>.dist-info`` by PEP 503 name), or None when that search is not
    this plain one and the real module must answer."""
    if any(hasattr(f, "find_distributions") and getattr(f, "__name__", "") != "PathFinder" for f in sys.meta_path):
        return None
    wanted = _normal(name)
    for entry in sys.path:
        root = entry or "."
        if os.path.isfile(root):
            return None  # a zip: importlib.metadata looks inside
        try:
            children = os.listdir(root)
        except OSError:
            continue
        hits = [c for c in children if c.lower().endswith((".dist-info", ".egg-info"))
                and _normal(c.lower().rpartition(".")[0].partition("-")[0]) == wanted]
        egg = root.lower().endswith(".egg") and "egg-info" in (c.lower() for c in children)
        if egg or len(hits) > 1 or any(h.lower().endswith(".egg-info") for h in hits):
            return None
        if hits:
            path = os.path.join(root, hits[0], "METADATA")
            return path if os.path.isfile(path) else None
    return None


def _normal(name: str) -> str:
    """importlib.metadata's Prepared.normalize: PEP 503, dashes as underscores."""
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def ssh_config(paramiko: Any, path: str) -> Any:
    """``paramiko.SSHConfig.from_path(path)`` with its Includes read as OpenSSH reads them (``exec_allowed``
    heeded), with invoke loaded first when the file says ``exec``."""
    from planner.transport.ssh.config_include import expanded_text

    text = expanded_text(Path(path))  # paramiko ignores Include: it parses the text with the included files in it
    uses_exec = "exec" in text.lower()
    if uses_exec and not isinstance(paramiko.config.invoke, _NoStdin):
        restore()
        import invoke

        paramiko.config.invoke = _NoStdin(invoke)
    config = _config_class(paramiko.SSHConfig).from_text(text)
    config.says_exec = uses_exec
    return config


# False within exec_allowed(False): a lookup then runs no ``Match exec`` command (the early connects' lookup)
_RUN_EXEC: contextvars.ContextVar[bool] = contextvars.ContextVar("planner_ssh_config_run_exec", default=True)


@contextlib.contextmanager
def exec_allowed(allowed: bool) -> Iterator[None]:
    """Lookups within run ``Match exec`` commands as paramiko does, or (``allowed`` False) stop where one would run
    with ExecDeferred, nothing run."""
    token = _RUN_EXEC.set(allowed)
    try:
        yield
    finally:
        _RUN_EXEC.reset(token)


@functools.cache
def _config_class(base: Any) -> Any:
    """paramiko's SSHConfig (``base``), whose lookup stops where a ``Match exec`` would run unless exec_allowed:
    paramiko expands the command's tokens (``_tokenize``, key "match-exec") right before running it, and only then.
    A paramiko whose ``_does_match`` does not (a later release may not) stops every such lookup of a file saying
    ``exec`` instead: a command is never run where it was not run before."""
    does_match = getattr(getattr(base, "_does_match", None), "__code__", None)
    trap_holds = does_match is not None and "match-exec" in does_match.co_consts and hasattr(base, "_tokenize")

    class Config(base):
        says_exec = False  # ssh_config() sets it for a file that says ``exec`` anywhere

        def lookup(self, hostname: str) -> Any:
            if self.says_exec and not trap_holds and not _RUN_EXEC.get():
                raise _deferred(hostname)
            return super().lookup(hostname)

        def _tokenize(self, config: Any, target_hostname: str, key: str, value: str) -> Any:
            if key == "match-exec" and not _RUN_EXEC.get():
                raise _deferred(value)
            return super()._tokenize(config, target_hostname, key, value)

    return Config


def _deferred(what: str) -> Exception:
    from planner.transport.ssh.target import ExecDeferred  # imported already: target.resolve() is the caller

    return ExecDeferred(what)


class _NoStdin:
    """invoke as paramiko's Match exec calls it, the command's stdin at end of file: OpenSSH runs it with stdin (and
    stdout) on /dev/null (readconf.c execute_in_shell); invoke's run would copy the controller's own stdin to it
    (a terminal's keys, a piped input), and fails the lookup where that stdin cannot be read."""

    def __init__(self, invoke: Any) -> None:
        self._invoke = invoke

    def run(self, command: str, **kw: Any) -> Any:
        import io

        return self._invoke.run(command, in_stream=io.StringIO(""), **kw)
