"""One measurement in a fresh process: connect to a lab host, then either run a command that prints N bytes
(``output``) or fetch a file (``fetch``); prints a JSON line with the controller's peak RSS.

Usage: python probe.py HOST_JSON output BYTES | fetch REMOTE LOCAL [MAX_BYTES]
HOST_JSON: {"name", "address", "port", "user", "key_file", "vars"} (a lab host). Used by
benchmarks/memory/run.py and by tests/test_fault_big_output.py (which asserts a bound, never a speed).
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

from planner.errors import PlannerError
from planner.host import Host
from planner.transport.ssh.client import SSHConnection


def peak_rss_mb() -> float:
    """This process's own peak: VmHWM of its address space. Not ru_maxrss, which Linux carries across exec from
    the process that forked this one (a probe started by a 175 MB pytest worker reads 175 MB before it begins)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)  # kB
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # not Linux: the best there is


def main(argv: list[str]) -> int:
    spec = json.loads(argv[0])
    host = Host(spec["name"], spec["address"], port=spec["port"], user=spec["user"],
                key_file=Path(spec["key_file"]), vars=spec["vars"])
    conn = SSHConnection(host)
    conn.connect()
    started = time.monotonic()
    report: dict[str, object] = {"what": argv[1]}
    try:
        if argv[1] == "output":
            n = int(argv[2])
            r = conn.run(["sh", "-c", 'head -c "$1" /dev/zero | tr "\\0" x', "sh", str(n)], timeout=600)
            # getattr: the probe also measures planner versions from before these fields (for the figures "before")
            report.update(ok=r.ok, stdout_bytes=getattr(r, "stdout_bytes", len(r.stdout)), kept_chars=len(r.stdout),
                          truncated=getattr(r, "truncated", False))
        else:
            local = Path(argv[3])
            cap = int(argv[4]) if len(argv) > 4 else None
            try:
                conn.get(argv[2], local, max_bytes=cap)
                st = local.stat()
                report.update(ok=True, size=st.st_size, allocated=st.st_blocks * 512, mode=oct(st.st_mode & 0o777))
            except PlannerError as e:
                report.update(ok=False, error=str(e), left=local.exists())
    finally:
        conn.close()
    report["seconds"] = round(time.monotonic() - started, 2)
    report["peak_rss_mb"] = peak_rss_mb()
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
