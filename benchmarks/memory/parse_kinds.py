"""Peak RSS of ``parse_file`` for each parser kind on a big-but-valid input (issue 40: every parse bounded in
memory, not only the OS samplers'), each in a fresh process, at two sizes; the peak at the 128 MiB parse bound
is extrapolated on the line through them (parse memory grows with the input: the text, its lines, the values).

    python benchmarks/memory/parse_kinds.py [--mb 6 24] [--kinds awr_text fio_json ...] [--workdir DIR]

Each input is a real sample from tests/data made long the way a long run makes it: an AWR text or Statspack with
a huge SQL section, fio JSON with many jobs, hours of sysbench/pgbench progress lines, a pgbench transaction log,
hours of iostat. Prints one JSON line per measurement and one per kind with the extrapolation.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
BOUND = 128 << 20
_PEAK = ("import sys, time, json\n"
         "from planner.parsers import parse_file\n"
         "t = time.monotonic()\n"
         "p = parse_file({path!r}, {kind!r})\n"
         "s = round(time.monotonic() - t, 2)\n"
         "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]\n"
         "print(json.dumps({{'kind': {kind!r}, 'peak_rss_mb': round(int(hwm) / 1024, 1), 'seconds': s,"
         " 'values': len(p.metrics), 'errors': len(p.errors)}}))\n")


def _grow(head: str, row: Callable[[int], str], tail: str, size: int) -> str:
    out, n, total = [head], 0, len(head) + len(tail)
    while total < size:
        line = row(n)
        out.append(line)
        total += len(line)
        n += 1
    out.append(tail)
    return "".join(out)


def _sql_rows(title: str) -> tuple[str, Callable[[int], str]]:
    rnd = random.Random(3)
    head = (f"\n{title}                    DB/Inst: ORCL/orcl  Snaps: 100-101\n"
            "-> Resources reported for PL/SQL code includes the resources used by all SQL\n\n"
            "  Elapsed      CPU                  Elap per  % Total\n"
            "  Time (s)   Time (s)  Executions   Exec (s)  DB Time    SQL Id\n"
            "---------- ---------- ------------ ---------- ------- -------------\n")

    def row(i: int) -> str:
        return (f"{rnd.uniform(1, 900):10.1f} {rnd.uniform(1, 900):10.1f} {rnd.randint(1, 10**6):12d} "
                f"{rnd.uniform(0, 5):10.4f} {rnd.uniform(0, 40):7.1f} {i:013x}\n"
                f"Module: JDBC Thin Client\nSELECT /* q{i} */ C_FIRST, C_MIDDLE, C_LAST FROM CUSTOMER WHERE "
                f"C_W_ID = :B3 AND C_D_ID = :B2 AND C_LAST = :B1 ORDER BY C_FIRST\n\n")
    return head, row


def _db_report(sample: str, title: str) -> Callable[[int], str]:
    text = (DATA / sample).read_text()
    head, row = _sql_rows(title)
    return lambda size: _grow(text + head, row, "\n", size)


def _fio_json(size: int) -> str:
    doc = json.loads((DATA / "fio" / "fio-3.33-randread.json").read_text())
    one = doc["jobs"][0]
    per = len(json.dumps(one, indent=2))
    doc["jobs"] = [{**one, "jobname": f"job{i}"} for i in range(max(1, size // per))]
    return json.dumps(doc, indent=2) + "\n"


def _repeat_lines(sample: str, pattern: str, make: Callable[[int], str]) -> Callable[[int], str]:
    """The sample with its matching lines' block replaced by ``make(i)`` lines up to the size."""
    lines = (DATA / sample).read_text().splitlines(keepends=True)
    idx = [i for i, line in enumerate(lines) if re.match(pattern, line)]
    head, tail = "".join(lines[:idx[0]]), "".join(lines[idx[-1] + 1:])
    return lambda size: _grow(head, make, tail, size)


def _sysbench(i: int) -> str:
    return (f"[ {i + 1}s ] thds: 4 tps: {400 + i % 97:.2f} qps: {8000 + i % 991:.2f} (r/w/o: 5600.00/1600.00/800.00)"
            f" lat (ms,95%): {17 + i % 13:.2f} err/s: 0.00 reconn/s: 0.00\n")


def _pgbench(i: int) -> str:
    return (f"progress: {i + 1}.0 s, {4400 + i % 97:.1f} tps, lat {9 + (i % 13) / 10:.3f} ms stddev "
            f"{0.2 + (i % 7) / 10:.3f}, 0 failed\n")


def _txlog(i: int) -> str:
    return f"{i % 8} {i // 8 + 1} {400 + i % 2000} 0 {1796652995 + i // 5000} {(i * 197) % 1000000}\n"


def _iostat(size: int) -> str:
    sys.path.insert(0, str(ROOT / "tests" / "parsers"))
    from test_parse_bounds import _iostat as gen  # noqa: PLC0415 - the tests' own generator, one source

    return gen(max(1, size // 6_500))  # a second of 32 devices is ~6.5 kB


GENERATORS: dict[str, tuple[str, Callable[[int], str]]] = {
    "awr_text": ("awr.txt", _db_report("awr/awr_19c_racdb_pdb_waits_activity.txt", "SQL ordered by Elapsed Time")),
    "statspack": ("sp_1.txt", _db_report("statspack/sp_12102_getperf.txt", "SQL ordered by CPU")),
    "awr_excerpt": ("excerpt.txt", _db_report("awr/awr_11203_dd453_fragment.txt", "SQL ordered by Elapsed Time")),
    "fio_json": ("fio.json", _fio_json),
    "sysbench": ("sysbench.txt", _repeat_lines("sysbench/local_1_0_20_pgsql_oltp_read_write_report_interval.txt",
                                               r"\[ \d+s \]", _sysbench)),
    "pgbench": ("pgbench.txt", _repeat_lines("pgbench/local_15_rate_latency_limit.txt", r"progress: ", _pgbench)),
    "pgbench_log": ("pgbench_log.txn", _repeat_lines("pgbench_log/local_15_txlog_select_only_two_threads.txn",
                                                     r"\d", _txlog)),
    "iostat": ("iostat.txt", _iostat),
}


def _measure(path: Path, kind: str) -> dict[str, object]:
    r = subprocess.run([sys.executable, "-c", _PEAK.format(path=str(path), kind=kind)], capture_output=True,
                       text=True, cwd=ROOT, check=False)
    try:
        out: dict[str, object] = json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        out = {"kind": kind, "error": r.stderr[-400:]}
    out["input_mb"] = round(path.stat().st_size / 1e6, 1)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, nargs=2, default=(6.0, 24.0))
    ap.add_argument("--kinds", nargs="*", default=list(GENERATORS))
    ap.add_argument("--workdir", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for kind in args.kinds:
            name, gen = GENERATORS[kind]
            points = []
            for mb in args.mb:
                path = work / f"{mb:g}-{name}"
                path.write_text(gen(int(mb * 1e6)))
                res = _measure(path, kind)
                path.unlink()
                print(json.dumps(res), flush=True)
                points.append(res)
            if all("peak_rss_mb" in p for p in points):
                (x0, y0), (x1, y1) = ((float(str(p["input_mb"])), float(str(p["peak_rss_mb"]))) for p in points)
                slope = (y1 - y0) / (x1 - x0)
                print(json.dumps({"kind": kind, "mb_per_input_mb": round(slope, 2),
                                  "at_bound_mb": round(y1 + slope * (BOUND / 1e6 - x1), 0)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
