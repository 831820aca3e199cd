"""Command line: argparse in Ansible's shape. The only module that exits; errors map to exit codes.

0 ok, 1 an error said in words (a file planner cannot write, no host left to target), 2 a step failed, 4 a host
unreachable, 5 bad plan/inventory/options or a missing dependency, 99 interrupted, 250 an unexpected exception (a
bug, in the verb or in one of its threads), as ansible-core's CLI.cli_executor: never a traceback but at -vvv.
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
from typing import Any

from planner import signals
from planner.cli.parser import parser_for
from planner.errors import InputError, PlannerError, Problem
from planner.status import ExitCode

# the verbs that change hosts: their dependencies are looked up before they start (planner.cli.dependencies)
HOST_VERBS = frozenset({"apply", "check", "restore"})

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
def _signals_as_interrupt(verbosity: int = 0) -> Iterator[None]:
    """While a verb runs; the caller's handlers come back after (``main`` called in-process, as tests do). Also
    the exceptions no code of the verb can catch (a thread's, one Python ignored) are said without a traceback."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT), sys.unraisablehook,
              threading.excepthook)
    signal.signal(signal.SIGTERM, _on_signal)
    # as ansible-playbook's TaskQueueManager: Ctrl-C interrupts even when the shell started us with SIGINT
    # ignored (`planner apply ... &` in a script), where Python would otherwise never raise KeyboardInterrupt
    signal.signal(signal.SIGINT, _on_signal)
    if sys.unraisablehook is sys.__unraisablehook__:  # a test's own hook stays
        sys.unraisablehook = lambda unraisable: _quiet_lost_interrupts(unraisable, verbosity)
    if threading.excepthook is threading.__excepthook__:
        threading.excepthook = lambda hook_args: _thread_bug(hook_args, verbosity)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before[0])
        signal.signal(signal.SIGINT, before[1])
        sys.unraisablehook, threading.excepthook = before[2], before[3]
        signals.acknowledged()


def _quiet_lost_interrupts(unraisable: sys.UnraisableHookArgs, verbosity: int = 0) -> None:
    """A KeyboardInterrupt Python had to drop (raised in a weakref callback or ``__del__``) is remembered by
    planner.signals and obeyed later: no "Exception ignored" traceback for it. Anything else is a bug, said as
    one (its traceback at -vvv); Python goes on, as it does after any exception it ignores."""
    if unraisable.exc_type is KeyboardInterrupt:
        return
    if unraisable.exc_value is None:
        sys.__unraisablehook__(unraisable)
        return
    _say_bug(unraisable.exc_value, verbosity, f" ignored in {unraisable.object!r}")


def _thread_bug(hook_args: Any, verbosity: int) -> None:
    """An exception that ended one of planner's threads (each catches what it foresees): said as a bug is,
    its traceback at -vvv, instead of Python's "Exception in thread" traceback. The verb goes on, and the bug
    counts (planner.signals.thread_died): the run's outcome, or the verb's exit code, says it."""
    if hook_args.exc_type is SystemExit or hook_args.exc_value is None:
        return  # threading's own rule: a thread's SystemExit is silent
    name = hook_args.thread.name if hook_args.thread is not None else "?"
    _say_bug(hook_args.exc_value, verbosity, f" in thread {name}")
    e = hook_args.exc_value
    signals.thread_died(signals.shown(f"thread {name} ({type(e).__name__}: {e})"))


def _forget_caught_interrupts() -> None:
    """CPython marks a Ctrl-C that passed through exec() of source text (dataclasses build their methods so, at
    an import) as unhandled even when planner caught it, and ``python -m planner`` then dies by SIGINT (-2)
    instead of exiting 99 (Python/pythonrun.c, run_eval_code_obj; Modules/main.c, pymain_run_module). Running
    any source text clears that mark."""
    exec("pass")  # noqa: S102 - fixed text: its only effect is clearing the mark


def main(argv: Sequence[str] | None = None) -> ExitCode:
    if argv is None:  # the process's own command line (a caller passing argv keeps its collector as it is)
        _freeze_what_is_imported()
    try:
        return _main(argv)
    except KeyboardInterrupt:  # a Ctrl-C before the verb's own handling (reading the command line): 99, as ansible
        print("planner: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except Exception as e:  # outside any verb (reading the command line): still no traceback, still exit 250
        return _unexpected(e, 0)
    finally:
        _forget_caught_interrupts()
        if argv is None:  # the process's own command line: its exit follows (a caller passing argv lives on)
            _collect_once_at_exit()


def _collect_once_at_exit() -> None:
    """At exit CPython collects garbage, then clears every module and collects twice more, each time walking all
    ~50,000 objects an apply keeps alive (paramiko's and planner's classes, functions, tables): ~100 ms of CPU
    after the last host packet, every run. Here, first of the atexit handlers: the same collection as Python's
    first, over what was made since main began (_freeze_what_is_imported): any garbage's finalizers run, and a
    file left open in a cycle is closed (its buffered data may be lost there, CPython gh-62052). Then what is
    still alive is frozen, so the collections after the modules are cleared walk only what is made after. Only
    cycles among objects still referenced now, left to be freed by the module clearing, are not finalized:
    Python does not promise that either, and every file planner writes is closed by its own ``with`` or
    ``close`` (tests/cli/test_exit_tail.py checks none is left open)."""
    signals.at_exit(_collect_then_freeze)  # once, however often main() ran; registered last, run first


def _collect_then_freeze() -> None:
    import gc

    gc.collect()
    gc.freeze()


def _freeze_what_is_imported() -> None:
    """What the interpreter's start and the command line's modules made (modules, classes, functions, their
    tables: ~12,500 objects) lives until exit and is never garbage, yet each full collection walked it again:
    the one Python started while an apply imported its engine and paramiko, and the one at exit (~55 ms of CPU
    together in a warm 30-host apply). Frozen here (gc.freeze: "ignore all the future collections ... to speed up
    collection", bpo-31558), later collections walk only what is made after, and in a warm 30-host apply the
    import-time one no longer comes at all (freezing restarts the count of younger passes a full one waits for,
    Modules/gcmodule.c gc_freeze_impl). The collector is not turned off: a longer run has its full passes, over
    what main made, and that, garbage by exit, is finalized as before (tests/cli/test_exit_tail.py)."""
    import gc

    gc.freeze()


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
    # before a verb that changes hosts starts: exit 5, as ansible-core's CLI at its first imports (other verbs
    # meet a missing one where they need it, having changed nothing: _run_verb says the same there)
    if args.command in HOST_VERBS:  # planner.cli.dependencies is imported by these verbs only
        from planner.cli import dependencies

        if missing := dependencies.problems():
            _problems_out(InputError(missing))
            return ExitCode.BAD_INPUT
    # every verb: a SIGTERM is obeyed as Ctrl-C is, exit 99 (apply restores first)
    with _signals_as_interrupt(getattr(args, "verbose", 0)):
        return _verb(args, args_list)


def _verb(args: argparse.Namespace, args_list: list[str]) -> ExitCode:
    code = _run_verb(args, args_list)
    if signals.take_thread_bugs() and code != ExitCode.UNEXPECTED:  # not taken by a run: the verb's own
        print("planner: a thread ended on an internal error (said above): exit code 250", file=sys.stderr)
        return ExitCode.UNEXPECTED
    return code


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
    except ModuleNotFoundError as e:  # a declared dependency this Python lacks: what to install, exit 5
        from planner.cli import dependencies

        if e.name and (problem := dependencies.declared(e.name)) is not None:
            from planner.shown import visible

            print(f"ERROR! {visible(str(problem))}", file=sys.stderr)
            return ExitCode.BAD_INPUT
        return _unexpected(e, getattr(args, "verbose", 0))
    except Exception as e:  # the last resort: a bug is said in one line, its traceback only at -vvv, exit 250
        return _unexpected(e, getattr(args, "verbose", 0))


def _unexpected(e: Exception, verbosity: int) -> ExitCode:
    """As ansible-core's CLI.cli_executor (lib/ansible/cli/__init__.py, ``except Exception``): "Unexpected
    Exception, this is probably a bug", then the full traceback at -vvv or where to see it, exit 250."""
    _say_bug(e, verbosity)
    return ExitCode.UNEXPECTED


def _say_bug(e: BaseException, verbosity: int, where: str = "") -> None:
    """ansible-core's words for an exception nobody foresaw. The text goes to stderr (stdout may be a verb's JSON
    or CSV), its controls shown, not sent, and without any secret the verb had read: an exception's message may
    quote a value (a password in a connect string, a variable)."""
    import traceback

    shown = signals.shown
    print(f"ERROR! {signals.bug_line(e, where)}", file=sys.stderr)
    if isinstance(e, ModuleNotFoundError) and e.name:  # a broken environment rather than a bug: say what to do
        from planner.cli import dependencies

        print(shown(str(dependencies.declared(e.name) or dependencies.hint_for(e.name))), file=sys.stderr)
    if verbosity > 2:
        print(f"the full traceback was:\n\n{shown(''.join(traceback.format_exception(e)))}", file=sys.stderr)
    else:
        print("to see the full traceback, use -vvv", file=sys.stderr)


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
    from planner.redaction import note

    options = VaultOptions(tuple(args.vault_password_file), tuple(args.vault_id), args.ask_vault_pass)
    args.vault = vault_keys(options, _ask_password)
    note(p.password.decode(errors="replace") for p in args.vault.passwords)  # for _unexpected


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
        from planner.redaction import note

        args.run = resolve_run(str(args.run), args.runs_dir)
        _ssh_options_of_the_run(args)
        _no_transport_files_in_run_folders(args)
        passwords = become_passwords(args)
        note(p.value for p in passwords.values())  # for _unexpected
        return restore_command(args, passwords)
    from planner.cli.results import dispatch_result_command

    return ExitCode(dispatch_result_command(args))
