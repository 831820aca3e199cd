"""`planner restore RUN`: undo a run's prep from its record, e.g. after the controller was killed.

restore.json holds each prep step's original state, written before the step changed anything; entries
already reverted are skipped, so restore is idempotent and may be run again after a partial failure.
First it stops what the dead controller left running on the hosts (planner.transport.remote_procs), and it refuses
while that controller still runs; last it releases the host locks the run still holds.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from pathlib import Path
from typing import Any

from planner.engine.console import Console
from planner.engine.execute import ExecSettings, HostState, revert_step
from planner.engine.hostlock import read_holder, release_lock
from planner.engine.runrecord import utc_now, write_json
from planner.errors import InputError, PlannerError, Problem
from planner.host import Host
from planner.status import Status, StepResult, exit_code, recap
from planner.transport.remote_procs import running_dir, stop_leftovers


def hosts_from_meta(meta: dict[str, Any]) -> dict[str, Host]:
    out = {}
    for name, h in meta.get("hosts", {}).items():
        hv = {"planner_root": h.get("planner_root", "")}
        out[name] = Host(name=name, address=h["address"], port=h.get("port"), user=h.get("user"),
                         key_file=Path(h["key_file"]) if h.get("key_file") else None,
                         connection=h.get("connection", "ssh"), become=h.get("become", False),
                         become_user=h.get("become_user", "root"), groups=tuple(h.get("groups", ())),
                         vars={k: v for k, v in hv.items() if v} | (
                             {"planner_known_hosts": h["known_hosts"]} if h.get("known_hosts") else {}))
    return out


def restore_run(run_dir: Path, console: Console, *, forks: int = 5, accept_new_host_keys: bool = False,
                known_hosts: Path | None = None, ssh_config: Path | None = None) -> int:
    meta_path, restore_path = run_dir / "meta.json", run_dir / "restore.json"
    if not meta_path.is_file():
        raise InputError([Problem(None, "", f"{run_dir}: not a run folder (no meta.json)",
                                  "give the path of a folder under runs/")])
    meta = json.loads(meta_path.read_text())
    entries: list[dict[str, Any]] = json.loads(restore_path.read_text()) if restore_path.is_file() else []
    pending = [e for e in reversed(entries) if not e.get("reverted")]
    remote: dict[str, dict[str, str]] = dict(meta.get("remote") or {})  # workdir and lock per host
    if not pending and not remote:
        console.line(f"{run_dir.name}: nothing to restore")
        return 0
    from planner.transport.connect import TransportOptions, connect

    hosts = hosts_from_meta(meta)
    needed = [hosts[n] for n in dict.fromkeys([*remote, *(e["host"] for e in pending)]) if n in hosts]
    conns = connect(needed, TransportOptions(forks=forks, accept_new_host_keys=accept_new_host_keys,
                                             known_hosts=known_hosts, ssh_config=ssh_config))
    states = {n: HostState(hosts[n], c if not isinstance(c, Exception) else None,
                           unreachable=isinstance(c, Exception)) for n, c in conns.items()}
    try:
        results = _stop_leftovers(run_dir.name, remote, states, console)
        settings = ExecSettings(False, True, run_dir)
        for e in pending:
            hs = states.get(e["host"])
            console.banner("RESTORE", e["title"])
            if hs is None or hs.conn is None:
                r = StepResult(e["step"], f"restore {e['title']}", e["host"], Status.UNREACHABLE,
                               str(conns.get(e["host"], "host not in the run record")))
            else:
                r = revert_step(e["step"], e["title"], e["kind"], e["args"], e["saved"], hs, settings, None,
                                run_dir)
                e["reverted"] = r.status in (Status.OK, Status.CHANGED)
            results.append(r)
            console.result(r)
            write_json(restore_path, entries)
        for name, where in remote.items():  # the dead run's lock: only ever ours (release_lock checks the id)
            hs = states.get(name)
            if hs is not None and hs.conn is not None and where.get("lock"):
                with contextlib.suppress(PlannerError):
                    release_lock(hs.conn, where["lock"], run_dir.name,
                                 running_dir(where["workdir"]) if where.get("workdir") else "")
    finally:
        for hs in states.values():
            if hs.conn is not None:
                hs.conn.close()
    stats = recap(results)
    console.recap(stats)
    meta.setdefault("restores", []).append({"time": utc_now(), "pending": len(pending),
                                            "done": sum(1 for e in pending if e.get("reverted"))})
    if meta.get("status") == "running":  # its controller died (it was checked not to be running)
        meta.update(status="interrupted", interrupted_phase="controller killed", ended=meta.get("ended") or utc_now())
    write_json(meta_path, meta)
    return int(exit_code(stats))


def _stop_leftovers(run_id: str, remote: dict[str, dict[str, str]], states: dict[str, HostState],
                    console: Console) -> list[StepResult]:
    """Before reverting prep, stop what the dead controller left running (its workload would undo the
    restore or measure a host being restored). A controller that still runs is not interfered with."""
    out: list[StepResult] = []
    for name, where in remote.items():
        hs = states.get(name)
        if hs is None or hs.conn is None:
            continue
        holder = read_holder(hs.conn, where["lock"]) if where.get("lock") else None
        if holder is not None and holder.run_id == run_id and holder.alive():
            raise PlannerError(f"run {run_id} is still running (controller {holder.controller} pid {holder.pid})",
                               hint="stop it with Ctrl-C or SIGTERM: it restores the hosts itself")
        stopped = stop_leftovers(hs.conn, where["workdir"]) if where.get("workdir") else []
        if stopped:
            r = StepResult("restore", "Stopping what the dead controller left running", name, Status.CHANGED,
                           "; ".join(stopped))
            out.append(r)
            console.result(r)
    return out


def restore_command(args: argparse.Namespace) -> int:
    return restore_run(args.run, Console(), forks=args.forks, accept_new_host_keys=args.accept_new_host_keys,
                       known_hosts=args.known_hosts, ssh_config=args.ssh_config)
