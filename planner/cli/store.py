"""``planner store migrate|push|pull|delete`` and the ``--store URL`` every store-reading verb takes.

A run id that is not a folder under --runs-dir is looked up in the store when one is named (``--store`` or
PLANNER_STORE): show, compare and export read it from a temporary pull, report pulls it into --runs-dir
(a report is written beside its run).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.errors import InputError, Problem
from planner.status import ExitCode

if TYPE_CHECKING:
    from planner.plan.model import Plan
    from planner.results.measure import RunData
    from planner.store import StoreURL

# planner.store.url.ENV, written out: every verb builds the parser (--help, --version), and importing the store
# package to word one option's help loaded the store, the run reader and the findings (0.4 s) for all of them
ENV = "PLANNER_STORE"


def add_store_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", metavar="URL",
                   help=f"results store: sqlite:///path or postgresql://user@host:5432/db (default ${ENV}, "
                        "else RUNS_DIR/planner.sqlite); passwords come from ~/.pgpass or PGPASSWORD, never the URL")


def store_url(args: argparse.Namespace) -> StoreURL:
    from planner.store import parse_store_url

    return parse_store_url(getattr(args, "store", None), Path(getattr(args, "runs_dir", None) or "runs"))


def named_store(args: argparse.Namespace) -> StoreURL | None:
    """The store the user named (--store or PLANNER_STORE), not the default embedded one."""
    url = store_url(args)
    return None if url.default else url


def add_store_command(sub: Any) -> None:
    st = sub.add_parser("store", help="the results store: migrate its schema, push runs to it, pull them back")
    verbs = st.add_subparsers(dest="store_command", required=True)
    for name, text in (("migrate", "create or upgrade the store's schema (once per planner upgrade)"),
                       ("push", "upload run folders (one transaction each; pushing again changes nothing)"),
                       ("pull", "rebuild a run folder from the store (measured artifacts included)"),
                       ("delete", "remove runs from the store (their folders are not touched)")):
        p = verbs.add_parser(name, help=text)
        if name != "migrate":
            p.add_argument("runs", nargs="+", metavar="RUN",
                           help="run folders or ids" if name == "push" else "run ids in the store")
        p.add_argument("--runs-dir", type=Path, default=Path("runs"),
                       help="where run folders are (pull writes there; default ./runs)")
        if name == "push":
            p.add_argument("--replace", action="store_true",
                           help="replace a stored run of the same id whose content differs (pushed from another "
                                "controller or folder); without it such a push is refused")
        add_store_option(p)


def store_command(args: argparse.Namespace) -> ExitCode:
    from planner.store import open_store

    url = store_url(args)
    cmd = args.store_command
    with open_store(url, migrating=cmd == "migrate", readonly=cmd == "pull") as store:
        if cmd == "migrate":
            before = store.version
            n = store.migrate()
            print(f"results store {url}: schema v{store.version}" + (f" (was v{before})" if n else ", up to date"))
            return ExitCode.OK
        if cmd == "push":
            from planner.cli.find_run import resolve_run

            folders = [resolve_run(r, args.runs_dir) for r in args.runs]  # every bad name before any upload
            return ExitCode.BAD_INPUT if push_folders(store, folders, replace=args.replace)[1] else ExitCode.OK
        if cmd == "pull":
            ids = [_store_id(store, r) for r in args.runs]
            for rid in ids:
                folder, missing = _pull(store, rid, Path(args.runs_dir))
                extra = f"; {len(missing)} artifact(s) not kept in the store (see pulled.json)" if missing else ""
                print(f"{rid}: pulled into {folder}{extra}")
            return ExitCode.OK
        ids = [_store_id(store, r) for r in args.runs]
        for rid in ids:
            store.delete_run(rid)
            print(f"{rid}: deleted from {url}")
        return ExitCode.OK


def push_folders(store: Any, folders: list[Path], *, replace: bool = False, quiet: bool = False) -> tuple[int, int]:
    """Push each folder; one refused (the store holds its id with other content) does not stop the others,
    each refusal is said in words. Returns how many changed the store and how many were refused."""
    from planner.results.measure import read_run
    from planner.store import PushRefused

    refused = changed_count = 0
    for folder in folders:
        try:
            changed = store.put_run(read_run(folder), replace=replace)
        except PushRefused as e:
            refused += 1
            for p in e.problems:
                print(f"ERROR! {p}", file=sys.stderr)
            continue
        changed_count += changed
        if not quiet:
            print(f"{folder.name}: {'pushed' if changed else 'already in the store, unchanged'}")
    return changed_count, refused


def _store_id(store: Any, run: str) -> str:
    if store.run(run) is not None:
        return run
    matches = [r.id for r in store.runs() if run in r.id]
    if len(matches) == 1:
        return matches[0]
    hint = (f"{len(matches)} runs match: {', '.join(matches[:5])}" if matches
            else f"see `planner runs --store {store.url}`")
    raise InputError([Problem(None, "", f"no run {run!r} in the results store {store.url}", hint)])


def _pull(store: Any, run_id: str, dest: Path) -> tuple[Path, list[str]]:
    from planner.store.record import write_folder

    stored = store.stored_run(run_id)
    assert stored is not None
    return write_folder(stored, dest)


@contextmanager
def run_data(run: str, args: argparse.Namespace) -> Iterator[RunData]:
    """A run folder under --runs-dir, else (when a store is named) the run read from a temporary pull."""
    from planner.cli.find_run import resolve_run
    from planner.results.measure import read_run
    from planner.store import open_store

    try:
        folder = resolve_run(run, args.runs_dir)
    except InputError:
        url = named_store(args)
        if url is None:
            raise
        with open_store(url, readonly=True) as store:
            rid = _store_id(store, run)
            import tempfile  # not at the top: every verb builds the parser, which imports this module

            with tempfile.TemporaryDirectory(prefix="planner-pull-") as tmp:
                folder, _ = _pull(store, rid, Path(tmp))
                yield read_run(folder)
        return
    yield read_run(folder)


def folder_for_report(run: str, args: argparse.Namespace) -> Path:
    """``planner report RUN``: the folder, pulled into --runs-dir first when only the store has it."""
    from planner.cli.find_run import resolve_run
    from planner.store import open_store

    try:
        return resolve_run(run, args.runs_dir)
    except InputError:
        url = named_store(args)
        if url is None:
            raise
        with open_store(url, readonly=True) as store:
            folder, _ = _pull(store, _store_id(store, run), Path(args.runs_dir))
        print(f"pulled {folder.name} from {url} into {folder}", file=sys.stderr)
        return folder


def push_after_apply(url: StoreURL, run_dir: Path, warn: Any, data: RunData | None = None,
                     plan: Plan | None = None) -> None:
    """The end of an apply: push the run (``data``: as the apply measured it, else read from its folder with
    ``plan``, the one the apply ran, rather than the folder's copy parsed again); any failure is a warning,
    never the run's (the folder is the truth)."""
    from planner.results.measure import read_run
    from planner.store import open_store

    try:
        with open_store(url) as store:
            store.put_run(data if data is not None else read_run(run_dir, plan))
    except Exception as e:  # noqa: BLE001 - a store fault (server down, disk full, a bug) must not fail a finished run
        again = f"planner store push {run_dir}" + ("" if url.default else f" --store {url}")
        warn(f"run not saved in the results store {url}: {e}. The run folder {run_dir} holds everything; "
             f"push it later with: {again}" + (" (or planner index)" if url.default else ""))
