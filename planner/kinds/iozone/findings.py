"""What a DBA would say of an iozone run: it ran buffered (no -I), so the page cache was measured."""

from __future__ import annotations

from planner.kinds.iozone.sizes import size_kb
from planner.results.finding import Finding, Severity
from planner.results.measure import RunData
from planner.results.page_cache import page_cache_exposure


def run_findings(data: RunData) -> list[Finding]:
    """iozone without -I (O_DIRECT, iozone's documentation: "-I Use DIRECT I/O for all file operations") reads
    and writes through the page cache, on files the same run just wrote or copied."""
    if data.plan is None:
        return []
    out: list[Finding] = []
    for p in data.plan.plays:
        for spec in p.workloads:
            flags = [str(f) for f in spec.args.get("flags") or ()] if spec.kind == "iozone" else ["-I"]
            if "-I" in flags:
                continue
            for host in sorted({r.host for r in data.results if r.step == spec.path}):
                size, threads = size_kb(spec.args.get("file_size")), str(spec.args.get("threads", 1)).strip()
                total = size * int(threads) / (1 << 20) if size is not None and threads.isdigit() else None
                exposure, numbers = page_cache_exposure(total, data.facts.get(host, {}))
                out.append(Finding(
                    "buffered_io", Severity.WARNING, "iozone ran buffered", p.name, host,
                    spec.name or spec.kind, "",
                    f"iozone ran without -I (O_DIRECT): reads and writes went through the page cache; {exposure} — "
                    "add -I to flags to measure the storage", (("flags", " ".join(flags) or "none"), *numbers)))
    return out
