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
import inspect
import json
import os
import platform
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import planner
from planner import kindspec
from planner.cli.apply import Loaded, execute, load
from planner.engine.console import Console
from planner.errors import InputError
from planner.host import Host
from planner.plan.templating import render
from planner.rehearsal import clients, preflight
from planner.rehearsal.labuser import LabUser, closed_to_others, login_name
from planner.rehearsal.matrix import THIS_MACHINE, Uses, World, parse_world
from planner.rehearsal.sandbox import populate
from planner.rehearsal.standins.profile import profile_for
from planner.results.world import HostWorld
from planner.status import ExitCode
from planner.steps import REGISTRY
from planner.steps.base import rehearsed


def _needs_oracle(loaded: Loaded) -> set[str]:
    """Hosts of plays with a step whose kind needs a database (StepType.needs_database): they get the stand-ins."""
    hosts: set[str] = set()
    for play in loaded.plan.plays:
        if any(s.kind in REGISTRY and REGISTRY[s.kind].needs_database and REGISTRY[s.kind].engine(s.args) == "oracle"
               for s in play.steps):
            hosts |= {h.name for h in loaded.play_hosts[play.name]}
    return hosts


def _sim_vars(host: Host, root: Path) -> dict[str, Any]:
    v = {k: val for k, val in host.vars.items() if not k.startswith("ansible_")}
    v.pop("oracle_user", None)  # the sandbox user runs the Oracle stand-ins itself (no sudo to oracle)
    v["planner_root"] = str(root)
    v["planner_simulated"] = True
    return v


def _world_vars(loaded: Loaded, host: Host) -> dict[str, Any]:
    """The variables the stand-ins take a host's knobs from (standin_database, slob_release, oracle_version...),
    above the inventory's by Ansible's precedence: the plan's and the host's plays' ``vars:``, then ``-e``."""
    out = dict(loaded.plan.vars)
    for play in loaded.plan.plays:
        if any(h.name == host.name for h in loaded.play_hosts.get(play.name, ())):
            out.update(play.vars)
    out.update(loaded.extra_vars)
    return out


@dataclass(frozen=True, slots=True)
class Login:
    """Who the rehearsal logs in as, and what that leaves untested (said on the console and in the report)."""

    lab_user: LabUser | None  # the inventory's non-root logins, with sudo; None: log in as ourselves
    note: str  # how hosts are reached; a limit of this machine is named in it
    become_direct: bool = False  # no usable sudo for a non-root login: steps with become run as it


_NOT_EXERCISED = "become was not exercised"


def _as_ourselves(prefix: str) -> Login:
    """Logged in as the user running planner: root needs no sudo; a user whose sudo asks for a password (or
    has none) runs become steps as itself, on a sandbox it owns; either way become is not exercised."""
    me = current_user()
    if me == "root":
        return Login(None, f"{prefix}: {_NOT_EXERCISED} (steps with become ran directly as root)")
    try:
        usable = shutil.which("sudo") is not None and subprocess.run(
            ["sudo", "-n", "true"], capture_output=True, timeout=10, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        usable = False
    if usable:
        return Login(None, f"{prefix}, become through this machine's sudo")
    return Login(None, f"{prefix}: {_NOT_EXERCISED} (sudo is missing or asks for a password here; steps with "
                       f"become ran as {me}, who owns the sandbox)", become_direct=True)


def _login(originals: Mapping[str, Host], inventory: Mapping[str, Host], world: World = THIS_MACHINE) -> Login:
    """The hosts' own ansible_user where this machine can make it (a lab user with real sudo, the world's sudoers
    and login shell), as the lab logs in; else ourselves, and when that is root, become is not exercised (a root
    login needs no sudo). ``inventory``: the hosts as the inventory gives them, to say where a login set by vars:
    or -e came from."""
    wanted = sorted({str(h.user) for h in originals.values() if login_name(h.user)})
    me = current_user()
    if wanted:
        set_by = "the inventory's" if all(inventory.get(n) is None or inventory[n].user == h.user
                                          for n, h in originals.items()) else "the hosts'"
        closed = closed_to_others(Path(planner.__file__))
        why = LabUser.unavailable() or (f"planner's files are not reachable by other users ({closed} is closed)"
                                        if closed else None)
        if why is None:
            return Login(LabUser(wanted[0], tuple(wanted[1:]), sudoers=world.sudoers, shell=world.shell or "/bin/sh"),
                         f"logged in as {', '.join(wanted)} ({set_by} ansible_user), become through real sudo")
        return _as_ourselves(f"logged in as {me}, not as {', '.join(wanted)} ({why})")
    return _as_ourselves(f"logged in as {me}")


def _hand_over(root: Path, ids: tuple[int, int]) -> None:
    """The login owns its sandbox as an Oracle host's owner does its software, kit and data; sysfs and /dev
    stay root's (mode 0644), so a root-only write without become is refused as on the lab."""
    for path in [root, *root.rglob("*")]:
        rel = path.relative_to(root).parts
        if rel and rel[0] in ("sys", "dev"):
            continue
        os.lchown(path, *ids)


def _become_words(login: Login, user: str) -> str:
    if login.lab_user is not None and user in login.lab_user.names:
        return "become through real sudo"
    if login.become_direct or current_user() == "root":
        return _NOT_EXERCISED
    return "become through this machine's sudo"


def _machine(world: World, lab: Any, login: Login) -> dict[str, str]:
    """The lab's userland, sshd and sudoers in words: the world's where it sets them, else this machine's."""
    try:
        userland = platform.freedesktop_os_release().get("PRETTY_NAME", "")
    except OSError:
        userland = platform.platform()
    try:
        ssh = subprocess.run(["ssh", "-V"], capture_output=True, text=True, timeout=10, check=False)
        sshd = (ssh.stderr or ssh.stdout).split(",")[0].strip() + "'s default algorithms"
    except (OSError, subprocess.TimeoutExpired):
        sshd = ""
    if lab is None:
        return {"userland": f"this machine's {userland}", "sshd": "not used (the local transport)",
                "sudoers": "this machine's own", "shell": "this machine's login shell"}
    sudoers = ("this machine's own" if login.lab_user is None else
               (world.words("sudoers") or "this machine's /etc/sudoers") + ", NOPASSWD: ALL for the lab login")
    shell = world.words("shell") or ("login shell /bin/sh" if login.lab_user else "this machine's login shell")
    if login.lab_user is not None and login.lab_user.name in {p.pw_name for p in pwd.getpwall()}:
        # the lab keeps an account this machine has (labuser.py): its shell, whatever the world asked
        shell = f"login shell {pwd.getpwnam(login.lab_user.name).pw_shell} (this machine's account)"
    return {"shell": shell,
            "userland": world.words("userland") if world.userland else f"this machine's {userland}",
            "sshd": world.words("sshd") if world.sshd else f"this machine's {sshd}", "sudoers": sudoers}


def _tools(kits: Mapping[str, str], host_vars: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """(tool, release) of each kind's stand-in this host's kits get, in the registry's order."""
    return tuple((s.report.tool or s.kind, _standin_release(s.standin_version, host_vars)) for s in kindspec.specs()
                 if s.kind in kits and s.standin_version)


def _standin_release(where: str, host_vars: Mapping[str, Any]) -> str:
    """A kind's stand-in release: for this host's variables when its function takes them (a kit that imitates the
    release the inventory names), else the one it always imitates."""
    fn = kindspec.load(where)
    return str(fn(host_vars) if inspect.signature(fn).parameters else fn())


def _world(host: Host, knobs: Host, login: Login, oracle: bool, kits: Mapping[str, str],
           machine: Mapping[str, str]) -> HostWorld:
    """The world this host's rehearsal simulates, as the record and the report's banner say it."""
    p = profile_for(knobs.vars)
    return HostWorld(
        host=host.name, database=p.database.value if oracle else "", login_user=str(host.user or current_user()),
        become=_become_words(login, str(host.user or "")),
        oracle_version=(p.version_full or p.oracle_version) if oracle else "", cdb=oracle and p.cdb,
        pdb=p.pdb if oracle else "", rac=oracle and p.rac,
        slob_release=p.slob_release.value if "slob" in kits else "",
        tools=_tools(kits, knobs.vars),
        nls=_nls(knobs.vars) if oracle else "",
        userland=machine["userland"], sshd=machine["sshd"], sudoers=machine["sudoers"], shell=machine["shell"])


def _nls(knobs: Mapping[str, Any]) -> str:
    """What the oracle login's profile exports (the stand-in sqlplus reads standin_nls_*), in words."""
    lang = str(knobs.get("standin_nls_lang") or "")
    numeric = str(knobs.get("standin_nls_numeric_characters") or "")
    if not lang and not numeric:
        return "NLS_LANG unset in the oracle login's profile (AMERICAN_AMERICA)"
    said = [f"NLS_LANG={lang}" if lang else "", f"NLS_NUMERIC_CHARACTERS='{numeric}'" if numeric else ""]
    return " ".join(x for x in said if x) + " in the oracle login's profile"


def _servers_wanted(loaded: Loaded) -> dict[str, set[str]]:
    """Host -> the databases it needs on a real server the rehearsal starts (a kind's ``rehearsal_server``)."""
    wanted: dict[str, set[str]] = {}
    for play in loaded.plan.plays:
        for spec in play.steps:
            cls = REGISTRY.get(spec.kind)
            as_rehearsed = rehearsed(cls) if cls is not None else None
            if as_rehearsed is None:
                continue
            for host in loaded.play_hosts[play.name]:
                args = render(dict(spec.args), {**host.vars, **_world_vars(loaded, host)})
                if as_rehearsed.rehearsal_server_for(args) != "postgresql":
                    continue
                wanted.setdefault(host.name, set()).update(as_rehearsed.server_databases(args))
    return wanted


def start_servers(loaded: Loaded, sims: dict[str, Host], base: Path, console: Console
                  ) -> tuple[Any, frozenset[str]]:
    """A real PostgreSQL for the hosts whose steps talk to one (returned with it); their connection variables
    point at it."""
    wanted = _servers_wanted(loaded)
    if not wanted:
        return None, frozenset()
    from planner.rehearsal import postgres

    server = postgres.start(base)
    server.create_databases(db for dbs in wanted.values() for db in dbs)
    for name in wanted:
        sims[name] = replace(sims[name], vars={**sims[name].vars, **server.host_vars()})
    console.line(f"[REHEARSAL] a real PostgreSQL server ({server.version}) on 127.0.0.1:{server.port} for "
                 f"{', '.join(sorted(wanted))}: its clients run for real")
    return server, frozenset(wanted)


def build_hosts(loaded: Loaded, pf: preflight.Preflight, base: Path, console: Console, world: World = THIS_MACHINE
                ) -> tuple[dict[str, Host], Any, str, tuple[HostWorld, ...]]:
    """Sandboxes for every targeted host and every client host a database host names (``load_generator_host``:
    simulated, never the real one); returns simulated Hosts by name, the lab (or None) and how they are reached
    (for the run record)."""
    uses = clients.client_uses(loaded.plan, loaded.play_hosts, loaded.extra_vars)
    originals = {h.name: h for hs in loaded.play_hosts.values() for h in hs}
    inventory = (loaded.unlimited or loaded.inventory).hosts  # a client host is no play's: --limit keeps it
    originals |= {u.client: inventory[u.client] for u in uses if u.client not in originals and u.client in inventory}
    names = sorted(originals)
    kits = clients.kits_where_run(uses, pf.kits)
    oracle_hosts = _needs_oracle(loaded)
    from planner.rehearsal.lab import LabError, build_lab, sshd_available

    lab = None
    login = Login(None, "")
    # PLANNER_REHEARSE_TRANSPORT=local skips sshd even where OpenSSH is installed (what a fresh machine does).
    reason = "PLANNER_REHEARSE_TRANSPORT=local" if os.environ.get("PLANNER_REHEARSE_TRANSPORT") == "local" else (
        sshd_available())
    if reason is None:
        login = _login(originals, inventory, world)  # as read: before -e
        if login.lab_user is not None:
            base.chmod(0o755)  # the lab user must reach its sandbox, as on a host
        try:
            lab = build_lab(base / "lab", len(names), names=names, user=login.lab_user, userland=world.userland,
                            sshd=world.sshd, login_shell=(world.shell or None) if login.lab_user is None else None)
        except LabError as e:
            reason = str(e)
    if lab is None:
        login = _as_ourselves(f"ran as {current_user()} on this machine")
    sims: dict[str, Host] = {}
    roots: dict[str, Path] = {}
    knobs: dict[str, Host] = {}
    for name in names:
        sims[name], roots[name] = _sim_host(originals[name], lab, login, world, base)
        knobs[name] = replace(sims[name], vars={**sims[name].vars, **_world_vars(loaded, originals[name])})
        populate(roots[name], knobs[name], devices=pf.devices.get(name, set()), kits=kits.get(name, {}),
                 oracle=name in oracle_hosts, files=pf.files.get(name, set()))
    clients.serve(uses, knobs, roots)  # each client's view of its database host, once both sandboxes are built
    machine = _machine(world, lab, login)
    worlds: list[HostWorld] = []
    for name in names:
        if login.lab_user is not None and sims[name].user:
            _hand_over(roots[name], login.lab_user.ids(str(sims[name].user)))
        worlds.append(replace(_world(sims[name], knobs[name], login, name in oracle_hosts, kits.get(name, {}),
                                     machine), role=clients.role(uses, name)))
    if login.lab_user is not None:  # a client logged in as another user than its database host's writes its state
        clients.share_state(uses, sims, roots, login.lab_user.ids)
    how = "real sshd on loopback" if lab is not None else f"the local transport ({reason})"
    console.line(f"[REHEARSAL] {len(names)} simulated host(s) reached over {how}, {login.note}; "
                 f"sandboxes under {base}")
    for w in worlds:
        console.line(f"[REHEARSAL] simulated {w.describe()}")
    return sims, lab, f"reached over {how}, {login.note}", tuple(worlds)


def _sim_host(orig: Host, lab: Any, login: Login, world: World, base: Path) -> tuple[Host, Path]:
    """The simulated copy of one inventory host and its sandbox: a lab host, else the local transport."""
    if lab is not None:
        lh = lab.host(orig.name)
        root = lab.sandbox(orig.name)
        user = str(orig.user) if login.lab_user and orig.user in login.lab_user.names else lh.user
        ssh = {"ansible_ssh_common_args": world.ssh_args} if world.ssh_args else {}
        sim = replace(lh, vars={**_sim_vars(orig, root), **lh.vars, **ssh}, groups=orig.groups, become=False,
                      user=user)
    else:
        root = base / "hosts" / orig.name
        root.mkdir(parents=True, exist_ok=True)
        sim = Host(name=orig.name, address="localhost", connection="local", groups=orig.groups,
                   vars=_sim_vars(orig, root))
    if login.become_direct:
        sim = replace(sim, vars={**sim.vars, "planner_become_direct": True})
    return sim, root


def uses(loaded: Loaded, pf: preflight.Preflight) -> Uses:
    """What this plan's rehearsal would use on this machine (the matrix dimensions that matter to it)."""
    from planner.rehearsal.lab import sshd_available

    lab = os.environ.get("PLANNER_REHEARSE_TRANSPORT") != "local" and sshd_available() is None
    originals = [h for hs in loaded.play_hosts.values() for h in hs]
    login = lab and LabUser.unavailable() is None and any(login_name(h.user) for h in originals)
    become = any(s.become for play in loaded.plan.plays for s in (*play.prep, *play.workloads, *play.collect)
                 if loaded.play_hosts.get(play.name)) or any(h.become for h in originals)
    return Uses(lab=lab, become=login and become, oracle=bool(_needs_oracle(loaded)),
                kits=frozenset(k for kits in pf.kits.values() for k in kits))


def rehearse_command(args: argparse.Namespace, argv: list[str]) -> ExitCode:
    world = parse_world(getattr(args, "world", None) or [])
    # the world's stand-in variables as an -e before the command line's own, which win over them
    extra = [json.dumps(world.extra_vars())] if world.extra_vars() else []
    loaded = load(args.plan, args.inventory, [*extra, *(args.extra_vars or [])], args.limit, args.vault)
    console = Console(verbosity=args.verbose)
    pf = preflight.check(loaded.plan, loaded.play_hosts, loaded.extra_vars)
    if pf.errors:
        raise InputError(pf.errors)
    for line in preflight.describe(pf):
        console.line(line)
    base = Path(tempfile.mkdtemp(prefix="planner-rehearsal-"))
    lab = server = None
    try:
        sims, lab, reached, worlds = build_hosts(loaded, pf, base, console, world)
        server, served = start_servers(loaded, sims, base, console)
        if server is not None:
            real = f"a real PostgreSQL server ({server.version}) started for the rehearsal"
            worlds = tuple(replace(w, server=real) if w.host in served else w for w in worlds)
        play_hosts: Mapping[str, list[Host]] = {p: [sims[h.name] for h in hs] for p, hs in loaded.play_hosts.items()}
        sim_loaded = Loaded(loaded.plan, loaded.inventory, loaded.extra_vars, dict(play_hosts),
                            derived=loaded.derived)
        return execute(sim_loaded, args, argv, console, simulated=True, rehearsal_notes=(reached,),
                       world=worlds, clients={n: h for n, h in sims.items() if n not in play_host_names(loaded)})
    finally:
        if server is not None:
            server.stop()
        if lab is not None:
            lab.stop()
        shutil.rmtree(base, ignore_errors=True)


def play_host_names(loaded: Loaded) -> set[str]:
    """The play hosts' names: every other simulated host is a client host."""
    return {h.name for hs in loaded.play_hosts.values() for h in hs}


def current_user() -> str:
    return getpass.getuser()
