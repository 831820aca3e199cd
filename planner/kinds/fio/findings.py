"""What a DBA would say of a fio run's set-up, read back from fio's own JSON (its "job options"): a device
benchmark run buffered, a file job on libaio run buffered, an iodepth sweep on a synchronous engine."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from planner.kinds.fio.spec import SYNC_ENGINES
from planner.results.finding import Finding, Severity
from planner.results.measure import RunData, play_name
from planner.results.page_cache import page_cache_exposure

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
