"""What an apply does once its run is over and its record final: the report and the store's copy, and what
stops them (an interrupt, a bug).

The run is over here: every measurement is in its record, its hosts are put back and its exit code is decided.
What goes wrong now costs the report or the store's copy, which are made again from the record (``planner
report RUN``, ``planner store push RUN``), never the run. ansible-core draws the same line after its play recap:
the recap is its stdout callback's ``v2_playbook_on_stats``, and an error of any callback plugin there, an
exception nobody foresaw included, is a warning and the exit code stays the play's (ansible-core 2.19.14,
executor/task_queue_manager.py ``send_callback``: ``_callback_dispatch_error_handler``, from the setting
``_CALLBACK_DISPATCH_ERROR_BEHAVIOR``, default ``warning`` in config/base.yml; executor/playbook_executor.py
returns the play's ``result`` after it; cli/playbook.py exits with it). So is a bug here: one warning in
ansible-core's words for a bug, saying what was not made and the command that makes it, the traceback at -vvv,
and the run's exit code (tests/cli/test_after_run.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from planner import signals
from planner.engine.console import Console
from planner.errors import PlannerError
from planner.results import runfolder
from planner.status import ExitCode

if TYPE_CHECKING:
    from planner.engine.runrecord import RunRecord
    from planner.plan.model import Plan
    from planner.results.measure import RunData


def report_and_index(args: argparse.Namespace, run_dir: Path, plan: Plan, console: Console) -> None:
    """The run folder measured once, handed to the report (and its plan copy) and to the store push."""
    data = None
    if not args.no_report:
        from planner.report.render import plan_report_copy, render_run_report
        from planner.results.measure import read_run

        try:
            data = read_run(run_dir, plan)
            console.line(f"report: {render_run_report(run_dir, plan, data=data)}")
            for copy in plan_report_copy(plan, run_dir):
                console.line(f"report copy (the plan's report: output): {_shown(copy)}")
        except PlannerError as e:  # the measurements are safe in the record; re-render later
            console.warn(f"report not rendered: {e} (fix it, then: planner report {run_dir})")
        except Exception as e:  # a bug: the report's, not the run's (see the module docstring)
            _bug_after_run(console, e, "report not rendered", f"render it with: planner report {run_dir}")
    signals.raise_pending()
    try:
        _index(args, run_dir, console, data, plan)
    except Exception as e:  # the push says a store's own faults; this is a bug around it
        _bug_after_run(console, e, "run not saved in the results store", f"push it with: planner store push {run_dir}")
    for what in signals.take_thread_bugs():  # a helper thread's bug after the record was final: the same rule
        console.warn(f"{what} ended on an internal error after the run (said above): the run, its record and its "
                     "exit code stand")


def _bug_after_run(console: Console, e: Exception, what: str, again: str) -> None:
    """A bug after the record is final, said in one warning (its traceback on stderr at -vvv, as main's)."""
    import traceback

    deep = console.verbosity > 2
    console.warn(f"{what}: {signals.bug_line(e)}. The run is over and its record final: its exit code is the "
                 f"run's; {again}" + ("" if deep else " (to see the full traceback, use -vvv)"))
    if deep:
        print(f"the full traceback was:\n\n{signals.shown(''.join(traceback.format_exception(e)))}", file=sys.stderr)


def _index(args: argparse.Namespace, run_dir: Path, console: Console, data: RunData | None = None,
           plan: Plan | None = None) -> None:
    """Push the run to the results store (--store, PLANNER_STORE, else runs-dir/planner.sqlite); a store
    failure is a warning: the run folder stays the source of truth and can be pushed again."""
    from planner.cli.store import push_after_apply, store_url

    push_after_apply(store_url(args), run_dir, console.warn, data, plan)


def interrupted_after_run(record: RunRecord, console: Console) -> ExitCode:
    """Ctrl-C/SIGTERM while the report is rendered (or the run indexed): hosts are restored and every
    measurement is in the record; the record says the run was interrupted in its report phase."""
    from planner.engine.interrupts import deferred_interrupts

    with deferred_interrupts(console):
        console.warn(f"interrupted while rendering the report: the measurements are safe in {record.path}; "
                     f"render it with: planner report {record.path}")
        record.write_text(runfolder.CONSOLE, "\n".join(console.transcript) + "\n")
        record.write_meta(status="interrupted", exit_code=int(ExitCode.INTERRUPTED), interrupted_phase="report")
    return ExitCode.INTERRUPTED


def preload_charts() -> None:
    try:  # as planner.report.charts uses it
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401
    except ImportError:
        pass


def _shown(path: Path) -> str:
    """A path relative to the working directory when it is below it (as the user typed the plan's)."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
