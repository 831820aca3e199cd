"""The fan-out benchmark's host prep for pyinfra: the same work as plan.yaml, playbook.yml and bare.py.

Run by bench.py as: pyinfra -y --parallel N inventory_pyinfra.py deploy.py (FANOUT_FETCH_DIR set).
Facts are read while pyinfra prepares the deploy; operations only where something differs.
"""

from __future__ import annotations

import os

from pyinfra import host
from pyinfra.facts.hardware import Cpus, Memory
from pyinfra.facts.server import Command, Hostname
from pyinfra.operations import files, server

DEVICES = ("sdb", "sdc", "sdd", "sde")
root = host.data.planner_root
fetch_dir = os.environ.get("FANOUT_FETCH_DIR", "/tmp/fanout-fetch")

# gather facts
host.get_fact(Hostname)
host.get_fact(Cpus)
host.get_fact(Memory)

# read the I/O scheduler of the 4 devices; set none only where it differs
for dev in DEVICES:
    path = f"{root}/sys/block/{dev}/queue/scheduler"
    current = host.get_fact(Command, f"cat {path}")
    if "[none]" not in current and current.strip() != "none":
        server.shell(name=f"I/O scheduler none on {dev}", commands=[f"echo none > {path}"])

files.template(name="init.ora fragment", src=os.path.join(os.path.dirname(__file__), "templates/init_bench.ora.j2"),
               dest=f"{root}/tmp/init_bench.ora", mode="644", cpu_count=16, db_recycle_cache_size="64M")
server.shell(name="kernel", commands=["uname -a"])
files.get(name="fetch the result file", src=f"{root}/tmp/result.txt",
          dest=f"{fetch_dir}/{host.name}-result.txt")
