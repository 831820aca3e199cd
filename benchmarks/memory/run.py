"""Peak controller RSS with 500 MB of host output and with a 2 GB sparse fetch, over a loopback sshd lab.

    python benchmarks/memory/run.py [--output-mb 500] [--fetch-gb 2] [--repeat 1]

Each figure comes from a fresh process (probe.py) so it is that operation's own peak. Goal (issue 14): under
200 MB each. Prints a Markdown table to paste into RESULTS.md. Needs /usr/sbin/sshd (the test lab's).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

from planner.rehearsal.lab import build_lab

PROBE = Path(__file__).with_name("probe.py")


def probe(spec: dict, *args: str) -> dict:
    out = subprocess.run([sys.executable, str(PROBE), json.dumps(spec), *args], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.splitlines()[-1])


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--output-mb", type=int, default=500)
    p.add_argument("--fetch-gb", type=int, default=2)
    p.add_argument("--repeat", type=int, default=1)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp, build_lab(Path(tmp) / "lab", 1) as lab:
        h = lab.hosts[0]
        spec = {"name": h.name, "address": h.address, "port": h.port, "user": h.user, "key_file": str(h.key_file),
                "vars": dict(h.vars)}
        big = lab.sandbox(h.name) / "big.sparse"
        with big.open("wb") as f:
            f.truncate(a.fetch_gb << 30)
        rows = []
        for _ in range(a.repeat):
            rows.append((f"{a.output_mb} MB on stdout", probe(spec, "output", str(a.output_mb << 20))))
            local = Path(tmp) / "fetched.sparse"
            rows.append((f"{a.fetch_gb} GB sparse fetch", probe(spec, "fetch", str(big), str(local))))
            local.unlink(missing_ok=True)
    print(f"python {platform.python_version()}, {platform.machine()}, {platform.platform()}\n")
    print("| case | peak RSS (MB) | seconds | detail |\n|---|---|---|---|")
    for name, r in rows:
        detail = {k: v for k, v in r.items() if k not in ("what", "peak_rss_mb", "seconds")}
        print(f"| {name} | {r['peak_rss_mb']} | {r['seconds']} | {json.dumps(detail)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
