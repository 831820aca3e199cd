"""SLOB's tables: its axis words and sweep-table columns (SLOB's figures are the AWR report's)."""

from planner.kindspec import KindSpec, ReportWords

_SESSIONS = ("readers", "writers", "reader_schemas", "writer_schemas", "threads_per_schema", "sessions")

KIND = KindSpec(
    "slob", step="planner.steps.wl_slob:Slob",
    report=ReportWords(
        param_words={
            "readers": "SLOB reader sessions", "writers": "SLOB writer sessions",
            # a point with THREADS_PER_SCHEMA > 1 (planner.results.slob_points): schemas x threads = sessions
            "reader_schemas": "SLOB reader schemas", "writer_schemas": "SLOB writer schemas",
            "threads_per_schema": "threads per schema", "sessions": "SLOB sessions",
        },
        counted=frozenset(_SESSIONS),
        table_metrics=("logical_reads_per_s", "physical_reads_per_s", "logical_to_physical_ratio", "db_cpu_per_s"),
    ),
)
