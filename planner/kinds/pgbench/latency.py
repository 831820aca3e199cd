"""A point's per-transaction log (``latency_log: true``): the threads' files joined on the host, fetched within a
bound, and the point's latency series written from it (planner.kinds.pgbench.txlog reads it).

Why it is not the default: the log costs about 31 bytes a transaction (measured: 58,474 select-only transactions
in 5 s wrote 1.81 MB with pgbench 15.18), written to the host's disk while the point is measured, so an hour at
50,000 tps would be some 5.6 GB: its cost grows with the run's throughput, which is what is measured and not
known before. ``sampling_rate`` bounds it; a log over MAX_LOG_BYTES is not fetched, and the outcome says what
rate would fit.
"""

from __future__ import annotations

from planner.files import sha256_file, write_bytes
from planner.kinds.pgbench import txlog
from planner.status import Artifact, ArtifactKind
from planner.steps.base import StepContext
from planner.timeseries import FILE_NAME, dumps

LOG_PREFIX = "pgbench_log"  # pgbench writes <prefix>.<pid> for its first thread, <prefix>.<pid>.<n> for the others
JOINED = "pgbench_log.txn"
# about a million transactions (plenty for a 99th percentile), read in some seconds: the log is read at the
# point's end and again for the report
MAX_LOG_BYTES = 32 * 1024 * 1024  # ~1M lines, ~3 s of CPU to read
# join the threads' files into one (any order: the reader sorts), say its size; "0" when pgbench wrote none
_JOIN = (f'cd "$1" || exit 1; set -- {LOG_PREFIX}.[0-9]*; [ -e "$1" ] || {{ echo 0; exit 0; }}; '
         f'cat "$@" >{JOINED} && rm -f "$@" && wc -c <{JOINED}')


def _mib(size: int) -> str:
    return f"{size:,} bytes" if size < 2**20 else f"{size / 2**20:,.1f} MiB"


def fetch_log(ctx: StepContext, wd: str, step_s: float) -> tuple[list[Artifact], str]:
    """The joined log and the latency series as artifacts, and words for the outcome (why there are none, or the
    99th percentile)."""
    r = ctx.sh(_JOIN, wd, check=False)
    size = int(r.stdout.strip()) if r.ok and r.stdout.strip().isdigit() else 0
    if size == 0:
        return [], "; no per-transaction log written"
    if size > MAX_LOG_BYTES:
        rate = MAX_LOG_BYTES / size
        return [], (f"; the per-transaction log is {_mib(size)}, over the {_mib(MAX_LOG_BYTES)} planner fetches: "
                    f"no latency percentiles (sampling_rate {rate:.2g} or lower keeps it under)")
    local = ctx.artifacts / JOINED
    ctx.conn.get(f"{wd}/{JOINED}", local, max_bytes=MAX_LOG_BYTES)
    arts = [Artifact(str(local.relative_to(ctx.run_dir)), ArtifactKind("pgbench_log"), sha256_file(local),
                     simulated=ctx.simulated)]
    with open(local, encoding="ascii", errors="replace") as f:
        log = txlog.read(f, str(local))
    series = txlog.series(log, step_s)
    if series is None:
        return arts, "; the per-transaction log holds no completed transaction"
    out = ctx.artifacts / FILE_NAME
    write_bytes(out, dumps([series]), 0o600)
    arts.append(Artifact(str(out.relative_to(ctx.run_dir)), ArtifactKind.SERIES, sha256_file(out),
                         simulated=ctx.simulated))
    p99 = txlog.nearest_rank(sorted(log.latency_us), 99.0) / 1000
    return arts, f"; 99th percentile latency {p99:.3g} ms over {len(log.latency_us)} logged transactions"
