"""What the workload steps and the AWR bracketing share: the point's folder on the host, fetching what exists
(in one round trip), and parsing the main output at once.

Folders on the host. A point's output goes to the engine's point folder, ``ctx.point_dir``
(``<planner_workdir>/<run id>/<inventory host>/<step>/pointNNN``): per run and host, and emptied by
planner.engine.window at the start of every attempt of the point (a ``--resume`` or a retry after a connection drop runs
it again in the same folder), so no step creates or empties a folder of its own. Only what must outlive a run stays in
the plan-stable step folder ``<planner_workdir>/<kind>-<step>`` (an I/O tool's data files); a kit built on the
host has its own plan-stable folder (``planner_dir``).

Parsing right after the fetch makes a malformed report fail its point with the parser's named ParseError
while the raw file stays in the run record (the FAILED outcome still lists it as an artifact).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.errors import ParseError, StepError
from planner.files import sha256_file, write_bytes
from planner.host import DEFAULT_WORKDIR
from planner.status import Artifact, ArtifactKind, Status
from planner.steps.base import Outcome, StepContext
from planner.steps.guard import check_path
from planner.transport.connection import login_user

if TYPE_CHECKING:  # the parsers and metrics load when a point's output is read, not before the first host command
    from planner.extras import StepExtra
    from planner.metrics import Metric, Parsed


def point_name(index: int) -> str:
    """A point's folder name, on the host and in the run folder: ``point000``, …, ``point999``, ``point1000``:
    zero-padded to three digits for sorting the usual studies, never cut to a width: a study may have 3,000."""
    return f"point{index:03d}"


def point_dir(ctx: StepContext, kind: str) -> str:
    """The folder on the host for this point's output: the engine's point folder, already empty.

    A step run on its own (no engine around it, e.g. a unit test) gets ``<step folder>/pointNNN``, emptied here.
    """
    if ctx.point_dir:
        return ctx.point_dir
    wd = f"{step_dir(ctx, kind)}/{point_name(ctx.point.index if ctx.point is not None else 0)}"
    fresh_dir(ctx, wd)
    return wd


def host_run_dir(ctx: StepContext) -> str:
    """This run's folder on the host (for per-run state such as a kit's setup marker); it exists already
    under the engine (it holds the point folder), else it is ``/tmp/planner-<run id>`` (made by the upload)."""
    if ctx.point_dir:
        return posixpath.dirname(posixpath.dirname(ctx.point_dir.rstrip("/")))
    return ctx.path(f"/tmp/planner-{ctx.run_dir.name}")


def existing(ctx: StepContext, paths: Sequence[str], *, nonempty: bool = False) -> set[str]:
    """The subset of ``paths`` that exist on the host (and hold data, with ``nonempty``), in one round trip."""
    if not paths:
        return set()
    test = "-s" if nonempty else "-f"
    r = ctx.sh(f'for f in "$@"; do [ {test} "$f" ] && printf "%s\\n" "$f"; done; exit 0', *paths, check=False)
    return {line for line in r.stdout.splitlines() if line}


def fetch_existing(ctx: StepContext, wanted: Iterable[tuple[str, str | None, str]], *,
                   nonempty: bool = False) -> list[Artifact]:
    """Fetch each (remote path, local name or None for its own, kind) that exists; missing files are skipped.
    ``nonempty``: an empty file counts as missing (a tool that died before writing)."""
    items = list(wanted)
    there = existing(ctx, [r for r, _, _ in items], nonempty=nonempty)
    return [ctx.fetch(r, name, kind) for r, name, kind in items if r in there]


def save_text(ctx: StepContext, name: str, text: str, kind: str = "") -> Artifact:
    """Keep controller-side text (a console log, a result the step wrote itself) as an artifact of this point."""
    local = ctx.artifacts / name
    write_bytes(local, text.encode(), 0o600)  # a record file: private like the rest of the run folder
    return Artifact(str(local.relative_to(ctx.run_dir)), ArtifactKind(kind), sha256_file(local),
                    simulated=ctx.simulated)


def from_artifact(m: Metric, artifact: Artifact) -> Metric:
    """``m`` as read from ``artifact``: its source is the artifact's path in the run folder (the parser saw the
    controller's absolute path), which tells the results the figure is read from that file in full."""
    from planner.metrics import Source

    return replace(m, source=Source(artifact.path, m.source.line if m.source else None))


def planner_dir(ctx: StepContext, *parts: str) -> str:
    """``<planner_workdir>/<parts>`` on the host (default /tmp/planner), the same folder that holds the runs'
    folders (planner.engine.hostlock), mapped into the host's sandbox root."""
    base = str(ctx.vars.get("planner_workdir") or DEFAULT_WORKDIR).rstrip("/") or DEFAULT_WORKDIR
    check_path(base)
    return ctx.path(posixpath.join(base, *parts))


def step_dir(ctx: StepContext, kind: str) -> str:
    """The plan-stable step folder on the host: ``<planner_workdir>/<kind>-<step>``.

    Its name depends on the plan only (not the run), so data files are reused by later points and runs.
    Nothing a point reports is written there.
    """
    return planner_dir(ctx, kind + "-" + re.sub(r"[^A-Za-z0-9]+", "-", ctx.step_path).strip("-"))


# Empty and make a point folder, as the login user. $2 set: the step runs as another non-root user, who must write
# its output there: 1733, that user may create files but not list or remove the login user's (docs/become.md).
_FRESH = ('rm -rf -- "$1" 2>/dev/null; [ ! -e "$1" ] || exit 7; '
          'mkdir -p -- "$1" && { [ -z "$2" ] || chmod 1733 -- "$1"; }')


def fresh_dir(ctx: StepContext, path: str) -> None:
    """Empty a point folder (one round trip): stale output must never be fetched.

    The ownership rule (docs/become.md): every folder planner makes on a host is the login user's, made without
    become, so the OS samplers, uploads (job files, kits' configs) and fetches, which run as the login user,
    work there whatever the step's ``become``; a become'd tool writes its output into it (root may; another
    user gets a folder it may write). Files a become'd tool left in an earlier attempt's folder are removed
    through become when the login user cannot."""
    if not re.search(r"/point\d{3,}$", path):  # only a point folder (point_name): never a parent or a user's path
        raise ValueError(f"not a point folder: {path!r}")
    shared = "1" if ctx.become and ctx.become_user not in ("root", login_user(ctx.host)) else ""
    r = ctx.sh(_FRESH, path, shared, become=False, check=False)
    if r.exit_code == 7 and ctx.become:  # an earlier attempt's tool (another user) left what only it may remove
        # the entries the owner lists (a 1733 folder is not listable by the become user), removed through become
        names = ctx.run(["ls", "-A", "--", path], become=False, check=False).stdout.splitlines()
        if names:
            ctx.run(["rm", "-rf", "--", *(posixpath.join(path, n) for n in names)], check=False)
        r = ctx.sh(_FRESH, path, shared, become=False, check=False)
    if not r.ok:
        raise StepError(f"{ctx.host.name}: cannot make the point folder {path}: "
                        f"{(r.stderr or r.stdout).strip()[-300:] or f'exit code {r.exit_code}'}",
                        hint="planner_workdir must be a folder the login user may write")


def tail(text: str | None, n: int = 1500) -> str:
    return (text or "").strip()[-n:]


def outcome_reports(artifacts: Iterable[Artifact]) -> tuple[Artifact, ...]:
    """The artifacts whose headline a point reports when the tool's figures are in the database's report (a database
    kit's, CALIBRATE_IO, ORION's summary): every kind read in an outcome, the HTML AWR only when no text one gave it."""
    from planner.parsers import IN_OUTCOME

    arts = [a for a in artifacts if a.kind in IN_OUTCOME]
    text = any(a.kind is ArtifactKind.AWR_TEXT for a in arts)
    return tuple(a for a in arts if not (text and a.kind is ArtifactKind.AWR_HTML))


def finish(ctx: StepContext, tool: str, artifacts: Sequence[Artifact], main: Artifact | Sequence[Artifact] | None,
           failure: str | None, parse: Callable[[Path], Parsed] | None = None, *, msg: str = "",
           extra: Mapping[str, Any] | StepExtra | None = None) -> Outcome:
    """How a workload point went, said one way for every kind. The artifacts are kept whatever happens.

    ``main``: the tool's output, read by ``parse`` (None: it wrote none, FAILED), or the reports its figures are
    in (``outcome_reports``), each read by its parser kind, strictly: a section of a database report that does
    not read fails the point, where a tool's own output says how many sections it could not read. ``failure``:
    why the run failed, said with whatever was read. ``msg``: what the point was (the headline figures when
    ""); ``extra``: the kind's typed extra, or a mapping kept as planner.extras.Notes."""
    from planner.extras import notes  # here: a step's extras load when it finishes, not at every start-up

    arts, kept = tuple(artifacts), notes(extra) if isinstance(extra, Mapping) else extra
    if main is None:
        return Outcome(Status.FAILED, failure or f"{tool} wrote no output", artifacts=arts, extra=kept)
    read = _read_one(ctx, main, parse) if isinstance(main, Artifact) else _read_reports(ctx, main)
    if isinstance(read, str):  # what did not read, said after why the run failed and what the point was
        return Outcome(Status.FAILED, "; ".join(w for w in (failure, msg, read) if w), artifacts=arts, extra=kept)
    heads, unread = read
    metrics = tuple(heads.values())
    if failure:
        return Outcome(Status.FAILED, failure, artifacts=arts, metrics=metrics, extra=kept)
    if not msg:
        shown = ", ".join(f"{m.key}={m.value:.6g} {m.unit}".rstrip() for m in metrics[:3])
        msg = f"{tool}: {shown}" + (f" ({unread} section(s) unreadable)" if unread else "")
    return Outcome(Status.CHANGED, msg, artifacts=arts, extra=kept, metrics=metrics)


def _read_one(ctx: StepContext, main: Artifact, parse: Callable[[Path], Parsed] | None
              ) -> tuple[dict[str, Metric], int] | str:
    """The tool's output: its headline (else its first figures, so the point still says something), and how many
    of its sections did not read."""
    from planner.parsers import parse_file, summarise

    try:
        parsed = (parse or (lambda p: parse_file(p, main.kind)))(ctx.run_dir / main.path)
    except ParseError as e:
        return str(e)
    heads = summarise(parsed) or list(parsed.metrics[:4])
    return {m.key: from_artifact(m, main) for m in heads}, len(parsed.errors)


def _read_reports(ctx: StepContext, reports: Sequence[Artifact]) -> tuple[dict[str, Metric], int] | str:
    """Every report's headline, a second layout's keys prefixed with its kind (awr_html.physical_read_iops)."""
    from planner.parsers import PREFIXED, parse_file, summarise

    metrics: dict[str, Metric] = {}
    for a in reports:
        try:
            parsed = parse_file(ctx.run_dir / a.path, a.kind)
            if parsed.errors:
                raise parsed.errors[0]
        except ParseError as e:
            return f"{a.path}: {e}"
        prefix = f"{a.kind}." if a.kind in PREFIXED else ""
        for m in summarise(parsed):
            metrics.setdefault(prefix + m.key, from_artifact(m, a))
    return metrics, 0
