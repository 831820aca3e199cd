"""Host facts in one round trip: hostname, kernel, CPUs/cores/sockets, memory, block devices and schedulers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from planner.transport import hostprograms
from planner.transport.connection import CommandResult, Connection

# One POSIX sh script, no user input in it; the sandbox root comes in as $1.
_SCRIPT = r"""
root="$1"
# Few processes on purpose (awk only): on a busy lab host every fork is a measurable share of the round trip.
# Linux gives uname's four fields as files (hostname per UTS namespace, as uname -n; arch not on every
# kernel): read with builtins; elsewhere uname.
k=/proc/sys/kernel
if [ -r $k/arch ] && read -r s <$k/ostype && read -r h <$k/hostname && read -r r <$k/osrelease && read -r m <$k/arch
then set -- "$s" "$h" "$r" "$m"
else set -- $(uname -nrsm)
fi
echo "hostname=$2"; echo "kernel=$3"; echo "os=$1"; echo "arch=$4"
# Every line printed starts with its key (the batch passes them through unencoded: none may start with "#"), so
# a PRETTY_NAME quoted across lines keeps its first.
if [ -r "$root/etc/os-release" ]; then
  . "$root/etc/os-release"; p=${PRETTY_NAME%%"
"*}; echo "distribution=$p"
fi
awk -F: '
  FILENAME == "/proc/cpuinfo" && /^processor/ { cpus++ }
  FILENAME == "/proc/cpuinfo" && /^physical id/ { ids[$2] = 1 }
  FILENAME == "/proc/cpuinfo" && /^cpu cores/ { gsub(/ /, "", $2); cores = $2 }
  FILENAME == "/proc/cpuinfo" && /^model name/ && !model { model = $2; sub(/^ +/, "", model) }
  FILENAME == "/proc/meminfo" && /^MemTotal:/ { split($2, m, " "); mem = m[1] }
  END {
    n = 0; for (i in ids) n++
    print "cpus=" cpus; print "sockets=" (n ? n : 1); print "cores_per_socket=" (cores ? cores : cpus)
    print "cpu_model=" model; print "mem_kb=" mem
  }' /proc/cpuinfo /proc/meminfo 2>/dev/null
for q in "$root"/sys/block/*/queue/scheduler; do
  [ -r "$q" ] || continue
  d=${q%/queue/scheduler}; d=${d##*/}
  read -r line < "$q" && echo "scheduler.$d=$line"
done
""" + hostprograms.CHECK


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
    missing: tuple[str, ...] = ()  # programs planner runs on every host that this one lacks (hostprograms)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def script() -> str:
    """The facts script's text ($1: the sandbox root), for a host-side batch that runs it among other sections."""
    return _SCRIPT


# Ends the output of a script run before the facts in the same round trip (see gather_after).
_MARK = "--planner-facts--"


def gather(conn: Connection, root: str = "") -> tuple[Facts, Any]:
    """Returns the facts and the CommandResult (for the command log)."""
    r = conn.run(["sh", "-c", _SCRIPT, "sh", root])
    return parse(r.stdout), r


def gather_after(conn: Connection, root: str, prelude: str,
                 args: Sequence[str]) -> tuple[Facts, CommandResult, str | None]:
    """Run ``prelude`` (a fixed script taking ``args`` as $1..$n; it must not ``exit``), then gather the facts,
    in ONE round trip (each costs the host an sshd session and 3-4 process starts): returns the facts, the
    CommandResult and what the prelude printed (e.g. the host lock's reply; None when the output was cut short)."""
    script = f'{prelude}\nprintf \'\\n%s\\n\' {_MARK}\nshift {len(args)}\n{_SCRIPT}'
    r = conn.run(["sh", "-c", script, "sh", *args, root])
    before, mark, after = r.stdout.rpartition(f"\n{_MARK}\n")
    return parse(after), r, before if mark else None


def parse(stdout: str) -> Facts:
    """The facts script's ``key=value`` lines as Facts."""
    kv: dict[str, str] = {}
    scheds: dict[str, str] = {}
    missing: list[str] = []
    for line in stdout.splitlines():
        key, _, value = line.partition("=")
        if key == "missing":
            missing.append(value.strip())
        elif key.startswith("scheduler."):
            scheds[key.removeprefix("scheduler.")] = value.strip()
        elif key:
            kv[key] = value.strip()

    def num(key: str) -> int:
        try:
            return int(kv.get(key, "0"))
        except ValueError:
            return 0

    sockets = num("sockets")
    return Facts(
        hostname=kv.get("hostname", ""), kernel=kv.get("kernel", ""), os=kv.get("os", ""), arch=kv.get("arch", ""),
        distribution=kv.get("distribution", ""), cpus=num("cpus"), cores=num("cores_per_socket") * max(sockets, 1),
        sockets=sockets, cpu_model=kv.get("cpu_model", ""), memory_gb=round(num("mem_kb") / 1024 / 1024, 2),
        schedulers=scheds, missing=tuple(missing))
