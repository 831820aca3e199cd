"""Honest refusals: a recognised tool with no results, or a layout planner has no reader for, names itself.

Before, each of these files was "not a recognised benchmark output", which sends the user looking for the wrong
problem. Banner-only files are real files cut where a stopped run stops (their source is in tests/data); the
iozone auto-mode and SLB 2009 layouts are constructed from the tools' documented headers and are labelled so.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from planner.cli.parse import run_parse
from planner.errors import ParseError
from planner.parsers import NOT_RECOGNISED, parse_text

DATA = Path(__file__).parents[1] / "data"

# ORION 11.2.0.4's console start (the 11.2 banner layout of tests/data/orion/orion-19c-console.txt), stopped
# before the first data point: the command line names the run.
ORION_BANNER = """$ ./orion -run normal -testname mytest
ORION: ORacle IO Numbers -- Version 11.2.0.4.0
mytest_20240110_0932
Calibration will take approximately 190 minutes.
Using a large value for -cache_size may take longer.
"""
# Constructed: iozone -a prints "Auto Mode" and the kB x reclen table instead of "Children see" blocks.
IOZONE_AUTO = """\tIozone: Performance Test of File I/O
\t        Version $Revision: 3.489 $
\t\tCompiled for 64 bit mode.

\tRun began: Tue Jan  9 10:00:00 2024

\tAuto Mode
\tCommand line used: iozone -a
\tOutput is in kBytes/sec
                                                              random    random
              kB  reclen    write  rewrite    read    reread    read     write
              64       4   574802  1452528  2203800  2467108  2067979  1279447
              64       8   780776  2067979  3406136  3541098  3203069  1562436

iozone test complete.
"""
# Constructed, inferred from the 2007-2009 SLB posts: one "Total ops ... Avg nsec/op" line per process.
SLB_2009 = """$ ./cpu_bind 0 ./memhammer 1024 3000
Total ops 3145728000  Avg nsec/op    69.9  gettimeofday usec 219889466 TPUT ops/sec 14305874.7
"""


def _head(rel: str, lines: int) -> str:
    return "\n".join((DATA / rel).read_text(encoding="utf-8").split("\n")[:lines]) + "\n"


@pytest.mark.parametrize(("text", "said"), [
    (ORION_BANNER, "ORION 11.2.0.4 (normal run): banner only, no result table"),
    (_head("orion/orion-19c-console.txt", 5), "ORION 19.3.0.0 (simple run): banner only, no result table"),
    (_head("orion/orion-11.1.0.7-sdb_summary.txt", 20), "ORION 11.1.0.7 (simple run): banner only"),
    (_head("iozone/iozone-3.506-t4-random.txt", 28),
     "iozone 3.506 (throughput mode, -t 4): banner only, no result table"),
    (_head("fio/fio-3.1-randwrite-normal.txt", 6), "fio-3.1: job banner only, no results"),
    ("3;fio-3.1;job1;0;0;0;0;0;0;0;0;0.000000;0.000000;0;0;0.000000\n", "fio terse output (--minimal, format 3)"),
    (_head("ostats/iostat-x-t.txt", 2), "sysstat banner only (Linux 6.18.44-fc-v657, host vm, 2 CPU)"),
])
def test_recognised_but_unread_names_itself(text: str, said: str) -> None:
    with pytest.raises(ParseError) as e:
        parse_text(text, "pasted.txt")
    assert said in str(e.value)
    assert NOT_RECOGNISED not in str(e.value)
    assert e.value.exit_code == 2


def test_layouts_once_refused_by_name_are_read_now() -> None:
    # iozone -a and the 2009 SLB output were named and refused; their parsers read them now (tests/data READMEs)
    assert parse_text(IOZONE_AUTO, "pasted.txt").kind == "iozone"
    assert parse_text(SLB_2009, "pasted.txt").kind == "slb"


def test_refusal_through_a_wrapper_and_the_cli(tmp_path: Path) -> None:
    f = tmp_path / "orion_mail.txt"
    f.write_text("> " + ORION_BANNER.replace("\n", "\n> "))
    out = io.StringIO()
    assert run_parse([f], "table", out) == 2
    assert "ORION 11.2.0.4 (normal run): banner only, no result table" in out.getvalue()
    assert "Traceback" not in out.getvalue()


def test_prose_is_still_not_recognised() -> None:
    with pytest.raises(ParseError) as e:
        parse_text("Hello,\nplease find my notes below.\nThanks\n", "mail.txt")
    assert NOT_RECOGNISED in str(e.value)


@pytest.mark.slow
@pytest.mark.timeout(60)
@pytest.mark.parametrize("text", ["x\n" + "\n" * 200_000 + "x\n", "<pre>x\n" * 50_000 + "</pre>" + "<pre>y\n" * 50_000],
                         ids=["blank-lines", "unclosed-pre"])
def test_detection_stays_linear_on_blank_runs(text: str) -> None:
    """`^\\s*` under re.M crossed blank lines, so a run of them (or a wrapper blanked line by line) was quadratic:
    200,000 blank lines took hours to be refused. A refusal now comes at once."""
    with pytest.raises(ParseError):
        parse_text(text, "blank.txt")
