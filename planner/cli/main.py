"""Command line: argparse in Ansible's shape. The only module that exits; errors map to exit codes.

0 ok, 1 internal error, 2 a step failed, 4 a host unreachable, 5 bad plan/inventory/options, 99 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from planner import signals
from planner.cli.parser import parser_for
from planner.errors import InputError, PlannerError, Problem
from planner.status import ExitCode


def _problems_out(err: InputError) -> None:
    from planner.engine.console import escape_controls

    for p in err.problems:  # problems quote input (store rows, file names): control bytes shown, not sent
        print(f"ERROR! {escape_controls(str(p))}", file=sys.stderr)
    n = len(err.problems)
    print(f"planner: {n} problem{'s' if n != 1 else ''} found; nothing was run", file=sys.stderr)


def _on_signal(signum: int, frame: object) -> None:
    signals.received()  # remembered: raised inside a weakref callback, the exception below is lost
    raise KeyboardInterrupt  # the runner treats SIGTERM like Ctrl-C: stop remote work, restore prep, exit 99


@contextlib.contextmanager
def _signals_as_interrupt() -> Iterator[None]:
    """While a verb runs; the caller's handlers come back after (``main`` called in-process, as tests do)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT), sys.unraisablehook
    signal.signal(signal.SIGTERM, _on_signal)
    # as ansible-playbook's TaskQueueManager: Ctrl-C interrupts even when the shell started us with SIGINT
    # ignored (`planner apply ... &` in a script), where Python would otherwise never raise KeyboardInterrupt
    signal.signal(signal.SIGINT, _on_signal)
    if sys.unraisablehook is sys.__unraisablehook__:  # a test's own hook stays
        sys.unraisablehook = _quiet_lost_interrupts
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before[0])
        signal.signal(signal.SIGINT, before[1])
        sys.unraisablehook = before[2]
        signals.acknowledged()


def _quiet_lost_interrupts(unraisable: sys.UnraisableHookArgs) -> None:
    """A KeyboardInterrupt Python had to drop (raised in a weakref callback or ``__del__``) is remembered by
    planner.signals and obeyed later: no "Exception ignored" traceback for it. Anything else as Python says."""
    if unraisable.exc_type is not KeyboardInterrupt:
        sys.__unraisablehook__(unraisable)


def _forget_caught_interrupts() -> None:
    """CPython marks a Ctrl-C that passed through exec() of source text (dataclasses build their methods so, at
    an import) as unhandled even when planner caught it, and ``python -m planner`` then dies by SIGINT (-2)
    instead of exiting 99 (Python/pythonrun.c, run_eval_code_obj; Modules/main.c, pymain_run_module). Running
    any source text clears that mark."""
    exec("pass")  # noqa: S102 - fixed text: its only effect is clearing the mark


def main(argv: Sequence[str] | None = None) -> ExitCode:
    try:
        return _main(argv)
    finally:
        _forget_caught_interrupts()


def _main(argv: Sequence[str] | None) -> ExitCode:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = parser_for(args_list)
    try:
        args = parser.parse_args(args_list)
    except SystemExit as e:  # argparse already printed the usage error; ansible-playbook exits 2 there too
        return ExitCode.BAD_OPTION if e.code not in (0, None) else ExitCode.OK
    if getattr(args, "forks", 1) < 1:  # a value, not a usage error: exit 5 as ansible's AnsibleOptionsError
        _problems_out(InputError([Problem(None, "-f/--forks", f"{args.forks}: give 1 or more hosts worked on "
                                          "in parallel", "e.g. -f 5 (the default)")]))
        return ExitCode.BAD_INPUT
    with _signals_as_interrupt():  # every verb: a SIGTERM is obeyed as Ctrl-C is, exit 99 (apply restores first)
        return _run_verb(args, args_list)


def _run_verb(args: argparse.Namespace, args_list: list[str]) -> ExitCode:
    try:
        code = _dispatch(args, args_list)
        signals.raise_pending()  # a Ctrl-C Python swallowed late in the verb is still an interrupted run
        return code
    except InputError as e:
        _problems_out(e)
        return ExitCode.BAD_INPUT
    except KeyboardInterrupt:
        signals.acknowledged()
        print("planner: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except PlannerError as e:
        from planner.engine.console import escape_controls

        print(f"ERROR! {escape_controls(str(e))}", file=sys.stderr)
        return e.exit_code
    except BrokenPipeError:
        return ExitCode.OK
    except OSError as e:  # a file planner reads or writes on this controller failed: said in words, exit 1
        where = f"{e.filename}: " if e.filename else ""
        print(f"ERROR! {where}{e.strerror or e}", file=sys.stderr)
        return ExitCode.ERROR


def _ssh_options_of_the_run(args: argparse.Namespace) -> None:
    """``planner restore RUN`` reaches the hosts as the run did: its --known-hosts and --ssh-config (read back
    from meta.json's argv, relative to where it was started) unless given again here, and only for a run made
    on this controller (planner.engine.origin): a received or pulled folder's argv is data, never options."""
    from planner.engine.origin import made_here
    from planner.results.runfolder import read_meta_object

    raw = read_meta_object(args.run)
    if not made_here(raw):
        return  # restore_run refuses to reach its hosts at all
    argv, cwd = raw.get("argv"), Path(str(raw.get("cwd") or "."))
    try:
        line = [str(a) for a in argv] if isinstance(argv, list) else []
        old = parser_for(line).parse_args(line)
    except SystemExit:
        return  # a command line this version cannot read: the options given here (or the defaults) apply
    for key in ("known_hosts", "ssh_config"):
        recorded = getattr(old, key, None)
        if getattr(args, key) is None and recorded is not None:
            setattr(args, key, recorded if recorded.is_absolute() else cwd / recorded)


def _no_transport_files_in_run_folders(args: argparse.Namespace) -> None:
    from planner.engine.origin import transport_file_problems

    problems = transport_file_problems({k: getattr(args, k, None) for k in ("known_hosts", "ssh_config")})
    if problems:
        raise InputError(problems)


def _vault_keys(args: argparse.Namespace) -> None:
    """The vault passwords, read (or asked) once, before any inventory: handed down as args.vault."""
    from planner.inventory.vault import NO_KEYS

    if not hasattr(args, "vault_id") or not _vault_asked(args):  # no vault flags (parse, report, ...) or none given
        args.vault = NO_KEYS
        return
    from planner.inventory.vault_ids import VaultOptions, vault_keys  # here: most command lines name no vault

    options = VaultOptions(tuple(args.vault_password_file), tuple(args.vault_id), args.ask_vault_pass)
    args.vault = vault_keys(options, _ask_password)


# planner.inventory.vault_ids' ENV_FILE, ENV_IDS and ENV_MATCH (a test holds them equal): any of them set, or a
# vault flag given, and the vault passwords are read (that module imported); else there are none to read.
VAULT_ENV = ("ANSIBLE_VAULT_PASSWORD_FILE", "ANSIBLE_VAULT_IDENTITY_LIST", "ANSIBLE_VAULT_ID_MATCH")


def _vault_asked(args: argparse.Namespace) -> bool:
    return bool(args.vault_password_file or args.vault_id or args.ask_vault_pass
                or any(os.environ.get(name) for name in VAULT_ENV))


def _ask_password(prompt: str) -> str:
    import getpass  # here: only --ask-vault-pass asks (getpass and termios cost every verb's start-up)

    return getpass.getpass(prompt)


def _dispatch(args: argparse.Namespace, argv: list[str]) -> ExitCode:
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
        _no_transport_files_in_run_folders(args)
        if args.rehearse and not args.resume and args.plan is not None:  # else apply_command says what is wrong
            from planner.cli.rehearse import rehearse_command

            return rehearse_command(args, argv)
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
        return ExitCode.OK
    if cmd == "inventory":
        from planner.cli.inventory_cmd import inventory_command

        return inventory_command(args)
    if cmd == "parse":
        from planner.cli.parse import check_input_files, run_parse

        check_input_files(list(args.files))
        return run_parse(list(args.files), args.format, sys.stdout)
    if cmd == "analyze":
        from planner.cli.analyze import analyze_command

        return ExitCode(analyze_command(args, sys.stdout))
    if cmd == "restore":
        from planner.cli.find_run import resolve_run
        from planner.cli.restore import become_passwords, restore_command

        args.run = resolve_run(str(args.run), args.runs_dir)
        _ssh_options_of_the_run(args)
        _no_transport_files_in_run_folders(args)
        return restore_command(args, become_passwords(args))
    from planner.cli.results import dispatch_result_command

    return ExitCode(dispatch_result_command(args))
