"""sysbench's ``--report-interval`` lines as the point's series (planner.timeseries, docs/series.md).

Each line is one interval's rates, stamped with the interval's end (``[ 2s ]`` covers the second second): a line
goes into the bucket of the interval it averages. The series are the transactions and queries per second, the
latency at the percentile sysbench was asked for (``--percentile``: the line says which) and the ignored errors
per second; 0.5's lines carry no queries per second and may carry no errors, so those series are then absent.
The fileio test prints its own line (sb_fileio.c file_report_intermediate: read and write MiB/s, fsyncs/s and the
latency): its series are ``sysbench.file_mib_per_s`` (``op`` read|write), ``sysbench.file_ops_per_s`` (``op`` fsync)
and the latency, the names of its run's own "Throughput:" and "File operations:" figures.
Only the file's first run is read: a point's output holds one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from planner.files import sha256_file, write_bytes
from planner.kinds.sysbench.parse import FileInterval, Interval, file_intervals, intervals
from planner.status import Artifact, ArtifactKind
from planner.steps.base import StepContext
from planner.timeseries import FILE_NAME, Downsampler, TimeSeries, dumps

SOURCE = "sysbench --report-interval"
MAX_OUTPUT_BYTES = 64 * 1024 * 1024  # a day of 1 s lines is ~12 MB: past this the file is no sysbench output
_SERIES: tuple[tuple[str, str, Callable[[Interval], float | None]], ...] = (
    ("sysbench.tps", "tx/s", lambda r: r.tps),
    ("sysbench.qps", "queries/s", lambda r: r.qps),
    ("sysbench.latency_ms", "ms", lambda r: r.lat_ms),
    ("sysbench.errors_per_s", "errors/s", lambda r: r.errors_per_s),
)
_FILE_SERIES: tuple[tuple[str, str, tuple[tuple[str, str], ...], Callable[[FileInterval], float]], ...] = (
    ("sysbench.file_mib_per_s", "MiB/s", (("op", "read"),), lambda r: r.read_mib_s),
    ("sysbench.file_mib_per_s", "MiB/s", (("op", "write"),), lambda r: r.write_mib_s),
    ("sysbench.file_ops_per_s", "operations/s", (("op", "fsync"),), lambda r: r.fsyncs_per_s),
    ("sysbench.latency_ms", "ms", (), lambda r: r.lat_ms),
)


def build(text: str, step_s: float) -> tuple[TimeSeries, ...]:
    """The first run's interval lines as series; none when sysbench printed no interval line."""
    rows = [r for r in intervals(text) if r.run == 1]
    if not rows:
        return _file_series([r for r in file_intervals(text) if r.run == 1], step_s)
    out: list[TimeSeries] = []
    for metric, unit, value in _SERIES:
        labels = (("stat", f"p{rows[0].percentile:g}"),) if rows and metric == "sysbench.latency_ms" else ()
        d = Downsampler(metric, unit, SOURCE, step_s, labels=labels)
        for r in rows:
            v = value(r)
            if v is not None:
                d.add(max(r.t_s - step_s, 0.0), v)
        s = d.result()
        if s.t:
            out.append(s)
    return tuple(out)


def _file_series(rows: list[FileInterval], step_s: float) -> tuple[TimeSeries, ...]:
    out: list[TimeSeries] = []
    for metric, unit, labels, value in _FILE_SERIES if rows else ():
        if metric == "sysbench.latency_ms":
            labels = (("stat", f"p{rows[0].percentile:g}"),)
        d = Downsampler(metric, unit, SOURCE, step_s, labels=labels)
        for r in rows:
            d.add(max(r.t_s - step_s, 0.0), value(r))
        out.append(d.result())
    return tuple(out)


def write_series(ctx: StepContext, output: Path, step_s: float) -> list[Artifact]:
    """The point's series file from its fetched sysbench output; [] when the output has no interval line."""
    if output.stat().st_size > MAX_OUTPUT_BYTES:
        return []
    series = build(output.read_text(encoding="utf-8", errors="replace"), step_s)
    if not series:
        return []
    local = ctx.artifacts / FILE_NAME
    write_bytes(local, dumps(series), 0o600)
    return [Artifact(str(local.relative_to(ctx.run_dir)), ArtifactKind.SERIES, sha256_file(local),
                     simulated=ctx.simulated)]
