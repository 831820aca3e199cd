"""Push and query times of the results store for N runs (default 1,000), on SQLite and on PostgreSQL.

    python benchmarks/store/bench.py [--runs 1000] [--pg postgresql://user@host:port/db]

Without --pg a throwaway PostgreSQL cluster is started as the tests start theirs (tests/pg_cluster.py:
loopback TCP, fsync off - so the PostgreSQL figures are the client/protocol cost, not the disk's; the SQLite
file is fsynced by SQLite as usual). Every run is the tests' headline study (tests/test_report_helpers.py:
seed_study) under its own run id and start time: each push is one transaction writing the run row, its
record files, artifacts (with the measured ones' content), measurements, findings and verdicts.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from pg_cluster import start_cluster  # noqa: E402
from test_report_helpers import seed_study  # noqa: E402

from planner.results.measure import read_run  # noqa: E402
from planner.store import RunFilter, open_store, parse_store_url  # noqa: E402
from planner.store.record import StoredRun, capture  # noqa: E402


def variant(base: StoredRun, i: int) -> StoredRun:
    rid = f"2026{1 + i // 28 % 12:02d}{1 + i % 28:02d}T{i % 24:02d}0000Z-run{i:04d}"
    started = f"2026-{1 + i // 28 % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:00:00.000000Z"
    ms = tuple(dataclasses.replace(m, run_id=rid) for m in base.measurements)
    return dataclasses.replace(base, run_id=rid, started=started, measurements=ms,
                               hosts=("exa", "vio") if i % 2 else ("exa", f"lab{i % 7}"),
                               content_hash=f"{i:064x}")


def timed(fn: Callable[[], object], n: int = 20) -> float:
    """Median of n calls, in milliseconds."""
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return statistics.median(out)


def bench(name: str, url: str, runs: list[StoredRun]) -> dict[str, float]:
    u = parse_store_url(url, Path("."))
    with open_store(u, migrating=True) as st:
        st.migrate()
        per = []
        t0 = time.perf_counter()
        for r in runs:
            t = time.perf_counter()
            st.put_stored(r)
            per.append((time.perf_counter() - t) * 1000)
        total = time.perf_counter() - t0
        again = timed(lambda: st.put_stored(runs[len(runs) // 2]))  # same content: nothing rewritten
        mid = runs[len(runs) // 2].run_id
        res = {
            "push total s": total, "push median ms": statistics.median(per),
            "push p95 ms": sorted(per)[int(len(per) * 0.95)], "re-push unchanged ms": again,
            "runs (all) ms": timed(lambda: st.runs()),
            "runs --host --since ms": timed(lambda: st.runs(where=RunFilter(host="lab3", since="2026-06-01"))),
            "runs --plan ms": timed(lambda: st.runs(where=RunFilter(plan="slob_violin_vs_exadata"))),
            "measurements of 1 run ms": timed(lambda: st.measurements(mid)),
            "compare (2 runs) ms": timed(lambda: (st.measurements(runs[1].run_id), st.measurements(mid))),
            "pull 1 run ms": timed(lambda: st.stored_run(mid)),
        }
    print(f"{name}: " + ", ".join(f"{k} {v:.2f}" for k, v in res.items()), file=sys.stderr)
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--pg", help="an empty, migrated-or-not PostgreSQL database (default: a throwaway cluster)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        data = read_run(seed_study(Path(tmp) / "runs"))
        base = capture(data)
        read_ms = (time.perf_counter() - t) * 1000
        runs = [variant(base, i) for i in range(args.runs)]
        print(f"one run: {len(base.measurements)} measurements, {len(base.artifacts)} artifacts, "
              f"{len(base.files)} record files; reading + capturing its folder {read_ms:.0f} ms", file=sys.stderr)
        cluster = None
        pg = args.pg
        if not pg:
            cluster = start_cluster()
            os.environ["PGPASSFILE"] = str(cluster.pgpass)
            pg = cluster.url(cluster.new_database())
        try:
            results = {"SQLite": bench("SQLite", f"sqlite:///{tmp}/bench.sqlite", runs),
                       "PostgreSQL": bench("PostgreSQL", pg, runs)}
        finally:
            if cluster:
                cluster.stop()
    keys = list(results["SQLite"])
    print(f"| {args.runs} runs | " + " | ".join(results) + " |")
    print("|---|" + "---|" * len(results))
    for k in keys:
        print(f"| {k} | " + " | ".join(f"{r[k]:.2f}" for r in results.values()) + " |")


if __name__ == "__main__":
    main()
