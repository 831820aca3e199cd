"""`planner apply` / `check` / `validate`: load and check everything first, then hand over to the runner.

Nothing touches a host until the plan, the inventory, the variables and the host patterns have all been
checked; every problem found is reported at once (exit 5).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from planner import signals
from planner.cli.after_run import interrupted_after_run, preload_charts, report_and_index
from planner.cli.hostvars import per_play_hosts, render_inventory
from planner.cli.restore import ask_become, with_become_password
from planner.engine.console import Console
from planner.engine.provenance import prefetch as prefetch_provenance
from planner.engine.resume import DEFINING, Previous, check_plan_unchanged
from planner.errors import InputError, Location, PlannerError, Problem
from planner.host import Host
from planner.inputs import read_input
from planner.inventory.data import VAULT_HINT
from planner.inventory.graph import Inventory, load_inventory, local_inventory
from planner.inventory.vault import NO_KEYS, VaultError, VaultKeys, VaultText, decrypt
from planner.memo import remembering
from planner.plan.check import Names, check_plan
from planner.plan.loader import load_plan_partly, steps_with_problems
from planner.plan.model import Plan
from planner.plan.schema import SECTIONS, STEP_OPTIONS, WORKLOAD_OPTIONS
from planner.plan.source import VaultTagged
from planner.plan.templating import parse_extra_vars
from planner.redaction import (
    MIN_GUESSED,
    MIN_NUMBER,
    derived_secrets,
    is_secret_name,
    note,
    redact_problem,
    secret_values,
    unmasked_names,
)
from planner.results.runfolder import RunMeta, read_meta_object
from planner.results.world import HostWorld
from planner.status import ExitCode
from planner.steps import (
    ARG_CHECKS,
    BUILTIN_KINDS,
    device_writers,
    load_plugins,
    metric_names,
    produced_metrics,
    series_labels,
)
from planner.transport.become import BecomePassword


@dataclass(frozen=True, slots=True)
class Loaded:
    """A plan and inventory read and checked: what an apply runs, and the secrets it masks."""

    plan: Plan
    inventory: Inventory
    extra_vars: dict[str, Any]
    play_hosts: dict[str, list[Host]]
    unlimited: Inventory | None = None  # before --limit: its hosts' secrets are masked in the record too
    derived: tuple[str, ...] = ()  # values the plan's templates derive from secrets (masked like them)


def _split(values: list[str]) -> frozenset[str]:
    return frozenset(t.strip() for v in values for t in v.split(",") if t.strip())


def _keys(doc: Any) -> set[str]:
    """Every mapping key in a YAML document, each node visited once (aliases share nodes: no blow-up)."""
    keys: set[str] = set()
    seen: set[int] = set()
    todo = [doc]
    while todo:
        node = todo.pop()
        if id(node) in seen or not isinstance(node, dict | list):
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            keys.update(k for k in node if isinstance(k, str))
            todo.extend(node.values())
        else:
            todo.extend(node)
    return keys


def _may_name_plugin(doc: Any) -> bool:
    """Whether a step of the plan may name a kind planner does not have. Only then are the installed packages'
    entry points read (importlib.metadata and every package's metadata: ~50 ms of each start-up). A step whose
    every key is a step option or a built-in kind needs no plugin: a plugin may not take a built-in kind's name."""
    plays = doc.get("plays") if isinstance(doc, dict) else None
    if not isinstance(plays, list):
        return True
    known = STEP_OPTIONS | WORKLOAD_OPTIONS | {"destructive"} | BUILTIN_KINDS
    for play in plays:
        if not isinstance(play, dict):
            return True
        for items in (play.get(section) for section in SECTIONS):
            if items is not None and not isinstance(items, list):
                return True
            for item in items or ():
                keys = [item] if isinstance(item, str) else list(item) if isinstance(item, dict) else None
                if keys is None or not all(isinstance(k, str) and k in known for k in keys):
                    return True
    return False


def _plugins_for(plan_path: Path) -> None:
    """Import the step plugins of the kinds this plan names (any mapping key of it that a plugin provides),
    and no other: a broken plugin the plan does not use stays unimported. One that it uses: exit 5."""
    import yaml

    try:
        # libyaml when PyYAML has it: the plan is parsed again by the loader, this pass only looks for kinds
        doc = yaml.load(read_input(plan_path, "plan"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (InputError, yaml.YAMLError, RecursionError):
        return  # the loader says what is wrong with the file
    if not _may_name_plugin(doc):
        return
    names = _keys(doc)
    try:
        load_plugins(names)
    except PlannerError as e:
        raise InputError([Problem(None, "", e.message, e.hint or "")]) from None


def _template_problems(plan: Plan) -> list[Problem]:
    """The plan's report template, checked with the plan: a name it reads that no report has fails now."""
    if plan.report is None:
        return []
    from planner.report.render import template_problems

    return template_problems(plan.report.template, plan.source)


def _claimable(plan: Plan) -> frozenset[str]:
    """The metric names a ``reproduces:`` claim may use; only a plan with claims needs them (they import every
    step kind and the AWR tables)."""
    return metric_names() if plan.reproduces else frozenset()


def load(plan_path: Path, inventory_path: Path | list[Path] | None, extra: list[str],
         limit: str | None = None, vault: VaultKeys = NO_KEYS, become: BecomePassword | None = None) -> Loaded:
    try:
        exists = plan_path.exists()
    except OSError as e:  # a folder on the way we may not search: in words, not a traceback
        raise InputError([Problem(None, "", f"{plan_path}: cannot read the plan file ({e.strerror})",
                                  "check the path and its permissions")]) from None
    if not exists:  # a FIFO or device is refused by name by the loader (planner.inputs)
        raise InputError([Problem(None, "", f"{plan_path}: no such plan file", "check the path")])
    _plugins_for(plan_path)
    plan, problems = load_plan_partly(plan_path)  # every problem in one pass: schema and variables together
    if plan is None:
        raise InputError(problems)
    schema_problems = steps_with_problems(problems)
    extra_vars: dict[str, Any] = {}
    try:
        extra_vars = parse_extra_vars(extra, Path.cwd())
    except InputError as e:
        problems += e.problems
    plan, extra_vars = _decrypted(plan, extra_vars, vault, problems)
    inv_path = inventory_path or plan.inventory  # -i (one, several, or a directory) wins over the plan's
    if not inventory_path and any(p.path == "inventory" for p in problems):
        raise InputError(problems)  # the plan's inventory: is missing, and said so already
    try:  # the playbook's folder has group_vars/ host_vars/ too, read after the inventory's own (as Ansible)
        inventory = load_inventory(inv_path, vault, vars_dirs=[plan_path.parent]) if inv_path else local_inventory()
    except InputError as e:
        raise InputError(problems + e.problems) from None
    for warning in inventory.warnings:  # as ansible-playbook warns, before anything else is said
        print(f"[WARNING]: {warning}", file=sys.stderr)
    unlimited = inventory
    if limit:  # only the hosts the limit selects are judged: one outside it cannot refuse the run
        inventory, more = _limited(inventory, limit)
        problems += more
        if not more and not problems and not inventory.hosts:
            raise PlannerError("Specified inventory, host pattern and/or --limit leaves us with no hosts to target.",
                               hint="the limit selects no host of the inventory (ansible-playbook exits 1 too)")
    inventory, rendered = render_inventory(inventory, plan.vars, extra_vars)  # ansible_host: "{{ ... }}"
    problems += rendered
    inventory = with_become_password(inventory, become)  # -K: the hosts whose inventory gives none
    short = unmasked_names(_scopes(plan, inventory, extra_vars))
    if short:  # said once, by name only: masking such a value would destroy the record, not protect it
        print(f"[WARNING]: vaulted value(s) of {', '.join(short)} are too short or common to "
              f"mask (under {MIN_GUESSED} characters, a plain word, or a number of under {MIN_NUMBER} digits): "
              "they are not masked in the run record; make such a secret longer, or do not vault an ordinary "
              "setting", file=sys.stderr)
    with derived_secrets(secrets_of(plan, inventory, extra_vars)) as derived:  # {{ pw | upper }} and the like
        problems += check_plan(plan, inventory, extra_vars, kinds=ARG_CHECKS, variables_only=schema_problems,
                               known=Names(_claimable(plan), device_writers(),
                                            produced_metrics() if plan.reproduces else {}, series_labels),
                               unlimited=unlimited)
    problems += _template_problems(plan)
    play_hosts: dict[str, list[Host]] = {}
    for play in plan.plays:
        try:
            play_hosts[play.name] = inventory.select(play.hosts, allow_empty=limit is not None)
        except InputError:
            play_hosts[play.name] = []  # check_plan has already reported it with its location
    play_hosts, more = per_play_hosts(plan, play_hosts, extra_vars, _inventory_base(inventory))
    problems += more
    if problems:  # a value that reached a message (`fio would refuse rw='<a password>'`) is masked
        secrets = (*secrets_of(plan, inventory, extra_vars), *secrets_of(plan, unlimited, extra_vars), *derived)
        raise InputError([redact_problem(p, secrets) for p in problems])
    return Loaded(plan, inventory, extra_vars, play_hosts, unlimited, tuple(derived))


def _clients(loaded: Loaded) -> dict[str, Host]:
    """Where a load_generator_host is found: every host of the inventory, a --limit'ed one too (a client host is
    no play's, so a limit to the database host must not drop it); the rendered host where the limit kept it."""
    return {**(loaded.unlimited.hosts if loaded.unlimited is not None else {}), **loaded.inventory.hosts}


def _inventory_base(inventory: Inventory) -> Path:
    return inventory.source if inventory.source.is_dir() else inventory.source.parent


def _limited(inventory: Inventory, limit: str) -> tuple[Inventory, list[Problem]]:
    try:
        return inventory.limit(limit, allow_empty=True), []
    except InputError as e:
        return inventory, [Problem(None, "--limit", p.message, p.hint) for p in e.problems]


def _decrypted(plan: Plan, extra_vars: dict[str, Any], vault: VaultKeys,
               problems: list[Problem]) -> tuple[Plan, dict[str, Any]]:
    """The plan's and ``-e``'s ``!vault`` values decrypted as Ansible does for play vars and extra vars: each a
    secret (VaultText) wherever it goes; one that does not open is a problem naming Vault and its flags."""
    def open_all(value: Any, where: str) -> Any:
        if isinstance(value, VaultTagged):
            try:
                return VaultText(decrypt(value, vault), str(value))
            except VaultError as e:
                problems.append(Problem(Location(where, value.line, value.column), "",
                                        f"cannot decrypt this !vault value: {e}", VAULT_HINT))
                return None
        if isinstance(value, dict):
            return {k: open_all(v, where) for k, v in value.items()}
        if isinstance(value, list):
            return [open_all(v, where) for v in value]
        return value

    source = str(plan.source)
    plays = tuple(replace(p, vars=open_all(dict(p.vars), source)) for p in plan.plays)
    opened = replace(plan, vars=open_all(dict(plan.vars), source), plays=plays)
    return opened, open_all(extra_vars, "-e")


def _scopes(plan: Plan, inventory: Inventory, extra_vars: dict[str, Any]) -> list[dict[str, Any]]:
    """Every variable scope a secret may be named or declared in (planner.redaction)."""
    return [dict(plan.vars), *(dict(p.vars) for p in plan.plays), *(dict(h.vars) for h in inventory.hosts.values()),
            extra_vars]


def secrets_of(plan: Plan, inventory: Inventory, extra_vars: dict[str, Any]) -> tuple[str, ...]:
    """Values that must never reach the record, a store or an error: variables whose name says secret or that
    ``planner_secrets`` declares (planner.redaction), and the passwords *_password_env / *_password_file
    (any secret name + ``_env`` / ``_file``) point at (``~`` expanded, as the reader expands it)."""
    scopes = _scopes(plan, inventory, extra_vars)
    found = list(secret_values(scopes))
    for variables in scopes:
        for key, value in variables.items():
            if not isinstance(key, str) or not isinstance(value, str):
                continue
            if key.endswith("_env") and is_secret_name(key[:-4]) and os.environ.get(value):
                found.append(os.environ[value])
            if key.endswith("_file") and is_secret_name(key[:-5]):
                found.extend(_password_file(value))
                if not Path(value).expanduser().is_absolute():  # a step may read it beside the plan
                    found.extend(_password_file(str(Path(plan.source).parent / value)))
    return tuple(dict.fromkeys(s for s in found if s))


def _secrets(loaded: Loaded) -> tuple[str, ...]:
    found = (*secrets_of(loaded.plan, loaded.inventory, loaded.extra_vars), *loaded.derived)
    if loaded.unlimited is not None and loaded.unlimited is not loaded.inventory:
        found += secrets_of(loaded.plan, loaded.unlimited, loaded.extra_vars)
    note(found)  # an unexpected error's message is said without them (planner.cli.main)
    return tuple(dict.fromkeys(found))


def _password_file(name: str) -> list[str]:
    """The password a *_password_file names, as planner.db.thin.read_password reads it (stripped), and the
    file's text as it is (a password with a trailing space must not survive as itself)."""
    path = Path(name).expanduser()
    try:
        text = read_input(path, "password file")
    except InputError:
        return []  # missing or unreadable: the step that needs it says so
    return [t for t in dict.fromkeys((text.strip(), text.rstrip("\r\n"))) if t]


def apply_command(args: argparse.Namespace, argv: list[str]) -> ExitCode:
    if args.resume:
        return _resume(args, argv)
    if args.plan is None:
        raise InputError([Problem(None, "", "no plan file given", "planner apply PLAN (or --resume RUN)")])
    if args.rehearse:  # the CLI sends --rehearse to planner.cli.rehearse: never run a rehearsal on the real hosts
        raise RuntimeError("apply_command called with --rehearse; planner.cli.rehearse.rehearse_command runs it")
    if getattr(args, "world", None):  # a world is simulated: the real hosts are what they are
        raise InputError([Problem(None, "", "--world is for a rehearsal", "add --rehearse, or leave --world out")])
    loaded = load(args.plan, args.inventory, args.extra_vars, args.limit, args.vault, ask_become(args))
    console = Console(verbosity=args.verbose)
    if args.list_hosts or args.list_tasks:
        _list_plays(loaded, args, console)
        return ExitCode.OK
    return execute(loaded, args, argv, console)


def _list_plays(loaded: Loaded, args: argparse.Namespace, console: Console) -> None:
    """ansible-playbook's --list-hosts / --list-tasks layout; a step is `section : title`, as Ansible writes a
    role's task `role : task`, and with -t/--skip-tags only what the run would do is listed."""
    from planner.engine.runner import RunOptions, selected

    chosen = RunOptions(tags=_split(args.tags), skip_tags=_split(args.skip_tags))
    console.line("")
    console.line(f"playbook: {args.plan}")
    for i, play in enumerate(loaded.plan.plays, start=1):
        console.line("")
        console.line(f"  play #{i} ({play.hosts}): {play.name}\tTAGS: [{', '.join(sorted(play.tags))}]")
        if args.list_hosts:
            hosts = loaded.play_hosts[play.name]
            console.line(f"    pattern: {[play.hosts]!r}")
            console.line(f"    hosts ({len(hosts)}):")
            for h in hosts:
                console.line(f"      {h.name}")
        if args.list_tasks:
            console.line("    tasks:")
            for s in (s for s in play.steps if selected(s, play, chosen)):
                console.line(f"      {s.section.value} : {s.title}\tTAGS: [{', '.join(sorted(s.tags | play.tags))}]")


def _inventory_sources(loaded: Loaded) -> tuple[Path, ...]:
    """The inventory files/folders read (for the run record's snapshot); none for the implicit localhost."""
    src = getattr(loaded.inventory, "sources", None) or (loaded.inventory.source,)
    return tuple(Path(p) for p in src if Path(p).exists())


def execute(loaded: Loaded, args: argparse.Namespace, argv: list[str], console: Console,
            simulated: bool = False, transport_connector: Any = None, previous: Previous | None = None,
            rehearsal_notes: tuple[str, ...] = (), world: tuple[HostWorld, ...] = (),
            clients: Mapping[str, Host] | None = None) -> ExitCode:
    if not args.check:
        check_runs_dir(Path(args.runs_dir))
        from planner.cli.store import store_url

        if store_url(args).backend.value == "postgresql":  # a malformed URL (or one with a password): before any host
            import planner.store.postgres  # noqa: F401 - psycopg imported before the run, as the report's modules below
    if not args.check and previous is None:  # inputs checked, a record will be opened (a resume reopens one):
        prefetch_provenance(loaded.plan.source)  # its two git processes run while the run is set up
    from planner.transport.connect import EarlyConnects, TransportOptions, connector

    topts = TransportOptions(forks=max(1, args.forks), accept_new_host_keys=args.accept_new_host_keys,
                             known_hosts=args.known_hosts, ssh_config=args.ssh_config)
    # every input checked: the first play's hosts are logged in to while the run is set up (its record, the runner)
    first = loaded.play_hosts.get(loaded.plan.plays[0].name, []) if loaded.plan.plays else []
    with EarlyConnects.start(first if transport_connector is None else [], topts) as early:
        return _run(loaded, args, argv, console, transport_connector or connector(topts, early), previous,
                    simulated=simulated, rehearsal_notes=rehearsal_notes, world=world, clients=clients)


def _run(loaded: Loaded, args: argparse.Namespace, argv: list[str], console: Console, conn: Any,
         previous: Previous | None, *, simulated: bool, rehearsal_notes: tuple[str, ...],
         world: tuple[HostWorld, ...], clients: Mapping[str, Host] | None) -> ExitCode:
    from planner.engine.runner import Runner, RunOptions

    opts = RunOptions(check=args.check, diff=args.diff, forks=max(1, args.forks), tags=_split(args.tags),
                      skip_tags=_split(args.skip_tags), extra_vars=loaded.extra_vars, runs_dir=args.runs_dir,
                      keep_prep=args.keep_prep, simulated=simulated, rehearsal_notes=rehearsal_notes, world=world,
                      argv=tuple(argv), secrets=_secrets(loaded),
                      break_stale_lock=bool(getattr(args, "break_stale_lock", False)),
                      inventory=_inventory_sources(loaded), inventory_files=loaded.inventory.files,
                      # a rehearsal's hosts are its sandboxes: its client hosts are the ones it simulated
                      clients=dict(clients or {}) if simulated else _clients(loaded),
                      when_connected=_end_imports(loaded.plan, args))
    console.secrets = opts.secrets
    if not args.no_report:
        # Imported before the run, not in its report phase: an interrupt landing inside an import leaves a
        # half-imported module and (seen with `python -m`) can make the process die by SIGINT, not exit 99.
        import planner.report.render  # noqa: F401
        import planner.store  # noqa: F401

        preload_charts()
    runner = Runner(loaded.plan, loaded.play_hosts, opts, console, conn, previous=previous)
    try:
        with remembering():  # what the steps parsed is what the report and the store measure
            outcome = runner.run()
            if outcome.record is not None:
                console.line(f"\nrun record: {outcome.record.path}")
                report_and_index(args, outcome.record.path, loaded.plan, console)
    except KeyboardInterrupt:
        signals.acknowledged()
        if not runner.finished or runner.record is None:
            raise  # the runner itself never lets one out before its record is final; this is a bug path
        return interrupted_after_run(runner.record, console)
    return outcome.exit_code


def _end_imports(plan: Plan, args: argparse.Namespace) -> Callable[[], None] | None:
    """What the run's end imports (the store push, a template's Jinja2), imported once the play's hosts are
    connected, while they work (planner.cli.early_imports says why that cannot change what the run does)."""
    from planner.cli import early_imports
    from planner.cli.store import store_url

    push = not args.check and store_url(args).backend.value == "sqlite"
    names = early_imports.for_apply((s.kind for play in plan.plays for s in play.steps), push)
    if not names:
        return None

    def start() -> None:
        early_imports.start(names, kind_findings=push)
    return start


def check_runs_dir(runs_dir: Path) -> None:
    """--runs-dir must be a folder planner can create run folders in: found before any host is touched."""
    probe = runs_dir
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        what = f"{runs_dir} is not a folder" if probe == runs_dir else f"{probe} (in --runs-dir {runs_dir}) is a file"
        raise InputError([Problem(None, "--runs-dir", what, "give a folder for run records (default ./runs)")])
    try:  # created now (the run would create it anyway): a place the OS refuses is found before any host
        runs_dir.mkdir(parents=True, exist_ok=True)
        writable = os.access(runs_dir, os.W_OK | os.X_OK)
    except OSError as e:
        writable, probe = False, Path(f"{probe} ({e.strerror or e})")
    if not writable:
        raise InputError([Problem(None, "--runs-dir",
                                  f"cannot create run folders in {runs_dir}: {probe} is not writable",
                                  "give a folder you can write to with --runs-dir")])


def _resume(args: argparse.Namespace, argv: list[str]) -> ExitCode:
    """``apply --resume RUN``: the run's own plan and options, the same folder; see planner.engine.resume."""
    from planner.cli.find_run import resolve_run
    from planner.engine.inventory_copy import check_inventory_unchanged
    from planner.engine.resume import check_hosts, load_previous

    if args.check or args.rehearse or args.list_hosts or args.list_tasks:
        raise InputError([Problem(None, "", "--resume cannot be combined with --check, --rehearse or --list-*",
                                  "resume a run as it was started")])
    run_dir = resolve_run(args.resume, args.runs_dir)
    merged = resume_args(args, run_dir)
    loaded = load(merged.plan, merged.inventory, merged.extra_vars, merged.limit, args.vault, ask_become(args))
    check_inventory_unchanged(run_dir, loaded.inventory.files, _secrets(loaded))
    previous = load_previous(run_dir)
    check_hosts(previous, {h.name: h for hs in loaded.play_hosts.values() for h in hs})
    console = Console(verbosity=args.verbose)
    console.line(f"resuming run {run_dir.name} ({previous.meta.status}): {len(previous.done)} step(s) "
                 "and point(s) done before are not run again")
    return execute(loaded, merged, argv, console, previous=previous)


# The run's own unless given again: how its hosts are reached and what its inventory says (a resume after
# the known_hosts file or the inventory moved must still be able to name them).
CONNECTION = ("inventory", "extra_vars", "known_hosts", "ssh_config")


def resume_args(new: argparse.Namespace, run_dir: Path) -> argparse.Namespace:
    """The options of the run being resumed, with this command line's transport and output options; its
    connection settings (-i, -e, --known-hosts, --ssh-config) unless given again. Only a run made on this
    controller (planner.engine.origin) is resumed: a received folder's argv and cwd are data."""
    from planner.cli.parser import parser_for  # re-parsing a recorded argv is the CLI's job
    from planner.engine.origin import made_here, transport_file_problems

    given = [k for k in DEFINING if k not in CONNECTION and getattr(new, k) not in (None, [], False)]
    if given:
        raise InputError([Problem(None, "", "--resume runs with the options of the run it resumes; "
                                  f"these were given again: {', '.join('--' + k.replace('_', '-') for k in given)}",
                                  "drop them (the run's own are in its meta.json argv)")])
    raw = read_meta_object(run_dir)
    if not made_here(raw):
        raise InputError([Problem(None, "", f"run {run_dir.name} was not made on this controller by this user "
                                  "(meta.json has no valid origin seal): its command line and working folder are "
                                  "data, not options planner runs with", "start a new run with planner apply PLAN; "
                                  "restore its hosts by hand from its restore.json")])
    meta = RunMeta.from_mapping(raw)
    if meta.status == "complete":
        raise InputError([Problem(None, "", f"run {run_dir.name} is complete: nothing to resume",
                                  "start a new run with planner apply PLAN")])
    if meta.simulated:
        raise InputError([Problem(None, "", f"run {run_dir.name} is a rehearsal: its sandboxes are gone",
                                  "rehearse again with planner apply --rehearse PLAN")])
    argv = list(meta.argv)
    try:
        old = parser_for(argv).parse_args(argv)
    except SystemExit:
        raise InputError([Problem(None, "", f"run {run_dir.name}: cannot read its command line {argv!r}",
                                  "restore the hosts with planner restore RUN and start a new run")]) from None
    cwd = Path(meta.cwd or ".")
    merged = argparse.Namespace(**vars(new))
    for k in (*DEFINING, "known_hosts", "ssh_config"):
        again = k in CONNECTION and getattr(new, k, None) not in (None, [])
        if not again:
            setattr(merged, k, _from_cwd(getattr(old, k, None), cwd))
    recorded = Path(meta.plan_file or old.plan)
    merged.plan = new.plan if new.plan is not None else (recorded if recorded.is_absolute() else cwd / recorded)
    merged.runs_dir = run_dir.parent
    merged.check = False
    problems = transport_file_problems({k: getattr(merged, k, None) for k in ("known_hosts", "ssh_config")})
    if problems:
        raise InputError(problems)
    check_plan_unchanged(merged.plan, run_dir)
    return merged


def _from_cwd(value: Any, cwd: Path) -> Any:
    """A recorded option's paths (-i's list, --known-hosts) relative to where the run was started."""
    if isinstance(value, Path):
        return value if value.is_absolute() else cwd / value
    if isinstance(value, list) and value and all(isinstance(p, Path) for p in value):
        return [_from_cwd(p, cwd) for p in value]
    return value


def validate_command(args: argparse.Namespace) -> ExitCode:
    problems: list[Problem] = []
    for path in args.plans:
        try:
            load(path, args.inventory, args.extra_vars, vault=args.vault)
            print(f"{path}: ok")
        except InputError as e:
            problems += e.problems
    if problems:
        raise InputError(problems)
    print(f"{len(args.plans)} plan(s) valid", file=sys.stderr)
    return ExitCode.OK
