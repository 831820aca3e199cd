"""What a DBA would say of a fio run's set-up, read back from fio's own JSON (its "job options"): a device
benchmark run buffered, a file job on libaio run buffered, an iodepth sweep on a synchronous engine; and fio's
own steady-state verdict (its ss= option) for a point, said beside planner's."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from planner.kinds.fio.spec import SYNC_ENGINES
from planner.results.finding import Finding, Severity
from planner.results.measure import Measurement, RunData, play_name
from planner.results.page_cache import page_cache_exposure
from planner.results.point_series import PointSeries

_TRUE = frozenset({"1", "true", "yes", "on"})


def _job_options(facts: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """job name -> its effective options ([global] first, then the job's own), from the fio parser's facts."""
    glob = {k[len("global."):]: v for k, v in facts.items() if k.startswith("global.")}
    jobs: dict[str, dict[str, str]] = defaultdict(lambda: dict(glob))
    for k, v in facts.items():
        if k.startswith("job[") and "]." in k:
            name, _, opt = k[4:].partition("].")
            jobs[name][opt] = v
    return dict(jobs) or {"": glob}


def _is_device(path: str) -> bool:
    # a sandboxed host maps /dev/x under its root: the /dev/ segment still says it is a device
    return path.startswith("/dev/") or "/dev/" in path


def run_findings(data: RunData) -> list[Finding]:
    """A device benchmark run buffered (no direct=1: the page cache is measured, e.g. 314k IOPS of randwrite
    "to a disk") and an iodepth sweep on a synchronous engine (every point has the same queue depth)."""
    plays = data.play_names()
    out: list[Finding] = []
    by_path = {a.path: a for a in data.artifacts if a.kind == "fio_json"}
    swept_sync: set[tuple[str, str, str]] = set()
    for r in data.results:
        for art in r.artifacts:
            a = by_path.get(art.path)
            if a is None:
                continue
            params = dict(r.params)
            label = " ".join(f"{k}={v}" for k, v in r.params) or "—"
            where = (play_name(r.play, plays), r.host, r.title, label)
            for job, opts in _job_options(dict(a.facts)).items():
                files = [f for f in opts.get("filename", "").split(":") if f]
                devices = [f for f in files if _is_device(f)]
                direct = opts.get("direct", "0").strip().lower() in _TRUE
                if devices and not direct and opts.get("buffered", "").strip().lower() not in ("0", "false"):
                    out.append(Finding(
                        "fio_buffered", Severity.WARNING, "Device benchmark ran buffered", *where,
                        f"fio job {job or '?'} on {', '.join(devices)} ran without direct=1: reads and writes "
                        "went through the page cache, so the figures measure memory, not the device — "
                        "add direct: 1 to the step",
                        (("job", job), ("device", ", ".join(devices)), ("direct", opts.get("direct", "unset")))))
                engine = opts.get("ioengine", "psync").strip().lower()  # fio's default engine on Linux: psync
                if files and not devices and not direct and engine == "libaio":
                    out.append(_buffered_aio(where, job, opts, data.facts.get(r.host, {})))
                key = (where[0], r.host, r.step)
                if "iodepth" in params and engine in SYNC_ENGINES and key not in swept_sync:
                    swept_sync.add(key)
                    out.append(Finding(
                        "fio_sync_iodepth", Severity.WARNING, "iodepth swept with a synchronous engine",
                        where[0], r.host, r.title, "",
                        f"iodepth is swept but ioengine={engine} issues one I/O at a time per job: every point "
                        "ran at queue depth 1, so the sweep shows noise, not queue depth — use ioengine: libaio "
                        "(or io_uring) with direct: 1, or sweep numjobs instead",
                        (("ioengine", engine), ("iodepth", str(params["iodepth"])))))
    return out


_BYTES = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.I)


def size_gb(text: Any) -> float | None:
    """A fio size (``1g``, ``512m``, ``4096k``; a bare number is bytes) in GiB, else None."""
    m = _BYTES.match(str(text or ""))
    if not m:
        return None
    return (float(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[m.group(2).lower()]
            / (1 << 30))


def _buffered_aio(where: tuple[str, str, str, str], job: str, opts: Mapping[str, str],
                  facts: Mapping[str, Any]) -> Finding:
    """fio's man page, ioengine libaio: "Linux native asynchronous I/O. Note that Linux may only support queued
    behavior with non-buffered I/O (set direct=1 or buffered=0)" - buffered libaio is not async."""
    size = size_gb(opts.get("size"))
    numjobs = int(opts.get("numjobs", "1") or 1) if str(opts.get("numjobs", "1")).isdigit() else 1
    exposure, numbers = page_cache_exposure(size * numjobs if size is not None else None, facts)
    return Finding(
        "buffered_io", Severity.WARNING, "File job on libaio ran buffered", *where,
        f"fio job {job or '?'} uses ioengine=libaio on files without direct=1: buffered I/O is not async (libaio "
        f"queues only non-buffered I/O), so iodepth does not apply and the page cache is measured; {exposure} — "
        "add direct: 1",
        (("job", job), ("ioengine", "libaio"), ("direct", opts.get("direct", "unset")), *numbers))


def own_steady(p: PointSeries, measurements: Sequence[Measurement],
               run_s: float) -> tuple[bool | None, str] | None:
    """fio's own steady-state verdict for the point (every job attained), in words; None when fio judged none,
    (None, words) when fio's window is longer than the run (it could not judge: planner's default criterion)."""
    mine = [m for m in measurements if m.metric in ("fio.ss_attained", "fio.ss_criterion") and m.host == p.host
            and m.step == p.step and m.point == p.point and m.repeat == p.repeat]
    attained = [m for m in mine if m.metric == "fio.ss_attained"]
    if not attained:
        return None
    reached = all(m.value for m in attained)
    windows = [float(w) for m in attained if (w := dict(m.labels).get("window_s", "")).replace(".", "", 1).isdigit()]
    if not reached and windows and min(windows) > run_s:
        return None, f"fio: no verdict (its {min(windows):g}s window is longer than the {run_s:g}s measured)"
    parts = []
    for m in (m for m in mine if m.metric == "fio.ss_criterion"):
        labels = dict(m.labels)  # fio reports 0 for a window it never filled: the limit is said, not compared
        parts.append(f"{labels.get('criterion', '?')} {m.value:g}{m.unit}, limit {labels.get('limit', '?')}")
    detail = f" ({'; '.join(dict.fromkeys(parts))})" if parts else ""
    return reached, f"fio: {'steady' if reached else 'not steady'}{detail}"
