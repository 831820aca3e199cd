"""``planner analyze FILE|DIR... [--rated METRIC=VALUE] [--format md|json] [-o OUT.md] [--html PAGE]``: findings,
no run needed.

Parses the files (AWR / Statspack reports and pasted excerpts, ORION, fio, CALIBRATE_IO ...), derives the
metrics, runs every finding and prints them with the numbers that raised them. ``-o`` also writes the
Markdown report to a file. A run folder given is judged as the run it is (its findings as its report and
``planner show`` give them), not read file by file. Exit code: 0 when every file was read, 2 when a file could
not be read at all.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

from planner.status import ExitCode

FORMATS = ("md", "json")


def add_analyze_command(sub: Any) -> None:
    p = sub.add_parser("analyze", help="findings for reports you already have (AWR, excerpts, ORION, fio ...)")
    p.add_argument("files", type=Path, nargs="+")
    p.add_argument("--rated", action="append", default=[], metavar="METRIC=VALUE",
                   help="a rated figure to hold the results against, e.g. physical_read_iops=1500000")
    p.add_argument("--format", choices=FORMATS, default="md")
    p.add_argument("-o", "--output", type=Path, help="also write the Markdown report here")
    p.add_argument("--html", type=Path, metavar="PAGE.html",
                   help="write the history of many reports of one database (a folder of AWR/Statspack reports) "
                        "as one HTML page with charts")


MAX_FILES = 10_000  # a folder of a year's hourly AWR reports is 8,760


def expand(paths: list[Path]) -> list[Path]:
    """A folder stands for its regular files, in name order (not its sub-folders); anything else is kept as
    given, for check_input_files to judge. Refused, before reading any, past MAX_FILES."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir() and not p.is_symlink():
            out += sorted(f for f in p.iterdir() if f.is_file() and not f.is_symlink())
        else:
            out.append(p)
        if len(out) > MAX_FILES:
            from planner.errors import InputError, Problem

            raise InputError([Problem(None, "", f"more than {MAX_FILES:,} files to analyze",
                                      "name fewer files or a smaller folder")])
    return out


def is_run_folder(path: Path) -> bool:
    """A folder planner wrote for a run (its meta.json): its report.md is not an AWR excerpt to read."""
    from planner.results.runfolder import META

    return path.is_dir() and not path.is_symlink() and (path / META).is_file()


def analyze_command(args: argparse.Namespace, out: TextIO) -> int:
    # here, not at the top: every verb's parser is built with this module, only `analyze` needs the findings
    from planner.cli.parse import check_input_files
    from planner.files import write_output
    from planner.results.analyze import analyze, parse_rated, to_json, to_markdown

    runs = [p for p in map(Path, args.files) if is_run_folder(p)]
    files = expand([p for p in map(Path, args.files) if p not in runs])
    check_input_files(files)
    result = analyze(files, parse_rated(args.rated), runs=runs)
    md = to_markdown(result)
    if args.format == "json":
        json.dump(to_json(result), out, indent=2)
        out.write("\n")
    else:
        out.write(md)
    if args.output:
        write_output(Path(args.output), md.encode())
    if args.html:
        from planner.report.history_html import history_page

        write_output(Path(args.html), history_page(result.histories).encode())
    return ExitCode.FAILED if result.failed else ExitCode.OK
