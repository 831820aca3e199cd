"""Subcommands over past runs: runs, show, report, compare, export, index (and store: planner.cli.store).

RUN is a run folder path or a run id (folder name) under --runs-dir (default ./runs), or, with --store URL
or PLANNER_STORE, a run id in that results store.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.errors import InputError, Problem
from planner.status import ExitCode

if TYPE_CHECKING:
    from planner.results.finding import Finding
    from planner.results.settings import Setting


def _runs_dir(p: argparse.ArgumentParser) -> None:
    from planner.cli.store import add_store_option

    p.add_argument("--runs-dir", type=Path, default=Path("runs"), help="where run records are (default ./runs)")
    add_store_option(p)


def since(text: str) -> str:
    """--since: an ISO date or date-time (UTC, as run records write them), compared with each run's start."""
    import datetime as dt

    try:
        when = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date: give 2026-03-01 or 2026-03-01T14:00") from None
    if when.tzinfo is not None:
        when = when.astimezone(dt.UTC).replace(tzinfo=None)
    return when.strftime("%Y-%m-%dT%H:%M:%S")


def add_result_commands(sub: Any) -> None:
    p = sub.add_parser("runs", help="list recorded runs")
    p.add_argument("--plan", help="only runs of this plan")
    p.add_argument("--host", help="only runs that used this host (its inventory name)")
    p.add_argument("--since", type=since, metavar="DATE", help="only runs started at or after DATE (UTC)")
    _runs_dir(p)
    p = sub.add_parser("show", help="a run's status, headline metrics and findings")
    p.add_argument("run", help="run folder or run id")
    _runs_dir(p)
    p = sub.add_parser("report", help="(re-)render a run's report: Markdown, or one self-contained HTML page")
    p.add_argument("run", help="run folder or run id")
    p.add_argument("--format", choices=("md", "html"), default="md",
                   help="md (default: <run>/report.md) or html (<run>/report.html, charts inline)")
    p.add_argument("--template", help="template name or path (default: the plan's, else default.md.j2)")
    p.add_argument("-o", "--output", type=Path, help="write here instead of <run>/report.md")
    _runs_dir(p)
    p = sub.add_parser("compare", help="runs side by side: %% difference against the first, better/worse")
    p.add_argument("runs", nargs="+", metavar="RUN", help="two or more run folders or ids (the first is the base)")
    p.add_argument("--metric", help="compare this metric (name, key or part of a key) instead of the headline ones")
    _runs_dir(p)
    p = sub.add_parser("export", help="a run's measurements as CSV or JSON")
    p.add_argument("run", help="run folder or run id")
    p.add_argument("--format", choices=("csv", "json"), default="csv")
    p.add_argument("-o", "--output", type=Path, help="write to a file instead of stdout")
    _runs_dir(p)
    p = sub.add_parser("index", help="rebuild the results store (runs-dir/planner.sqlite) from the run folders; "
                                     "with --store, push every folder there")
    _runs_dir(p)
    from planner.cli.store import add_store_command

    add_store_command(sub)


def dispatch_result_command(args: argparse.Namespace) -> int:
    handler = {"runs": _runs, "show": _show, "report": _report, "compare": _compare, "export": _export,
               "index": _index, "store": _store}.get(args.command)
    if handler is None:
        raise InputError([Problem(None, "", f"unknown command {args.command!r}", "see planner --help")])
    return handler(args)


def _store(args: argparse.Namespace) -> int:
    from planner.cli.store import store_command

    return store_command(args)


def _runs(args: argparse.Namespace) -> int:
    from planner.cli.store import named_store
    from planner.cli.tables import print_table
    from planner.store import RunFilter, open_store, sync

    url = named_store(args)
    where = RunFilter(plan=args.plan, host=args.host, since=args.since)
    with (open_store(url, readonly=True) if url else sync(args.runs_dir)) as store:
        rows = store.runs(where=where)
    if not rows:
        what = "".join(f" {k} {v}" for k, v in (("of plan", args.plan), ("on host", args.host),
                                                 ("since", args.since)) if v)
        print(f"no runs{what} in {url or args.runs_dir}")
        return ExitCode.OK
    table = []
    for r in rows:
        commit = (r.git_commit[:7] + ("+" if r.git_dirty else "")) if r.git_commit else "-"
        table.append([r.id, r.plan, r.status, r.started, commit,
                      ",".join(r.hosts) + (" SIMULATED" if r.simulated else ""),
                      *([r.controller or "-"] if url else [])])
    print_table(["RUN", "PLAN", "STATUS", "STARTED", "GIT", "HOSTS", *(["CONTROLLER"] if url else [])], table)
    return ExitCode.OK


def _show(args: argparse.Namespace) -> int:
    from planner.cli.store import run_data

    with run_data(args.run, args) as data:
        _show_run(data)
    return ExitCode.OK


def finding_lines(findings: Sequence[Finding]) -> list[str]:
    """The findings as `planner show` says them: those about the systems first, then, apart, those about the
    rehearsal itself (its caps, the rehearsing machine), as the report lists them."""
    from planner.metrics import words_in
    from planner.report.study import label_words_of as point_words_of
    from planner.results.finding import About

    def line(f: Finding) -> str:
        # a sweep's points told apart: "exadata exa, 256 SLOB reader sessions"
        where = ", ".join(x for x in (" ".join(x for x in (f.play, f.host) if x), point_words_of(f.point)) if x)
        return f"  {f.severity.value}: {words_in(f.title)} ({where}): {words_in(f.message)}"

    study = [line(f) for f in findings if f.about is not About.REHEARSAL]
    rehearsal = [line(f) for f in findings if f.about is About.REHEARSAL]
    return ([*(["", "findings:"] if study else []), *study]
            + ([*(["", "about this rehearsal (not the systems):"]), *rehearsal] if rehearsal else []))


def _show_run(data: Any) -> None:
    from planner.cli.tables import print_table
    from planner.engine.console import escape_controls
    from planner.engine.runrecord import status_text
    from planner.metrics import display_keys
    from planner.report.study import point_words
    from planner.results.evaluate import evaluate
    from planner.results.stats import fmt

    def say(text: str = "") -> None:  # every line holds record text: control bytes shown, never sent
        print(escape_controls(text))

    m = data.meta
    say(f"run {data.run_id}: plan {m.plan or None} — {status_text(m)}")
    say(f"  {m.started} .. {m.ended}; hosts: {', '.join(sorted(m.hosts))}")
    if data.simulated:
        say("  SIMULATED: numbers come from stand-ins, not real hardware")
    results = evaluate(data)  # the report's findings and verdicts, the same lists
    heads = [s for s in results.series if s.headline]
    if heads:
        names = display_keys(list(dict.fromkeys((s.key, s.unit) for s in heads)))
        say()
        rows = []
        for s in heads:
            sm = s.summary
            spread = f"{fmt(sm.min)} – {fmt(sm.max)}" if sm.n > 1 else ""
            rows.append([s.play, s.host, s.title, point_words(s.params), names[s.key], fmt(sm.median), spread,
                         str(sm.n)])
        print_table(["system", "host", "workload", "point", "metric", "median", "min – max", "n"], rows,
                    numeric=(5, 6, 7), title="headline metrics (median over repeats)")
    for line in finding_lines(results.findings):
        say(line)
    if results.verdicts:
        say("\nreproduction claims:")
        for v in results.verdicts:
            say(f"  {v.verdict.value}: {v.source} ({v.play} {v.metric}): {v.reason}")
    for a in data.artifacts:
        for e in a.errors:
            say(f"  parse problem: {e}")


def _report(args: argparse.Namespace) -> int:
    from planner.cli.store import folder_for_report
    from planner.engine.console import escape_controls
    from planner.report.render import render_run_report

    notes: list[str] = []
    out = render_run_report(folder_for_report(args.run, args), template=args.template, output=args.output,
                            fmt=args.format, notes=notes)
    for note in notes:
        print(f"note: {escape_controls(note)}", file=sys.stderr)
    print(f"report: {out}")
    return ExitCode.OK


def _compare(args: argparse.Namespace) -> int:
    from planner.cli.store import run_data
    from planner.cli.tables import print_table
    from planner.metrics import display_keys
    from planner.report.study import label_words_of
    from planner.results.compare import cell_text, compare
    from planner.results.settings import run_settings

    if len(args.runs) < 2:
        raise InputError([Problem(None, "", "compare needs at least two runs", "give RUN_A RUN_B [RUN_C ...]")])
    runs, settings = [], []
    for r in args.runs:  # each a folder under --runs-dir or, with --store, a run pushed by any controller
        with run_data(r, args) as data:
            runs.append((data.run_id, data.measurements))
            settings.append(data)
    c = compare(runs, args.metric)
    _print_differences(c.runs, [run_settings(d, c.by_play) for d in settings])
    if not c.rows:
        print("no metrics to compare: none are headline metrics, or none match --metric")
        return ExitCode.OK
    names = display_keys(list(dict.fromkeys((row.metric, row.unit) for row in c.rows)))
    head = ["system", "workload", "point", "metric"] if c.by_play else ["workload", "point", "metric"]
    cols = [*head, c.runs[0], *(f"{r} (vs first)" for r in c.runs[1:])]
    rows = []
    for row in c.rows:
        cells = [cell_text(i, cell) for i, cell in enumerate(row.cells)]
        rows.append([*([row.play] if c.by_play else []), row.workload, label_words_of(row.point) or "—",
                     names[row.metric], *cells])
    print_table(cols, rows, numeric=tuple(range(len(head), len(cols))))
    return ExitCode.OK


def _print_differences(run_ids: Sequence[str], settings: Sequence[Mapping[Setting, str]]) -> None:
    """Above the numbers, what the runs were not set alike in: a figure's change may come from these."""
    from planner.cli.tables import print_table
    from planner.report.study import param_words
    from planner.results.settings import differences

    found = differences(settings)
    if not found:
        print("The runs were set alike: same step arguments, host count and host facts.\n")
        return
    print(f"The runs differ in {len(found)} setting(s); a difference in the figures below may come from these:")
    scoped = any(d.setting.scope for d in found)
    rows = [[*([d.setting.scope] if scoped else []),
             f"{param_words(d.setting.name, d.setting.kind)} ({d.setting.kind})" if d.setting.kind
             else d.setting.name, *d.values]
            for d in found]
    print_table([*(["system"] if scoped else []), "setting", *run_ids], rows)
    print()


FIELDS = ("run_id", "play", "host", "step", "title", "kind", "params", "point", "repeat", "warmup", "metric",
          "labels", "value", "unit", "direction", "simulated", "derived", "headline", "source", "artifact")


def export_rows(measurements: Any) -> list[dict[str, Any]]:
    return [{"run_id": m.run_id, "play": m.play, "host": m.host, "step": m.step, "title": m.title, "kind": m.kind,
             "params": dict(m.params), "point": m.point, "repeat": m.repeat, "warmup": m.warmup,
             "metric": m.metric, "labels": dict(m.labels), "value": m.value, "unit": m.unit,
             "direction": m.direction.value, "simulated": m.simulated, "derived": m.derived,
             "headline": m.headline, "source": m.source, "artifact": m.artifact} for m in measurements]


def _export(args: argparse.Namespace) -> int:
    from planner.cli.store import run_data
    from planner.shown import csv_cell

    with run_data(args.run, args) as data:
        rows = export_rows(data.measurements)
    if args.format == "json":
        text = json.dumps(rows, indent=2, default=str) + "\n"  # ensure_ascii: controls and bidi as \uNNNN
    else:
        import csv
        import io

        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            row = {**r, "params": json.dumps(r["params"], default=str), "labels": json.dumps(r["labels"])}
            w.writerow({k: csv_cell(v) for k, v in row.items()})  # a spreadsheet opens it: no formulas
        text = buf.getvalue()
    if args.output:
        from planner.files import write_output

        write_output(args.output, text.encode())
        print(f"{len(rows)} measurements written to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return ExitCode.OK


def _index(args: argparse.Namespace) -> int:
    from planner.cli.store import named_store
    from planner.store import open_store, rebuild, run_folders, store_path

    url = named_store(args)
    if url is None:
        n = rebuild(args.runs_dir)
        print(f"indexed {n} run(s) into {store_path(args.runs_dir)}")
        return ExitCode.OK
    from planner.cli.store import push_folders

    with open_store(url) as store:
        changed, refused = push_folders(store, run_folders(args.runs_dir), quiet=True)
    print(f"pushed {changed} new or changed run(s) from {args.runs_dir} into {url}"
          + (f"; {refused} refused (see above)" if refused else ""))
    return ExitCode.BAD_INPUT if refused else ExitCode.OK
