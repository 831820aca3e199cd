"""A SLOB point's parameters as the kit ran them, for the report's axes and point words.

SLOB 2.x's ``readers``/``writers`` are schema counts: runit.sh connects THREADS_PER_SCHEMA sessions to each
schema (2.4.0 runit.sh, goryszewskig/SLOB-PDB @ e8d9167, usage :801-805 and the launch loop; 2.5.x the same), so
with more than one thread a point labelled "64 SLOB reader sessions" ran 256. The step records what it connected
(``sessions``, ``threads_per_schema``); a point with more than one thread per schema reads as schemas, threads per
schema and sessions, and sessions is the last parameter, the one the chart's x axis takes on a tie.
"""

from __future__ import annotations

from typing import Any

SCHEMA_WORDS = {"readers": "reader_schemas", "writers": "writer_schemas"}
ADDED = ("threads_per_schema", "sessions")


def kit_params(params: tuple[tuple[str, Any], ...], threads: int, sessions: int) -> tuple[tuple[str, Any], ...]:
    """``params`` unchanged unless a SLOB point connected more than one session per schema."""
    if threads <= 1 or sessions <= 0:
        return params
    kept = tuple((SCHEMA_WORDS.get(k, k), v) for k, v in params if k not in ADDED)
    return kept + (("threads_per_schema", threads), ("sessions", sessions))
