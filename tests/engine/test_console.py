"""Ansible-style result lines (planner/engine/console.py)."""

from __future__ import annotations

import io

import pytest

from planner.engine.console import Console
from planner.status import Status, StepResult


def _line(r: StepResult) -> str:
    out = io.StringIO()
    Console(out, colour=False).result(r)
    return out.getvalue().strip()


def test_a_point_line_names_its_sweep_values_or_only_its_number() -> None:
    """Issue 15 item 13: 1-based everywhere (a result line said "point 0" where the banner said "point 1/12")."""
    swept = StepResult("plays[0].workloads[0]", "slob", "exa", Status.CHANGED, point=2,
                       params=(("readers", 256),), repeat=0)
    assert _line(swept) == "changed: [exa] (point 3, repeat 1: readers=256)"
    plain = StepResult("plays[1].workloads[0]", "slob", "oel57", Status.CHANGED, point=0, repeat=2)
    assert _line(plain) == "changed: [oel57] (point 1, repeat 3)"
    warm = StepResult("plays[1].workloads[0]", "slob", "oel57", Status.OK, point=0, warmup=True)
    assert _line(warm) == "ok: [oel57] (point 1, warmup 1)"


def test_points_and_repeats_are_named_n_of_m() -> None:
    """Issue 15 item 13: "point 2/4, repeat 1/3" — a point is a combination of swept values, a repeat counts
    within it; the execution index (the record's key) is never shown."""
    from planner.engine.progress import point_names
    from planner.plan.model import SweepPoint

    pts = [SweepPoint(i, (("readers", r),), rep, warm) for i, (r, rep, warm) in enumerate(
        [(64, 0, True), (64, 0, False), (64, 1, False), (128, 0, True), (128, 0, False), (128, 1, False)])]
    names = point_names(pts)
    assert names[0] == "point 1/2, warmup 1/1" and names[2] == "point 1/2, repeat 2/2"
    assert names[4] == "point 2/2, repeat 1/2"
    out = io.StringIO()
    c = Console(out, colour=False)
    c.name_points("plays[0].workloads[0]", "exa", names)
    c.result(StepResult("plays[0].workloads[0]", "slob", "exa", Status.CHANGED, point=4,
                        params=(("readers", 128),), repeat=0))
    assert out.getvalue().strip() == "changed: [exa] (point 2/2, repeat 1/2: readers=128)"


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_live_line_on_a_terminal_plain_line_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 15 item 13: a live line (rich) on a terminal, kept out of the transcript; a plain line in a log."""
    monkeypatch.delenv("TERM", raising=False)
    tty = _Tty()
    c = Console(tty, colour=False)
    assert c.live_capable
    c.live_start(lambda: "running: fio point 1/2, repeat 1/1: 3s of 10s; about 20s left")
    c.line("changed: [alpha] (point 1/2, repeat 1/1)")
    c.live_stop()
    shown = tty.getvalue()
    assert "3s of 10s; about 20s left" in shown and "changed: [alpha]" in shown
    assert c.transcript == ["changed: [alpha] (point 1/2, repeat 1/1)"]  # the live line is not logged
    log = io.StringIO()
    plain = Console(log, colour=False)
    plain.live_start(lambda: "running: fio point 1/2, repeat 1/1: 0s of 10s expected; about 20s left in the run")
    plain.live_stop()
    assert log.getvalue() == "running: fio point 1/2, repeat 1/1: 0s of 10s expected; about 20s left in the run\n"


def test_live_line_is_drawn_when_its_text_changes_not_four_times_a_second() -> None:
    """Issue 47: rich redrew the live line 4 times a second while it shows whole seconds: three draws in four
    repeated the same text, ~0.5 ms of CPU each beside the measured workload. Now a draw only when the text
    changed (asked directly here: no waiting on the redraw thread)."""
    shown = ["running: fio point 1/2: 3s of 10s"]
    tty = _Tty()
    c = Console(tty, colour=False)
    c.live_start(lambda: shown[0])
    line = c._line  # noqa: SLF001
    assert line is not None and line.draws == 1
    assert not line.redraw_if_changed() and not line.redraw_if_changed()
    shown[0] = "running: fio point 1/2: 4s of 10s"
    assert line.redraw_if_changed() and line.draws == 2
    c.live_stop()
    assert "4s of 10s" in tty.getvalue()


def test_eta_counts_what_is_left() -> None:
    """Issue 15 item 13: the time left is the executions left times their expected length, scaled by what
    the points so far really took; executions done before a resume are not counted."""
    from planner.engine.progress import Progress, duration

    p = Progress()
    p.plan("a", 4, 10.0)
    p.plan("b", 2, None)
    assert p.left_s() is None  # b's length is unknown until a point has run
    p.done("a", 12.0)  # 20% overhead over the tool's own runtime
    assert p.left_s() == 3 * 12.0 + 2 * 12.0
    assert p.left_s("a", 6.0) == 3 * 12.0 - 6.0 + 2 * 12.0
    assert duration(75) == "1m15s" and duration(3725) == "1h02m" and duration(None) == "?"


class _Flushes(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.flushes = 0

    def flush(self) -> None:
        self.flushes += 1
        super().flush()


def test_a_steps_ready_results_are_written_in_one_go() -> None:
    """Each result line was printed and flushed alone: a warm 30-host step's 30 results, ready together, were 30
    writes (issue 47 stop 54). The results ready at once are written in one go, the same text, in host order."""
    from concurrent.futures import Future
    from typing import Any

    from planner.engine.execute import HostState
    from planner.engine.pool import HostPool
    from planner.host import Host

    class Ready:  # an executor whose work is done when submitted: every result is there at once
        def submit(self, fn: Any, *a: Any) -> Future[Any]:
            f: Future[Any] = Future()
            f.set_result(fn(*a))
            return f

    states = [HostState(Host(name=f"lab{i:02d}", address="127.0.0.1"), None) for i in range(30)]
    out = _Flushes()
    c = Console(out, colour=False)
    pool = HostPool(lambda hosts: {}, c, forks=30, break_stale_lock=False, previous=None, add=lambda r: None,
                    set_phase=lambda p: None)
    pool._shared = lambda forks, n: Ready()  # type: ignore[assignment,method-assign,return-value]
    pool.on_hosts(lambda hs: StepResult("s", "t", hs.host.name, Status.OK), states, 30)
    assert out.flushes == 1  # before: 30
    assert out.getvalue() == "".join(f"ok: [lab{i:02d}]\n" for i in range(30))
    assert c.transcript == [f"ok: [lab{i:02d}]" for i in range(30)]
    c.line("after")  # outside a block: written at once, as before
    assert out.flushes == 2 and out.getvalue().endswith("ok: [lab29]\nafter\n")
