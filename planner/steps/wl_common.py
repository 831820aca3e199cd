"""What the workload steps and the AWR bracketing share: a remote working folder per point, fetching
what exists (in one round trip), and parsing the main output at once.

Parsing right after the fetch makes a malformed report fail its point with the parser's named ParseError
while the raw file stays in the run record (the FAILED outcome still lists it as an artifact).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from planner.errors import ParseError
from planner.guard import check_path
from planner.metrics import Parsed
from planner.parsers import parse_file, summarise
from planner.results import Artifact, Status
from planner.steps.base import Outcome, StepContext

PARSED_KINDS = frozenset({"awr_text", "awr_html", "statspack", "orion_summary", "orion_csv", "calibrate_io"})


def remote_workdir(ctx: StepContext, *parts: str) -> str:
    """``/tmp/planner-<run id>/<step>[/pointNNN]`` on the host (inside its sandbox on a lab host)."""
    step = re.sub(r"[^A-Za-z0-9_.-]+", "_", ctx.step_path)
    point = f"point{ctx.point.index:03d}" if ctx.point is not None else ""
    segs = [f"/tmp/planner-{ctx.run_dir.name}", step, point, *parts]
    return ctx.path(posixpath.join(*[s for s in segs if s]))


def mkdir(ctx: StepContext, path: str) -> None:
    ctx.run(["mkdir", "-p", path])


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
    """Keep controller-side text (a console log, a calibrate_io.txt) as an artifact of this point."""
    local = ctx.artifacts / name
    local.parent.mkdir(parents=True, exist_ok=True)
    local.write_text(text)
    return Artifact(str(local.relative_to(ctx.run_dir)), kind, simulated=ctx.simulated)


def parse_outcome(ctx: StepContext, artifacts: Sequence[Artifact], msg: str,
                  data: Mapping[str, Any] | None = None) -> Outcome:
    """CHANGED with headline metrics in data["metrics"] ({metric key: value}); FAILED with the ParseError
    when a main output does not parse (its artifacts are kept either way)."""
    metrics: dict[str, float] = {}
    for a in artifacts:
        if a.kind not in PARSED_KINDS:
            continue
        try:
            parsed = parse_file(ctx.run_dir / a.path, a.kind)
            if parsed.errors:
                raise parsed.errors[0]
        except ParseError as e:
            return Outcome(Status.FAILED, f"{msg}; {a.path}: {e}", artifacts=tuple(artifacts),
                           data=dict(data or {}))
        prefix = "" if a.kind in ("awr_text", "statspack", "calibrate_io", "orion_summary") else f"{a.kind}."
        if a.kind == "awr_html" and any(x.kind == "awr_text" for x in artifacts):
            continue  # the text report already gave the headline
        for m in summarise(parsed):
            metrics.setdefault(prefix + m.key, m.value)
    return Outcome(Status.CHANGED, msg, artifacts=tuple(artifacts), data={**dict(data or {}), "metrics": metrics})


def point_workdir(ctx: StepContext, kind: str) -> tuple[str, str]:
    """(step dir, point dir) on the host: ``<planner_workdir or /tmp>/planner/<kind>-<step>/pointNNN``.

    The names depend on the plan only (not the run), so kits and data files can be reused by later runs.
    """
    base = str(ctx.vars.get("planner_workdir") or "/tmp").rstrip("/") or "/tmp"
    check_path(base)
    slug = kind + "-" + re.sub(r"[^A-Za-z0-9]+", "-", ctx.step_path).strip("-")
    step_dir = ctx.path(f"{base}/planner/{slug}")
    index = ctx.point.index if ctx.point is not None else 0
    return step_dir, f"{step_dir}/point{index:03d}"


def fresh_dir(ctx: StepContext, path: str) -> None:
    """Empty the point's own folder first: stale output from an earlier run must never be fetched."""
    ctx.sh('rm -rf -- "$1" && mkdir -p -- "$1"', path)


def tail(text: str | None, n: int = 1500) -> str:
    return (text or "").strip()[-n:]


def finish(ctx: StepContext, tool: str, artifacts: Sequence[Artifact], main: Artifact | None,
           failure: str | None, parse: Callable[[Path], Parsed]) -> Outcome:
    """Parse the main artifact and say how the point went. Artifacts are kept whatever happens."""
    arts = tuple(artifacts)
    if main is None:
        return Outcome(Status.FAILED, failure or f"{tool} wrote no output", artifacts=arts)
    try:
        parsed = parse(ctx.run_dir / main.path)
    except ParseError as e:
        return Outcome(Status.FAILED, (f"{failure}; " if failure else "") + str(e), artifacts=arts)
    heads = summarise(parsed) or list(parsed.metrics[:4])
    metrics = {m.key: m.value for m in heads}
    if failure:
        return Outcome(Status.FAILED, failure, artifacts=arts, data={"metrics": metrics})
    shown = ", ".join(f"{m.key}={m.value:.6g} {m.unit}".rstrip() for m in heads[:3])
    problems = f" ({len(parsed.errors)} section(s) unreadable)" if parsed.errors else ""
    return Outcome(Status.CHANGED, f"{tool}: {shown}{problems}", artifacts=arts, data={"metrics": metrics})
