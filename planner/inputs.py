"""Bounded reading of the files a user hands planner: plans, inventories, group_vars/host_vars, ``-e @file``.

Each must be a regular file (``-e @/dev/zero`` once took 15.9 GB in 30 s, ``-e @fifo`` hung for ever) no
larger than MAX_INPUT_BYTES, and a YAML document may not grow by more than MAX_ALIAS_NODES through its
aliases (a 467-byte "billion laughs" plan once took 8 GB and more than two minutes). Every refusal is an
InputError naming the file: exit 5, before any host is touched.

A foundation module (errors and PyYAML only) so plan/ and inventory/ share one set of limits.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import yaml

from planner.errors import InputError, Location, Problem

MAX_INPUT_BYTES = 16 << 20  # a plan is a few KB; a 5,000-host inventory well under a MB
MAX_ALIAS_NODES = 100_000  # YAML nodes aliases may add beyond those written out


def read_input(path: Path, what: str = "file") -> str:
    """The UTF-8 text of a regular file of at most MAX_INPUT_BYTES; InputError otherwise.

    Opened non-blocking and checked with fstat on the open descriptor, so a FIFO or a device is refused
    without a read (and without a race between a stat and the open)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError([Problem(None, "", f"{path}: no such {what}", "check the path")]) from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        raise InputError([Problem(None, "", f"{path}: cannot read the {what}: {exc}",
                                  "check the path and its permissions")]) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = ("a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(st.st_mode)
                    else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "not a regular file")
            raise InputError([Problem(None, "", f"{path}: the {what} is {kind}",
                                      f"give a regular {what} (planner reads only regular files)")])
        if st.st_size > MAX_INPUT_BYTES:
            raise InputError([_too_large(path, what)])
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=True) as f:
            fd = -1
            data = f.read(MAX_INPUT_BYTES + 1)  # a file growing while read is cut here, not followed
    except OSError as exc:
        raise InputError([Problem(None, "", f"{path}: cannot read the {what}: {exc}", "check the file")]) from None
    finally:
        if fd >= 0:
            os.close(fd)
    if len(data) > MAX_INPUT_BYTES:
        raise InputError([_too_large(path, what)])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        raise InputError([Problem(Location(str(path), line, column), "", f"the {what} is not UTF-8 text ({exc.reason})",
                                  "save it as UTF-8")]) from None


def _too_large(path: Path, what: str) -> Problem:
    return Problem(None, "", f"{path}: the {what} is larger than {MAX_INPUT_BYTES >> 20} MiB",
                   f"planner reads {what}s of at most {MAX_INPUT_BYTES >> 20} MiB; check that this is the right file")


def alias_growth(root: yaml.Node) -> int:
    """How many nodes the document's aliases add when expanded (0 without aliases); counted on the composed
    graph with one memo per node, so a billion-laughs document is measured in microseconds, not expanded."""
    memo: dict[int, int] = {}
    distinct: set[int] = set()

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in memo:
            return memo[key]
        distinct.add(key)
        memo[key] = 1  # a recursive alias counts once here; the loaders refuse recursion themselves
        total = 1
        if isinstance(node, yaml.SequenceNode):
            total += sum(size(child) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total += sum(size(k) + size(v) for k, v in node.value)
        memo[key] = total
        return total

    return size(root) - len(distinct)


def check_alias_growth(root: yaml.Node | None, file: str) -> list[Problem]:
    """A Problem when aliases expand the document by more than MAX_ALIAS_NODES nodes."""
    if root is None:
        return []
    growth = alias_growth(root)
    if growth <= MAX_ALIAS_NODES:
        return []
    return [Problem(Location(file, 1, 1), "", f"YAML aliases expand this document by {growth:,} nodes "
                    f"(more than {MAX_ALIAS_NODES:,}): refused (a \"billion laughs\" document?)",
                    "write the values out, or use fewer nested aliases (*name)")]
