"""A step instance holds only its arguments: what save() read on the host reaches the apply() after it through
the StepContext (``save_read``), never through state kept on the instance (issue 42). An in-memory
connection answers the reads; no process starts."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from planner.host import Host
from planner.status import Status
from planner.steps import BUILTIN_KINDS, step_class
from planner.steps.base import Reversible, StepContext
from planner.transport.connection import Argv, CommandResult, Connection

# init_ora keeps the SLOB kit's pool it read (one read per step): the last instance state, left for later
KEEPS_STATE = {"init_ora"}


class Files(Connection):
    """A host as a dict of files: read_text, put and ``stat`` answered from it; every command counted."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self.host = Host(name="h1", address="127.0.0.1", connection="local")
        self.files, self.reads, self.commands = dict(files), 0, 0

    def run(self, argv: Argv, *, become: bool = False, become_user: str | None = None, login: bool = False,
            timeout: float | None = None, env: Mapping[str, str] | None = None, cwd: str | None = None,
            stdin: bytes | None = None) -> CommandResult:
        self.commands += 1
        return CommandResult(" ".join(map(str, argv)), 0, "644 0:0\n", "", 0.0)

    def read_text(self, remote: str) -> str | None:
        self.reads += 1
        return self.files.get(remote)

    def put(self, data: bytes | Path, remote: str, *, mode: int | None = None) -> None:
        self.files[remote] = data.decode() if isinstance(data, bytes) else data.read_text()

    def get(self, remote: str, local: Path, *, max_bytes: int | None = None) -> None:
        raise OSError("not here")

    def close(self) -> None:
        pass


def _context(conn: Connection, tmp_path: Path) -> StepContext:
    return StepContext(host=conn.host, conn=conn, vars={}, step_path="plays[0].prep[0]", plan_dir=tmp_path,
                       artifacts=tmp_path, run_dir=tmp_path, log=lambda *_: None)


def _frozen(value: object) -> bool:
    """A kind's typed arguments: a frozen dataclass parsed from ``args`` (issue 42's typed arguments)."""
    params = getattr(type(value), "__dataclass_params__", None)
    return dataclasses.is_dataclass(value) and bool(getattr(params, "frozen", False))


@pytest.mark.parametrize("kind", sorted(BUILTIN_KINDS - KEEPS_STATE))
def test_a_step_instance_holds_only_its_arguments(kind: str) -> None:
    args: dict[str, Any] = {}
    try:
        step = step_class(kind)(args)
    except Exception:  # a kind whose typed arguments refuse none given: its state is its arguments anyway
        pytest.skip(f"{kind} refuses empty arguments")
    assert vars(step)["args"] is args
    assert all(_frozen(v) for k, v in vars(step).items() if k != "args"), vars(step)


def test_save_hands_its_read_to_apply_through_the_context(tmp_path: Path) -> None:
    conn = Files({"/etc/motd": "old\n"})
    ctx = _context(conn, tmp_path)
    step = step_class("copy")({"content": "new\n", "dest": "/etc/motd"})
    assert isinstance(step, Reversible)
    saved = step.save(ctx)
    assert saved["content"] == "old\n" and conn.reads == 1
    assert list(vars(step)) == ["args"]  # nothing of the host kept on the step
    out = step.apply(ctx)
    assert out.status is Status.CHANGED and conn.files["/etc/motd"] == "new\n"
    assert conn.reads == 1  # apply compared with save()'s read: no second round trip
    assert step.apply(_context(conn, tmp_path)).status is Status.OK  # a fresh context reads the host again
    assert conn.reads == 2


def test_a_failed_points_result_keeps_what_its_window_returned(tmp_path: Path) -> None:
    """The window returns what it collected, also when the point failed (window.Windowed), and run_step keeps it
    in the failed result: nothing is handed back through the StepContext."""
    from planner.engine.execute import ExecSettings, HostState, run_step
    from planner.engine.window import Windowed
    from planner.errors import StepError
    from planner.plan.model import Section, StepSpec, SweepPoint
    from planner.status import Artifact

    conn = Files({})
    iostat = Artifact("artifacts/p/h1/workloads[0]/point000/iostat.txt", "iostat")

    def window(ctx: StepContext, writes_db_report: bool, body: Any) -> Windowed:
        return Windowed(None, (iostat,), ("a note",), StepError("the workload failed"))

    spec = StepSpec(kind="command", section=Section.WORKLOADS, args={"argv": ["true"]}, path="plays[0].workloads[0]",
                    play=0, index=0)
    r = run_step(spec, HostState(conn.host, conn), spec.args, {}, ExecSettings(False, False, tmp_path), None, tmp_path,
                 point=SweepPoint(0, (), 0), window=window)
    assert r.status is Status.FAILED and "the workload failed" in r.msg and r.artifacts == (iostat,)


def test_a_template_is_rendered_once_for_save_and_apply(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """save() rendered the template to see whether the file would change, then apply() rendered it again: a warm
    30-host play rendered it 60 times (Jinja2's up-to-date check and render each time, issue 47 stop 54). apply()
    takes save()'s rendering through the context, as it takes its read; a fresh context renders again."""
    from planner.steps import generic

    (tmp_path / "motd.j2").write_text("hello {{ who }}\n")
    rendered = [0]
    real = generic.Template.content

    def counted(self: Any, ctx: StepContext) -> str:
        rendered[0] += 1
        return real(self, ctx)

    monkeypatch.setattr(generic.Template, "content", counted)
    conn = Files({"/etc/motd": "hello world\n"})
    ctx = dataclasses.replace(_context(conn, tmp_path), vars={"who": "world"})
    step = step_class("template")({"src": "motd.j2", "dest": "/etc/motd"})
    assert isinstance(step, Reversible)
    step.save(ctx)
    out = step.apply(ctx)
    assert out.status is Status.OK and rendered[0] == 1 and conn.reads == 1  # before: rendered twice
    conn.files["/etc/motd"] = "old\n"
    fresh = dataclasses.replace(_context(conn, tmp_path), vars={"who": "there"})
    step.save(fresh)
    assert step.apply(fresh).status is Status.CHANGED and conn.files["/etc/motd"] == "hello there\n"
    assert step.apply(dataclasses.replace(fresh)).status is Status.OK  # no save before: read and rendered anew
