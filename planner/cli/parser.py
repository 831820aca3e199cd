"""The command line's shape: every subcommand and option, in Ansible's words. Its own module so that the
commands that re-read a recorded command line (apply --resume) need not import the entry point."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from planner import __version__

EPILOG = ("exit codes: 0 ok, 1 an error said in words or no host left to target, 2 a step failed or a bad option, "
          "4 a host unreachable, 5 bad input or a missing dependency, 99 interrupted, 250 an unexpected error (a bug: "
          "-vvv shows its traceback)")


def _columns() -> int:
    """``shutil.get_terminal_size().columns``, as argparse's HelpFormatter asks it (shutil's own rule: $COLUMNS
    when positive, else the terminal's, else 80), without importing shutil (and its bz2 and lzma: ~3 ms)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class Formatter(argparse.HelpFormatter):
    """argparse's help layout, its width found without shutil: every add_argument makes one of these."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width)


def forks(text: str) -> int:
    """-f/--forks: a whole number of hosts worked on at once (planner.cli.main refuses 0 or less, exit 5)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number (give 1 or more)") from None


def _vault_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--vault-password-file", "--vault-pass-file", action="append", default=[], metavar="FILE",
                   help="vault password file (an executable one is run and prints it); default "
                        "$ANSIBLE_VAULT_PASSWORD_FILE")
    p.add_argument("--vault-id", action="append", default=[], metavar="[LABEL@]SOURCE",
                   help="a vault password for vault id LABEL from a file, a script or 'prompt' (repeatable)")
    p.add_argument("-J", "--ask-vault-password", "--ask-vault-pass", dest="ask_vault_pass", action="store_true",
                   help="ask for the vault password")


def _become_pass_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("-K", "--ask-become-pass", "--ask-become-password", dest="ask_become_pass", action="store_true",
                   help="ask for the become (sudo) password once, for hosts whose inventory gives none")


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
                   "(sqlite:///path or postgresql://user@host:5432/db; default $PLANNER_STORE, "
                   "else RUNS_DIR/planner.sqlite)")
    p.add_argument("--keep-prep", action="store_true", help="leave host prep in place after the run")
    p.add_argument("--accept-new-host-keys", action="store_true",
                   help="accept and record unknown SSH host keys (changed keys are always refused)")
    p.add_argument("--known-hosts", type=Path, help="known_hosts file (default ~/.ssh/known_hosts)")
    p.add_argument("--ssh-config", type=Path, help="ssh config file (default ~/.ssh/config)")
    p.add_argument("--list-hosts", action="store_true", help="list the hosts each play targets, then stop")
    p.add_argument("--list-tasks", action="store_true", help="list the steps of each play, then stop")
    p.add_argument("--rehearse", action="store_true",
                   help="run the plan on simulated copies of its hosts on this machine (no lab needed)")
    p.add_argument("--world", action="append", default=[], metavar="KEY=VALUE",
                   help="with --rehearse: the world the simulated hosts are (userland=ol6, sshd=5.3, "
                        "sudoers=rhel-old, oracle=11.2.0.3...; docs/rehearsal-matrix.md); repeat for more")
    p.add_argument("--no-report", action="store_true", help="do not render the report at the end")
    p.add_argument("--resume", metavar="RUN",
                   help="finish a run whose controller died (a run folder or id under --runs-dir): points "
                        "already done are not run again; results go to the same run folder")
    p.add_argument("--break-stale-lock", action="store_true",
                   help="take a host whose lock was left by a run whose controller process is gone")
    p.add_argument("--syntax-check", action="store_true",
                   help="check the plan and inventory as `planner validate` does, then stop (no host is touched)")
    _become_pass_option(p)
    _vault_options(p)


def _inventory_parser(sub: Verbs) -> argparse.ArgumentParser | None:
    """ansible-inventory's options, in its words."""
    inv = sub.add_parser("inventory", help="show an inventory as ansible-inventory does")
    if inv is None:
        return None
    inv.add_argument("group", nargs="?", help="the group --graph starts at (default all)")
    inv.add_argument("-i", "--inventory", type=Path, action="append", required=True,
                     help="inventory file, directory or host list (host1,host2,); repeatable")
    g = inv.add_mutually_exclusive_group(required=True)
    g.add_argument("--list", action="store_true", help="every group and host, with the hosts' variables")
    g.add_argument("--host", help="one host's variables")
    g.add_argument("--graph", nargs="?", const="", default=None, metavar="GROUP",
                   help="the groups as a tree, from GROUP (default all)")
    inv.add_argument("--vars", action="store_true", help="with --graph: the variables of each host and group")
    inv.add_argument("-y", "--yaml", action="store_true", help="YAML instead of JSON (--list, --host)")
    inv.add_argument("--export", action="store_true",
                     help="each group's own variables under it, each host's own in _meta (for re-reading)")
    inv.add_argument("-l", "--limit", help="only the hosts this pattern selects (a:b, a:&b, a:!b, @file)")
    inv.add_argument("-e", "--extra-vars", action="append", default=[], metavar="VARS",
                     help="k=v, JSON/YAML text, or @file.yaml: shown among each host's variables")
    inv.add_argument("--output", type=Path, help="write the result to this file instead of stdout")
    inv.add_argument("--playbook-dir", type=Path, default=None,
                     help="whose group_vars/ and host_vars/ count as the playbook's (default: the current folder)")
    return inv


def verb_of(argv: Sequence[str]) -> str | None:
    """The verb a command line names, for build_parser: its first word unless that is an option. ``""`` for
    ``--version`` (no verb's options are needed to print it); None (every verb) for ``--help`` or nothing."""
    if not argv:
        return None
    if argv[0] == "--version":
        return ""
    return None if argv[0].startswith("-") else argv[0]


def parser_for(argv: Sequence[str]) -> argparse.ArgumentParser:
    """The parser for this command line: the verb it names built, the others named only."""
    return build_parser(verb_of(argv))


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """Every verb, or with ``verb`` only that verb's options (a command line names one verb: building the other
    19 parsers' ~150 options was ~5 ms of every start-up, and imported the results verbs' modules). The other
    verbs are still named, as empty parsers, so usage and "invalid choice" messages list them all alike."""
    ap = argparse.ArgumentParser(prog="planner", description="Run storage and database benchmark plans.",
                                 epilog=EPILOG, formatter_class=Formatter)
    ap.add_argument("--version", action="version", version=f"planner {__version__}")
    sub = Verbs(ap.add_subparsers(dest="command", required=True), verb)
    if p := sub.add_parser("apply", help="run a plan", epilog=EPILOG):
        _run_options(p)
    if p := sub.add_parser("check", help="same as apply --check", epilog=EPILOG):
        _run_options(p)
    if v := sub.add_parser("validate", help="check plans (syntax, schema, variables, inventory) without any host"):
        v.add_argument("plans", type=Path, nargs="+")
        v.add_argument("-i", "--inventory", type=Path, action="append",
                       help="inventory file or directory (repeatable)")
        v.add_argument("-e", "--extra-vars", action="append", default=[])
        _vault_options(v)
    sub.add_parser("schema", help="print the plan JSON Schema (for editors)")
    if inv := _inventory_parser(sub):
        _vault_options(inv)
    if ps := sub.add_parser("parse", help="read benchmark outputs (AWR, Statspack, ORION, fio, SLB, iozone, ...)"):
        ps.add_argument("files", type=Path, nargs="+")
        ps.add_argument("--format", choices=("table", "json", "csv"), default="table")
    if rs := sub.add_parser("restore", help="undo a run's host prep from its record (after a controller crash)"):
        _restore_options(rs)
    if sub.wanted(ANALYZE_VERBS):
        from planner.cli.analyze import add_analyze_command

        add_analyze_command(sub.action)
    else:
        sub.name(ANALYZE_VERBS)
    if sub.wanted(RESULT_VERBS):
        from planner.cli.results import add_result_commands

        add_result_commands(sub.action)
    else:
        sub.name(RESULT_VERBS)
    _verbose_everywhere(ap)
    return ap


def _verbose_everywhere(parser: argparse.ArgumentParser) -> None:
    """-v on every verb that has none (apply's and check's already say more with it), as every ansible CLI takes
    it: -vvv shows an unexpected exception's full traceback (planner.cli.main). Only on the verbs that parse
    last (``store push``, not ``store``): a sub-verb's default would overwrite its parent's count."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for action in subs:
        for verb in dict.fromkeys(action.choices.values()):
            if verb.add_help:  # not the verbs only named (Verbs.name): their one parser is never run
                _verbose_everywhere(verb)
    if not subs and "-v" not in parser._option_string_actions:
        parser.add_argument("-v", "--verbose", action="count", default=0,
                            help="-vvv: an unexpected error's full traceback")


ANALYZE_VERBS = ("analyze",)  # planner.cli.analyze adds it
RESULT_VERBS = ("runs", "show", "report", "compare", "export", "index", "store")  # planner.cli.results, .store


class Verbs:
    """The subparsers action, building only the verb wanted (None: all): ``add_parser`` returns None for another
    verb, after naming it. The verbs named share one empty parser (an ArgumentParser each was ~0.5 ms): it is
    never run, since the verb a command line names is the one built, and never printed (only a whole parser's
    help lists the verbs' help lines)."""

    def __init__(self, action: argparse._SubParsersAction[argparse.ArgumentParser], verb: str | None) -> None:
        self.action, self.verb = action, verb
        self._unbuilt: argparse.ArgumentParser | None = None

    def wanted(self, verbs: Sequence[str]) -> bool:
        return self.verb is None or self.verb in verbs

    def name(self, verbs: Sequence[str]) -> None:
        if self._unbuilt is None:
            self._unbuilt = argparse.ArgumentParser(prog="planner", add_help=False, formatter_class=Formatter)
        for v in verbs:
            self.action.choices[v] = self._unbuilt  # as add_parser(v) would, without making a parser

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser | None:
        if not self.wanted((name,)):
            self.name((name,))
            return None
        return self.action.add_parser(name, formatter_class=Formatter, **kwargs)


def _restore_options(rs: argparse.ArgumentParser) -> None:
    rs.add_argument("run", help="the run folder, or its run id under --runs-dir")
    rs.add_argument("--runs-dir", type=Path, default=Path("runs"), help="where run records are (default ./runs)")
    rs.add_argument("--accept-new-host-keys", action="store_true",
                    help="accept and record unknown SSH host keys (changed keys are always refused)")
    rs.add_argument("--known-hosts", type=Path, help="known_hosts file (default: the one the run used)")
    rs.add_argument("--ssh-config", type=Path, help="ssh config file (default: the one the run used)")
    rs.add_argument("-f", "--forks", type=forks, default=5)
    rs.add_argument("-i", "--inventory", type=Path, action="append",
                    help="inventory the run was made with: only each host's become password is read from it "
                         "(the run record keeps none); repeatable")
    _become_pass_option(rs)
    _vault_options(rs)
