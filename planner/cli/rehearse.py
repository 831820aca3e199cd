"""``planner apply --rehearse PLAN``: the whole plan on simulated copies of its hosts, on this machine.

Each inventory host the plan targets gets a sandbox (its "/"): a fake sysfs and /dev with the devices the
inventory declares, the Oracle stand-ins in its ORACLE_HOME, a stand-in SLOB kit and ORION where the plan
uses them. The sandboxes are reached over real sshd processes on loopback when OpenSSH is installed (the
same builder as the test suite's lab), else over the local transport. fio and the SLB-compatible kit run
for real. Everything simulated is labelled so in the run record and the report.
"""

from __future__ import annotations

import argparse
import getpass
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from planner.cli.apply import Loaded, execute, load
from planner.engine.console import Console
from planner.errors import InputError
from planner.host import Host
from planner.rehearsal import preflight
from planner.rehearsal.sandbox import populate
from planner.steps import REGISTRY


def _needs_oracle(loaded: Loaded) -> set[str]:
    """Hosts of plays with a step whose kind needs a database (StepType.needs_database): they get the stand-ins."""
    hosts: set[str] = set()
    for play in loaded.plan.plays:
        if any(s.kind in REGISTRY and REGISTRY[s.kind].needs_database for s in play.steps):
            hosts |= {h.name for h in loaded.play_hosts[play.name]}
    return hosts


def _sim_vars(host: Host, root: Path) -> dict[str, Any]:
    v = {k: val for k, val in host.vars.items() if not k.startswith("ansible_")}
    v.pop("oracle_user", None)  # the sandbox user runs the Oracle stand-ins itself (no sudo to oracle)
    v["planner_root"] = str(root)
    v["planner_simulated"] = True
    return v


def build_hosts(loaded: Loaded, pf: preflight.Preflight, base: Path, console: Console) -> tuple[dict[str, Host], Any]:
    """Sandboxes for every targeted host; returns simulated Hosts by name and the lab (or None)."""
    names = sorted({h.name for hs in loaded.play_hosts.values() for h in hs})
    originals = {h.name: h for hs in loaded.play_hosts.values() for h in hs}
    oracle_hosts = _needs_oracle(loaded)
    from planner.rehearsal.lab import LabError, build_lab, sshd_available

    lab = None
    # PLANNER_REHEARSE_TRANSPORT=local skips sshd even where OpenSSH is installed (what a fresh machine does).
    reason = "PLANNER_REHEARSE_TRANSPORT=local" if os.environ.get("PLANNER_REHEARSE_TRANSPORT") == "local" else (
        sshd_available())
    if reason is None:
        try:
            lab = build_lab(base / "lab", len(names), names=names)
        except LabError as e:
            reason = str(e)
    sims: dict[str, Host] = {}
    for name in names:
        orig = originals[name]
        if lab is not None:
            lh = lab.host(name)
            root = lab.sandbox(name)
            sims[name] = replace(lh, vars={**_sim_vars(orig, root), **lh.vars}, groups=orig.groups,
                                 become=False)
        else:
            root = base / "hosts" / name
            root.mkdir(parents=True, exist_ok=True)
            sims[name] = Host(name=name, address="localhost", connection="local", groups=orig.groups,
                              vars=_sim_vars(orig, root))
        populate(root, sims[name], devices=pf.devices.get(name, set()), kits=pf.kits.get(name, {}),
                 oracle=name in oracle_hosts, files=pf.files.get(name, set()))
    how = "real sshd on loopback" if lab is not None else f"the local transport ({reason})"
    console.line(f"[REHEARSAL] {len(names)} simulated host(s) reached over {how}; sandboxes under {base}")
    return sims, lab


def rehearse_command(args: argparse.Namespace, argv: list[str]) -> int:
    loaded = load(args.plan, args.inventory, args.extra_vars, args.limit)
    console = Console(verbosity=args.verbose)
    pf = preflight.check(loaded.plan, loaded.play_hosts, loaded.extra_vars)
    if pf.errors:
        raise InputError(pf.errors)
    for line in preflight.describe(pf):
        console.line(line)
    base = Path(tempfile.mkdtemp(prefix="planner-rehearsal-"))
    lab = None
    try:
        sims, lab = build_hosts(loaded, pf, base, console)
        play_hosts: Mapping[str, list[Host]] = {p: [sims[h.name] for h in hs] for p, hs in loaded.play_hosts.items()}
        sim_loaded = Loaded(loaded.plan, loaded.inventory, loaded.extra_vars, dict(play_hosts))
        return execute(sim_loaded, args, argv, console, simulated=True)
    finally:
        if lab is not None:
            lab.stop()
        shutil.rmtree(base, ignore_errors=True)


def current_user() -> str:
    return getpass.getuser()
