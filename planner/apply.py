"""`planner apply` / `check` / `validate`: load and check everything first, then hand over to the runner.

Nothing touches a host until the plan, the inventory, the variables and the host patterns have all been
checked; every problem found is reported at once (exit 5).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.console import Console
from planner.errors import InputError, PlannerError, Problem
from planner.host import Host
from planner.inventory import Inventory, load_inventory, local_inventory
from planner.plan import Plan
from planner.planfile import check_plan, load_plan
from planner.templating import parse_extra_vars


@dataclass(frozen=True, slots=True)
class Loaded:
    plan: Plan
    inventory: Inventory
    extra_vars: dict[str, Any]
    play_hosts: dict[str, list[Host]]


def _split(values: list[str]) -> frozenset[str]:
    return frozenset(t.strip() for v in values for t in v.split(",") if t.strip())


def load(plan_path: Path, inventory_path: Path | None, extra: list[str], limit: str | None = None) -> Loaded:
    if not plan_path.is_file():
        raise InputError([Problem(None, "", f"{plan_path}: no such plan file", "check the path")])
    plan = load_plan(plan_path)
    problems: list[Problem] = []
    extra_vars: dict[str, Any] = {}
    try:
        extra_vars = parse_extra_vars(extra, Path.cwd())
    except InputError as e:
        problems += e.problems
    inv_path = inventory_path or plan.inventory
    try:
        inventory = load_inventory(inv_path) if inv_path else local_inventory()
    except InputError as e:
        raise InputError(problems + e.problems) from None
    problems += check_plan(plan, inventory, extra_vars)
    play_hosts: dict[str, list[Host]] = {}
    allowed: set[str] | None = None
    if limit:
        try:
            allowed = {h.name for h in inventory.select(limit)}
        except InputError as e:
            problems += [Problem(None, "--limit", p.message, p.hint) for p in e.problems]
    for play in plan.plays:
        try:
            hosts = inventory.select(play.hosts, allow_empty=allowed is not None)
        except InputError:
            hosts = []  # check_plan has already reported it with its location
        play_hosts[play.name] = [h for h in hosts if allowed is None or h.name in allowed]
    if problems:
        raise InputError(problems)
    return Loaded(plan, inventory, extra_vars, play_hosts)


def _secrets(loaded: Loaded) -> tuple[str, ...]:
    """Values that must never reach the record: passwords named by the inventory's *_password_env vars."""
    found: list[str] = []
    for h in loaded.inventory.hosts.values():
        for key, value in h.vars.items():
            if key.endswith("_password_env") and isinstance(value, str) and os.environ.get(value):
                found.append(os.environ[value])
            if key.endswith("_password_file") and isinstance(value, str) and Path(value).is_file():
                found.append(Path(value).read_text().strip())
    return tuple(found)


def apply_command(args: argparse.Namespace, argv: list[str]) -> int:
    if args.rehearse:
        from planner.rehearse import rehearse_command

        return rehearse_command(args, argv)
    loaded = load(args.plan, args.inventory, args.extra_vars, args.limit)
    console = Console(verbosity=args.verbose)
    if args.list_hosts or args.list_tasks:
        for play in loaded.plan.plays:
            console.line(f"play #{play.name} ({play.hosts}):")
            if args.list_hosts:
                for h in loaded.play_hosts[play.name]:
                    console.line(f"    {h.name}")
            if args.list_tasks:
                for s in play.steps:
                    console.line(f"    {s.section.value}: {s.title}\tTAGS: [{', '.join(sorted(s.tags))}]")
        return 0
    return execute(loaded, args, argv, console)


def execute(loaded: Loaded, args: argparse.Namespace, argv: list[str], console: Console,
            simulated: bool = False, transport_connector: Any = None) -> int:
    from planner.runner import Runner, RunOptions
    from planner.transport import TransportOptions, connector

    opts = RunOptions(check=args.check, diff=args.diff, forks=max(1, args.forks), tags=_split(args.tags),
                      skip_tags=_split(args.skip_tags), extra_vars=loaded.extra_vars, runs_dir=args.runs_dir,
                      keep_prep=args.keep_prep, simulated=simulated, argv=tuple(argv), secrets=_secrets(loaded))
    conn = transport_connector or connector(TransportOptions(
        forks=max(1, args.forks), accept_new_host_keys=args.accept_new_host_keys,
        known_hosts=args.known_hosts, ssh_config=args.ssh_config))
    console.secrets = opts.secrets
    outcome = Runner(loaded.plan, loaded.play_hosts, opts, console, conn).run()
    if outcome.record is not None:
        console.line(f"\nrun record: {outcome.record.path}")
        if not args.no_report:
            from planner.report import render_run_report

            try:
                console.line(f"report: {render_run_report(outcome.record.path, loaded.plan)}")
            except PlannerError as e:  # the measurements are safe in the record; re-render later
                console.warn(f"report not rendered: {e} (fix it, then: planner report {outcome.record.path})")
        _index(args.runs_dir, outcome.record.path, console)
    return outcome.exit_code


def _index(runs_dir: Path, run_dir: Path, console: Console) -> None:
    """Add the run's measurements to the project's SQLite store (the run folder stays the source of truth)."""
    import sqlite3

    from planner.measure import read_run
    from planner.store import open_store

    try:
        with open_store(runs_dir) as store:
            store.put_run(read_run(run_dir))
    except (PlannerError, sqlite3.Error) as e:
        console.warn(f"run not indexed in the results store: {e} (planner index rebuilds it)")


def validate_command(args: argparse.Namespace) -> int:
    problems: list[Problem] = []
    for path in args.plans:
        try:
            load(path, args.inventory, args.extra_vars)
            print(f"{path}: ok")
        except InputError as e:
            problems += e.problems
    if problems:
        raise InputError(problems)
    print(f"{len(args.plans)} plan(s) valid", file=sys.stderr)
    return 0
