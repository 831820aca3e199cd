"""Console output in Ansible's words: PLAY/TASK banners, ok:/changed:/failed: lines, PLAY RECAP.

Plain text (what users grep and CI logs keep); ANSI colours only on a terminal. Every line also goes to a
transcript that the run record keeps (with secrets redacted by the record).

While a workload point runs, a terminal shows one live line (rich) with its elapsed / expected time and the
run's time left; without a terminal a plain "running:" line is printed when it starts (no redraws in a log).
Points are named as planner.engine.progress names them: "point 2/4, repeat 1/3".
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TextIO

from planner.shown import visible
from planner.status import HostStats, Status, StepResult

_COLOURS = {Status.OK: "32", Status.CHANGED: "33", Status.FAILED: "31", Status.SKIPPED: "36",
            Status.UNREACHABLE: "31", Status.INTERRUPTED: "35"}
_WORD = {Status.OK: "ok", Status.CHANGED: "changed", Status.FAILED: "failed", Status.SKIPPED: "skipping",
         Status.UNREACHABLE: "fatal", Status.INTERRUPTED: "interrupted"}


def escape_controls(text: str) -> str:
    """``text`` with terminal and bidirectional controls shown as ``\\xNN``/``\\uNNNN`` (tab and newline kept):
    planner.shown.visible, the one helper for what a user is shown."""
    return visible(text)


def _starred(text: str) -> str:
    """Ansible's Display.banner off a terminal: the text, a space, stars to column 80 (at least 3)."""
    return f"{text} " + "*" * max(3, 79 - len(text))


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
        self._names: dict[tuple[str, str, int], str] = {}  # (step, host, point index) -> "point 2/4, repeat 1/3"
        self._live: Any = None  # rich.live.Live while a point runs on a terminal
        self._line: _LiveLine | None = None  # what redraws it
        self._no_live = ""  # why this Python cannot draw the live line (rich not importable): lines instead
        self._held = 0  # held() blocks open: lines wait in _pending, in order, for one write
        self._pending: list[str] = []

    # -- point names and the live progress line ---------------------------------------------------------------
    def name_points(self, step: str, host: str, names: Mapping[int, str]) -> None:
        with self._lock:
            self._names.update({(step, host, i): n for i, n in names.items()})

    def point_name(self, step: str, host: str, index: int) -> str:
        return self._names.get((step, host, index), f"point {index + 1}")

    @property
    def live_capable(self) -> bool:
        return (not self._no_live and bool(getattr(self.stream, "isatty", lambda: False)())
                and os.environ.get("TERM") != "dumb")

    def live_start(self, text: Callable[[], str]) -> None:
        """Show ``text()`` as a live line on a terminal (redrawn when it changes); print it once otherwise."""
        if not self.live_capable:
            self.line(text())
            return
        try:
            live = _LiveLine(text, self.stream)
        except ImportError as e:  # a broken rich must not end a run whose prep is applied: said once, then lines
            self._no_live = str(e)
            self.warn(f"no live progress line: rich cannot be imported here ({e}); progress is printed as lines")
            self.line(text())
            return
        with self._lock:
            self._live = live.live
            self._line = live
        live.start()

    def live_stop(self) -> None:
        with self._lock:
            line, self._live, self._line = self._line, None, None
        if line is not None:
            line.stop()

    def _paint(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.colour else text

    def line(self, text: str = "", code: str = "") -> None:
        text = escape_controls(text)  # host output reaches here in messages; only _paint adds escapes
        for secret in self.secrets:
            text = text.replace(secret, "********")
        with self._lock:
            self.transcript.append(text)
            painted = self._paint(text, code) if code else text
            if self._live is not None:  # printed above the live line, which rich redraws below it
                from rich.text import Text

                self._flush_pending()
                self._live.console.print(Text.from_ansi(painted))
            elif self._held:
                self._pending.append(painted)
            else:
                print(painted, file=self.stream, flush=True)

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Lines said inside (by any thread) are written together, in order, when the block ends: the results
        a step's hosts have all ready (a warm play's) cost one write, not one write and flush a line."""
        with self._lock:
            self._held += 1
        try:
            yield
        finally:
            with self._lock:
                self._held -= 1
                if not self._held:
                    self._flush_pending()

    def _flush_pending(self) -> None:
        if self._pending:
            text, self._pending = "\n".join(self._pending), []
            print(text, file=self.stream, flush=True)

    def banner(self, kind: str, title: str) -> None:
        self.line("")
        self.line(_starred(f"{kind} [{title}]"))

    def result(self, r: StepResult) -> None:
        word = _WORD[r.status]
        where = f"[{r.host}]"
        if r.point is not None:
            params = ", ".join(f"{k}={v}" for k, v in r.params)
            name = self._names.get((r.step, r.host, r.point))
            if name is None:  # a result without the step's point list: 1-based, totals unknown
                name = f"point {r.point + 1}, {'warmup' if r.warmup else 'repeat'} {r.repeat + 1}"
            where += f" ({name}{': ' + params if params else ''})"
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
        self.line(_starred("PLAY RECAP"))
        for host in sorted(stats):  # ansible's default callback: the host padded to 26 columns, each count to 4
            s = stats[host]
            code = "31" if s.failed or s.unreachable else "33" if s.changed else "32"
            self.line(f"{host:<26} : ok={s.ok:<4} changed={s.changed:<4} unreachable={s.unreachable:<4} "
                      f"failed={s.failed:<4} skipped={s.skipped:<4} rescued={s.rescued:<4} ignored={s.ignored:<4}",
                      code)


class _LiveLine:
    """The live line and the thread that redraws it only when its text changed. It shows whole
    seconds, so rich's own refresh (4 a second) drew the same text 4 times: ~0.5 ms of CPU a draw, 0.2% of a
    core beside a CPU-bound workload, all of it in the measured window. The text is asked for 4 times a
    second (microseconds each); a draw happens about once a second."""

    ASK_EVERY_S = 0.25

    def __init__(self, text: Callable[[], str], stream: TextIO) -> None:
        from rich.console import Console as RichConsole
        from rich.live import Live
        from rich.text import Text

        self.text, self.shown, self.draws = text, "", 0

        class _Line:
            def __rich__(self) -> Text:
                return Text(text(), style="cyan", no_wrap=True, overflow="ellipsis")  # one line, redrawn

        self.live = Live(_Line(), console=RichConsole(file=stream, force_terminal=True), transient=True,
                         auto_refresh=False, redirect_stdout=False, redirect_stderr=False)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="live-line")

    def start(self) -> None:
        self.live.start()
        self.redraw_if_changed()
        self._thread.start()

    def redraw_if_changed(self) -> bool:
        now = self.text()
        if now == self.shown:
            return False
        self.shown = now
        self.draws += 1
        self.live.refresh()
        return True

    def _run(self) -> None:
        while not self._stop.wait(self.ASK_EVERY_S):
            self.redraw_if_changed()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self.live.stop()
