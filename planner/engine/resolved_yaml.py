"""plan.resolved.yaml's text, made from each entry's text: every (play, host, step) entry is dumped once, and
the file, rewritten after each step, is joined from those texts.

The whole document was dumped at every write: a play's fourth step dumped the first three's entries again,
O(hosts x steps^2) entries emitted (PyYAML's representer and resolver are Python even under libyaml's
emitter). The joined text is the text ``yaml.dump`` gives for the whole document: in block style each key of
a mapping starts its own line at its level's indentation, and an entry's lines are indented deeper than its
step's key, so an entry's text does not depend on what is around it. Each piece is checked as it is cut out
of a dump; a document whose pieces do not check (an empty mapping, a key YAML writes in its ``? key`` form)
is dumped whole, as before.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import yaml

# libyaml's emitter writes the same text as PyYAML's pure-Python one, ~10x faster
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
HEADER = "# each step's arguments per host after variables (the plan as given is plan.yaml)\n"
_TOP = "plays:\n"
_EMPTY = " {}\n"  # how the line of a key holding an empty mapping ends

Resolved = Mapping[str, Mapping[str, Mapping[str, Any]]]  # play -> host -> step path -> entry
Shape = tuple[str, str]  # (step, _shape(entry)): entries of one text


def plain(v: Any) -> Any:
    """YAML-safe copy: mappings, lists and scalars only (tuples become lists, other objects their str)."""
    if isinstance(v, Mapping):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [plain(x) for x in v]
    return v if v is None or isinstance(v, bool | int | float | str) else str(v)


def _dump(resolved: Resolved) -> str:
    doc = {"plays": [{"name": p, "hosts": hosts} for p, hosts in resolved.items()]}
    return yaml.dump(plain(doc), Dumper=_DUMPER, sort_keys=False, default_flow_style=False, allow_unicode=True)


def whole(resolved: Resolved) -> str:
    """The file dumped whole (the reference the joined text equals)."""
    return HEADER + _dump(resolved)


def _open_key(text: str, prefix: str) -> str | None:
    """The line of the last key of ``text`` (which ends ``key: {}``) after ``prefix``, as it opens a block."""
    if not text.startswith(prefix) or not text.endswith(_EMPTY):
        return None
    return text[len(prefix):-len(_EMPTY)] + "\n"  # "key: {}" -> "key:"


class ResolvedText:
    """The texts of plan.resolved.yaml's pieces, made and redacted once each (``redact``: the record's, for the
    secrets it had when this was made). Not thread-safe: its record's lock guards it. A piece ends where a line
    starts, at a key: no secret or login written in a value spans two pieces."""

    def __init__(self, redact: Callable[[str], str]) -> None:
        self._redact = redact
        self._play_head: dict[str, str | None] = {}  # play -> "plays:\n- name: P\n  hosts:\n"
        # a key's line depends on the key alone (its level's indentation is fixed)
        self._host_line: dict[str, str | None] = {}  # host -> "    host:\n"
        self._step_line: dict[str, str | None] = {}  # step -> "      step:\n"
        self._entries: dict[tuple[str, str, str], tuple[Any, str]] = {}  # -> (the entry, its text)
        self._pieces: dict[Shape, str | None] = {}  # an entry's text by its shape (None: being cut)

    def text(self, resolved: Resolved) -> str:
        """The file for ``resolved``, redacted: joined from the entries' texts, dumping only the entries new or
        changed."""
        joined = self._joined(resolved) if resolved else None
        return HEADER + joined if joined is not None else self._redact(whole(resolved))

    def _joined(self, resolved: Resolved) -> str | None:
        parts = [_TOP]
        for play, hosts in resolved.items():
            head = self._head(play)
            if head is None or not hosts or not self._dump_new(play, hosts):
                return None
            parts.append(self._redact(head[len(_TOP):]))
            for host, steps in hosts.items():
                parts.append(self._redact(self._host(play, host) or ""))
                parts.extend(self._entries[(play, host, step)][1] for step in steps)
        return "".join(parts)

    def _head(self, play: str) -> str | None:
        if play not in self._play_head:
            head = _open_key(_dump({play: {}}), "")
            self._play_head[play] = head if head is not None and head.startswith(_TOP) else None
        return self._play_head[play]

    def _host(self, play: str, host: str) -> str | None:
        if host not in self._host_line:
            self._host_line[host] = _open_key(_dump({play: {host: {}}}), self._head(play) or "\0")
        return self._host_line[host]

    def _step(self, play: str, host: str, step: str) -> str | None:
        if step not in self._step_line:
            prefix = (self._head(play) or "\0") + (self._host(play, host) or "\0")
            self._step_line[step] = _open_key(_dump({play: {host: {step: {}}}}), prefix)
        return self._step_line[step]

    def _hosts(self, play: str, hosts: Iterable[str]) -> None:
        """The key lines of ``hosts`` not known yet, cut from one dump of them all (a dump per host was ~30 of
        a warm 30-host play's 39); a host whose line does not cut cleanly is dumped alone (``_host``)."""
        missing = [h for h in hosts if h not in self._host_line]
        head = self._head(play)
        if len(missing) < 2 or head is None:
            return
        text = _dump({play: dict.fromkeys(missing, {})})
        lines = text[len(head):].splitlines(keepends=True) if text.startswith(head) else []
        if len(lines) != len(missing) or not all(line.endswith(_EMPTY) for line in lines):
            return  # a key over two lines (``? key``): each host alone, as before
        for host, line in zip(missing, lines, strict=True):
            self._host_line[host] = line[:-len(_EMPTY)] + "\n"

    def _dump_new(self, play: str, hosts: Mapping[str, Mapping[str, Any]]) -> bool:
        """Dump the play's entries not yet dumped (in one document) and keep each one's text; False when a piece
        does not check (the caller dumps the file whole). An entry equal to one already dumped under the same
        step takes its text: the 30 hosts of a step mostly share their arguments, and PyYAML's representer is
        Python (an entry's text is its step's key line and its value's lines, at a fixed indentation)."""
        new: dict[str, dict[str, Any]] = {}
        for host, steps in hosts.items():
            if not isinstance(steps, Mapping) or not steps:
                return False
            for step, entry in steps.items():
                if not isinstance(entry, Mapping) or not entry:
                    return False
                kept = self._entries.get((play, host, step))
                if kept is None or kept[0] is not entry:
                    new.setdefault(host, {})[step] = entry
        if not new:
            return True
        self._hosts(play, new)
        shapes = {(host, step): (step, _shape(entry)) for host, steps in new.items() for step, entry in steps.items()}
        todo: dict[str, dict[str, Any]] = {}  # one entry of each shape not dumped yet
        for (host, step), shape in shapes.items():
            if shape not in self._pieces:
                self._pieces[shape] = None
                todo.setdefault(host, {})[step] = new[host][step]
        if todo and not self._cut(play, todo, shapes):
            return False
        for (host, step), shape in shapes.items():
            piece = self._pieces[shape]
            if piece is None:
                return False
            self._entries[(play, host, step)] = (new[host][step], piece)
        return True

    def _cut(self, play: str, todo: Mapping[str, Mapping[str, Any]], shapes: Mapping[tuple[str, str], Shape]) -> bool:
        """Dump ``todo``'s entries in one document and keep each one's redacted text by its shape."""
        text = _dump({play: todo})
        head = self._head(play)
        if head is None or not text.startswith(head):
            return False
        pos, cuts = len(head), []
        for host, steps in todo.items():
            line = self._host(play, host)
            if line is None or not text.startswith(line, pos):
                return False
            pos += len(line)
            for step in steps:
                key = self._step(play, host, step)
                if key is None or not text.startswith(key, pos):
                    return False
                start = pos
                pos = _next_line_at(text, pos + len(key), len(key) - len(key.lstrip(" ")))
                cuts.append((shapes[(host, step)], text[start:pos]))
        if pos != len(text):
            return False
        for shape, piece in cuts:
            self._pieces[shape] = self._redact(piece)
        return True


def _shape(entry: Any) -> str:
    """An entry's value as text that two entries share only when their YAML is the same: JSON of what is dumped
    (``plain``: mappings with text keys in their order, lists, JSON's scalars; true and 1, 1 and 1.0 apart)."""
    return json.dumps(plain(entry))


def _next_line_at(text: str, pos: int, indent: int) -> int:
    """Where the first line from ``pos`` (a line's start) with text indented ``indent`` spaces or less starts:
    an entry's text ends at the next key of its level or above. The end of ``text`` when there is none."""
    end = len(text)
    while pos < end:
        j = pos
        while j < end and text[j] == " ":
            j += 1
        if j < end and text[j] != "\n" and j - pos <= indent:
            return pos
        nl = text.find("\n", j)
        if nl < 0:
            return end
        pos = nl + 1
    return end
