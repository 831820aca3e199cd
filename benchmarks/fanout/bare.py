"""The bare limit: the benchmark's host prep with one paramiko connection per host, in the fewest round trips.

Usage: python bare.py INVENTORY.yml OUT_DIR

One thread per host: open a TCP_NODELAY socket, hand it to paramiko (host key checked against the lab's
known_hosts), then ONE exec that gathers facts, reads the 4 schedulers, sets those not on ``none``, runs
``uname -a`` and prints the current init.ora and the result file. A second exec writes init.ora only when its
content differs (cold runs). Prints ``changed=<hosts with a change>`` and exits non-zero if a host failed.

This is a measuring stick, not part of planner (paramiko is imported here, outside planner/, on purpose).
"""

from __future__ import annotations

import shlex
import socket
import sys
import threading
from pathlib import Path

import jinja2
import paramiko
import yaml

DEVICES = ("sdb", "sdc", "sdd", "sde")
TEMPLATE = Path(__file__).parent / "templates" / "init_bench.ora.j2"
VARS = {"cpu_count": 16, "db_recycle_cache_size": "64M"}
SEP = "\n--planner-bare--\n"

# $1 = sandbox root, then device names. Everything the host must tell us, in one go.
SCRIPT = r"""
root=$1; shift
echo "hostname=$(hostname)"; echo "cpus=$(getconf _NPROCESSORS_ONLN)"
awk '/^MemTotal:/{print "mem_kb="$2}' /proc/meminfo
changed=0
for d in "$@"; do
  q="$root/sys/block/$d/queue/scheduler"
  s=$(cat "$q") || exit 3
  case "$s" in *"[none]"*|none) ;; *) echo none > "$q" || exit 4; changed=1 ;; esac
done
echo "sched_changed=$changed"
printf '%s' '--planner-bare--'; echo
uname -a
printf '%s' '--planner-bare--'; echo
cat "$root/tmp/init_bench.ora" 2>/dev/null
printf '\n%s' '--planner-bare--'; echo
cat "$root/tmp/result.txt"
"""
WRITE = 'cat > "$1.tmp" && chmod 0644 "$1.tmp" && mv -f "$1.tmp" "$1"'


def _exec(client: paramiko.SSHClient, command: str, stdin: bytes = b"") -> str:
    chan = client.get_transport().open_session()  # type: ignore[union-attr]
    chan.exec_command(command)
    if stdin:
        chan.sendall(stdin)
    chan.shutdown_write()
    out = bytearray()
    while data := chan.recv(1 << 16):
        out += data
    err = chan.makefile_stderr("rb").read()
    rc = chan.recv_exit_status()
    chan.close()
    if rc != 0:
        raise RuntimeError(f"exit {rc}: {err.decode(errors='replace').strip()}")
    return out.decode()


def one_host(name: str, hv: dict[str, object], want: str, out_dir: Path, changed: list[str],
             failed: list[str]) -> None:
    try:
        sock = socket.create_connection((str(hv["ansible_host"]), int(str(hv["ansible_port"]))), timeout=10)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        client = paramiko.SSHClient()
        client.load_host_keys(str(hv["planner_known_hosts"]))
        client.set_missing_host_key_policy(paramiko.RejectPolicy())
        client.connect(str(hv["ansible_host"]), int(str(hv["ansible_port"])), username=str(hv["ansible_user"]),
                       key_filename=str(hv["ansible_ssh_private_key_file"]), sock=sock, allow_agent=False,
                       look_for_keys=False)
        try:
            root = str(hv["planner_root"])
            out = _exec(client, shlex.join(["sh", "-c", SCRIPT, "sh", root, *DEVICES]))
            facts, _uname, have, result = out.split(SEP)
            host_changed = "sched_changed=1" in facts
            if have != want:
                dest = f"{root}/tmp/init_bench.ora"
                _exec(client, shlex.join(["sh", "-c", WRITE, "sh", dest]), want.encode())
                host_changed = True
            (out_dir / f"{name}-result.txt").write_text(result)
            if host_changed:
                changed.append(name)
        finally:
            client.close()
    except Exception as e:  # a measuring script: report and count the failure
        failed.append(f"{name}: {type(e).__name__}: {e}")


def main(argv: list[str]) -> int:
    inventory, out_dir = Path(argv[0]), Path(argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    hosts = yaml.safe_load(inventory.read_text())["all"]["hosts"]
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    want = env.from_string(TEMPLATE.read_text()).render(VARS)
    changed: list[str] = []
    failed: list[str] = []
    threads = [threading.Thread(target=one_host, args=(n, hv, want, out_dir, changed, failed))
               for n, hv in hosts.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"hosts={len(hosts)} changed={len(changed)} failed={len(failed)}")
    for f in failed:
        print(f, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
