"""fio's own per-interval logs for one point: the job-file options that ask for them, the bounded fetch, and the
point's series file made from them (planner.timeseries, docs/series.md).

fio writes one log per job and kind (``<prefix>_iops.<job>.log``); jobs are summed per interval for IOPS and
bandwidth and averaged for latency. The logs are streamed through planner.timeseries.Downsampler, so a long
point's series stays a fixed size whatever its length; the raw logs stay in the run record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from planner.errors import ParseError, PlannerError
from planner.files import sha256_file, write_bytes
from planner.kinds.fio.parse.log import LogKind, log_kind, rows
from planner.status import Artifact, ArtifactKind
from planner.steps.base import StepContext
from planner.timeseries import FILE_NAME, Downsampler, TimeSeries, combine, dumps

LOG_PREFIX = "fiolog"  # in the point folder: <point dir>/fiolog_iops.1.log ...
LOG_AVG_MSEC = 1000  # one averaged row per second and job, unless the plan asks otherwise
MAX_LOG_BYTES = 32 * 1024 * 1024  # per file: at 1 s rows an hour of one job is about 100 KB
MAX_LOG_FILES = 4 * 64  # four kinds for up to 64 jobs; beyond that the point has no series (said so)
_KINDS = {LogKind.IOPS: ("fio.iops", "IO/s", 1.0, True), LogKind.BW: ("fio.bw_mbs", "MB/s", 1024 / 1e6, True),
          LogKind.CLAT: ("fio.clat_ms", "ms", 1e-6, False), LogKind.LAT: ("fio.lat_ms", "ms", 1e-6, False)}


@dataclass(frozen=True, slots=True)
class FioSeries:
    artifacts: tuple[Artifact, ...]  # the raw logs and the series file
    series: tuple[TimeSeries, ...]
    notes: tuple[str, ...] = ()  # why some or all series are missing


def log_options(wd: str) -> list[tuple[str, str | None]]:
    """The [global] options that make fio log IOPS, bandwidth and latency per interval into the point folder."""
    prefix = f"{wd}/{LOG_PREFIX}"
    return [("write_iops_log", prefix), ("write_bw_log", prefix), ("write_lat_log", prefix),
            ("log_avg_msec", str(LOG_AVG_MSEC))]


def outputs(ctx: StepContext, wd: str, named: list[str]) -> tuple[set[str], list[str]]:
    """Which of the ``named`` files hold data, and the point's non-empty fio logs: one round trip for both
    (they were two commands in the dead time after every fio point)."""
    r = ctx.sh(f'wd=$1; shift; for f in "$@"; do [ -s "$f" ] && printf "f %s\\n" "$f"; done; '
               f'for f in "$wd"/{LOG_PREFIX}_*.log; do [ -s "$f" ] && printf "l %s\\n" "$f"; done; exit 0',
               wd, *named, check=False)
    there, logs = set(), []
    for line in r.stdout.splitlines():
        tag, _, path = line.partition(" ")
        if tag == "f" and path:
            there.add(path)
        elif tag == "l" and (k := log_kind(path.rsplit("/", 1)[-1])) is not None and k[0] in _KINDS:
            logs.append(path)
    return there, logs


def _fetch(ctx: StepContext, remote: str) -> Artifact:
    local = ctx.artifacts / remote.rsplit("/", 1)[-1]
    ctx.conn.get(remote, local, max_bytes=MAX_LOG_BYTES)
    return Artifact(str(local.relative_to(ctx.run_dir)), ArtifactKind("fio_log"), sha256_file(local),
                    simulated=ctx.simulated)


def _job_series(path: Path, kind: LogKind, warmup_s: float) -> list[TimeSeries]:
    """One job's log as one series per data direction, streamed."""
    metric, unit, scale, _ = _KINDS[kind]
    samplers: dict[str, Downsampler] = {}
    step = LOG_AVG_MSEC / 1000
    with open(path, encoding="ascii", errors="replace") as f:
        for row in rows(f, str(path)):
            d = samplers.get(row.direction)
            if d is None:
                d = samplers[row.direction] = Downsampler(metric, unit, f"fio {kind.value} log", step,
                                                          labels=(("direction", row.direction),))
            # a row's time is its interval's end: the bucket is the interval it averages
            d.add(max(row.time_ms - LOG_AVG_MSEC / 2, 0) / 1000, row.value * scale)
    return [d.result(warmup_s) for d in samplers.values()]


def build(paths: Sequence[Path], warmup_s: float = 0.0) -> tuple[TimeSeries, ...]:
    """The point's series from its fio logs: per kind and direction, jobs combined. One kind's jobs are held at
    a time (each a fixed number of buckets), so memory grows with the jobs, never with the point's length."""
    by_kind: dict[LogKind, list[Path]] = {}
    for p in sorted(paths):
        found = log_kind(p.name)
        if found is not None and found[0] in _KINDS:
            by_kind.setdefault(found[0], []).append(p)
    out: list[TimeSeries] = []
    for kind in (k for k in _KINDS if k in by_kind):
        groups: dict[str, list[TimeSeries]] = {}
        for p in by_kind[kind]:
            for s in _job_series(p, kind, warmup_s):
                groups.setdefault(s.label("direction"), []).append(s)
        for direction in sorted(groups):
            one = combine(groups[direction], total=_KINDS[kind][3])
            if one is not None:
                out.append(one)
    return tuple(out)


def collect(ctx: StepContext, remote: list[str], warmup_s: float = 0.0) -> FioSeries:
    """Fetch the point's fio logs (``remote``, as ``outputs`` listed them; bounded) and write its series file;
    what went missing is said, not raised."""
    if not remote:
        return FioSeries((), (), ("fio wrote no per-interval logs: no series for this point",))
    if len(remote) > MAX_LOG_FILES:
        return FioSeries((), (), (f"{len(remote)} fio log files (more than {MAX_LOG_FILES}): not fetched, "
                                  "no series for this point",))
    arts: list[Artifact] = []
    try:
        arts = [_fetch(ctx, r) for r in remote]
        series = build([ctx.run_dir / a.path for a in arts], warmup_s)
    except (PlannerError, OSError) as e:  # FetchTooLarge, a torn log: the point's figures stand without it
        why = e if isinstance(e, ParseError | PlannerError) else (e.strerror or e)
        return FioSeries(tuple(arts), (), (f"fio's per-interval logs not kept: {why}",))
    local = ctx.artifacts / FILE_NAME
    write_bytes(local, dumps(series), 0o600)
    art = Artifact(str(local.relative_to(ctx.run_dir)), ArtifactKind.SERIES, sha256_file(local),
                     simulated=ctx.simulated)
    return FioSeries((*arts, art), series)
