"""Command line: argparse in Ansible's shape. The only module that exits; errors map to exit codes.

0 ok, 1 internal error, 2 a step failed, 4 a host unreachable, 5 bad plan/inventory/options, 99 interrupted.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from planner import __version__
from planner.errors import InputError, PlannerError, Problem

EPILOG = "exit codes: 0 ok, 1 internal error, 2 a step failed, 4 a host unreachable, 5 bad input, 99 interrupted"


def forks(text: str) -> int:
    """-f/--forks: a whole number of hosts worked on at once, at least 1 (0 or less would run nothing)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number (give 1 or more)") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n}: give 1 or more hosts worked on in parallel")
    return n


def _vault_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--vault-password-file", "--vault-pass-file", action="append", default=[], metavar="FILE",
                   help="vault password file (an executable one is run and prints it); default "
                        "$ANSIBLE_VAULT_PASSWORD_FILE")
    p.add_argument("--vault-id", action="append", default=[], metavar="[LABEL@]SOURCE",
                   help="a vault password for vault id LABEL from a file, a script or 'prompt' (repeatable)")
    p.add_argument("-J", "--ask-vault-password", "--ask-vault-pass", dest="ask_vault_pass", action="store_true",
                   help="ask for the vault password")


def _run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("plan", type=Path, nargs="?", help="the plan file (YAML); with --resume, optional")
    p.add_argument("-i", "--inventory", type=Path, action="append",
                   help="inventory file or directory; repeat to merge several (default: the plan's inventory:)")
    p.add_argument("-l", "--limit", help="further limit hosts with a pattern (a:b, a:&b, a:!b)")
    p.add_argument("-t", "--tags", action="append", default=[], help="only steps with these tags (comma list)")
    p.add_argument("--skip-tags", action="append", default=[], help="skip steps with these tags")
    p.add_argument("-e", "--extra-vars", action="append", default=[], metavar="VARS",
                   help="k=v, JSON/YAML text, or @file.yaml; highest precedence")
    p.add_argument("-C", "--check", action="store_true", help="predict ok/changed; change nothing")
    p.add_argument("-D", "--diff", action="store_true", help="show before/after of what changes")
    p.add_argument("-f", "--forks", type=forks, default=5, help="hosts worked on in parallel (default 5)")
    p.add_argument("-v", "--verbose", action="count", default=0, help="more output (-vv, -vvv)")
    p.add_argument("--runs-dir", type=Path, default=Path("runs"), help="where run records go (default ./runs)")
    p.add_argument("--store", metavar="URL", help="results store the run is pushed to at the end "
                   "(sqlite:///path or postgresql://user@host:5432/db; default $PLANNER_STORE, else RUNS_DIR/planner.sqlite)")
    p.add_argument("--keep-prep", action="store_true", help="leave host prep in place after the run")
    p.add_argument("--accept-new-host-keys", action="store_true",
                   help="accept and record unknown SSH host keys (changed keys are always refused)")
    p.add_argument("--known-hosts", type=Path, help="known_hosts file (default ~/.ssh/known_hosts)")
    p.add_argument("--ssh-config", type=Path, help="ssh config file (default ~/.ssh/config)")
    p.add_argument("--list-hosts", action="store_true", help="list the hosts each play targets, then stop")
    p.add_argument("--list-tasks", action="store_true", help="list the steps of each play, then stop")
    p.add_argument("--rehearse", action="store_true",
                   help="run the plan on simulated copies of its hosts on this machine (no lab needed)")
    p.add_argument("--no-report", action="store_true", help="do not render the report at the end")
    p.add_argument("--resume", metavar="RUN",
                   help="finish a run whose controller died (a run folder or id under --runs-dir): points "
                        "already done are not run again; results go to the same run folder")
    p.add_argument("--break-stale-lock", action="store_true",
                   help="take a host whose lock was left by a run whose controller process is gone")
    p.add_argument("--syntax-check", action="store_true",
                   help="check the plan and inventory as `planner validate` does, then stop (no host is touched)")
    _vault_options(p)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="planner", description="Run storage and database benchmark plans.",
                                 epilog=EPILOG)
    ap.add_argument("--version", action="version", version=f"planner {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)
    _run_options(sub.add_parser("apply", help="run a plan", epilog=EPILOG))
    _run_options(sub.add_parser("check", help="same as apply --check", epilog=EPILOG))
    v = sub.add_parser("validate", help="check plans (syntax, schema, variables, inventory) without any host")
    v.add_argument("plans", type=Path, nargs="+")
    v.add_argument("-i", "--inventory", type=Path, action="append", help="inventory file or directory (repeatable)")
    v.add_argument("-e", "--extra-vars", action="append", default=[])
    _vault_options(v)
    sub.add_parser("schema", help="print the plan JSON Schema (for editors)")
    inv = sub.add_parser("inventory", help="show an inventory as ansible-inventory does")
    inv.add_argument("-i", "--inventory", type=Path, action="append", required=True,
                     help="inventory file or directory (repeatable)")
    g = inv.add_mutually_exclusive_group(required=True)
    g.add_argument("--list", action="store_true")
    g.add_argument("--graph", action="store_true")
    _vault_options(inv)
    ps = sub.add_parser("parse", help="read benchmark outputs (AWR, Statspack, ORION, fio, SLB, iozone, ...)")
    ps.add_argument("files", type=Path, nargs="+")
    ps.add_argument("--format", choices=("table", "json", "csv"), default="table")
    rs = sub.add_parser("restore", help="undo a run's host prep from its record (after a controller crash)")
    rs.add_argument("run", help="the run folder, or its run id under --runs-dir")
    rs.add_argument("--runs-dir", type=Path, default=Path("runs"), help="where run records are (default ./runs)")
    rs.add_argument("--accept-new-host-keys", action="store_true",
                    help="accept and record unknown SSH host keys (changed keys are always refused)")
    rs.add_argument("--known-hosts", type=Path, help="known_hosts file (default: the one the run used)")
    rs.add_argument("--ssh-config", type=Path, help="ssh config file (default: the one the run used)")
    rs.add_argument("-f", "--forks", type=forks, default=5)
    from planner.cli.analyze import add_analyze_command
    from planner.cli.results import add_result_commands

    add_analyze_command(sub)
    add_result_commands(sub)
    return ap


def _problems_out(err: InputError) -> None:
    from planner.engine.console import escape_controls

    for p in err.problems:  # problems quote input (store rows, file names): control bytes shown, not sent
        print(f"ERROR! {escape_controls(str(p))}", file=sys.stderr)
    n = len(err.problems)
    print(f"planner: {n} problem{'s' if n != 1 else ''} found; nothing was run", file=sys.stderr)


def _on_sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # the runner treats it like Ctrl-C: stop remote work, restore prep, exit 99


def _sigterm_as_interrupt() -> None:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(args_list)
    except SystemExit as e:  # argparse already printed the usage error
        return 5 if e.code not in (0, None) else 0
    try:
        return _dispatch(args, args_list)
    except InputError as e:
        _problems_out(e)
        return 5
    except KeyboardInterrupt:
        print("planner: interrupted", file=sys.stderr)
        return 99
    except PlannerError as e:
        from planner.engine.console import escape_controls

        print(f"ERROR! {escape_controls(str(e))}", file=sys.stderr)
        return e.exit_code
    except BrokenPipeError:
        return 0
    except OSError as e:  # a file planner reads or writes on this controller failed: said in words, exit 1
        where = f"{e.filename}: " if e.filename else ""
        print(f"ERROR! {where}{e.strerror or e}", file=sys.stderr)
        return 1


def _ssh_options_of_the_run(args: argparse.Namespace) -> None:
    """``planner restore RUN`` reaches the hosts as the run did: its --known-hosts and --ssh-config (read back
    from meta.json's argv, relative to where it was started) unless given again here."""
    from planner.engine.runrecord import load_meta

    meta = load_meta(args.run)
    try:
        old = build_parser().parse_args([str(a) for a in meta.get("argv") or []])
    except SystemExit:
        return  # a command line this version cannot read: the options given here (or the defaults) apply
    cwd = Path(str(meta.get("cwd") or "."))
    for key in ("known_hosts", "ssh_config"):
        recorded = getattr(old, key, None)
        if getattr(args, key) is None and recorded is not None:
            setattr(args, key, recorded if recorded.is_absolute() else cwd / recorded)


def _vault_keys(args: argparse.Namespace) -> None:
    """The vault passwords, read (or asked) once, before any inventory: handed down as args.vault."""
    import getpass

    from planner.inventory.vault import NO_KEYS
    from planner.inventory.vault_ids import VaultOptions, vault_keys

    if not hasattr(args, "vault_id"):  # a command without vault flags (parse, report, ...)
        args.vault = NO_KEYS
        return
    options = VaultOptions(tuple(args.vault_password_file), tuple(args.vault_id), args.ask_vault_pass)
    args.vault = vault_keys(options, getpass.getpass)


def _warn(warnings: Sequence[str]) -> None:
    for text in warnings:
        print(f"[WARNING]: {text}", file=sys.stderr)


def _dispatch(args: argparse.Namespace, argv: list[str]) -> int:
    cmd = args.command  # plugins (docs/plugins.md) load lazily: for the kinds a plan names, or all for `schema`
    _vault_keys(args)
    if cmd in ("apply", "check") and args.syntax_check:  # ansible-playbook's word for `planner validate`
        from planner.cli.apply import validate_command

        if args.plan is None:
            raise InputError([Problem(None, "", "no plan file given", "planner apply --syntax-check PLAN")])
        args.plans = [args.plan]
        return validate_command(args)
    if cmd in ("apply", "check"):
        from planner.cli.apply import apply_command

        if cmd == "check":
            args.check = True
        _sigterm_as_interrupt()
        return apply_command(args, argv)
    if cmd == "validate":
        from planner.cli.apply import validate_command

        return validate_command(args)
    if cmd == "schema":
        from planner.plan.schema import plan_schema
        from planner.steps import load_plugins

        broken: list[str] = []
        load_plugins(errors=broken)  # the schema is printed without a broken plugin's kind, and says so
        for why in broken:
            print(f"[WARNING]: {why}; its kind is left out of the schema", file=sys.stderr)
        print(json.dumps(plan_schema(), indent=2))
        return 0
    if cmd == "inventory":
        from planner.inventory.graph import ansible_graph, ansible_list, load_inventory

        inv = load_inventory(args.inventory, args.vault)
        _warn(inv.warnings)
        print(ansible_graph(inv) if args.graph else json.dumps(ansible_list(inv), indent=4, sort_keys=True))
        return 0
    if cmd == "parse":
        from planner.cli.parse import check_input_files, run_parse

        check_input_files(list(args.files))
        return run_parse(list(args.files), args.format, sys.stdout)
    if cmd == "analyze":
        from planner.cli.analyze import analyze_command

        return analyze_command(args, sys.stdout)
    if cmd == "restore":
        from planner.cli.results import resolve_run
        from planner.engine.console import Console
        from planner.engine.restore import restore_run

        args.run = resolve_run(str(args.run), args.runs_dir)
        _ssh_options_of_the_run(args)
        return restore_run(args.run, Console(), forks=args.forks, accept_new_host_keys=args.accept_new_host_keys,
                           known_hosts=args.known_hosts, ssh_config=args.ssh_config)
    from planner.cli.results import dispatch_result_command

    return dispatch_result_command(args)
