"""Host facts in one round trip: hostname, kernel, CPUs/cores/sockets, memory, block devices and schedulers."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from planner.connection import Connection

# One POSIX sh script, no user input in it; the sandbox root comes in as $1.
_SCRIPT = r"""
root="$1"
echo "hostname=$(hostname 2>/dev/null || uname -n)"
echo "kernel=$(uname -r)"
echo "os=$(uname -s)"
echo "arch=$(uname -m)"
if [ -r "$root/etc/os-release" ]; then . "$root/etc/os-release"; echo "distribution=$PRETTY_NAME"; fi
echo "cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)"
if command -v lscpu >/dev/null 2>&1; then
  LC_ALL=C lscpu | awk -F: '/^Core\(s\) per socket/{gsub(/ /,"",$2); print "cores_per_socket="$2}
                          /^Socket\(s\)/{gsub(/ /,"",$2); print "sockets="$2}
                          /^Model name/{sub(/^ +/,"",$2); print "cpu_model="$2}'
fi
awk '/^MemTotal:/{print "mem_kb="$2}' /proc/meminfo 2>/dev/null
for q in "$root"/sys/block/*/queue/scheduler; do
  [ -r "$q" ] || continue
  d=${q%/queue/scheduler}; d=${d##*/}
  echo "scheduler.$d=$(cat "$q" 2>/dev/null)"
done
"""


@dataclass(frozen=True, slots=True)
class Facts:
    hostname: str = ""
    kernel: str = ""
    os: str = ""
    arch: str = ""
    distribution: str = ""
    cpus: int = 0
    cores: int = 0
    sockets: int = 0
    cpu_model: str = ""
    memory_gb: float = 0.0
    schedulers: dict[str, str] = field(default_factory=dict)  # device -> "[mq-deadline] none"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def gather(conn: Connection, root: str = "") -> tuple[Facts, Any]:
    """Returns the facts and the CommandResult (for the command log)."""
    r = conn.run(["sh", "-c", _SCRIPT, "sh", root])
    kv: dict[str, str] = {}
    scheds: dict[str, str] = {}
    for line in r.stdout.splitlines():
        key, _, value = line.partition("=")
        if key.startswith("scheduler."):
            scheds[key.removeprefix("scheduler.")] = value.strip()
        elif key:
            kv[key] = value.strip()

    def num(key: str) -> int:
        try:
            return int(kv.get(key, "0"))
        except ValueError:
            return 0

    sockets = num("sockets")
    facts = Facts(
        hostname=kv.get("hostname", ""), kernel=kv.get("kernel", ""), os=kv.get("os", ""), arch=kv.get("arch", ""),
        distribution=kv.get("distribution", ""), cpus=num("cpus"), cores=num("cores_per_socket") * max(sockets, 1),
        sockets=sockets, cpu_model=kv.get("cpu_model", ""), memory_gb=round(num("mem_kb") / 1024 / 1024, 2),
        schedulers=scheds)
    return facts, r
