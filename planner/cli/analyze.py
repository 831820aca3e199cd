"""``planner analyze FILE... [--rated METRIC=VALUE] [--format md|json] [-o OUT.md]``: findings, no run needed.

Parses the files (AWR / Statspack reports and pasted excerpts, ORION, fio, CALIBRATE_IO ...), derives the
metrics, runs every finding and prints them with the numbers that raised them. ``-o`` also writes the
Markdown report to a file. Exit code: 0 when every file was read, 2 when a file could not be read at all.
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


def analyze_command(args: argparse.Namespace, out: TextIO) -> int:
    # here, not at the top: every verb's parser is built with this module, only `analyze` needs the findings
    from planner.cli.parse import check_input_files
    from planner.results.analyze import analyze, parse_rated, to_json, to_markdown

    check_input_files([Path(f) for f in args.files])
    result = analyze(list(args.files), parse_rated(args.rated))
    md = to_markdown(result)
    if args.format == "json":
        json.dump(to_json(result), out, indent=2)
        out.write("\n")
    else:
        out.write(md)
    if args.output:
        from planner.files import write_output  # only here: every verb builds the parser, which imports us

        write_output(Path(args.output), md.encode())
    return ExitCode.FAILED if result.failed else ExitCode.OK
