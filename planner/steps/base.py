"""What a step type is: ``check()`` predicts, ``apply()`` acts, prep steps also ``save()`` and ``revert()``.

pyinfra's operations and Ansible's check mode in one small interface. A step instance holds nothing but its
arguments; everything about the host comes through the ``StepContext``.
"""

from __future__ import annotations

import abc
import dataclasses
import enum
import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, overload

from planner.errors import StepError
from planner.files import sha256_file
from planner.host import Host
from planner.plan.model import Section, SweepPoint
from planner.status import Artifact, ArtifactKind, RestartRequest, Status
from planner.transport.become import asks_password
from planner.transport.connection import CommandResult, Connection, command_line, under_sudo

if TYPE_CHECKING:  # the metrics model loads with the parsers, when a point's output is read
    from planner.extras import StepExtra  # the extras load when a step makes one (after its first command)
    from planner.metrics import Metric


@dataclass(frozen=True, slots=True)
class Change:
    """A prediction: would ``apply`` change the host? ``diff`` is shown with --diff."""

    changed: bool
    msg: str = ""
    diff: str | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a step's apply returns: its status and message, and what it kept and measured."""
    status: Status
    msg: str = ""
    diff: str | None = None
    artifacts: tuple[Artifact, ...] = ()
    extra: StepExtra | None = None  # what this kind says beyond the rest: its dataclass in planner.extras
    # a restart left to the engine (only when StepContext.defer_restart told the step so): see RestartRequest
    restart: RestartRequest | None = None
    # What the step measured: the headline of its parsed outputs (wl_common.finish; their
    # source is the artifact, which the results read in full) or figures of the step's own (a plugin's)
    metrics: tuple[Metric, ...] = ()


@dataclass(frozen=True, slots=True)
class Collected:
    """What a kind that wraps each workload point (awr, statspack) kept of one point: the artifacts, and what
    the point's result should say about them (a RAC report's scope)."""

    artifacts: tuple[Artifact, ...] = ()
    notes: tuple[str, ...] = ()
    # the next point's begin token, when around_point_end was asked to take it in the same session (else None)
    next_begin: object | None = None


# What Connection.read_text sends (planner/transport/connection.py): a probe of a file must be that exact command.
READ_TEXT = 'test -e "$1" || exit 3; cat -- "$1"'


@dataclass(frozen=True, slots=True)
class Probe:
    """A read-only command a step runs first, exactly as it will run it (see StepType.probes)."""

    argv: tuple[str, ...]
    become: bool = False
    become_user: str = "root"
    ok: frozenset[int] = frozenset({0})  # exit codes whose answer is kept; any other makes the step ask again
    cwd: str = ""  # the command's working directory (a command step's chdir)
    # a fetch: ``argv`` is (the host path,), answered to ``conn.get(path, local, max_bytes=fetch_max)``
    fetch: bool = False
    fetch_max: int | None = None
    # planner's own fixed script (sh_probe, read_probe): a batch may run it in a subshell of its own shell
    # (planner.engine.probes._run_line), which needs no fresh shell state: no user text runs that way
    own: bool = False
    # an own script whose output is lines of its own format, none starting with "#", ending with a newline (not a
    # file's bytes): a batch passes it through unencoded (planner.engine.batch's raw frames, a program less)
    plain: bool = False


ANY_EXIT = frozenset(range(256))  # a command whose every exit code is its answer (the step judges it)


@dataclass(slots=True)
class StepContext:
    """Everything a step may touch on one host. Mutable: the engine fills it per host and step."""

    host: Host
    conn: Connection
    vars: Mapping[str, Any]
    step_path: str
    plan_dir: Path
    artifacts: Path  # local folder for this step's (and point's) artifacts
    run_dir: Path
    log: Any  # callable(host, step, CommandResult) -> None
    check_mode: bool = False
    diff_mode: bool = False
    become: bool = False
    become_user: str = "root"
    timeout_s: float | None = None
    # When neither the call nor the plan gives a timeout (a hung tool must not hang the run): the expected run time
    # plus a margin, else the host's planner_default_timeout_s, else DEFAULT_TIMEOUT_S; set by the engine per step.
    default_timeout_s: float | None = None
    point: SweepPoint | None = None
    facts: Mapping[str, Any] = field(default_factory=dict)
    destructive: bool = False
    allow_destroy: tuple[str, ...] = ()
    simulated: bool = False
    # sync_start: the engine's start gate (planner.engine.syncstart.Member), used by run(measured=True)
    sync: Any = None
    # check mode: what earlier steps on this host would have changed (e.g. a disk group created by a step
    # before), so a later step's preview says what apply will do after them; shared per host by the engine
    predicted: dict[str, Any] = field(default_factory=dict)
    # Set by the engine around a workload point (planner.engine.window): the point's folder on the host, empty
    # at the start of every attempt ("" for a step run on its own), and the play's database report
    # (collect: [awr] or [statspack], else "").
    point_dir: str = ""
    db_report: str = ""
    # The database the point's workload runs in (its kind's server_databases, "" when it names none): where a
    # PostgreSQL collect kind (pg_stat) reads the point's statistics.
    point_database: str = ""
    # Set by the engine's window for a collect kind whose figures must not count the point's set-up (pg_stat: a
    # benchmark's table build): called once, just before the point's measured command (run(measured=True)).
    before_measured: Any = None
    # callable(str) -> None: a secret a step learns on the host (a kit's own password), masked from then on in the
    # record, its commands and its artifacts (the run record's add_secret); None outside a run
    add_secret: Any = None
    # Set by the engine for a kind that ``defers_restart``: restart nothing now, return Outcome.restart instead;
    # the engine restarts once per play and host (StepType.restart_once / restart_restored)
    defer_restart: bool = False
    # What save() read on the host, handed to the apply() that follows it in this context (one round trip less):
    # the kind's own value, taken once by its apply(); here, for this host and step, as a step holds only its args
    save_read: object = None
    # the client's context when load_generator_host names one: the generator runs there (load-generator-host.md)
    generator: StepContext | None = None

    def take_save_read(self) -> object:
        """What save() read in this context (None when it read nothing), taken: a second read asks the host."""
        read, self.save_read = self.save_read, None
        return read

    @property
    def root(self) -> str:
        """The host's root for system paths: '' on a real host, the sandbox on a rehearsal/lab host."""
        return str(self.host.vars.get("planner_root", "") or "").rstrip("/")

    def path(self, system_path: str) -> str:
        """Map a system path (/sys/block/sda, /dev/mapper/x) into the host's root.

        A path that climbs with '..' is refused: in a sandbox it would leave the sandbox, and on any host
        a rendered variable must not steer a write outside the folder the plan names.
        """
        check_host_path(system_path)
        if not self.root:
            return system_path
        return self.root + system_path if system_path.startswith("/") else f"{self.root}/{system_path}"

    def run(self, argv: Sequence[str], *, check: bool = True, become: bool | None = None,
            become_user: str | None = None, login: bool = False, timeout: float | None = None,
            env: Mapping[str, str] | None = None, cwd: str | None = None, stdin: bytes | None = None,
            measured: bool = False) -> CommandResult:
        """``measured``: the point's measured command (the tool, a kit's run script...): under ``sync_start`` it
        starts at the instant the play's hosts share (planner.engine.syncstart), after this host's set-up."""
        refuse_nul([*argv, *(env or {}).values(), cwd or ""])
        if measured and self.before_measured is not None:
            hook, self.before_measured = self.before_measured, None
            hook()
        gate = self.sync if measured else None
        use_become = self.become if become is None else become
        if gate is not None:
            argv = gate.wrap(argv, become=use_become, become_user=become_user or self.become_user, login=login)
        r = self.conn.run(argv, become=use_become, become_user=become_user or self.become_user, login=login,
                          timeout=timeout if timeout is not None else
                          self.timeout_s if self.timeout_s is not None else self.default_timeout_s, env=env, cwd=cwd,
                          stdin=stdin)
        if gate is not None:
            r = gate.strip(r)
        if stdin and not r.stdin:  # the record keeps the script a tool read (redacted), not only its argv
            r = dataclasses.replace(r, stdin=stdin.decode("utf-8", "replace"))
        self.log(self.host.name, self.step_path, r)
        if check and not r.ok:
            what = "timed out" if r.timed_out else f"exit code {r.exit_code}"
            detail = (r.stderr.strip() or r.stdout.strip())[-2000:]
            raise StepError(f"command {what}: {shlex.join(argv)[:300]}" + (f": {detail}" if detail else ""))
        return r

    def command_text(self, argv: Sequence[str], *, become: bool | None = None, become_user: str | None = None,
                     login: bool = False, env: Mapping[str, str] | None = None, cwd: str | None = None) -> str:
        """The shell line ``run`` with these arguments sends and records: what -C -D shows is what runs."""
        use_become = self.become if become is None else become
        ask = asks_password(self.host, bool(use_become))
        return command_line(list(argv), become=use_become, become_user=become_user or self.become_user or "root",
                            login=login, env=env, cwd=cwd, ask_password=ask)

    def shown(self, line: str, *, become: bool | None = None, become_user: str | None = None,
              login: bool = False) -> str:
        """A shell line as -C -D shows it (``<point dir>`` and redirections kept readable), through the sudo the
        run goes through when it runs under become: which commands need root is said before the run."""
        if not (self.become if become is None else become):
            return line
        return under_sudo(line, become_user=become_user or self.become_user or "root", login=login,
                          ask_password=asks_password(self.host, True))

    def sh(self, script: str, *args: str, **kw: Any) -> CommandResult:
        """Run a fixed script; user values go in as positional parameters ($1, $2...), never into the text."""
        return self.run(["sh", "-c", script, "sh", *args], **kw)

    def sh_probe(self, script: str, *args: str, plain: bool = False) -> Probe:
        """The probe of ``self.sh(script, *args)`` (same argv and become); ``plain``: see Probe.plain."""
        return Probe(("sh", "-c", script, "sh", *args), self.become, self.become_user, own=True, plain=plain)

    def read_probe(self, path: str) -> Probe:
        """The probe of ``self.conn.read_text(path)`` (never under become, like read_text)."""
        return Probe(("sh", "-c", READ_TEXT, "sh", path), ok=frozenset({0, 3}), own=True)

    def fetch(self, remote: str, name: str | None = None, kind: str = "") -> Artifact:
        """Keep a host's file as an artifact; ``kind`` an ArtifactKind or its value (a kind's parser kind: a name no
        parser or kind declares is a bug of the step, raised here, not a record no reader knows)."""
        local = self.artifacts / (name or posixpath.basename(remote))
        self.conn.get(remote, local)
        return Artifact(str(local.relative_to(self.run_dir)), ArtifactKind(kind), sha256_file(local),
                        simulated=self.simulated)


def check_host_path(path: str, what: str = "path") -> str:
    """Refuse a host path that climbs with '..' or holds a NUL or newline; returns it unchanged."""
    if ".." in path.split("/") or any(c in path for c in "\0\n\r"):
        raise StepError(f"refused {what} {path!r}: it climbs with '..' or holds a NUL or line break",
                        hint="write the path without '..' segments, on one line (check the variables it uses)")
    return path


@overload
def whole_number(args: Mapping[str, Any], name: str, default: int, what: str, *, minimum: int) -> int: ...
@overload
def whole_number(args: Mapping[str, Any], name: str, default: None, what: str, *, minimum: int) -> int | None: ...
def whole_number(args: Mapping[str, Any], name: str, default: int | None, what: str, *, minimum: int) -> int | None:
    """The one integer-argument check: ``args[name]`` as a whole number >= ``minimum`` (``default`` when absent).

    Each call site says its own minimum (0 for counts that may be none, such as a kit's writers; 1 for users,
    threads, disks). An int or a string of digits is taken (a rendered template or an ``-e`` value gives a
    string); a bool, a float or any other text is refused, naming the step kind (``what``) and the argument.
    """
    value = args.get(name, default)
    if value is None:
        return None
    n = value if isinstance(value, int) and not isinstance(value, bool) else (
        int(value) if isinstance(value, str) and value.strip().isdigit() else None)
    if n is None or n < minimum:
        raise StepError(f"{what}: {name} must be a whole number >= {minimum}, got {value!r}")
    return n


def refuse_nul(values: Sequence[Any]) -> None:
    """A NUL byte cannot pass through exec(): refuse it by name instead of crashing in the transport."""
    bad = [v for v in values if isinstance(v, str) and "\0" in v]
    if bad:
        raise StepError(f"refused command argument {bad[0]!r}: it holds a NUL byte",
                        hint="remove the NUL character from the variable or argument")


class KitStandIn(enum.Enum):
    """What a rehearsal sandbox puts at the path a kit argument names (planner.rehearsal.sandbox)."""

    OWN = "own"  # the kind's own stand-in, its spec's ``standin`` (planner.kindspec), installs it
    BINARY = "binary"  # the stand-in binary named like the step kind (rehearsal/standins/bin/<kind>)


DEFAULT_TIMEOUT_S = 3600.0  # a command of a step with no timeout and no expected run time
TIMEOUT_MARGIN_S = 600.0  # beyond a workload's expected run time: its start-up, ramp and report
_SECONDS = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h)?\s*$")


@dataclass(frozen=True, slots=True)
class Duration:
    """How long one step (a workload point) is expected to run, and the budget its commands get when the plan
    gives no timeout. None: the arguments do not say (expected), the host's default applies (budget)."""

    expected_s: float | None = None
    budget_s: float | None = None

    @classmethod
    def with_margin(cls, expected_s: float | None) -> Duration:
        """The usual budget: the expected time plus TIMEOUT_MARGIN_S, or half again for a long run."""
        if expected_s is None:
            return cls()
        return cls(expected_s, expected_s + max(TIMEOUT_MARGIN_S, 0.5 * expected_s))


def seconds_of(value: Any) -> float | None:
    """A duration argument in seconds: 90, 90s, 30m, 2h; None when absent or not a duration."""
    m = _SECONDS.match(str(value)) if value is not None and not isinstance(value, bool) else None
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2) or ""] if m else None


ORACLE, POSTGRESQL = "oracle", "postgresql"
ENGINES = (ORACLE, POSTGRESQL)
ENGINE_VAR = "db_engine"


def refuse_other_engine(kind: str, engine: str, variables: Mapping[str, Any]) -> None:
    """A step of one database engine on a host the inventory says runs the other (``db_engine``, oracle by
    default) is refused before any host is touched: it could only fail at its turn, or read the wrong server."""
    if not engine:
        return
    from planner.db.engine import engine_of  # the one reader of db_engine (the seam's backend picker's too)

    host = engine_of(variables).value
    if host != engine:
        raise StepError(f"step kind '{kind}' needs a host whose {ENGINE_VAR} is {engine}, and this host's is {host}",
                        hint=f"run it on a host whose inventory says {ENGINE_VAR}: {engine}, or set it so here")


class StepType(abc.ABC):
    """One class per step kind, registered in planner.steps.REGISTRY (or by a plugin: docs/plugins.md).

    This is the run facet, what every kind has: its arguments, its check and apply, what it reads first, how
    long it runs. A kind adds the facets it needs by subclassing them instead (below): ``Reversible`` (prep and
    restore: save, revert, describe what was saved), ``RestartDeferring`` (one restart per play), ``Rehearsed``
    (what a rehearsal sandbox does for it), ``Workload`` (a sweep point: its report metrics, its own database
    snapshots) and ``AroundPoint`` (a collect kind that wraps each workload point). The engine, the rehearsal and
    the report ask ``rehearsed(cls)``, ``workload(cls)``, …; a kind without a facet has nothing of it to say.
    """

    kind: ClassVar[str]
    sections: ClassVar[frozenset[Section]] = frozenset(Section)
    needs_database: ClassVar[bool] = False  # a rehearsal sandbox gets the Oracle stand-ins for it
    # The database engine the kind talks to ("postgresql"; "" for none), a host's ``db_engine`` must match it;
    # a kind that needs_database talks to Oracle (StepType.engine).
    db_engine: ClassVar[str] = ""
    device_args: ClassVar[tuple[str, ...]] = ()  # arguments naming block devices (preflight checks them)
    # When one point's run time cannot be told from the arguments: why (the lab-time estimate says so).
    unknown_duration: ClassVar[str] = ""
    # JSON schema of the arguments (every kind, built-in or plugin; the shared workload options are added by the
    # schema builder, planner.plan.kind_schema); None means "an object, checked by check_args only".
    args_schema: ClassVar[Mapping[str, Any] | None] = None

    def __init__(self, args: Mapping[str, Any]) -> None:
        self.args = args

    def default_timeout_s(self, host_vars: Mapping[str, Any]) -> float:
        """Each command's timeout when the plan gives none: a command that hangs (a frozen NFS mount, a tool
        waiting on a terminal) must not hold a run forever. The kind's ``duration`` budget, else the host's."""
        budget = self.duration(self.args, host_vars).budget_s
        if budget is not None:
            return budget
        given = host_vars.get("planner_default_timeout_s")
        try:
            return float(given) if given not in (None, "") and float(given) > 0 else DEFAULT_TIMEOUT_S
        except (TypeError, ValueError):
            raise StepError(f"planner_default_timeout_s must be a number of seconds > 0, not {given!r}") from None

    @abc.abstractmethod
    def check(self, ctx: StepContext) -> Change:
        """Predict without side effects."""

    @abc.abstractmethod
    def apply(self, ctx: StepContext) -> Outcome: ...

    @classmethod
    def check_args(cls, rendered: Mapping[str, Any], plan_dir: Path,
                   variables: Mapping[str, Any] | None = None) -> None:
        """Plan check: what a host would refuse of these rendered arguments (validate(), then the files
        beside the plan that validate_files reads, for kinds that have them). Raises StepError."""
        step = cls(rendered)
        step.validate()
        step.validate_files(plan_dir)
        if variables is not None:
            refuse_other_engine(cls.kind, cls.engine(rendered), variables)
        if cls.needs_database and variables is not None:
            from planner.db.access import refuse_thin_before_12c

            refuse_thin_before_12c(variables)  # the host's vars: a database this backend cannot reach

    @classmethod
    def engine(cls, args: Mapping[str, Any]) -> str:
        """The database engine these (rendered) arguments talk to: "oracle", "postgresql", or "" for none. A kind
        that reaches either (by an argument) says which here."""
        return cls.db_engine or (ORACLE if cls.needs_database else "")

    def preview(self, ctx: StepContext) -> str:
        """``-C -D`` for a workload point: the exact command lines, the files planner would write and the SQL
        it would send (read-only: nothing is written). Kinds without more to say give their check message."""
        return self.check(ctx).msg

    @classmethod
    def writes_devices(cls, args: Mapping[str, Any]) -> bool:
        """Whether these arguments write to block devices (the lab run then needs ``destructive: true``)."""
        return False

    def validate(self) -> None:
        """Refuse bad (rendered) arguments before any host is touched: raise StepError naming the value.

        Called by ``planner validate``/``apply`` on every host's rendered arguments; needs no host.
        """
        return None  # most kinds have nothing to check beyond their schema

    def validate_files(self, plan_dir: Path) -> None:
        """Refuse what files beside the plan (``plan_dir``) say of these arguments (a tool's job file); raise
        StepError. Called by the plan check after validate(); most kinds read no file."""
        return None

    def probes(self, ctx: StepContext) -> Sequence[Probe]:
        """The read-only commands save()/check() start with, built with ctx.sh_probe / ctx.read_probe; for a
        step whose whole work is a read (a ``changed_when: false`` command, a fetch), that read itself.

        The runner runs a play's probes for a host in ONE round trip, with its facts and lock
        (planner.engine.probes); the step's own identical command is then answered from that batch unless
        something ran in between.
        """
        return ()

    # -- the duration model: preflight's lab time, the rehearsal estimate, progress and timeouts all ask it --
    @classmethod
    def duration(cls, args: Mapping[str, Any], host_vars: Mapping[str, Any] | None = None) -> Duration:
        """One point's expected run time and budget, from its rendered arguments (one sweep point's values) and
        the host's variables. Default: not a timed step, the host's default timeout."""
        return Duration()


class Reversible(StepType):
    """The prep-and-restore facet: the original state is saved before the first change on the host, written to
    the run record, and put back at the end of the play (or by ``planner restore``)."""

    def save(self, ctx: StepContext) -> Mapping[str, Any]:
        """The original state, written to the run record before the first change on the host."""
        return {}

    def revert(self, ctx: StepContext, saved: Mapping[str, Any]) -> Outcome:
        return Outcome(Status.OK, "nothing to restore")

    @classmethod
    def describe_saved(cls, saved: Mapping[str, Any]) -> str:
        """save()'s original state in a few words for the report ("flashback YES"); the default lists its keys."""
        from planner.steps.saved_state import generic

        return generic(saved)


class RestartDeferring(Reversible):
    """A change that needs a restart (a static init.ora parameter): the engine sets ctx.defer_restart, the step
    answers with Outcome.restart, and the engine calls restart_once / restart_restored once per play."""

    @classmethod
    def restart_once(cls, ctx: StepContext, request: RestartRequest, steps: Sequence[StepType]) -> Outcome:
        """The play's one restart for what its ``steps`` of this kind deferred (``request``: the last one's);
        checks their changes are then in effect."""
        raise StepError(f"step kind '{cls.kind}' asked for a restart but has no restart_once()",
                        hint="a kind that returns Outcome.restart overrides restart_once")

    @classmethod
    def restart_restored(cls, ctx: StepContext, request: RestartRequest) -> Outcome:
        """The one restart after the play's reverts of this kind put back what needs it."""
        raise StepError(f"step kind '{cls.kind}' asked for a restart but has no restart_restored()",
                        hint="a kind that returns Outcome.restart overrides restart_restored")


class Rehearsed(StepType):
    """The rehearsal facet: what a rehearsal sandbox does for this kind."""

    real_in_rehearsal: ClassVar[bool] = False  # its tool runs for real on a rehearsal sandbox (I/O tools, kits)
    # Rehearsal runs real workloads briefly: what they measure on this machine says nothing about the lab,
    # only that the step works. Argument -> the value used at most in a rehearsal.
    rehearsal_caps: ClassVar[Mapping[str, int]] = {}
    # Arguments naming a kit or binary on the host, and what a rehearsal sandbox puts there instead.
    kit_args: ClassVar[Mapping[str, KitStandIn]] = {}
    # A device argument may name plain files instead (ORION on datafiles): the sandbox creates them.
    files_for_devices: ClassVar[bool] = False
    # A real server the rehearsal starts for the kind's client to talk to ("postgresql": planner.rehearsal.postgres);
    # its hosts' connection variables then point at it, and the databases server_databases names are created.
    rehearsal_server: ClassVar[str] = ""

    @classmethod
    def server_databases(cls, args: Mapping[str, Any]) -> Sequence[str]:
        """The databases these (rendered) arguments use on the rehearsal's server."""
        return ()

    @classmethod
    def rehearsal_server_for(cls, args: Mapping[str, Any]) -> str:
        """The real server a rehearsal starts for these (rendered) arguments: the kind's, unless one kind talks
        to either engine by an argument."""
        return cls.rehearsal_server

    @classmethod
    def capped_for_rehearsal(cls, args: Mapping[str, Any]) -> dict[str, Any]:
        """``args`` with each of ``rehearsal_caps`` applied (a missing or unreadable value takes the cap)."""
        out = dict(args)
        for key, cap in cls.rehearsal_caps.items():
            value = out.get(key)
            try:
                number = float(str(value).rstrip("s")) if value is not None else None
            except ValueError:
                number = None
            if number is None or number > cap:
                out[key] = cap
        return out

    @classmethod
    def rehearsal_notes(cls, host: str, args: Mapping[str, Any]) -> Sequence[str]:
        """What a rehearsal should tell about this step on the real lab (e.g. a database restart)."""
        return ()

    @classmethod
    def kit_unnamed(cls, args: Mapping[str, Any], host_vars: Mapping[str, Any]) -> tuple[str | None, str]:
        """The step's arguments name no kit (``kit_args``): (where the tool finds it on a host with these
        variables, the path a sandbox puts the stand-in at, as the tool's installer would; or None and why the
        rehearsal cannot tell, which refuses the step; or None and "": nothing to stand in)."""
        return None, ""


class Workload(StepType):
    """The workload facet: a kind run once per sweep point, whose figures the report shows."""

    sections: ClassVar[frozenset[Section]] = frozenset({Section.WORKLOADS})
    writes_db_report: ClassVar[bool] = False  # takes its own AWR/Statspack snapshots (collect: [awr] does not)
    # The metrics the report's section for this kind shows beyond the headline (what the seeds print).
    report_metrics: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def series_labels(cls, args: Mapping[str, Any]) -> Mapping[str, tuple[tuple[str, tuple[str, ...]], ...]]:
        """Metric -> the labels (each with example values) that tell apart the several series every run with
        these plan arguments gives of it: a ``reproduces:`` claim naming the metric without such a label
        matches them all, and would read "inconclusive" (planner.plan.check refuses it)."""
        return {}


class AroundPoint(StepType):
    """A collect kind that wraps each workload point (the engine's window, planner.engine.window): awr,
    statspack, pg_stat."""

    # Take the begin snapshot again just before the point's measured command, so that a workload's set-up inside
    # the point (tables built) is not counted; for snapshots cheap enough to take twice (pg_stat, not AWR).
    retake_at_measured_start: ClassVar[bool] = False

    @classmethod
    def around_point_begin(cls, ctx: StepContext, previous: object | None = None) -> object:
        """Before a workload point: start collecting (a begin snapshot); the token is handed to around_point_end.
        ``previous``: this host's token from an earlier point of the same workload step (what cannot change
        between points need not be asked again), or None."""
        raise StepError(f"step kind '{cls.kind}' does not collect around workload points",
                        hint="only awr and statspack wrap each workload point")

    @classmethod
    def around_point_end(cls, ctx: StepContext, token: object, then_begin: bool = False) -> Collected:
        """After a workload point that did not fail: what was collected since around_point_begin.
        ``then_begin``: another point of the step follows on this host; a kind whose database allows it takes
        that point's begin snapshot in the same session, after the reports (Collected.next_begin)."""
        raise StepError(f"step kind '{cls.kind}' does not collect around workload points",
                        hint="only awr and statspack wrap each workload point")


# Each facet asked of a class: the class as that facet when it has it, else None.
def rehearsed(cls: type[StepType]) -> type[Rehearsed] | None:
    return cls if issubclass(cls, Rehearsed) else None


def workload(cls: type[StepType]) -> type[Workload] | None:
    return cls if issubclass(cls, Workload) else None


def reversible(cls: type[StepType]) -> type[Reversible] | None:
    return cls if issubclass(cls, Reversible) else None


def restart_deferring(cls: type[StepType]) -> type[RestartDeferring] | None:
    return cls if issubclass(cls, RestartDeferring) else None


def around_point(cls: type[StepType]) -> type[AroundPoint] | None:
    return cls if issubclass(cls, AroundPoint) else None


def real_in_rehearsal(cls: type[StepType]) -> bool:
    """Whether the kind's tool runs for real on a rehearsal sandbox (its measurements are then real)."""
    found = rehearsed(cls)
    return found is not None and found.real_in_rehearsal


class NotYetImplemented(StepType):
    """Declared in the plan language; its engine arrives with a later issue."""

    issue: ClassVar[str] = ""

    def check(self, ctx: StepContext) -> Change:
        raise StepError(f"step type '{self.kind}' is declared but not implemented yet",
                        hint=f"it arrives with {self.issue}; validate and --check the rest of the plan meanwhile")

    def apply(self, ctx: StepContext) -> Outcome:
        return Outcome(Status.FAILED, str(self.check(ctx)))
