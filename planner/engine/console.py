"""Console output in Ansible's words: PLAY/TASK banners, ok:/changed:/failed: lines, PLAY RECAP.

Plain text (what users grep and CI logs keep); ANSI colours only on a terminal. Every line also goes to a
transcript that the run record keeps (with secrets redacted by the record).
"""

from __future__ import annotations

import os
import re
import sys
import threading
from collections.abc import Mapping
from typing import TextIO

from planner.status import HostStats, Status, StepResult

_COLOURS = {Status.OK: "32", Status.CHANGED: "33", Status.FAILED: "31", Status.SKIPPED: "36",
            Status.UNREACHABLE: "31", Status.INTERRUPTED: "35"}
_WORD = {Status.OK: "ok", Status.CHANGED: "changed", Status.FAILED: "failed", Status.SKIPPED: "skipping",
         Status.UNREACHABLE: "fatal", Status.INTERRUPTED: "interrupted"}


# C0 controls but tab and newline, DEL and C1 (U+0080-U+009F: 8-bit CSI/OSC): a host's output holding them could
# move the cursor, retitle the terminal, hide text or ring the bell; they are shown as \xNN instead.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def escape_controls(text: str) -> str:
    """``text`` with terminal control characters shown as ``\\xNN`` (tab and newline kept)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class Console:
    def __init__(self, stream: TextIO | None = None, verbosity: int = 0, colour: bool | None = None) -> None:
        self.stream = stream or sys.stdout
        self.verbosity = verbosity
        if colour is None:
            colour = self.stream.isatty() and "NO_COLOR" not in os.environ
        self.colour = colour
        self.transcript: list[str] = []
        self.secrets: tuple[str, ...] = ()  # never printed: replaced by ********
        self._lock = threading.Lock()

    def _paint(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.colour else text

    def line(self, text: str = "", code: str = "") -> None:
        text = escape_controls(text)  # host output reaches here in messages; only _paint adds escapes
        for secret in self.secrets:
            text = text.replace(secret, "********")
        with self._lock:
            self.transcript.append(text)
            print(self._paint(text, code) if code else text, file=self.stream, flush=True)

    def banner(self, kind: str, title: str) -> None:
        head = f"{kind} [{title}] "
        self.line("")
        self.line(head + "*" * max(3, 79 - len(head)))

    def result(self, r: StepResult) -> None:
        word = _WORD[r.status]
        where = f"[{r.host}]"
        if r.point is not None:
            params = ", ".join(f"{k}={v}" for k, v in r.params)
            where += f" (point {r.point}{': ' + params if params else ''}"
            where += f", {'warmup' if r.warmup else 'repeat'} {r.repeat + 1})"
        if r.status is Status.UNREACHABLE:
            text = f"fatal: {where}: UNREACHABLE! => {r.msg}"
        elif r.status is Status.FAILED:
            text = f"{'...ignoring ' if r.ignored else ''}fatal: {where}: FAILED! => {r.msg}"
        else:
            text = f"{word}: {where}"
            if r.msg and (self.verbosity > 0 or r.status is Status.SKIPPED):
                text += f" => {r.msg}"
        self.line(text, _COLOURS[r.status])
        if r.diff:
            for dl in r.diff.rstrip("\n").splitlines():
                code = "32" if dl.startswith("+") else "31" if dl.startswith("-") else ""
                self.line(dl, code)

    def warn(self, text: str) -> None:
        self.line(f"[WARNING]: {text}", "35")

    def info(self, text: str, level: int = 0) -> None:
        if self.verbosity >= level:
            self.line(text)

    def recap(self, stats: Mapping[str, HostStats]) -> None:
        self.line("")
        self.line("PLAY RECAP " + "*" * 68)
        width = max((len(h) for h in stats), default=10) + 1
        for host in sorted(stats):
            s = stats[host]
            code = "31" if s.failed or s.unreachable else "33" if s.changed else "32"
            self.line(f"{host:<{width}}: ok={s.ok:<4} changed={s.changed:<4} unreachable={s.unreachable:<4} "
                      f"failed={s.failed:<4} skipped={s.skipped:<4} rescued={s.rescued:<4} ignored={s.ignored}",
                      code)
