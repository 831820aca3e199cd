"""Subcommands over past runs (runs, show, report, compare, export, index) — filled in by the reports issue."""

from __future__ import annotations

import argparse
from typing import Any


def add_result_commands(sub: Any) -> None:
    """Register result subcommands; none yet."""


def dispatch_result_command(args: argparse.Namespace) -> int:
    raise NotImplementedError(args.command)
