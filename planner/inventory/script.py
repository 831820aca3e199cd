"""Inventory scripts: an executable `-i` file answering `--list` (and `--host NAME`), Ansible's oldest dynamic
inventory protocol, read as ansible-core's script plugin reads it.

`--list` prints a JSON object: group -> {hosts: [...], vars: {...}, children: [...]} (a bare list is the
group's hosts; a mapping with none of those keys is one host named like the group, with those variables),
and `_meta.hostvars` -> host -> variables. Without `_meta`, the script is asked `--host NAME` once per host.
Each run is bounded in time and output size; a script that fails, times out or prints no JSON object is a
problem carrying its stderr, so the user sees the script's own words (exit 5).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from planner.errors import Location
from planner.host import UnsafeText
from planner.inputs import MAX_INPUT_BYTES
from planner.inventory.data import InventoryGraph
from planner.inventory.vault import VaultCipher

SCRIPT_TIMEOUT_S = 60.0  # a cloud API call takes seconds; a hung script must not hang the run
MAX_STDERR_BYTES = 64 << 10
_SECTIONS = ("hosts", "vars", "children")


@dataclass(frozen=True, slots=True)
class ScriptRun:
    """What an inventory or vault-password script printed, or why its run does not count."""

    stdout: str
    stderr: str
    failure: str | None  # why the run does not count: exit code, timeout, too much output; None when it ran


class ScriptProblem(Exception):
    """One thing wrong with a script's answer; read_script turns it into a Problem."""


def _drain(stream: IO[bytes], limit: int, into: list[bytes], on_overflow: threading.Event) -> None:
    size = 0
    while chunk := stream.read(65536):
        if size < limit:
            into.append(chunk[:limit - size])
        size += len(chunk)
        if size > limit:
            on_overflow.set()


KILLED_PIPE_GRACE_S = 2.0  # a killed group's pipes reach EOF within this; past it, someone outside holds them


def run_script(path: Path, args: list[str], timeout: float = SCRIPT_TIMEOUT_S,
               max_bytes: int = MAX_INPUT_BYTES) -> ScriptRun:
    """Run ``path args`` without a shell, its stdin closed, in its own process group (killed whole on timeout)."""
    try:
        # absolute: `-i inv.sh` is the one in this folder, not one found on PATH
        proc = subprocess.Popen([str(path.absolute()), *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        return ScriptRun("", "", f"cannot be run: {exc.strerror or exc}")
    out: list[bytes] = []
    err: list[bytes] = []
    too_much = threading.Event()
    readers = [threading.Thread(target=_drain, args=(proc.stdout, max_bytes, out, too_much), daemon=True),
               threading.Thread(target=_drain, args=(proc.stderr, MAX_STDERR_BYTES, err, threading.Event()),
                                daemon=True)]
    for r in readers:
        r.start()
    deadline = time.monotonic() + timeout
    failure = _wait(proc, timeout, too_much)
    if failure is not None and proc.returncode is not None and proc.returncode < 0:
        # _wait killed it at the bound: its pipes close a moment later, which is not a background process
        # holding them (CI under load read that as "kept its output open")
        deadline = max(deadline, time.monotonic() + KILLED_PIPE_GRACE_S)
    if not _joined(readers, deadline):
        # the script exited but a process it started holds its stdout or stderr: the bound is the whole run's
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        failure = (f"did not finish within {timeout:g} s: a process it started in the background kept its "
                   "output open (killed)")
        if not _joined(readers, time.monotonic() + 5):  # one that left the group (setsid) cannot be reached
            failure = (f"did not finish within {timeout:g} s: a process it started in the background, outside "
                       "its process group, keeps its output open")
    if too_much.is_set():  # also when it managed to exit before being killed
        failure = (f"printed more than {max_bytes >> 20} MiB" if max_bytes >= 1 << 20
                   else f"printed more than {max_bytes} bytes")
    text = b"".join(out).decode("utf-8", "replace")
    return ScriptRun(text, b"".join(err).decode("utf-8", "replace"), failure)


def _joined(readers: list[threading.Thread], deadline: float) -> bool:
    """Whether the readers reached the end of their pipes by ``deadline`` (monotonic)."""
    for r in readers:
        r.join(max(0.0, deadline - time.monotonic()))
    return not any(r.is_alive() for r in readers)


def _wait(proc: subprocess.Popen[bytes], timeout: float, too_much: threading.Event) -> str | None:
    waited = 0.0
    while proc.poll() is None:
        if too_much.is_set() or waited >= timeout:
            _kill(proc)
            return f"did not finish within {timeout:g} s"  # replaced by the size when that was the reason
        try:
            proc.wait(0.05)
        except subprocess.TimeoutExpired:
            waited += 0.05
    return None if proc.returncode == 0 else f"exited with code {proc.returncode}"


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def read_script(graph: InventoryGraph, path: Path) -> None:
    """Fill the graph from an inventory script; every problem goes to graph.problems."""
    at = Location(str(path), 1, 1)
    try:
        listing = _answer(path, ["--list"], graph.warnings)
        if not isinstance(listing, dict):
            raise ScriptProblem(f"--list printed a JSON {type(listing).__name__}, not an object of groups")
        meta = _meta_hostvars(listing)
        if meta is None:  # ansible-core 2.19 deprecates it in these words
            graph.warn("Inventory scripts should always provide 'meta.hostvars'. Host variables will be collected "
                       "by running the inventory script with the '--host' option for each host.", at)
        hosts: list[str] = []
        for group, data in listing.items():
            if group != "_meta":
                hosts.extend(_group(graph, str(group), data, at))
        for host in dict.fromkeys(hosts):
            variables = _answer(path, ["--host", host]) if meta is None else meta.get(host, {})
            if not isinstance(variables, dict):
                raise ScriptProblem(f"the variables of host '{host}' are not a JSON object")
            for key, value in variables.items():
                graph.set_host_var(host, str(key), value, at)
    except ScriptProblem as exc:
        graph.problem(at, f"inventory script: {exc}",
                      "run the script with --list yourself; it must exit 0 and print a JSON object of groups")


def _answer(path: Path, args: list[str], warnings: list[str] | None = None) -> Any:
    run = run_script(path, args)
    said = f"; it said: {run.stderr.strip()}" if run.stderr.strip() else ""
    if run.failure:
        raise ScriptProblem(f"'{path.name} {' '.join(args)}' {run.failure}{said}")
    if warnings is not None and run.stderr.strip():  # shown on success too, as ansible's always_show_stderr
        warnings.append(f"inventory script {path} wrote on stderr: {run.stderr.strip()}")
    if args[0] == "--host" and not run.stdout.strip():
        return {}
    try:
        return json.loads(run.stdout, object_hook=_tagged)
    except ValueError as exc:
        raise ScriptProblem(f"'{path.name} {' '.join(args)}' did not print JSON ({exc}){said}") from None


def _tagged(obj: dict[str, Any]) -> Any:
    """The inventory_legacy JSON profile: `{"__ansible_vault": CIPHERTEXT}` is a vaulted value (decrypted by the
    graph). `{"__ansible_unsafe": ...}` is an UnsafeText: never templated, listed back that way."""
    if len(obj) == 1 and isinstance(obj.get("__ansible_vault"), str):
        return VaultCipher(obj["__ansible_vault"])
    if len(obj) == 1 and isinstance(obj.get("__ansible_unsafe"), str):
        return UnsafeText(obj["__ansible_unsafe"])
    return obj


def _meta_hostvars(listing: dict[str, Any]) -> dict[str, Any] | None:
    if "_meta" not in listing:
        return None
    meta = listing["_meta"]
    hostvars = meta.get("hostvars") if isinstance(meta, dict) else None
    if not isinstance(hostvars, dict):
        raise ScriptProblem("'_meta' must be an object with 'hostvars': an object of host -> variables")
    return hostvars


def _group(graph: InventoryGraph, group: str, data: Any, at: Location) -> list[str]:
    """Declare one group of the listing as ansible-core's script plugin does; its hosts, in order."""
    graph.add_group(group, at)
    if not isinstance(data, dict):
        data = {"hosts": data}
    elif not any(k in data for k in _SECTIONS):
        data = {"hosts": [group], "vars": data}
    hosts = data.get("hosts", [])
    variables = data.get("vars", {})
    if not isinstance(hosts, list) or not isinstance(variables, dict):
        raise ScriptProblem(f"group '{group}': 'hosts' must be a list and 'vars' an object")
    for name in hosts:
        graph.add_host(str(name), group, None, at)
    for key, value in variables.items():
        graph.set_group_var(group, str(key), value, at)
    for child in data.get("children") or []:
        graph.add_group(str(child), at)
        graph.add_child(group, str(child), at)
    return [str(h) for h in hosts]
