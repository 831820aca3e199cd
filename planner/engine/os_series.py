"""The OS samplers' per-interval values around a point, kept as its series (``series-os.json``, docs/series.md).

iostat gives per device IOPS (r/s + w/s), MB/s and the mean await weighted by the I/Os; mpstat the busy share of
all CPUs (100 - %idle). Sample n (1-based) covers the interval before its report: t = (n - 1) x interval. The
first iostat report is the average since boot, not an interval of the window, and is skipped.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from planner.errors import ParseError
from planner.files import sha256_file, write_bytes
from planner.metrics import Parsed
from planner.parsers import parse_file
from planner.status import Artifact, ArtifactKind
from planner.steps.base import StepContext
from planner.timeseries import MAX_SERIES, Downsampler, TimeSeries, dumps

FILE_NAME = "series-os.json"
_IOSTAT = {"iops": (("iostat.r_iops", "iostat.w_iops"), "IO/s"),
           "mbs": (("iostat.r_kbs", "iostat.w_kbs"), "MB/s"),
           "await_ms": (("iostat.r_await_ms", "iostat.w_await_ms", "iostat.await_ms"), "ms")}


def _rows(parsed: Parsed, names: Sequence[str], key: str) -> dict[tuple[int, str], dict[str, float]]:
    """(sample, device or cpu) -> {metric name: value} for the named metrics."""
    out: dict[tuple[int, str], dict[str, float]] = defaultdict(dict)
    for m in parsed.metrics:
        sample = m.label("sample")
        if m.name in names and sample.isdigit() and m.label("time") != "Average":  # mpstat's closing summary
            out[(int(sample), m.label(key))][m.name] = m.value
    return out


def _iostat_value(what: str, cols: dict[str, float]) -> float:
    r, w = cols.get("iostat.r_iops", 0.0), cols.get("iostat.w_iops", 0.0)
    if what == "iops":
        return r + w
    if what == "mbs":
        return (cols.get("iostat.r_kbs", 0.0) + cols.get("iostat.w_kbs", 0.0)) * 1024 / 1e6
    if "iostat.await_ms" in cols:  # older sysstat: one await column
        return cols["iostat.await_ms"]
    return (cols.get("iostat.r_await_ms", 0.0) * r + cols.get("iostat.w_await_ms", 0.0) * w) / (r + w) if r + w else 0.0


def iostat_series(parsed: Parsed, interval_s: float) -> list[TimeSeries]:
    names = {n for cols, _ in _IOSTAT.values() for n in cols}
    rows = _rows(parsed, tuple(names), "device")
    skip = 1 if parsed.fact("first_sample") == "since_boot" else 0
    out: list[TimeSeries] = []
    for what, (_, unit) in _IOSTAT.items():
        samplers: dict[str, Downsampler] = {}
        for (sample, device), cols in sorted(rows.items()):
            if sample <= skip:
                continue
            d = samplers.get(device)
            if d is None:
                d = samplers[device] = Downsampler(f"iostat.{what}", unit, "iostat -x", interval_s,
                                                   labels=(("device", device),))
            d.add((sample - skip - 1) * interval_s, _iostat_value(what, cols))
        out += [d.result() for d in samplers.values()]
    return out


def mpstat_series(parsed: Parsed, interval_s: float) -> list[TimeSeries]:
    d = Downsampler("mpstat.busy_pct", "%", "mpstat -P ALL", interval_s, labels=(("cpu", "all"),))
    for (sample, cpu), cols in sorted(_rows(parsed, ("mpstat.idle_pct",), "cpu").items()):
        if cpu == "all":
            d.add((sample - 1) * interval_s, 100.0 - cols["mpstat.idle_pct"])
    s = d.result()
    return [s] if s.t else []


def build(files: Sequence[tuple[Path, str]], interval_s: float) -> tuple[TimeSeries, ...]:
    """The window's series from its fetched sampler files ((local path, kind)); unreadable ones are skipped
    (the measurement reads and names them)."""
    out: list[TimeSeries] = []
    for path, kind in files:
        if kind not in ("iostat", "mpstat"):
            continue
        try:
            parsed = parse_file(path, kind)
        except ParseError:
            continue
        out += iostat_series(parsed, interval_s) if kind == "iostat" else mpstat_series(parsed, interval_s)
    return tuple(_busiest(out))


def _busiest(series: list[TimeSeries]) -> list[TimeSeries]:
    """CPU first, then whole devices by mean IOPS: a host's many idle partitions are the ones dropped beyond
    the cap."""
    iops = {s.label("device"): sum(s.values) / len(s.values) for s in series if s.metric == "iostat.iops" and s.t}
    keep = sorted(iops, key=lambda d: -iops[d])[:(MAX_SERIES - 1) // len(_IOSTAT)]
    cpu = [s for s in series if s.metric == "mpstat.busy_pct"]
    return cpu + sorted((s for s in series if s.label("device") in keep),
                        key=lambda s: (keep.index(s.label("device")), list(_IOSTAT).index(s.metric[7:])))


def keep(ctx: StepContext, artifacts: Sequence[Artifact], interval_s: float) -> list[Artifact]:
    """The point's OS series file from the sampler files just fetched (none when they hold no interval)."""
    series = build([(ctx.run_dir / a.path, a.kind) for a in artifacts], interval_s)
    if not series:
        return []
    local = ctx.artifacts / FILE_NAME
    write_bytes(local, dumps(series), 0o600)
    return [Artifact(str(local.relative_to(ctx.run_dir)), ArtifactKind.SERIES, sha256_file(local),
                     simulated=ctx.simulated)]
