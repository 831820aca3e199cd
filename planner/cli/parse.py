"""``planner parse FILE...``: detect each file's kind and print its metrics (table, json or csv).

AWR-family reports also get their derived metrics (IOPS, IOPS per core, single-block latency ...,
formulas in planner/parsers/derived.py) after the ones read from the file, flagged ``derived``.

Exit code: 0 when every file was read completely, 2 when a file could not be parsed or a section of
one could not be read (the readable metrics are still printed, the errors are listed).
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from planner.errors import InputError, ParseError, Problem, input_error
from planner.metrics import Metric, Parsed
from planner.parsers import DbReport, describe, kinds_where, parse_file
from planner.status import ExitCode

FORMATS = ("table", "json", "csv")
_COLUMNS = ("file", "kind", "metric", "value", "unit", "direction", "line")
_AWR_FAMILY = kinds_where(lambda k: k.db_report not in (DbReport.NONE, DbReport.COMPARE))


@dataclass(frozen=True, slots=True)
class FileResult:
    path: Path
    parsed: Parsed | None
    error: ParseError | None
    derived: tuple[Metric, ...] = ()

    @property
    def metrics(self) -> tuple[Metric, ...]:
        return (tuple(self.parsed.metrics) if self.parsed else ()) + self.derived


def _derived(parsed: Parsed) -> tuple[Metric, ...]:
    if parsed.kind not in _AWR_FAMILY:
        return ()
    from planner.parsers.derived import derive

    return tuple(derive(parsed))


def _value(v: float) -> str:
    if v.is_integer():
        return f"{v:.0f}"
    return f"{v:.6f}".rstrip("0").rstrip(".") or "0"


def _row(path: Path, kind: str, m: Metric, mark: bool = True) -> tuple[str, ...]:
    line = str(m.source.line) if m.source and m.source.line else ""
    name = f"{m.key} (derived)" if m.derived and mark else m.key
    return (str(path), kind, name, _value(m.value), m.unit, m.direction.value, line)


def _metric_json(m: Metric) -> dict[str, Any]:
    return {"name": m.name, "labels": dict(m.labels), "value": m.value, "unit": m.unit,
            "direction": m.direction.value, "derived": m.derived,
            "source": {"file": m.source.file, "line": m.source.line} if m.source else None}


def _json(results: list[FileResult], out: TextIO) -> None:
    doc: list[dict[str, Any]] = []
    for r in results:
        if r.parsed is None:
            doc.append({"file": str(r.path), "kind": None, "error": str(r.error)})
            continue
        p = r.parsed
        d = describe(p)
        doc.append({"file": str(r.path), "kind": p.kind, "read_as": d.kind_name, "version": d.version or None,
                    "layout": d.layout or None, "not_read": list(d.unread), "facts": dict(p.facts),
                    "metrics": [_metric_json(m) for m in r.metrics],
                    "errors": [str(e) for e in p.errors], "simulated": p.simulated})
    json.dump(doc, out, indent=2)
    out.write("\n")


def _csv(results: list[FileResult], out: TextIO) -> None:
    w = csv.writer(out, lineterminator="\n")
    w.writerow((*_COLUMNS, "derived"))
    for r in results:
        if r.parsed is not None:
            w.writerows((*_row(r.path, r.parsed.kind, m, mark=False), str(m.derived).lower()) for m in r.metrics)


def _described(results: list[FileResult]) -> list[str]:
    """Per file, first: which kind it was read as, its version, what could not be read: a file read
    as the wrong kind must be seen before its numbers are."""
    return [f"{r.path}: {describe(r.parsed)}" if r.parsed else f"{r.path}: not read" for r in results]


def _problems(results: list[FileResult]) -> list[str]:
    out = []
    for r in results:
        if r.error is not None:
            out.append(f"error: {r.error}")
        elif r.parsed is not None:
            out.extend(f"warning: {e}" for e in r.parsed.errors)
    return out


def _plain(results: list[FileResult], out: TextIO) -> None:
    for line in _described(results):
        out.write(line + "\n")
    rows = [_row(r.path, r.parsed.kind, m) for r in results if r.parsed for m in r.metrics]
    widths = [max([len(c)] + [len(row[i]) for row in rows]) for i, c in enumerate(_COLUMNS)]
    numeric = {3, 6}
    for row in [_COLUMNS, *rows]:
        cells = [c.rjust(widths[i]) if i in numeric else c.ljust(widths[i]) for i, c in enumerate(row)]
        out.write("  ".join(cells).rstrip() + "\n")
    for line in _problems(results):
        out.write(line + "\n")


def _rich(results: list[FileResult], out: TextIO) -> None:
    from rich.console import Console  # only for a terminal; plain text elsewhere
    from rich.table import Table

    console = Console(file=out)
    for line in _described(results):
        console.print(line, markup=False, highlight=False)
    for r in results:
        if r.parsed is None:
            continue
        table = Table(title=f"{r.path} ({r.parsed.kind})", title_justify="left")
        for i, col in enumerate(_COLUMNS[2:], 2):
            table.add_column(col, justify="right" if i in (3, 6) else "left")
        for m in r.metrics:
            table.add_row(*_row(r.path, r.parsed.kind, m)[2:])
        console.print(table)
    for line in _problems(results):
        console.print(line, style="red" if line.startswith("error") else "yellow",
                      markup=False, highlight=False)


def run_parse(files: list[Path], fmt: str, out: TextIO) -> ExitCode:
    """Parse every file, print the metrics in ``fmt`` ("table", "json", "csv") to ``out``.

    Returns 0 when everything was read, 2 when any file (or a section of one) could not be.
    """
    if fmt not in FORMATS:
        raise input_error(f"unknown output format {fmt!r}", hint=f"use one of: {', '.join(FORMATS)}")
    results: list[FileResult] = []
    for path in files:
        try:
            parsed = parse_file(path)
            results.append(FileResult(path, parsed, None, _derived(parsed)))
        except ParseError as e:
            results.append(FileResult(path, None, e))
    if fmt == "json":
        _json(results, out)
    elif fmt == "csv":
        _csv(results, out)
    elif getattr(out, "isatty", lambda: False)():
        _rich(results, out)
    else:
        _plain(results, out)
    failed = any(r.error is not None or (r.parsed is not None and r.parsed.errors) for r in results)
    return ExitCode.FAILED if failed else ExitCode.OK


def check_input_files(files: list[Path]) -> None:
    """Every file to read is a regular file: a FIFO, device or folder is named as what it is (a FIFO read
    could block for ever, a device never end), a missing one as missing; all at once, before reading any."""
    problems = []
    for f in files:
        what = _not_a_file(Path(f))
        if what:
            problems.append(Problem(None, "", f"{f}: {what}", "give the path of a regular file"))
    if problems:
        raise InputError(problems)


def _not_a_file(path: Path) -> str:
    import stat

    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "no such file"
    except OSError as e:
        return f"cannot be read ({e.strerror or e})"
    if stat.S_ISREG(mode):
        return ""
    kinds = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
    return "is " + next((w for test, w in kinds if test(mode)), "not a regular file") + ", not a regular file"
