"""No traceback at exit either: every atexit handler planner registers goes through planner.signals.at_exit, which
says its error, and any error Python ignores while it runs (a finalizer of the garbage it collects), in one line
each, in ansible-core's words for a bug. Python's own would be "Exception ignored in ..." or "Error in
atexit._run_exitfuncs" with a traceback."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# main() as the console script calls it (its own command line), with garbage whose finalizer raises left for the
# collection at exit, and that handler's own last call broken
AT_EXIT = """\
import gc, sys
from planner.cli.main import main

class Finalized:
    def __del__(self):
        raise ValueError("a finalizer's bug")

sys.argv = ["planner", "--version"]
code = main()
gc.disable()  # the cycle, made after main froze what start-up made, is left for the exit's collection
cycle = Finalized()
cycle.self = cycle
del cycle
gc.freeze = lambda: 1 / 0
sys.exit(code)
"""


@pytest.mark.slow
def test_an_error_at_exit_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    """Was: "Exception ignored in: <function Finalized.__del__ ...>" and "Exception ignored in atexit callback"
    (Python 3.12; "Error in atexit._run_exitfuncs" in 3.11), each with its traceback."""
    r = subprocess.run([sys.executable, "-c", AT_EXIT], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 0, r.stderr  # the command's own code: atexit cannot change it
    assert r.stdout.startswith("planner ")
    lines = r.stderr.splitlines()
    assert len(lines) == 2, r.stderr
    assert re.fullmatch(r"ERROR! Unexpected Exception ignored in <function Finalized.__del__ at 0x\w+> at exit, "
                        r"this is probably a bug: ValueError: a finalizer's bug", lines[0]), lines[0]
    assert lines[1] == ("ERROR! Unexpected Exception in exit handler _collect_then_freeze, this is probably a bug: "
                        "ZeroDivisionError: division by zero")


def test_planner_registers_exit_handlers_only_through_signals_at_exit() -> None:
    """A handler registered with atexit directly would print Python's traceback for its error."""
    direct = [f"{p.relative_to(ROOT)}:{n}" for p in sorted((ROOT / "planner").rglob("*.py"))
              for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
              if re.search(r"\batexit\.register\b|\b_register_atexit\b|weakref\.finalize\b", line)
              and p != ROOT / "planner" / "signals.py"]
    assert direct == []
