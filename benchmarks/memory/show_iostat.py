"""`planner show` and `planner report` of a run holding one hour of ``iostat -xt 1`` over 32 devices (issue 40:
25 MB of input, goal ≤ 400 MB peak RSS), and the parse of that file alone, each in a fresh process.

    python benchmarks/memory/show_iostat.py [--seconds 3600] [--devices 32] [--workdir DIR]

Prints one JSON line per measurement: the process's own peak RSS (VmHWM) and seconds. The input is the one
tests/test_parse_bounds.py generates (sysstat 12's -x columns, seeded), written into a run folder by
tests/test_report_helpers.py's write_run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_PEAK = ("import sys, time, json\n"
         "t = time.monotonic()\n"
         "{body}\n"
         "s = round(time.monotonic() - t, 2)\n"
         "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]\n"
         "print(json.dumps({{'what': {what!r}, 'peak_rss_mb': round(int(hwm) / 1024, 1), 'seconds': s}}),"
         " file=sys.stderr)\n")


def _make_run(work: Path, seconds: int, devices: int) -> tuple[Path, Path]:
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "parsers")]  # the tests mirror the packages now
    from test_parse_bounds import _iostat  # noqa: PLC0415 - the tests' own generator, one source of the input
    from test_report_helpers import Exec, awr_excerpt, write_run  # noqa: PLC0415

    iostat = work / "iostat.txt"
    iostat.write_text(_iostat(seconds, devices))
    run = write_run(work / "runs", "20260101T100000Z-io",
                    [Exec("plays[0].workloads[0]", "slob", "vio", {"awr.txt": (awr_excerpt(100_000.0), "awr_excerpt"),
                                                                   "iostat.txt": (iostat, "iostat")}, {}, 0, 0)],
                    [{"name": "violin", "hosts": ["vio"]}])
    return run, iostat


def _measure(what: str, body: str) -> dict[str, object]:
    r = subprocess.run([sys.executable, "-c", _PEAK.format(body=body, what=what)], capture_output=True, text=True,
                       cwd=ROOT, check=False)
    last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "{}"
    try:
        out: dict[str, object] = json.loads(last)
    except ValueError:
        out = {"what": what, "error": r.stderr[-400:]}
    out["exit"] = r.returncode
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=3600)
    ap.add_argument("--devices", type=int, default=32)
    ap.add_argument("--workdir", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        run, iostat = _make_run(work, args.seconds, args.devices)
        print(json.dumps({"input_mb": round(iostat.stat().st_size / 1e6, 1), "seconds": args.seconds,
                          "devices": args.devices}))
        print(json.dumps(_measure("parse_file", f"from planner.parsers import parse_file\n"
                                                f"p = parse_file({str(iostat)!r}, 'iostat')\nn = len(p.metrics)")))
        for verb in ("show", "report"):
            print(json.dumps(_measure(f"planner {verb}", "from planner.cli.main import main\nimport io, contextlib\n"
                                                         "with contextlib.redirect_stdout(io.StringIO()):\n"
                                                         f"    code = main([{verb!r}, {str(run)!r}])\n"
                                                         "assert code == 0, code")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
