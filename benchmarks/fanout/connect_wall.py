"""Wall and CPU of connecting N lab hosts behind the latency proxy, from a fresh interpreter, for several planner trees.

    python benchmarks/fanout/connect_wall.py --hosts 1 --reps 9 --rtt 50 TREE [TREE...]

Each repetition runs, for every TREE in turn (interleaved), ``connect_all`` over the hosts in a new Python process
with ``PYTHONPATH=TREE``: the import of the SSH client (paramiko with it) and every host's TCP connect, key
exchange and login, as the first play of a run pays them. Prints the medians. A measuring aid, not part of planner.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

SNIPPET = r'''
import sys, time
from pathlib import Path
import yaml
from planner.host import Host
inv = yaml.safe_load(Path(sys.argv[1]).read_text())["all"]["hosts"]
hosts = [Host(n, v["ansible_host"], port=v["ansible_port"], user=v["ansible_user"],
              key_file=Path(v["ansible_ssh_private_key_file"]), vars={"planner_known_hosts": v["planner_known_hosts"]})
         for n, v in inv.items()]
t, c = time.monotonic(), time.process_time()
from planner.transport.connect import connect_all
conns = connect_all(hosts, forks=len(hosts))
wall, cpu = time.monotonic() - t, time.process_time() - c
bad = [str(x) for x in conns.values() if isinstance(x, Exception)]
assert not bad, bad
print("CONNECTED", wall, cpu)
'''


def main() -> int:
    import bench

    ap = argparse.ArgumentParser()
    ap.add_argument("--hosts", type=int, default=1)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--rtt", type=int, default=50)
    ap.add_argument("trees", nargs="+", help="planner checkouts (each is put first on PYTHONPATH)")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="planner-connect-"))
    lab = bench.build_lab(work / "lab", a.hosts)
    proxy = None
    try:
        proxy = bench.Proxy(lab, a.rtt, work / "proxy.log") if a.rtt else None
        endpoints = proxy.endpoints if proxy else {h.name: (h.address, h.port or 22) for h in lab.hosts}
        known = work / "known_hosts"
        bench.write_known_hosts(lab, endpoints, known) if proxy else known.write_text(lab.known_hosts.read_text())
        bench.write_inventories(lab, endpoints, known, work)
        got: dict[str, list[tuple[float, float]]] = {t: [] for t in a.trees}
        load0 = os.getloadavg()[0]
        for _ in range(a.reps):
            for tree in a.trees:
                env = dict(os.environ, PYTHONPATH=tree, HOME=str(work))  # HOME: no ~/.ssh/config
                r = subprocess.run([sys.executable, "-c", SNIPPET, str(work / "inventory.yml")], cwd=tree, env=env,
                                   capture_output=True, text=True, check=False)
                if "CONNECTED" not in r.stdout:
                    raise SystemExit(f"{tree}: {r.stderr[-2000:]}")
                wall, cpu = (float(x) for x in r.stdout.split("CONNECTED")[1].split())
                got[tree].append((wall, cpu))
        print(f"N={a.hosts} at {a.rtt} ms RTT, {a.reps} interleaved rounds, "
              f"load {load0:.2f} -> {os.getloadavg()[0]:.2f}")
        for tree, runs in got.items():
            print(f"{tree}: wall median {statistics.median(w for w, _ in runs) * 1000:.0f} ms "
                  f"({', '.join(f'{w * 1000:.0f}' for w, _ in runs)}), CPU median "
                  f"{statistics.median(c for _, c in runs) * 1000:.0f} ms")
    finally:
        if proxy is not None:
            proxy.stop()
        lab.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
