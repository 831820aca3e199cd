"""The end of an apply: the modules it needs were imported while the hosts worked (planner.cli.early_imports),
and the process's exit walks the heap once, not three times, with no file left open to a finalizer
(planner.cli.main._collect_once_at_exit)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow]

PLAN = """\
plan: exit_tail
plays:
  - name: one step
    hosts: lab
    prep:
      - copy: {content: "prep\\n", dest: /etc/prep.txt}
      - template: {src: t.j2, dest: /etc/t.conf}
    workloads:
      - command: {argv: [sh, -c, 'echo done > "$0/done"', "{{ planner_root }}"]}
"""

# main() as the console script calls it (its own command line); the checks as atexit handlers: the open files
# first of all handlers (registered after main), the freeze last (registered before it).
WRAPPER = """\
import atexit, gc, io, sys, threading
atexit.register(lambda: print(f"frozen objects: {gc.get_freeze_count()}"))
import planner.engine.pool
from planner.cli.main import main

# the play's hosts connected (a warm host's work is on its way); the early imports joined there, as the
# network's wait lets them end
connect = planner.engine.pool.HostPool.connect
seen = []
def connected(*a, **kw):
    got = connect(*a, **kw)
    for t in threading.enumerate():
        if t.name == "planner-early-imports":
            t.join()
    seen.append(set(sys.modules))
    return got
planner.engine.pool.HostPool.connect = connected
sys.argv = ["planner", *sys.argv[1:]]
code = main()
late = sorted(m for m in set(sys.modules) - seen[0]
              if m.split(".")[0] in ("jinja2", "sqlite3") or m.startswith(("planner.store", "planner.results")))
print(f"imported after the connect: {late}")

def open_files():
    left = []
    for o in gc.get_objects():
        try:
            if isinstance(o, io.IOBase) and not o.closed and o.fileno() > 2:
                left.append(repr(o))
        except (ValueError, OSError):
            pass
    print(f"open files at exit: {left}")

atexit.register(open_files)
sys.exit(code)
"""


def test_an_apply_ends_without_imports_and_exits_with_files_closed_and_the_heap_frozen(tmp_path: Path) -> None:
    root = tmp_path / "host"
    (root / "etc").mkdir(parents=True)
    (tmp_path / "plan.yaml").write_text(PLAN)
    (tmp_path / "hosts.ini").write_text(textwrap.dedent(f"""\
        [lab]
        alpha ansible_connection=local planner_root={root}
        """))
    (tmp_path / "t.j2").write_text("name={{ inventory_hostname }}\n")
    (tmp_path / "wrapper.py").write_text(WRAPPER)
    done = subprocess.run([sys.executable, str(tmp_path / "wrapper.py"), "apply", str(tmp_path / "plan.yaml"),
                           "-i", str(tmp_path / "hosts.ini"), "--runs-dir", str(tmp_path / "runs"), "--no-report"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "done").exists()
    assert "imported after the connect: []" in done.stdout, done.stdout
    assert "open files at exit: []" in done.stdout, done.stdout
    frozen = int(done.stdout.rsplit("frozen objects: ", 1)[1].split()[0])
    assert frozen > 10_000, done.stdout  # what was alive at exit was not walked again by each collection


# The command line's main() (its own argv), with garbage made once it runs: a cycle whose finalizer leaves a mark,
# which only the collector can run
GARBAGE = """\
import gc, sys
import planner.cli.main as cli

where = sys.argv[1]

class Holder:
    def __del__(self):
        with open(where, "w") as out:
            out.write("finalized\\n")

real = cli.parser_for
def parser_for(args):
    print(f"frozen when the verb starts: {gc.get_freeze_count()}", flush=True)
    h = Holder()
    h.me = h
    del h
    return real(args)

cli.parser_for = parser_for
sys.argv = ["planner", "--version"]
sys.exit(cli.main())
"""


def test_what_the_imports_made_is_frozen_at_the_start_and_garbage_made_after_is_finalized_at_exit(
        tmp_path: Path) -> None:
    """Stop 54 (issue 47): every full collection walked the interpreter's and the command line's own objects again
    (one during the verb's imports, one at exit: ~55 ms of CPU in a warm 30-host apply): main() freezes them first.
    The exit collection's guarantee is kept for what main makes: garbage by exit has its finalizers run."""
    (tmp_path / "wrapper.py").write_text(GARBAGE)
    mark = tmp_path / "finalized.txt"
    done = subprocess.run([sys.executable, str(tmp_path / "wrapper.py"), str(mark)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    frozen = int(done.stdout.split("frozen when the verb starts: ", 1)[1].split()[0])
    assert frozen > 5_000, done.stdout
    assert mark.read_text() == "finalized\n"
